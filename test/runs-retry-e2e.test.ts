// Retrying the unscored attempts of a run end to end, nothing faked but the model provider: the
// bundled sample benchmark synced by a real worker, a run of `oracle` and `terminus-2` (an
// endpoint model at the fake model server) on create-greeting executed in Docker sandboxes while
// the fake is stopped, so terminus-2's attempts error; the run ends. Then the fake comes back on
// the same port and the run is retried through the CLI (preview, then --yes): only the errored
// attempts run again, under the same ids; the oracle's scored attempt keeps its row; the run
// ends finished with the new scores, and the earlier error stays in the attempt's events.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { fakeIO } from '@osmosis/cli/testing';
import { CliActionEnvelope } from '@osmosis/contracts';
import type { RunningWorker } from '@osmosis/worker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBenchmarkCli } from './helpers/cli-runner.ts';
import { type FakeModelServer, type FakeReply, startFakeModelServer } from './helpers/fake-model-server.ts';
import { addBenchmark, runEnded, submitRun } from './helpers/runs.ts';
import { startTestWorker, TEST_PRIVATE_NETWORK_ALLOWLIST } from './helpers/worker.ts';

const SAMPLE_DIR = path.resolve(import.meta.dirname, '../examples/benchmarks/sample');
const MODEL_KEY = 'sk-fake-model-key-for-the-retry-test';

let api: TestApi;
let worker: RunningWorker;
let owner: SeededMember;
let fake: FakeModelServer;
let fakePort: number;
let dataDir: string;
let configDir: string;

/** One terminus-2 turn as the model would answer it (the harness's JSON reply format). */
function turn(analysis: string, keystrokes: string[], taskComplete: boolean): FakeReply {
  return {
    kind: 'text',
    text: JSON.stringify({
      analysis,
      plan: analysis,
      commands: keystrokes.map((k) => ({ keystrokes: k, duration: 0.2 })),
      task_complete: taskComplete,
    }),
    usage: { input: 800, output: 60 },
  };
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-retry-e2e-'));
  configDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-retry-cli-'));
  process.env.OSMOSIS_DATA_DIR = dataDir; // the API stores uploads and secrets where the worker reads them
  process.env.OSMOSIS_SECRET_KEYS = `retry1:${Buffer.alloc(32, 9).toString('base64')}`;
  // the operator of this platform allows its loopback model server (the fake) as an endpoint
  api = await startTestApi({ privateNetworkAllowlist: TEST_PRIVATE_NETWORK_ALLOWLIST });
  owner = await api.seedWorkspace();
  worker = await startTestWorker(api, dataDir, { concurrency: 2 });
  fake = await startFakeModelServer();
  fakePort = fake.port;
}, 120_000);

