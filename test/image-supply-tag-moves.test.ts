// A tag that moves in the middle of a run, through the API and the real worker: image A is pushed
// to a loopback registry as `…/alexgshaw/moving-…:20251031` and a run of three attempts of one
// task (one at a time) starts. Once the first attempt has pinned the run to A's digest — its
// sandbox held by a gate — image B is pushed under the same tag and the engine's own copy of the
// tag is moved to B as well (another run pulled it). Every attempt of the run still runs on A (its
// verifier reads a marker only A has), and the pin the run shows in `runs info --json` and in
// results.csv is A's digest, as in the run's lock and its Harbor export.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { getDocker, pulledCandidates } from '@osmosis/sandbox';
import type { RunningWorker } from '@osmosis/worker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGates } from './helpers/gates.ts';
import { pushImage, removeLocalNames, startRegistry, type TestRegistry } from './helpers/registry.ts';
import { addBenchmark, runEnded, submitRun } from './helpers/runs.ts';
import { BASE_IMAGE } from './helpers/tool-images.ts';
import { waitFor } from './helpers/wait.ts';
import { startTestWorker, TEST_PRIVATE_NETWORK_ALLOWLIST } from './helpers/worker.ts';

const run = promisify(execFile);
const docker = getDocker();
const unique = randomUUID().slice(0, 8);
/** local builds of the two images (their names are this test's own) */
const LOCAL = { a: `osmosis-test-tag-moves/a:${unique}`, b: `osmosis-test-tag-moves/b:${unique}` };

let registry: TestRegistry;
let reference: string;
let api: TestApi;
let worker: RunningWorker;
let owner: SeededMember;
let root: string;
/** the first test's run and the digest it pinned (the second reproduces it) */
let first: { name: string; digest: string } | undefined;
const savedEnv: Record<string, string | undefined> = {};

async function buildMarked(name: string, marker: string): Promise<void> {
  const ctx = mkdtempSync(path.join(root, 'ctx-'));
  writeFileSync(path.join(ctx, 'Dockerfile'), `FROM ${BASE_IMAGE}\nRUN echo ${marker} > /osmosis-marker\n`);
  await run('docker', ['build', '-q', '--network', 'none', '-t', name, ctx]);
}

/** One task on the moving tag; the oracle waits at the gate, the verifier passes only on A. */
function writeBenchmark(): string {
  const dir = path.join(root, 'bench');
  const task = path.join(dir, 'read-marker');
  for (const sub of ['environment', 'tests', 'solution'])
    mkdirSync(path.join(task, sub), { recursive: true });
  writeFileSync(path.join(dir, 'benchmark.toml'), 'key = "moving-tag"\nname = "Moving tag"\n');
  writeFileSync(
    path.join(task, 'task.toml'),
    `version = "1.0"\n\n[agent]\ntimeout_sec = 600.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\ndocker_image = "${reference}"\nimage_source = "pull"\ncpus = 1\nmemory_mb = 512\nstorage_mb = 1024\n`,
  );
  writeFileSync(path.join(task, 'instruction.md'), 'Nothing to do.\n');
  writeFileSync(path.join(task, 'environment', 'Dockerfile'), `FROM ${BASE_IMAGE}\n`);
  writeFileSync(
    path.join(task, 'solution', 'solve.sh'),
    '#!/bin/sh\nwhile [ ! -e /tmp/osmosis-gate-open ]; do sleep 0.2; done\n',
  );
  writeFileSync(
    path.join(task, 'tests', 'test.sh'),
    '#!/bin/sh\nif [ "$(cat /osmosis-marker)" = A ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
  );
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'osmosis-tag-moves-'));
  registry = await startRegistry();
  reference = `${registry.host}/alexgshaw/moving-${unique}:20251031`;
  await buildMarked(LOCAL.a, 'A');
  await buildMarked(LOCAL.b, 'B');
  for (const [k, v] of Object.entries({
    OSMOSIS_IMAGE_REGISTRIES: registry.host,
    OSMOSIS_DATA_DIR: path.join(root, 'data'),
    OSMOSIS_SECRET_KEYS: `tagmoves1:${Buffer.alloc(32, 5).toString('base64')}`,
  })) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
  api = await startTestApi({ privateNetworkAllowlist: TEST_PRIVATE_NETWORK_ALLOWLIST });
  owner = await api.seedWorkspace();
  worker = await startTestWorker(api, path.join(root, 'data'), { concurrency: 1 });
  await addBenchmark(api, owner.token, writeBenchmark());
}, 600_000);

