// `osmosis benchmark runs download` against a real API on loopback: the layout, skip-by-size
// resume, --overwrite, continuing an interrupted transfer from its *.partial, artifacts and logs,
// CONFLICT for a queued run.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import {
  buildContext,
  CliError,
  DOWNLOAD_RESOURCE_KEYS,
  fakeIO,
  missingKeys,
  pendingExitCode,
  runsDownloadAction,
  setExitCode,
} from '@osmosis/cli/testing';
import { CliActionEnvelope, cliExitCodeFor } from '@osmosis/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedBenchmark, seedRun } from './results-seed.ts';

const TRAJECTORY =
  '{"schema_version":"ATIF-v1.7","agent":{"name":"nop","version":"1"},"steps":[{"step_id":1,"source":"user","message":"x"}]}';
let api: TestApi;
let owner: SeededMember;
let root: string;
let dataDir: string;
const previousDataDir = process.env.OSMOSIS_DATA_DIR;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'osmosis-dl-data-'));
  process.env.OSMOSIS_DATA_DIR = dataDir;
  api = await startTestApi();
  owner = await api.seedWorkspace();
  const bench = await seedBenchmark(api.db, owner.workspaceId, 20, 'sample');
  const common = {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    benchmarkId: bench.benchmarkId,
    tasks: 20,
  };
  const run = await seedRun(api.db, {
    ...common,
    runName: 'calm-heron',
    attemptsPerTask: 3,
    events: 50,
    agents: [
      { harness: 'oracle', model: 'oracle' },
      { harness: 'nop', model: 'none' },
    ],
    attempt: (agent) => ({ outcome: agent === 0 ? 'passed' : 'failed', agent_ms: 100 }),
  });
  await seedRun(api.db, {
    ...common,
    runName: 'in-line',
    status: 'queued',
    attemptsPerTask: 1,
    agents: [{ harness: 'nop', model: 'none' }],
    attempt: () => ({ outcome: null }),
  });
  const a = run.attempts[0] as (typeof run.attempts)[number];
  await writeFile(path.join(dataDir, 'blob-1'), 'x'.repeat(5000));
  await api.db.artifact.create({
    data: { attemptId: a.id, path: 'agent/big.log', size: 5000, storageKey: 'blob-1' },
  });
  await writeFile(path.join(dataDir, 'blob-2'), TRAJECTORY);
  await api.db.artifact.create({
    data: { attemptId: a.id, path: 'agent/trajectory.json', size: TRAJECTORY.length, storageKey: 'blob-2' },
  });
});

afterAll(async () => {
  await api?.close();
  if (previousDataDir === undefined) delete process.env.OSMOSIS_DATA_DIR;
  else process.env.OSMOSIS_DATA_DIR = previousDataDir;
  await rm(dataDir, { recursive: true, force: true });
});

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'osmosis-dl-'));
  setExitCode(0);
});

/** A download run from ROOT (not a repository: the workspace directory is the current folder). */
async function download(
  name: string,
  options: { type?: string; overwrite?: boolean; yes?: boolean; output?: string; layout?: string } = {},
) {
  const io = fakeIO({ env: { OSMOSIS_TOKEN: owner.token }, cwd: root });
  const ctx = buildContext(io, { json: true, platform: api.url }, 'benchmark runs download');
  setExitCode(0);
  const report = await runsDownloadAction(ctx, name, options);
  return { report, envelope: CliActionEnvelope.parse(JSON.parse(io.out())), exit: pendingExitCode() };
}

const runDir = () => path.join(root, '.osmosis', 'benchmarks', 'calm-heron');