afterAll(async () => {
  await worker?.close();
  await fake?.close();
  await api?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = fakeIO({
    env: { OSMOSIS_CONFIG_DIR: configDir, OSMOSIS_TOKEN: owner.token, OSMOSIS_PLATFORM_URL: api.url },
    stdin: '',
  });
  return runBenchmarkCli(io, argv);
}

const ended = (name: string) => runEnded(api, owner.token, name);

interface AttemptView {
  id: string;
  agent_index: number;
  outcome: string | null;
  error_class: string | null;
  error_message: string | null;
  finished_at: string | null;
  retries: { outcome: string; error_message: string | null }[];
}

describe('retry the unscored attempts of a run', { timeout: 1_200_000 }, () => {
  it('re-runs only the attempts that errored while the model server was down', async () => {
    await addBenchmark(api, owner.token, SAMPLE_DIR);
    const secret = await api.request('PUT', '/v1/secrets/FAKE_MODEL_KEY', {
      token: owner.token,
      body: { value: MODEL_KEY },
    });
    expect(secret.status).toBeLessThan(300);

    // the provider is down for the whole first pass
    await fake.close();
    const toml = [
      '[experiment]',
      'benchmark = "sample"',
      '',
      '[tasks]',
      'task_names = ["create-greeting"]',
      '',
      '[execution]',
      'max_concurrent_attempts = 2',
      'max_retries = 0',
      // room for the model client's own retries of the refused connection (about a minute) to
      // run out inside the agent's timeout: the attempt errors, it does not time out (a fail)
      'timeout_multiplier = 4',
      '',
      '[[agents]]',
      'harness = "oracle"',
      '',
      '[[agents]]',
      'harness = "terminus-2"',
      '[agents.model]',
      'type = "endpoint"',
      `base_url = "http://127.0.0.1:${fakePort}/v1"`,
      'model = "fake-gpt"',
      'api_key_secret = "FAKE_MODEL_KEY"',
      '',
    ].join('\n');
    const { name } = await submitRun(api, owner.token, toml, 'retry.toml');

    const first = await ended(name);
    const firstAttempts = first.attempts as AttemptView[];
    const oracle = firstAttempts.find((a) => a.agent_index === 0)!;
    const broken = firstAttempts.find((a) => a.agent_index === 1)!;
    expect(oracle.outcome).toBe('passed');
    expect(broken.outcome, JSON.stringify(broken)).toBe('errored');
    const firstError = broken.error_message;
    expect(firstError).toBeTruthy();

    // the provider is back, on the same address
    fake = await startFakeModelServer({ port: fakePort });
    fake.enqueue(
      turn('Write the greeting.', ["printf 'Hello, Osmosis!\\n' > /app/greeting.txt\n"], true),
      turn('The file holds the greeting.', [], true),
    );

    // CLI preview: --json never prompts, so without --yes the preview comes back as the
    // confirmation that is needed, and nothing changes
    const preview = await cli(['--json', 'benchmark', 'runs', 'retry', name]);
    expect(preview.error?.code).toBe('INTERACTIVE_REQUIRED');
    const summary =
      (preview.error?.details as { summary?: Record<string, string> } | undefined)?.summary ?? {};
    expect(summary['Attempts to re-run']).toBe('1');
    expect(summary['Agent 1']).toContain('terminus-2 fake-gpt');
    expect(summary['Agent 1']).toContain('1 errored, 0 cancelled');
    expect(summary['Agent 0']).toBeUndefined(); // nothing of the oracle's is retried
    expect((await api.request('GET', `/v1/runs/${name}`, { token: owner.token })).body.data.status).toBe(
      first.status,
    );

    const done = await cli(['--json', 'benchmark', 'runs', 'retry', name, '--yes']);
    expect(done.error, done.err).toBeUndefined();
    const action = CliActionEnvelope.parse(JSON.parse(done.out));
    expect(action).toMatchObject({
      status: 'success',
      operation: 'benchmark.retry',
      resource: { name, status: 'queued', previous_status: first.status, requeued_attempts: 1 },
    });

    const second = await ended(name);
    expect(second.status).toBe('finished');
    const secondAttempts = second.attempts as AttemptView[];
    expect(secondAttempts.map((a) => a.id).sort()).toEqual(firstAttempts.map((a) => a.id).sort());
    const oracleAfter = secondAttempts.find((a) => a.id === oracle.id)!;
    expect(oracleAfter).toEqual(oracle); // the scored attempt is untouched
    const fixed = secondAttempts.find((a) => a.id === broken.id)!;
    expect(fixed.outcome).toBe('passed');
    expect(fixed.retries.at(-1)).toMatchObject({ outcome: 'errored', error_message: firstError });
    expect(fake.requests.length).toBe(2);
    expect(second.results.agents.map((a: { pass_at_1: number | null }) => a.pass_at_1)).toEqual([1, 1]);

    // the earlier error stays in the attempt's events, before the new try's
    const events = await api.request('GET', `/v1/runs/${name}/events?limit=200`, { token: owner.token });
    const ofAttempt = (events.body.items as { step: string; message: string; attempt_id: string | null }[])
      .filter((e) => e.attempt_id === broken.id)
      .map((e) => `${e.step}: ${e.message}`);
    const retriedAt = ofAttempt.findIndex((line) => line.startsWith('attempt.retried:'));
    expect(retriedAt, ofAttempt.join('\n')).toBeGreaterThan(0);
    expect(ofAttempt[retriedAt]).toContain('ended errored');
    expect(ofAttempt.slice(0, retriedAt).some((l) => l.startsWith('attempt.finished: attempt errored'))).toBe(
      true,
    );
    expect(
      ofAttempt.slice(retriedAt).some((l) => l.startsWith('attempt.started') && l.includes('(try 2)')),
    ).toBe(true);
    expect(ofAttempt.at(-1)).toMatch(/^attempt\.finished: attempt passed/);
  });
});