afterAll(async () => {
  const scope = worker?.context.scope;
  await worker?.close();
  await api?.close();
  if (scope)
    for (const candidate of await pulledCandidates(docker, scope).catch(() => []))
      await candidate.remove().catch(() => undefined);
  const leftovers = (await docker.listImages())
    .flatMap((i) => [...(i.RepoTags ?? []), ...(i.RepoDigests ?? [])])
    .filter((n) => registry && n.startsWith(`${registry.host}/`));
  await removeLocalNames([...leftovers, LOCAL.a, LOCAL.b]);
  await registry?.stop();
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('a tag that moves mid-run', { timeout: 900_000 }, () => {
  it('every attempt runs on the digest the run pinned first, and the run shows that pin', async () => {
    const digestA = await pushImage(LOCAL.a, reference);
    expect(
      await docker
        .getImage(reference)
        .inspect()
        .catch(() => null),
      'the engine has it first',
    ).toBeNull();
    const toml = `[experiment]\nbenchmark = "moving-tag"\n\n[execution]\nattempts_per_task = 3\nmax_concurrent_attempts = 1\n\n[[agents]]\nharness = "oracle"\n`;
    const submitted = await submitRun(api, owner.token, toml, 'moving.toml');
    first = { name: submitted.name, digest: digestA };

    // the first attempt pulled A and pinned it; its sandbox waits at the gate
    const pin = await waitFor(
      () => api.db.runImagePin.findFirst({ where: { runId: submitted.id } }),
      300_000,
      250,
    );
    expect(pin).toMatchObject({ reference, digest: digestA });
    // the tag moves to B, in the registry and in the engine's own names
    const digestB = await pushImage(LOCAL.b, reference);
    expect(digestB).not.toBe(digestA);
    await run('docker', ['pull', '-q', reference]);
    const local = await docker.getImage(reference).inspect();
    expect(local.RepoDigests).toContain(`${reference.replace(/:[^:/]+$/, '')}@${digestB}`);
    const movedAt = new Date();

    const gates = openGates(submitted.id);
    let ended: Record<string, unknown>;
    try {
      ended = await runEnded(api, owner.token, submitted.name, 600_000);
    } finally {
      await gates.stop();
    }
    expect(ended.status).toBe('finished');
    const attempts = await api.db.attempt.findMany({
      where: { runId: submitted.id },
      orderBy: { index: 'asc' },
    });
    expect(attempts).toHaveLength(3);
    // two attempts at least began after the move: the pin, not the tag, chose their image
    expect(attempts.filter((a) => a.startedAt && a.startedAt > movedAt).length).toBeGreaterThanOrEqual(2);
    for (const a of attempts) {
      expect(a, `attempt ${a.index}: ${a.errorMessage}`).toMatchObject({ outcome: 'passed', reward: 1 });
      expect(a.imageInfo, `attempt ${a.index}`).toMatchObject({ source: 'registry', digest: digestA });
    }

    // `runs info --json` shows the run's pin
    const info = (await api.request('GET', `/v1/runs/${submitted.name}`, { token: owner.token })).body.data;
    expect(info.image_pins).toEqual([expect.objectContaining({ reference, digest: digestA })]);
    // results.csv names A's digest on every attempt's row
    const res = await fetch(`${api.url}/v1/runs/${submitted.name}/downloads/file?path=results.csv`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(200);
    const [header, ...rows] = (await res.text()).trim().split(/\r?\n/);
    const column = header!.split(',').indexOf('image_digest');
    expect(column).toBeGreaterThanOrEqual(0);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.split(',')[column]).toBe(digestA);

    // the run's lock holds the pin, and so does the Harbor export of the run (TB2-shaped task)
    const lock = (await api.request('GET', `/v1/runs/${submitted.name}/lock`, { token: owner.token })).body
      .data;
    expect(lock.images).toEqual([expect.objectContaining({ reference, digest: digestA })]);
    const exported = await fetch(`${api.url}/v1/runs/${submitted.name}/export?format=harbor`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(exported.status).toBe(200);
    const out = mkdtempSync(path.join(root, 'export-'));
    writeFileSync(path.join(out, 'job.tar.gz'), Buffer.from(await exported.arrayBuffer()));
    await run('tar', ['-xzf', 'job.tar.gz'], { cwd: out });
    expect(await readdir(out)).toContain('lock.json');
    const ownLock = JSON.parse(await readFile(path.join(out, 'osmosis-lock.json'), 'utf8'));
    expect(ownLock.images).toEqual([expect.objectContaining({ reference, digest: digestA })]);
    expect(ownLock.fingerprint).toBe(lock.fingerprint);
  });

  it('a reproduction whose pinned digest was deleted from the registry ends each attempt naming that digest', async () => {
    if (!first) throw new Error('the first test did not get as far as its run');
    const { name, digest } = first;
    // the registry deletes A (the tag now names B), and the engine forgets A entirely
    const repository = reference.slice(registry.host.length + 1, reference.lastIndexOf(':'));
    const deleted = await fetch(`${registry.url}/v2/${repository}/manifests/${digest}`, { method: 'DELETE' });
    expect(deleted.status).toBe(202);
    const pinnedName = `${reference.slice(0, reference.lastIndexOf(':'))}@${digest}`;
    const a = await docker.getImage(pinnedName).inspect();
    await run('docker', ['rmi', '-f', a.Id]);

    const res = await api.request('POST', `/v1/runs/${name}/reproduce`, { token: owner.token });
    expect(res.status, res.text).toBe(201);
    const again = res.body.data as { id: string; name: string };
    const pins = await api.db.runImagePin.findMany({ where: { runId: again.id } });
    expect(pins).toEqual([expect.objectContaining({ reference, digest })]);
    await runEnded(api, owner.token, again.name, 600_000);
    const attempts = await api.db.attempt.findMany({ where: { runId: again.id } });
    expect(attempts).toHaveLength(3);
    for (const x of attempts) {
      expect(x, `attempt ${x.index}`).toMatchObject({ outcome: 'errored', errorClass: 'image_pull' });
      expect(x.errorMessage).toContain(
        `at the digest this run is pinned to (${digest}) is no longer in its registry`,
      );
    }
  });
});
