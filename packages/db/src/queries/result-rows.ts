// The rows of results.csv (one per attempt): as objects for tests and as CSV text built by
// Postgres, page by page in (agent index, task name, attempt index) order.
import type { Db } from '../client.ts';
import { Prisma } from '../generated/prisma/client.ts';

export interface ResultRow {
  id: string;
  agent_index: number;
  harness: string;
  model: string;
  task_name: string;
  category: string | null;
  difficulty: string | null;
  attempt_index: number;
  try_count: number;
  status: string;
  outcome: string | null;
  reward: number | null;
  error_class: string | null;
  cost_usd: number | null;
  judge_cost_usd: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_tokens: number | null;
  env_ms: number | null;
  agent_setup_ms: number | null;
  agent_ms: number | null;
  verifier_ms: number | null;
  agent_exit_code: number | null;
  agent_timed_out: boolean | null;
  started_at: Date | null;
  finished_at: Date | null;
  /** `attempts.steps` as stored (AttemptSteps of @osmosis/contracts): null for a single-step task */
  steps: unknown;
}

/**
 * One page of a run's attempts for results.csv, in (agent index, task name, attempt index)
 * order, keyset-paginated on that order. `asOf`: attempts finished after it show as they were
 * then (status `pending`, no outcome), so a snapshot of a running run has a stable size.
 */
export async function resultRowsPage(
  db: Db,
  runId: string,
  after: { agent_index: number; task_name: string; attempt_index: number } | null,
  limit: number,
  asOf: Date | null = null,
): Promise<ResultRow[]> {
  const keyset = after
    ? Prisma.sql`AND (ra.index, t.name, a.index) > (${after.agent_index}, ${after.task_name}, ${after.attempt_index})`
    : Prisma.empty;
  const done = asOf ? Prisma.sql`(a.finished_at IS NOT NULL AND a.finished_at <= ${asOf})` : Prisma.sql`TRUE`;
  return db.$queryRaw<ResultRow[]>`
    SELECT a.id::text AS id, ra.index AS agent_index, ra.harness, ra.model, t.name AS task_name,
      t.category, t.difficulty, a.index AS attempt_index, a.try_count,
      CASE WHEN ${done} THEN a.status::text ELSE 'pending' END AS status,
      CASE WHEN ${done} THEN a.outcome::text END AS outcome,
      CASE WHEN ${done} THEN a.reward END AS reward,
      CASE WHEN ${done} THEN a.error_class END AS error_class,
      CASE WHEN ${done} THEN a.cost_usd END AS cost_usd,
      CASE WHEN ${done} THEN a.judge_cost_usd END AS judge_cost_usd,
      CASE WHEN ${done} THEN a.input_tokens END AS input_tokens,
      CASE WHEN ${done} THEN a.output_tokens END AS output_tokens,
      CASE WHEN ${done} THEN a.cache_tokens END AS cache_tokens,
      CASE WHEN ${done} THEN a.env_ms END AS env_ms,
      CASE WHEN ${done} THEN a.agent_setup_ms END AS agent_setup_ms,
      CASE WHEN ${done} THEN a.agent_ms END AS agent_ms,
      CASE WHEN ${done} THEN a.verifier_ms END AS verifier_ms,
      CASE WHEN ${done} THEN a.agent_exit_code END AS agent_exit_code,
      CASE WHEN ${done} THEN a.agent_timed_out END AS agent_timed_out,
      CASE WHEN ${asOf === null ? Prisma.sql`TRUE` : Prisma.sql`a.started_at <= ${asOf}`} THEN a.started_at END AS started_at,
      CASE WHEN ${done} THEN a.finished_at END AS finished_at,
      CASE WHEN ${done} THEN a.steps END AS steps
    FROM attempts a
    JOIN run_agents ra ON ra.id = a.agent_id
    JOIN tasks t ON t.id = a.task_id
    WHERE a.run_id = ${runId}::uuid ${keyset} ${asOf === null ? Prisma.empty : Prisma.sql`AND a.created_at <= ${asOf}`}
    ORDER BY ra.index, t.name, a.index
    LIMIT ${limit}`;
}

/**
 * A text value as a CSV field (RFC 4180): quoted when it has a comma, quote, line break or edge
 * space; text a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage
 * return, and not a number) gets a leading apostrophe first, as the API's csvField does.
 */
