// Runs through the API, as a member submits them: the suite's one "submit, then wait until it
// ends" and "add a benchmark, then wait until it is synced".

import type { TestApi } from '@osmosis/api/testing';
import type { Db } from '@osmosis/db';
import { packTarBuffer } from '@osmosis/tasks';
import { waitFor } from './wait.ts';

export const RUN_END_STATUSES = ['finished', 'failed', 'stopped'] as const;

// biome-ignore lint/suspicious/noExplicitAny: tests read the run view loosely
export type RunView = Record<string, any>;

export interface SubmittedRun {
  id: string;
  name: string;
}

/** POST /v1/runs with `toml`; fails the test with the API's answer unless the run is created. */
export async function submitRun(
  api: TestApi,
  token: string,
  toml: string,
  fileName = 'run.toml',
): Promise<SubmittedRun> {
  const res = await api.request('POST', '/v1/runs', {
    token,
    body: { config_toml: toml, file_name: fileName },
  });
  if (res.status !== 201) throw new Error(`the run was not created: HTTP ${res.status} ${res.text}`);
  return { id: res.body.data.id, name: res.body.data.name };
}

/**
 * Waits until the run ends (finished, failed or stopped) and returns GET /v1/runs/:name's data.
 * `idleMs`: what the run may take on an idle machine (test/helpers/wait.ts stretches it with load).
 */
export async function runEnded(
  api: TestApi,
  token: string,
  name: string,
  idleMs = 600_000,
): Promise<RunView> {
  let last = 'not read yet';
  try {
    return await waitFor(
      async () => {
        const res = await api.request('GET', `/v1/runs/${name}`, { token });
        const run = res.body?.data as RunView | undefined;
        last = run ? `${run.status} (${JSON.stringify(run.progress ?? {})})` : `HTTP ${res.status}`;
        return run && (RUN_END_STATUSES as readonly string[]).includes(run.status) ? run : null;
      },
      idleMs,
      500,
    );
  } catch (error) {
    throw new Error(`run ${name} did not end: last seen ${last}; ${(error as Error).message}`);
  }
}

/** Submits `toml` and waits until the run ends; returns the ended run's view. */
export async function submitAndWait(
  api: TestApi,
  token: string,
  toml: string,
  options: { fileName?: string; idleMs?: number } = {},
): Promise<RunView> {
  const { name } = await submitRun(api, token, toml, options.fileName);
  return runEnded(api, token, name, options.idleMs);
}

/** Waits until the benchmark `key` is synced and returns it; a failed sync fails at once with its error. */
export async function benchmarkReady(
  api: TestApi,
  token: string,
  key: string,
  idleMs = 300_000,
): Promise<RunView> {
  return waitFor(
    async () => {
      const data = (await api.request('GET', `/v1/benchmarks/${key}`, { token })).body.data;
      if (data?.sync_status === 'failed')
        throw new Error(`benchmark ${key} failed to sync: ${data.sync_error}`);
      return data?.sync_status === 'ready' ? data : null;
    },
    idleMs,
    500,
  );
}

/**
 * Uploads the task folder `dir` as an archive benchmark (its benchmark.toml names the key, or
 * `key`; `params`: the upload's other settings, e.g. `judge_kind`) and waits until it is synced;
 * returns the benchmark.
 */
export async function addBenchmark(
  api: TestApi,
  token: string,
  dir: string,
  key?: string,
  params: Record<string, string> = {},
): Promise<RunView> {
  const qs = new URLSearchParams({ ...(key ? { key } : {}), ...params }).toString();
  const res = await fetch(`${api.url}/v1/benchmarks/archive${qs ? `?${qs}` : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
    body: await packTarBuffer(dir, { gzip: true }),
  });
  const body = await res.text();
  if (res.status !== 202) throw new Error(`the benchmark upload was refused: HTTP ${res.status} ${body}`);
  return benchmarkReady(api, token, key ?? JSON.parse(body).data.key);
}

/**
 * Waits until the run's row ends (a run seeded straight into Postgres) and fails unless it
 * finished; returns the row.
 */
export async function runFinished(db: Db, runId: string, idleMs = 300_000) {
  const run = await waitFor(
    async () => {
      const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
      return (RUN_END_STATUSES as readonly string[]).includes(row.status) ? row : null;
    },
    idleMs,
    250,
  );
  if (run.status !== 'finished')
    throw new Error(`run ${run.name} ended ${run.status}: ${run.errorMessage ?? 'no error recorded'}`);
  return run;
}
