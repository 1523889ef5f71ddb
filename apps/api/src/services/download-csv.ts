// The generated files of a run's download (columns in docs/downloads.md): summary.csv (one row
// per agent: the scores), results.csv (one row per attempt) and logs.txt (the run's lifecycle
// events). results.csv and logs.txt are produced page by page (keyset pages read from Postgres)
// as an async iterable of chunks, so a run of any size is streamed with flat memory.
import type { RunResults } from '@osmosis/contracts';
import { type Db, eventsAfter, resultsCsvPage } from '@osmosis/db';
import { QUALITY_COLUMNS, qualityCells } from './quality-csv.ts';

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let s: string;
  if (value instanceof Date) s = value.toISOString();
  else if (typeof value === 'number') s = Number.isFinite(value) ? String(value) : '';
  else if (typeof value === 'bigint') s = value.toString();
  else if (typeof value === 'boolean') s = value ? 'true' : 'false';
  else s = String(value);
  // text a spreadsheet would run as a formula (a task's name, an error message): OWASP's apostrophe
  if (typeof value === 'string' && FORMULA_START.test(s) && !NUMBER.test(s)) s = `'${s}`;
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

export function csvLine(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\n`;
}

export const SUMMARY_COLUMNS_BEFORE_K = [
  'rank',
  'rank_label',
  'tied',
  'agent_index',
  'harness',
  'model',
  'agent',
  'pass_at_1',
  'ci_lower',
  'ci_upper',
  'ci_level',
  'ci_method',
  'effective_n',
  'icc',
] as const;
export const SUMMARY_COLUMNS_AFTER_K = [
  'deepest_k',
  'pass_at_deepest',
  'tasks_scored',
  'attempts_scored',
  'passed',
  'failed',
  'errored',
  'cancelled',
  'pending',
  'total',
  'cost_per_task_usd',
  'time_per_task_ms',
  'tokens_per_task',
  'cost_usd',
  'judge_cost_usd',
  'input_tokens',
  'output_tokens',
  'cache_tokens',
  // docs/terminus-2.md: comparability with the published terminus-2 scores; HLE's calibration
  // error; the mean rubric score of partial-credit judges
  ...QUALITY_COLUMNS,
] as const;

/** summary.csv: one row per agent, rank order. pass_at_<k> columns for each reported k > 1. */
export function summaryCsv(results: RunResults): string {
  const ks = (results.agents[0]?.pass_at_k ?? []).map((p) => p.k).filter((k) => k > 1);
  let out = csvLine([
    ...SUMMARY_COLUMNS_BEFORE_K,
    ...ks.map((k) => `pass_at_${k}`),
    ...SUMMARY_COLUMNS_AFTER_K,
  ]);
  for (const a of results.agents) {
    out += csvLine([
      a.rank,
      a.rank_label,
      a.tied,
      a.index,
      a.harness,
      a.model,
      a.label,
      a.pass_at_1,
      a.interval?.lower,
      a.interval?.upper,
      a.interval?.level,
      a.interval?.method,
      a.interval?.effective_n,
      a.interval?.icc,
      ...ks.map((k) => a.pass_at_k.find((p) => p.k === k)?.value),
      a.deepest?.k,
      a.deepest?.value,
      a.tasks_scored,
      a.attempts_scored,
      a.counts.passed,
      a.counts.failed,
      a.counts.errored,
      a.counts.cancelled,
      a.counts.pending,
      a.counts.total,
      a.per_task.cost_usd,
      a.per_task.time_ms,
      a.per_task.tokens,
      a.totals.cost_usd,
      a.totals.judge_cost_usd,
      a.totals.input_tokens,
      a.totals.output_tokens,
      a.totals.cache_tokens,
      ...qualityCells(a),
    ]);
  }
  return out;
}

export const RESULTS_COLUMNS = [
  'result_id',
  'agent_index',
  'harness',
  'model',
  'task',
  'category',
  'difficulty',
  'attempt',
  'tries',
  'status',
  'outcome',
  'reward',
  'error_class',
  'cost_usd',
  'judge_cost_usd',
  'input_tokens',
  'output_tokens',
  'cache_tokens',
  'env_ms',
  'agent_setup_ms',
  'agent_ms',
  'verifier_ms',
  'total_ms',
  'agent_exit_code',
  'agent_timed_out',
  'started_at',
  'finished_at',
  // appended last so scripts reading the columns by position keep working (docs/downloads.md)
  'steps',
  // the digest of the task's docker_image the attempt ran (the run's pin); empty when built
  'image_digest',
  // the earlier run's attempt (its result_id) whose result this one took over (reuse_from); empty when it ran here
  'reused_from',
] as const;

/** The run whose rows results.csv lists: its id, its benchmark and its agents' ids and indexes. */
export interface RunRows {
  id: string;
  benchmarkId: string;
  agents: { id: string; index: number }[];
}

/** Tasks of a keyset page of results.csv (a page is one chunk of the stream, ~1 MB at 3 attempts). */
const RESULTS_PAGE_TASKS = 1500;

/**
 * results.csv: the header, then one row per attempt by agent index, task name, attempt index
 * (lines built in SQL), one agent at a time in keyset pages of tasks.
 */
export async function* resultsCsvChunks(db: Db, run: RunRows, asOf: Date | null): AsyncGenerator<Buffer> {
  yield Buffer.from(csvLine([...RESULTS_COLUMNS]));
  const agents = [...run.agents].sort((a, b) => a.index - b.index);
  for (const agent of agents) {
    let after: string | null = null;
    for (;;) {
      const page = await resultsCsvPage(db, run, agent.id, after, RESULTS_PAGE_TASKS, asOf);
      if (page.rows > 0) yield Buffer.from(page.text);
      if (page.scanned < RESULTS_PAGE_TASKS || page.lastTask === null) break;
      after = page.lastTask;
    }
  }
}

/** Events of logs.txt per page. */
const LOGS_PAGE = 5000;

/** logs.txt: `<ISO time> <LEVEL> [<step>] <message>[ <details JSON>]`, oldest first. */
export async function* logsTxtChunks(db: Db, runId: string, asOf: Date | null): AsyncGenerator<Buffer> {
  let cursor = 0n;
  for (;;) {
    const rows = await eventsAfter(db, runId, cursor, LOGS_PAGE, asOf);
    const parts: string[] = [];
    for (const e of rows) {
      const details = e.details === null || e.details === undefined ? '' : ` ${JSON.stringify(e.details)}`;
      const message = e.message.replaceAll('\r', '').replaceAll('\n', '\n    ');
      parts.push(
        `${e.timestamp.toISOString()} ${e.level.toUpperCase().padEnd(5)} [${e.step}] ${message}${details}\n`,
      );
      cursor = e.id;
    }
    if (parts.length > 0) yield Buffer.from(parts.join(''));
    if (rows.length < LOGS_PAGE) break;
  }
}

/** All the chunks of a generated file in one buffer (small files; tests). */
export async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

/** results.csv in one buffer (tests; downloads stream resultsCsvChunks). */
export function resultsCsv(db: Db, run: RunRows, asOf: Date | null): Promise<Buffer> {
  return collect(resultsCsvChunks(db, run, asOf));
}
