// `osmosis benchmark runs export` against a real API and Postgres on loopback, with runs seeded in
// the database: a Terminal-Bench leaderboard submission written and checked against Harbor 0.9's
// field lists; a run with timeout_multiplier = 2 and one with 3 trials per task refused, each
// naming the rule (and the reuse_from that would complete the short one); DIR refused when not
// empty unless --force; the route's own refusals (missing metadata, another workspace's run).
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { buildContext, CliError, fakeIO, runsExportAction } from '@osmosis/cli/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { harborFieldErrors } from './helpers/harbor-fields.ts';
import { seedBenchmark, seedRun } from './results-seed.ts';

let api: TestApi;
let owner: SeededMember;
let dataDir: string;
let root: string;
const previousDataDir = process.env.OSMOSIS_DATA_DIR;
const SUBMISSION = { agentUrl: 'https://github.com/acme/agent', agentName: 'Acme Agent', org: 'Acme' };

/** A finished run of 2 tasks × `tries` with openai/gpt-5, each attempt with its reward file and stdout. */
async function seedScoredRun(name: string, tries: number, timeoutMultiplier = 1) {
  const bench = await seedBenchmark(api.db, owner.workspaceId, 2);
  const run = await seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkId: bench.benchmarkId,
    tasks: 2,
    runName: name,
    attemptsPerTask: tries,
    agents: [{ harness: 'terminus-2', model: 'openai/gpt-5' }],
    attempt: (_agent, task, index) => ({
      outcome: (task + index) % 2 === 0 ? 'passed' : 'failed',
      input_tokens: 1000,
      output_tokens: 100,
      cache_tokens: 10,
      cost_usd: 0.01,
      env_ms: 1000,
      agent_ms: 5000,
      verifier_ms: 500,
    }),
  });
  await api.db.run.update({ where: { id: run.runId }, data: { timeoutMultiplier } });
  for (const a of run.attempts) {
    const reward = a.outcome === 'passed' ? '1' : '0';
    for (const [file, body] of [
      ['verifier/reward.txt', reward],
      ['verifier/test-stdout.txt', `tests ran: reward ${reward}\n`],
    ] as const) {
      const key = `export-test/${a.id}/${file}`;
      await mkdir(path.dirname(path.join(dataDir, key)), { recursive: true });
      await writeFile(path.join(dataDir, key), body);
      await api.db.artifact.create({
        data: { attemptId: a.id, path: file, size: Buffer.byteLength(body), storageKey: key },
      });
    }
  }
  return run;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'osmosis-export-data-'));
  process.env.OSMOSIS_DATA_DIR = dataDir;
  api = await startTestApi();
  owner = await api.seedWorkspace();
  root = await mkdtemp(path.join(tmpdir(), 'osmosis-export-'));
  await seedScoredRun('five-tries', 5);
  await seedScoredRun('three-tries', 3);
  await seedScoredRun('double-time', 5, 2);
});