function csvText(expr: Prisma.Sql): Prisma.Sql {
  const text = Prisma.sql`(CASE WHEN (${expr}) ~ '^[-=+@\\t\\r]' AND (${expr}) !~ '^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$' THEN '''' || (${expr}) ELSE (${expr}) END)`;
  return Prisma.sql`coalesce(CASE WHEN ${text} ~ '[",\\r\\n]|^\\s|\\s$' THEN '"' || replace(${text}, '"', '""') || '"' ELSE ${text} END, '')`;
}
const csvPlain = (expr: Prisma.Sql): Prisma.Sql => Prisma.sql`coalesce((${expr})::text, '')`;
const csvTime = (expr: Prisma.Sql): Prisma.Sql =>
  Prisma.sql`coalesce(to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '')`;

/**
 * The `steps` column: a compact JSON array `[{"name":…,"reward":…,"outcome":…,"duration_ms":…}]`
 * of a multi-step attempt's `attempts.steps` (duration = the step's agent + verifier time), NULL
 * for a single-step one. The stored value is the worker's, but a step name is the task author's
 * text: every string goes through to_json and a value of the wrong type becomes null, never SQL.
 */
function stepsJson(steps: Prisma.Sql): Prisma.Sql {
  // keys are the constants below, written into the SQL as literals
  const num = (key: string) =>
    Prisma.raw(`CASE WHEN jsonb_typeof(s -> '${key}') = 'number' THEN (s -> '${key}')::numeric END`);
  const str = (key: string) =>
    Prisma.raw(
      `CASE WHEN jsonb_typeof(s -> '${key}') = 'string' THEN to_json(s ->> '${key}')::text ELSE 'null' END`,
    );
  const duration = Prisma.sql`CASE WHEN num_nonnulls(${num('agent_ms')}, ${num('verifier_ms')}) = 0 THEN 'null'
    ELSE (coalesce(${num('agent_ms')}, 0) + coalesce(${num('verifier_ms')}, 0))::text END`;
  // the subquery runs only for rows with steps (single-step attempts, most rows, skip it)
  return Prisma.sql`CASE WHEN jsonb_typeof(${steps}) = 'array' THEN (SELECT '[' || string_agg('{"name":' || ${str('name')}
      || ',"reward":' || coalesce(${num('reward')}::text, 'null')
      || ',"outcome":' || ${str('outcome')}
      || ',"duration_ms":' || ${duration} || '}', ',' ORDER BY e.ord) || ']'
    FROM jsonb_array_elements(${steps}) WITH ORDINALITY AS e(s, ord)) END`;
}

/**
 * One page of one agent's part of results.csv (no header): every attempt of the next `tasks`
 * tasks of the run's benchmark by name after `afterTask`, in (task name, attempt index) order,
 * built as text by Postgres in one value (the columns of docs/downloads.md, same order as
 * resultRowsPage). The page walks the tasks in name order (index tasks(benchmark_id, name)) and
 * looks each one's attempts up (index attempts(run_id, agent_id, task_id, index)): it costs the
 * page's rows, never a sort of the run. `scanned` < `tasks`: the agent's last page.
 */