describe('runs download (real API)', () => {
  it('downloads summary and results by default into .osmosis/benchmarks/<run>/', async () => {
    const { report, envelope, exit } = await download('calm-heron');
    expect(exit).toBe(0);
    expect(envelope).toMatchObject({
      status: 'success',
      operation: 'benchmark.download',
      resource: {
        benchmark_run: { name: 'calm-heron' },
        status: 'finished',
        selected_types: ['summary', 'results'],
        files_downloaded: 2,
        files_skipped: 0,
        files_failed: [],
        total_files: 2,
        output_path: runDir(),
        breakdown: { summary: { files: 1 }, results: { files: 1 } },
      },
    });
    expect(missingKeys(envelope.resource, DOWNLOAD_RESOURCE_KEYS)).toEqual([]);
    expect(report.downloaded).toEqual(['results.csv', 'summary.csv']);
    expect((await readdir(runDir())).sort()).toEqual(['results.csv', 'summary.csv']);
    const summary = await readFile(path.join(runDir(), 'summary.csv'), 'utf8');
    expect(summary.split('\n')[1]).toMatch(/^1,#1,false,0,oracle,oracle,oracle \(oracle\),1,/);
    const results = await readFile(path.join(runDir(), 'results.csv'), 'utf8');
    expect(results.trim().split('\n')).toHaveLength(1 + 2 * 20 * 3);
  });

  it('a second run skips files whose size matches; --overwrite downloads them again', async () => {
    await download('calm-heron');
    const again = await download('calm-heron');
    // upstream reports a download with nothing left to fetch as success, with the skipped count
    expect(again.envelope).toMatchObject({
      status: 'success',
      resource: { files_downloaded: 0, files_skipped: 2 },
    });
    expect(again.report.skipped.sort()).toEqual(['results.csv', 'summary.csv']);
    const over = await download('calm-heron', { overwrite: true });
    expect(over.envelope.status).toBe('success');
    expect(over.report.downloaded).toEqual(['results.csv', 'summary.csv']);
  });

  it('continues an interrupted transfer from its .partial with a range request', async () => {
    await download('calm-heron', { type: 'results' });
    const full = await readFile(path.join(runDir(), 'results.csv'));
    await rm(path.join(runDir(), 'results.csv'));
    // the state an interrupted transfer leaves: the first part in results.csv.partial
    await writeFile(path.join(runDir(), 'results.csv.partial'), full.subarray(0, 1000));
    const { report } = await download('calm-heron', { type: 'results' });
    expect(report.downloaded).toEqual(['results.csv']);
    expect(report.bytes).toBe(full.length - 1000);
    expect(await readFile(path.join(runDir(), 'results.csv'))).toEqual(full);
    await expect(stat(path.join(runDir(), 'results.csv.partial'))).rejects.toThrow();
  });

  it('a file of the wrong size on disk is downloaded again', async () => {
    await download('calm-heron', { type: 'summary' });
    await writeFile(path.join(runDir(), 'summary.csv'), 'truncated');
    const { report } = await download('calm-heron', { type: 'summary' });
    expect(report.downloaded).toEqual(['summary.csv']);
    expect((await readFile(path.join(runDir(), 'summary.csv'), 'utf8')).startsWith('rank,')).toBe(true);
  });

  it('--type all brings logs.txt and artifacts/<result-id>/<path>', async () => {
    const { report } = await download('calm-heron', { type: 'all' });
    expect(report.downloaded).toHaveLength(5);
    const logs = await readFile(path.join(runDir(), 'logs.txt'), 'utf8');
    expect(logs.trim().split('\n')).toHaveLength(50);
    expect(logs).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}\[attempt\] attempt 1 finished \{"n":1\}$/m);
    const artifactPath = report.downloaded.find((p) => p.endsWith('big.log')) as string;
    expect(artifactPath).toMatch(/^artifacts\/[0-9a-f-]{36}\/agent\/big\.log$/);
    expect((await stat(path.join(runDir(), artifactPath))).size).toBe(5000);
  });

  it("--type trajectories brings the attempts' trajectory.json alone", async () => {
    const { report, envelope } = await download('calm-heron', { type: 'trajectories' });
    expect(report.downloaded).toHaveLength(1);
    expect(report.downloaded[0]).toMatch(/^artifacts\/[0-9a-f-]{36}\/agent\/trajectory\.json$/);
    expect(await readFile(path.join(runDir(), report.downloaded[0]!), 'utf8')).toBe(TRAJECTORY);
    expect(envelope.resource).toMatchObject({
      breakdown: { trajectories: { files: 1, bytes: TRAJECTORY.length } },
    });
  });

  it('--layout attempts puts artifacts under <task>/<agent>/<try>/ with an index of the attempt ids', async () => {
    const { report } = await download('calm-heron', { type: 'artifacts', layout: 'attempts' });
    expect(report.status).toBe('ok');
    // the manifest path stays upstream's; the file lands in the attempt's folder
    // the trajectory is one of the artifacts and moves with them
    const big = report.downloaded.find((p) => p.endsWith('big.log'));
    expect(big).toMatch(/^artifacts\/[0-9a-f-]{36}\/agent\/big\.log$/);
    expect(report.downloaded).toHaveLength(2);
    const id = big!.split('/')[1]!;
    const csv = await readFile(path.join(runDir(), 'artifacts', 'index.csv'), 'utf8');
    const row = csv.split('\n').find((l) => l.startsWith(id))!;
    const folder = row.split(',').at(-1)!;
    expect(folder).toMatch(/^artifacts\/task-\d{5}\/0-oracle\/[123]$/);
    expect((await stat(path.join(runDir(), folder, 'agent', 'big.log'))).size).toBe(5000);
    expect(await readFile(path.join(runDir(), folder, 'agent', 'trajectory.json'), 'utf8')).toBe(TRAJECTORY);
    const index = JSON.parse(await readFile(path.join(runDir(), 'artifacts', 'index.json'), 'utf8'));
    expect(index.find((f: { attempt_id: string }) => f.attempt_id === id)).toMatchObject({
      folder,
      agent_index: 0,
    });
    const bad = await download('calm-heron', { type: 'artifacts', layout: 'tree' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(CliError);
    expect((bad as CliError).hint).toContain('ids');
  });

  it('-o names the run folder itself (upstream), relative to the current folder', async () => {
    const { envelope } = await download('calm-heron', { output: 'elsewhere/heron', type: 'summary' });
    expect(envelope.resource).toMatchObject({ output_path: path.join(root, 'elsewhere', 'heron') });
    expect(await readdir(path.join(root, 'elsewhere', 'heron'))).toEqual(['summary.csv']);
  });

  it('NOT_FOUND for a missing run, before anything is written', async () => {
    const error = await download('no-such-run').catch((e: unknown) => e);
    expect((error as CliError).code).toBe('NOT_FOUND');
    expect(await readdir(root)).toEqual([]);
  });

  it('CONFLICT for a queued run (exit code 1); unknown --type is a usage error', async () => {
    const error = await download('in-line').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe('CONFLICT');
    expect(cliExitCodeFor('CONFLICT')).toBe(1);
    const usage = await download('calm-heron', { type: 'summary,nope' }).catch((e: unknown) => e);
    expect((usage as CliError).code).toBe('USAGE_ERROR');
    expect((usage as CliError).message).toBe(
      'Unknown --type value(s): nope. Choose from: summary, results, artifacts, logs, trajectories, lock, all.',
    );
    const mixed = await download('calm-heron', { type: 'all,logs' }).catch((e: unknown) => e);
    expect((mixed as CliError).message).toBe('--type all cannot be combined with other output types.');
  });
});
