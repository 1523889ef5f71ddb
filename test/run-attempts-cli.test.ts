// `osmosis benchmark runs attempts` and `runs attempt` against a real API: the table and the
// --json list envelope with filters and pages, one attempt's outcome, verifier output and agent
// log (escape sequences from stored output never reach the terminal), the errors that say how to
// pick, and one run of the real bin/osmosis.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { fakeIO } from '@osmosis/cli/testing';
import { AttemptDetail, AttemptListItem, CliListEnvelope, CliObjectEnvelope } from '@osmosis/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runBenchmarkCli } from './helpers/cli-runner.ts';
import { type SeededRun, seedRun } from './results-seed.ts';

vi.setConfig({ testTimeout: 120_000 });

const OSMOSIS = path.resolve(import.meta.dirname, '../bin/osmosis');
let api: TestApi;
let owner: SeededMember;
let grid: SeededRun;
let dataDir: string;
let configDir: string;
const previousDataDir = process.env.OSMOSIS_DATA_DIR;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'osmosis-attempts-cli-data-'));
  configDir = await mkdtemp(path.join(tmpdir(), 'osmosis-attempts-cli-config-'));
  process.env.OSMOSIS_DATA_DIR = dataDir;
  api = await startTestApi();
  owner = await api.seedWorkspace();
  grid = await seedRun(api.db, {
    workspaceId: owner.workspaceId,
    userId: owner.userId,
    tasks: 3,
    attemptsPerTask: 2,
    runName: 'grid',
    agents: [
      { harness: 'oracle', model: 'oracle' },
      { harness: 'nop', model: 'none' },
    ],
    attempt: (agent) => ({ outcome: agent === 0 ? 'passed' : 'failed', agent_ms: 2500 }),
  });
  // nop's second try on task 0: a failing verifier and an agent log with an escape sequence
  const a = grid.attempts.find((x) => x.agent === 1 && x.task === 0 && x.index === 1)!;
  const dir = path.join(dataDir, 'artifacts', a.id);
  await mkdir(dir, { recursive: true });
  const verifier = `${Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n')}\nFAILED test_greeting\n`;
  const log = 'nop did nothing\n\u001b]0;owned\u0007\u001b[2Jstill here\n';
  await writeFile(path.join(dir, 'v'), verifier);
  await writeFile(path.join(dir, 'l'), log);
  await api.db.artifact.createMany({
    data: [
      {
        attemptId: a.id,
        path: 'verifier/test-stdout.txt',
        size: Buffer.byteLength(verifier),
        storageKey: `artifacts/${a.id}/v`,
      },
      {
        attemptId: a.id,
        path: 'agent/nop.txt',
        size: Buffer.byteLength(log),
        storageKey: `artifacts/${a.id}/l`,
      },
    ],
  });
});