export async function resultsCsvPage(
  db: Db,
  run: { id: string; benchmarkId: string },
  agentId: string,
  afterTask: string | null,
  tasks: number,
  asOf: Date | null = null,
): Promise<{ text: string; rows: number; scanned: number; lastTask: string | null }> {
  const after = afterTask === null ? Prisma.empty : Prisma.sql`AND name > ${afterTask}`;
  const done = asOf ? Prisma.sql`(a.finished_at IS NOT NULL AND a.finished_at <= ${asOf})` : Prisma.sql`TRUE`;
  const m = (col: string) =>
    Prisma.sql`CASE WHEN ${done} THEN ${Prisma.raw(`a.${col}`)} END AS ${Prisma.raw(col)}`;
  const r = (col: string) => Prisma.raw(`r.${col}`);
  const rows = await db.$queryRaw<
    { text: string | null; rows: number; scanned: number; last_task: string | null }[]
  >`
    WITH page AS (
      SELECT id, name, category, difficulty FROM tasks
      WHERE benchmark_id = ${run.benchmarkId}::uuid ${after}
      ORDER BY name
      LIMIT ${tasks}
    )
    SELECT coalesce(string_agg(concat_ws(',',
        ${csvPlain(r('id'))}, ${csvPlain(r('agent_index'))}, ${csvText(r('harness'))}, ${csvText(r('model'))},
        ${csvText(r('task_name'))}, ${csvText(r('category'))}, ${csvText(r('difficulty'))},
        ${csvPlain(r('attempt_index'))}, ${csvPlain(r('try_count'))}, ${csvText(r('status'))}, ${csvText(r('outcome'))},
        ${csvPlain(r('reward'))}, ${csvText(r('error_class'))}, ${csvPlain(r('cost_usd'))}, ${csvPlain(r('judge_cost_usd'))},
        ${csvPlain(r('input_tokens'))}, ${csvPlain(r('output_tokens'))}, ${csvPlain(r('cache_tokens'))},
        ${csvPlain(r('env_ms'))}, ${csvPlain(r('agent_setup_ms'))}, ${csvPlain(r('agent_ms'))}, ${csvPlain(r('verifier_ms'))},
        ${csvPlain(Prisma.sql`CASE WHEN num_nonnulls(r.env_ms, r.agent_setup_ms, r.agent_ms, r.verifier_ms) = 0 THEN NULL
          ELSE coalesce(r.env_ms, 0)::bigint + coalesce(r.agent_setup_ms, 0) + coalesce(r.agent_ms, 0) + coalesce(r.verifier_ms, 0) END`)},
        ${csvPlain(r('agent_exit_code'))}, ${csvPlain(r('agent_timed_out'))},
        ${csvTime(r('started_at'))}, ${csvTime(r('finished_at'))}, ${csvText(r('steps'))},
        ${csvText(r('image_digest'))}, ${csvPlain(r('reused_from'))}
      ) || E'\n', '' ORDER BY r.task_name, r.attempt_index), '') AS text,
      count(r.id)::int AS rows,
      (SELECT count(*)::int FROM page) AS scanned,
      (SELECT max(name) FROM page) AS last_task
    FROM (
      SELECT a.id::text AS id, ra.index AS agent_index, ra.harness, ra.model, t.name AS task_name,
        t.category, t.difficulty, a.index AS attempt_index, a.try_count,
        CASE WHEN ${done} THEN a.status::text ELSE 'pending' END AS status,
        CASE WHEN ${done} THEN a.outcome::text END AS outcome,
        ${m('reward')}, ${m('error_class')}, ${m('cost_usd')}, ${m('judge_cost_usd')}, ${m('input_tokens')},
        ${m('output_tokens')}, ${m('cache_tokens')}, ${m('env_ms')}, ${m('agent_setup_ms')}, ${m('agent_ms')},
        ${m('verifier_ms')}, ${m('agent_exit_code')}, ${m('agent_timed_out')},
        CASE WHEN ${asOf === null ? Prisma.sql`TRUE` : Prisma.sql`a.started_at <= ${asOf}`} THEN a.started_at END AS started_at,
        CASE WHEN ${done} THEN a.finished_at END AS finished_at,
        CASE WHEN ${done} THEN ${stepsJson(Prisma.sql`a.steps`)} END AS steps,
        CASE WHEN ${done} THEN a.image_info->>'digest' END AS image_digest,
        a.reused_from_attempt_id::text AS reused_from
      FROM page t
      CROSS JOIN LATERAL (
        SELECT * FROM attempts
        WHERE run_id = ${run.id}::uuid AND agent_id = ${agentId}::uuid AND task_id = t.id
          ${asOf === null ? Prisma.empty : Prisma.sql`AND created_at <= ${asOf}`}
        -- a fence: keeps the per-task index lookup (the planner would rather scan the agent's attempts)
        OFFSET 0
      ) a
      JOIN run_agents ra ON ra.id = a.agent_id
      -- a fence: each field is computed once (csvText reads its value several times; flattened,
      -- the steps' JSON was rebuilt for each read: 20 s for 30,000 rows instead of 0.7 s)
      OFFSET 0
    ) r`;
  const r0 = rows[0];
  return {
    text: r0?.text ?? '',
    rows: Number(r0?.rows ?? 0),
    scanned: Number(r0?.scanned ?? 0),
    lastTask: r0?.last_task ?? null,
  };
}