afterAll(async () => {
  await api?.close();
  if (previousDataDir === undefined) delete process.env.OSMOSIS_DATA_DIR;
  else process.env.OSMOSIS_DATA_DIR = previousDataDir;
  await rm(dataDir, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

async function exportRun(run: string, options: Record<string, unknown>) {
  const io = fakeIO({ env: { OSMOSIS_TOKEN: owner.token }, cwd: root });
  const ctx = buildContext(io, { json: true, platform: api.url }, 'benchmark runs export');
  await runsExportAction(ctx, run, options);
  return JSON.parse(io.out());
}

async function exportError(run: string, options: Record<string, unknown>): Promise<CliError> {
  try {
    await exportRun(run, options);
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('the export was not refused');
}

/** Every file under `dir`, relative, sorted. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('runs export --format tb-leaderboard (real API)', () => {
  it('writes metadata.yaml and the job folder; every JSON file fits Harbor 0.9', async () => {
    const envelope = await exportRun('five-tries', { format: 'tb-leaderboard', output: 'lb', ...SUBMISSION });
    expect(envelope).toMatchObject({
      status: 'success',
      operation: 'benchmark.export',
      resource: { trials: 10 },
    });
    const dir = path.join(root, 'lb');
    const [folder] = await readdir(dir);
    expect(folder).toBe('Acme-Agent__gpt-5');
    const sub = path.join(dir, folder as string);
    expect(parseYaml(await readFile(path.join(sub, 'metadata.yaml'), 'utf8'))).toEqual({
      agent_url: SUBMISSION.agentUrl,
      agent_display_name: 'Acme Agent',
      agent_org_display_name: 'Acme',
      models: [
        {
          model_name: 'gpt-5',
          model_provider: 'openai',
          model_display_name: 'gpt-5',
          model_org_display_name: 'OpenAI',
        },
      ],
    });
    const job = path.join(sub, 'five-tries');
    const files = await tree(job);
    const trials = files.filter((f) => /^[^/]+\/result\.json$/.test(f));
    expect(trials).toHaveLength(10);
    expect(files.filter((f) => f.endsWith('/verifier/reward.txt'))).toHaveLength(10);
    expect(files).toEqual(expect.arrayContaining(['config.json', 'result.json']));
    for (const f of files.filter((x) => x.endsWith('.json'))) {
      const model =
        f === 'config.json'
          ? 'JobConfig'
          : f === 'result.json'
            ? 'JobResult'
            : f.endsWith('/config.json')
              ? 'TrialConfig'
              : 'TrialResult';
      expect(harborFieldErrors(model, JSON.parse(await readFile(path.join(job, f), 'utf8')), f)).toEqual([]);
    }
    const result = JSON.parse(await readFile(path.join(job, trials[0] as string), 'utf8'));
    expect(result.config.timeout_multiplier).toBe(1);
    expect(result.verifier_result.rewards.reward).toBe(
      Number(
        await readFile(path.join(job, path.dirname(trials[0] as string), 'verifier/reward.txt'), 'utf8'),
      ),
    );
  });

  it('refuses timeout_multiplier = 2, naming the rule, and writes nothing', async () => {
    const error = await exportError('double-time', {
      format: 'tb-leaderboard',
      output: 'lb-double',
      ...SUBMISSION,
    });
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toMatch(/timeout_multiplier: the timeout multiplier must be 1\.0/);
    expect((error.details as { rules: { rule: string }[] }).rules.map((r) => r.rule)).toEqual([
      'timeout_multiplier',
    ]);
    await expect(readdir(path.join(root, 'lb-double'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses 3 trials per task, naming the rule, the tasks and the reuse_from that completes them', async () => {
    const error = await exportError('three-tries', {
      format: 'tb-leaderboard',
      output: 'lb-three',
      ...SUBMISSION,
    });
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toMatch(
      /min_trials: every task needs at least 5 trials; 2 have fewer: task-\S+ \(3\)/,
    );
    expect(error.hint).toContain('reuse_from = "three-tries"');
    expect(error.hint).toContain('attempts_per_task = 5');
  });

  it('the same run exports as harbor: the leaderboard rules are the leaderboard format only', async () => {
    const envelope = await exportRun('three-tries', { format: 'harbor', output: 'harbor-three' });
    expect(envelope.resource.trials).toBe(6);
    const files = await tree(path.join(root, 'harbor-three'));
    expect(files.filter((f) => f.endsWith('/result.json'))).toHaveLength(6);
    expect(files).not.toContain('metadata.yaml');
  });

  it('an artifact gone from storage: left out of harbor (and counted), refused by tb-leaderboard', async () => {
    const run = await seedScoredRun('lost-blob', 5);
    await rm(path.join(dataDir, `export-test/${run.attempts[0]!.id}/verifier/test-stdout.txt`));
    const envelope = await exportRun('lost-blob', { format: 'harbor', output: 'lost-harbor' });
    expect(envelope.resource).toMatchObject({ trials: 10, missing_artifacts: 1 });
    expect(envelope.message).toMatch(/1 artifacts are no longer in the platform's storage/);
    const files = await tree(path.join(root, 'lost-harbor'));
    expect(files.filter((f) => f.endsWith('/verifier/test-stdout.txt'))).toHaveLength(9);
    const error = await exportError('lost-blob', {
      format: 'tb-leaderboard',
      output: 'lost-lb',
      ...SUBMISSION,
    });
    expect((error.details as { rules: { rule: string }[] }).rules.map((r) => r.rule)).toEqual([
      'missing_artifact',
    ]);
    expect(error.message).toMatch(
      /missing_artifact: 1 artifacts recorded for the run are no longer in storage/,
    );
  });

  it('refuses missing metadata before asking the platform', async () => {
    const error = await exportError('five-tries', {
      format: 'tb-leaderboard',
      output: 'lb-x',
      agentName: 'A',
    });
    expect(error.code).toBe('USAGE_ERROR');
    expect(error.message).toMatch(/--agent-url, --org/);
  });
});

describe('runs export destination', () => {
  it('refuses a non-empty DIR, then writes into it with --force', async () => {
    const dir = path.join(root, 'busy');
    await mkdir(dir);
    await writeFile(path.join(dir, 'keep.txt'), 'mine');
    const error = await exportError('five-tries', { format: 'harbor', output: 'busy' });
    expect(error.code).toBe('USAGE_ERROR');
    expect(error.message).toMatch(/is not empty/);
    expect(error.hint).toMatch(/--force/);
    expect(await readdir(dir)).toEqual(['keep.txt']);
    await exportRun('five-tries', { format: 'harbor', output: 'busy', force: true });
    const files = await tree(dir);
    expect(files).toContain('keep.txt');
    expect(files).toContain('config.json');
    // nothing is left next to DIR by the staging folder
    expect((await readdir(root)).filter((n) => n.includes('.export-'))).toEqual([]);
  });

  it('an unknown run is NOT_FOUND and leaves DIR as it was', async () => {
    const error = await exportError('no-such-run', { format: 'harbor', output: 'none' });
    expect(error.code).toBe('NOT_FOUND');
    await expect(readdir(path.join(root, 'none'))).rejects.toThrow(/ENOENT/);
  });

  it('an artifact with a hostile path is left out; a queued run has nothing to export', async () => {
    const run = await seedScoredRun('odd-paths', 1);
    const a = run.attempts[0]!;
    for (const p of ['../../escape.txt', 'agent/../../../x', '/etc/passwd', 'agent\\..\\y'])
      await api.db.artifact.create({
        data: { attemptId: a.id, path: p, size: 1, storageKey: 'export-test/none' },
      });
    await exportRun('odd-paths', { format: 'harbor', output: 'odd' });
    const files = await tree(path.join(root, 'odd'));
    expect(
      files.every((f) =>
        /^(config|result)\.json$|^[A-Za-z0-9._-]+__[A-Za-z0-9]{7}\/(config\.json|result\.json|verifier\/[a-z-]+\.txt)$/.test(
          f,
        ),
      ),
      files.join('\n'),
    ).toBe(true);
    expect(await readdir(root)).not.toContain('escape.txt');
    await api.db.run.update({ where: { id: run.runId }, data: { status: 'queued' } });
    const res = await api.request('GET', '/v1/runs/odd-paths/export?format=harbor', { token: owner.token });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/is queued: it has no outputs yet/);
  });

  it("another workspace's run is not found through the route", async () => {
    const other = await api.seedWorkspace();
    const res = await api.request('GET', '/v1/runs/five-tries/export?format=harbor', { token: other.token });
    expect(res.status).toBe(404);
    const bad = await api.request(
      'GET',
      '/v1/runs/five-tries/export?format=tb-leaderboard&agent_url=javascript:x',
      {
        token: owner.token,
      },
    );
    expect(bad.status).toBe(400);
  });
});