afterAll(async () => {
  await api?.close();
  if (previousDataDir === undefined) delete process.env.OSMOSIS_DATA_DIR;
  else process.env.OSMOSIS_DATA_DIR = previousDataDir;
  await rm(dataDir, { recursive: true, force: true });
  await rm(configDir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const io = fakeIO({
    env: { OSMOSIS_CONFIG_DIR: configDir, OSMOSIS_TOKEN: owner.token, OSMOSIS_PLATFORM_URL: api.url },
    stdin: '',
  });
  return runBenchmarkCli(io, argv);
}

describe('osmosis benchmark runs attempts', () => {
  it('prints a table of the attempts, filtered by agent and outcome', async () => {
    const res = await cli(['benchmark', 'runs', 'attempts', 'grid', '--agent', 'nop', '--outcome', 'failed']);
    expect(res.code).toBe(0);
    const rows = res.out.trim().split('\n');
    expect(rows[0]).toMatch(/Agent\s+Task\s+Try\s+Outcome\s+Reward\s+Error\s+Id/);
    expect(rows).toHaveLength(7);
    for (const row of rows.slice(1)) expect(row).toMatch(/^1 none \(nop\)\s+task-0000\d\s+[12]\s+failed/);
  });

  it('--json is the list envelope with snake_case keys; --limit pages with --cursor, --all gets them all', async () => {
    const first = CliListEnvelope.parse(
      JSON.parse((await cli(['--json', 'benchmark', 'runs', 'attempts', 'grid', '--limit', '5'])).out),
    );
    expect(first).toMatchObject({ total_count: 12, has_more: true, next_offset: null });
    const items = first.items.map((i) => AttemptListItem.parse(i));
    expect(items[0]).toMatchObject({ agent_index: 0, task_name: 'task-00000', index: 0, outcome: 'passed' });
    const cursor = (first as { next_cursor?: string }).next_cursor!;
    const second = CliListEnvelope.parse(
      JSON.parse(
        (await cli(['--json', 'benchmark', 'runs', 'attempts', 'grid', '--limit', '5', '--cursor', cursor]))
          .out,
      ),
    );
    const all = CliListEnvelope.parse(
      JSON.parse((await cli(['--json', 'benchmark', 'runs', 'attempts', 'grid', '--all'])).out),
    );
    expect(all).toMatchObject({ has_more: false });
    expect(all.items).toHaveLength(12);
    expect([...first.items, ...second.items]).toEqual(all.items.slice(0, 10));
  });

  it('an unknown task or outcome says what exists', async () => {
    const task = await cli(['benchmark', 'runs', 'attempts', 'grid', '--task', 'task-0000']);
    expect(task.error?.code).toBe('NOT_FOUND');
    expect(`${task.error?.message} ${task.error?.hint}`).toContain('task-00000');
    const outcome = await cli(['benchmark', 'runs', 'attempts', 'grid', '--outcome', 'won']);
    expect(outcome.error?.code).toBe('USAGE_ERROR');
    expect(outcome.error?.hint).toContain('passed, failed, errored, cancelled');
  });
});

describe('osmosis benchmark runs attempt', () => {
  it("prints the outcome, the verifier output's end and the agent's log without escape sequences", async () => {
    const res = await cli([
      'benchmark',
      'runs',
      'attempt',
      'grid',
      'task-00000',
      '--agent',
      'nop',
      '--try',
      '2',
      '--lines',
      '5',
    ]);
    expect(res.code).toBe(0);
    expect(res.out).toContain('task-00000 · none (nop) · try 2 of 2');
    expect(res.out).toMatch(/Outcome\s+failed/);
    expect(res.out).toMatch(/agent 2\.5s/);
    expect(res.out).toContain('Verifier output (verifier/test-stdout.txt)');
    expect(res.out).toContain('FAILED test_greeting');
    expect(res.out).toContain('line 99');
    expect(res.out).not.toContain('line 90\n');
    expect(res.out).toContain("Agent's log (agent/nop.txt)");
    expect(res.out).toContain('still here');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what must not appear
    expect(res.out).not.toMatch(/[\u0007\u001b]/);
  });

  it('--json gives the attempt detail under data', async () => {
    const res = await cli(['--json', 'benchmark', 'runs', 'attempt', 'grid', 'task-00001', '--agent', '0']);
    const d = AttemptDetail.parse(CliObjectEnvelope.parse(JSON.parse(res.out)).data);
    expect(d).toMatchObject({
      task_name: 'task-00001',
      agent_index: 0,
      index: 0,
      outcome: 'passed',
      agent_log: null,
    });
  });

  it('asks which agent when several ran the task, and lists the tries there are', async () => {
    const which = await cli(['benchmark', 'runs', 'attempt', 'grid', 'task-00000']);
    expect(which.error?.code).toBe('USAGE_ERROR');
    expect(which.error?.hint).toBe('pick one with --agent (0 = oracle (oracle), 1 = none (nop))');
    const noTry = await cli([
      'benchmark',
      'runs',
      'attempt',
      'grid',
      'task-00000',
      '--agent',
      'oracle',
      '--try',
      '3',
    ]);
    expect(noTry.error?.code).toBe('NOT_FOUND');
    expect(noTry.error?.hint).toBe('its tries: 1, 2');
    const agent = await cli(['benchmark', 'runs', 'attempt', 'grid', 'task-00000', '--agent', 'orcale']);
    expect(agent.error?.code).toBe('NOT_FOUND');
    expect(`${agent.error?.message} ${agent.error?.hint}`).toContain('oracle');
  });

  it('works through bin/osmosis', async () => {
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(OSMOSIS, ['benchmark', 'runs', 'attempt', 'grid', 'task-00002', '--agent', '1'], {
          env: {
            PATH: process.env.PATH,
            HOME: configDir,
            OSMOSIS_CONFIG_DIR: configDir,
            OSMOSIS_PLATFORM_URL: api.url,
            OSMOSIS_TOKEN: owner.token,
            NO_COLOR: '1',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
        });
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      },
    );
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('task-00002 · none (nop) · try 1 of 2');
    expect(out.stdout).toContain('No verifier output.');
  });
});
