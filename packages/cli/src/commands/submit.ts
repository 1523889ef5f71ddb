// `osmosis benchmark submit CONFIG [--yes] [--secrets-file PATH|-] [--follow]`, as the upstream
// Osmosis CLI 0.3 (osmosis_ai/platform/cli/benchmark.py `submit`): the config is a .toml under
// configs/benchmark/ of the workspace directory; it is validated locally, `[secrets]` values are
// resolved (file, environment, stored record, prompt), the platform previews it (benchmark, task
// selection and count, each agent's harness and model, attempts, concurrency, the scope each
// secret resolves to and which phase receives it, warnings), the user confirms, and the answer is
// the `benchmark.submit` action envelope. The platform validates everything again. The
// `benchmark` command group adds it with `registerSubmit(benchmark)`.

import { readFileSync } from 'node:fs';
import type { ConfigIssue, RunPreview, RunPreviewSecret, SubmittedRun } from '@osmosis/contracts';
import { errorMessage } from '@osmosis/contracts';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { resolveBenchmarkConfigPath } from '../config-path.ts';
import { type Context, contextOf } from '../context.ts';
import { CliError } from '../errors.ts';
import type { ApiClient } from '../http.ts';
import { addYesOption } from '../options.ts';
import { printAction, printWarning, say, setExitCode, step } from '../output.ts';
import { confirm, readSecret } from '../prompt.ts';
import { readSecretsFile } from '../secrets-file.ts';
import { style } from '../style.ts';
import { cliVersion } from '../version.ts';
import { previewCostText } from './run-budget.ts';

const SAMPLE_SHOWN = 5;

function configError(fileName: string, issues: ConfigIssue[], format: (f: string, i: ConfigIssue) => string) {
  const lines = issues.map((i) => `  ${format(fileName, i)}`);
  return new CliError(
    'INVALID_CONFIG',
    `Invalid benchmark config ${fileName}: ${issues.length} problem${issues.length === 1 ? '' : 's'}:\n${lines.join('\n')}`,
    {
      details: {
        error: 'Invalid benchmark config',
        issues: upstreamIssues(issues),
        file_name: fileName,
        config_issues: issues,
      },
      hint: `fix ${fileName} and submit again`,
    },
  );
}

/** Where a record goes: `agent 1 (stays in the platform), verifier (in the sandbox)`. */
export function describeReceivers(secret: Pick<RunPreviewSecret, 'receivers'>): string {
  if (secret.receivers.length === 0) return 'no phase receives it';
  return secret.receivers
    .map((r) => {
      const who = r.phase === 'agent' ? `agent ${(r.agent_index ?? 0) + 1}` : r.phase;
      return `${who} (${r.in_sandbox ? 'in the sandbox' : 'stays in the platform'})`;
    })
    .join(', ');
}

/** The workspace's limit under the run's own: `workspace limit 16 at a time across its runs, 5 in flight now`. */
export function workspaceLimitText(l: NonNullable<RunPreview['workspace_limits']>): string {
  return `workspace limit ${l.max_concurrent_attempts} at a time across its runs (operator maximum ${l.operator_max_concurrent_attempts}), ${l.attempts_in_flight} in flight now`;
}

/** The preview as text (also used by tests). */
export function renderPreview(p: RunPreview, color = false): string {
  const s = style(color);
  const rows: [string, string][] = [];
  rows.push(['Benchmark', `${p.benchmark.name} (${p.benchmark.key})`]);
  const sample =
    p.tasks.sample.slice(0, SAMPLE_SHOWN).join(', ') +
    (p.tasks.task_count > SAMPLE_SHOWN ? `, … (+${p.tasks.task_count - SAMPLE_SHOWN} more)` : '');
  rows.push(['Tasks', `${p.tasks.description}`]);
  rows.push(['', sample]);
  if (p.tasks.skipped_count > 0)
    rows.push(['', `${p.tasks.skipped_count} task(s) the platform cannot run are left out`]);
  p.agents.forEach((a, i) => {
    const harness = a.harness_defaulted ? `${a.harness} (benchmark default)` : a.harness;
    const model = a.model_type === 'none' ? a.model : `${a.model} [${a.model_type}]`;
    rows.push([i === 0 ? 'Agents' : '', `${a.index + 1}. ${harness} · ${model}`]);
  });
  const agents = p.agents.length;
  rows.push([
    'Attempts',
    `${p.attempts_per_task} per task × ${p.tasks.task_count} task${p.tasks.task_count === 1 ? '' : 's'} × ${agents} agent${agents === 1 ? '' : 's'} = ${p.total_attempts} attempt${p.total_attempts === 1 ? '' : 's'}`,
  ]);
  if (p.reuse)
    rows.push([
      '',
      `${p.reuse.attempts} finished attempt(s) taken over from run ${p.reuse.from}; ${p.reuse.to_run} to run`,
    ]);
  rows.push([
    'Concurrency',
    `${p.max_concurrent_attempts} attempt${p.max_concurrent_attempts === 1 ? '' : 's'} at a time`,
  ]);
  if (p.workspace_limits) rows.push(['', workspaceLimitText(p.workspace_limits)]);
  rows.push([
    'Execution',
    `timeout ×${p.timeout_multiplier}, max retries ${p.max_retries}, pass threshold ${p.pass_threshold}`,
  ]);
  if (p.judge_model) rows.push(['Judge', p.judge_model]);
  const cost = previewCostText(p);
  if (cost) rows.push(['Cost', cost]);
  if (p.secrets.length === 0) rows.push(['Secrets', 'none']);
  p.secrets.forEach((sec, i) => {
    rows.push([
      i === 0 ? 'Secrets' : '',
      `${sec.name} → ${sec.scope === 'run' ? 'value supplied for this run' : `${sec.scope} record`} (${sec.used_by.join(', ')}) → ${describeReceivers(sec)}`,
    ]);
  });
  const width = Math.max(...rows.map(([l]) => l.length));
  const lines = rows.map(([label, value]) => `${s.bold(label.padEnd(width))}  ${value}`);
  for (const w of p.warnings) lines.push(`${s.yellow('warning')} ${w.code}: ${w.message}`);
  return lines.join('\n');
}

/** upstream's config issue shape: `{key, message}` per issue (shared_config.py `config_issues_error`). */
function upstreamIssues(issues: ConfigIssue[]) {
  return issues.map((i) => ({ key: i.path, message: i.message, code: i.code }));
}

async function withConfigErrors<T>(
  fileName: string,
  format: (f: string, i: ConfigIssue) => string,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    const details = error.details as Record<string, unknown> | null;
    if (error.code === 'INVALID_CONFIG' && details && Array.isArray(details.issues))
      throw configError(fileName, details.issues as ConfigIssue[], format);
    if (error.code === 'MISSING_SECRETS' && details && Array.isArray(details.missing)) {
      const missing = details.missing as string[];
      const usedBy = (details.used_by ?? {}) as Record<string, unknown>;
      const width = Math.max(...missing.map((n) => n.length));
      const needs = (n: string) => {
        const uses = Array.isArray(usedBy[n]) ? (usedBy[n] as unknown[]).map(String) : [];
        return uses.length ? `${' '.repeat(width - n.length)}   (${uses.join(', ')})` : '';
      };
      // upstream's wording (shared_submit.py `_missing_secret_message`) with what needs each
      // record; each command once, so no hint repeats them
      throw new CliError(
        error.code,
        [
          `Could not find secret(s): ${missing.join(', ')}.`,
          '',
          'Run the following to add them:',
          ...missing.map((n) => `  osmosis secret set ${n}${needs(n)}`),
          '',
          'Secrets default to personal scope. Use --scope workspace for secrets shared across the workspace.',
        ].join('\n'),
        {
          details: error.details,
          ...(error.status === undefined ? {} : { status: error.status }),
          requestId: error.requestId,
        },
      );
    }
    if (error.code === 'BENCHMARK_NOT_READY')
      throw new CliError(error.code, error.message, {
        details: error.details,
        hint: 'check its sync with `osmosis benchmark list`',
        ...(error.status === undefined ? {} : { status: error.status }),
        requestId: error.requestId,
      });
    throw error;
  }
}

interface SubmitOptions {
  yes?: boolean;
  follow?: boolean;
  secretsFile?: string;
  reuseFrom?: string;
}

/**
 * Values for the config's `[secrets]` names, by first hit as upstream resolves them: the
 * secrets file, the environment, a stored record (then nothing is sent), a hidden prompt (only
 * when the CLI may prompt). Every name left without one is reported at once as
 * INTERACTIVE_REQUIRED with `details.missing` and `details.flags`.
 */
async function runSecretValues(
  ctx: Context,
  client: ApiClient,
  names: readonly string[],
  secretsFile: string | undefined,
): Promise<Record<string, string>> {
  if (names.length === 0 && secretsFile === undefined) return {};
  const fromFile =
    secretsFile === undefined ? new Map<string, string>() : await readSecretsFile(ctx, secretsFile);
  const values: Record<string, string> = {};
  const open: string[] = [];
  for (const name of names) {
    const value = fromFile.get(name) ?? (ctx.io.env[name] || undefined);
    if (value !== undefined) values[name] = value;
    else open.push(name);
  }
  if (open.length === 0) return values;
  const { ListSecretsResponse } = await import('@osmosis/contracts');
  const stored = new Set(
    (await client.list('/v1/secrets', ListSecretsResponse, { all: true, query: { scope: 'all' } })).items.map(
      (s) => s.name,
    ),
  );
  const missing: string[] = [];
  for (const name of open) {
    if (stored.has(name)) continue;
    if (ctx.interactive) values[name] = await readSecret(ctx, { label: `value for ${name}` });
    else missing.push(name);
  }
  if (missing.length > 0)
    throw new CliError(
      'INTERACTIVE_REQUIRED',
      `No value found for: ${missing.join(', ')}. Export them, pass --secrets-file, or save them with \`osmosis secret set <NAME>\`.`,
      {
        details: { missing, flags: ['--secrets-file'] },
        hint: 'e.g. --secrets-file .env.run, or --secrets-file - to read them from stdin',
      },
    );
  return values;
}

/** The run config's text; a missing or unreadable file is a USAGE_ERROR naming it. */
function readConfigFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      'USAGE_ERROR',
      code === 'ENOENT'
        ? `Config file not found: ${file}`
        : `Cannot read config file ${file}: ${errorMessage(error)}`,
      {
        details: { path: file },
        hint: 'pass the path of a run config under configs/benchmark/, e.g. configs/benchmark/terminal-bench-smoke.toml (`osmosis init` writes one)',
      },
    );
  }
}

async function submit(ctx: Context, rawPath: string, options: SubmitOptions): Promise<void> {
  const text = readConfigFile(resolveBenchmarkConfigPath(ctx, rawPath));
  const { formatConfigIssue, RunPreviewResponse, SubmitRunResponse, validateRunConfig } = await import(
    '@osmosis/contracts'
  );
  const local = validateRunConfig(text, rawPath);
  if (!local.ok) throw configError(rawPath, local.issues, formatConfigIssue);
  const config = local.config;

  const client = authenticatedClient(ctx);
  const provided = await runSecretValues(ctx, client, config.secrets?.required ?? [], options.secretsFile);
  const body = {
    config_toml: text,
    file_name: rawPath,
    ...(Object.keys(provided).length > 0 ? { secrets: { provided } } : {}),
    ...(options.reuseFrom ? { reuse_from: options.reuseFrom } : {}),
  };
  const preview = await withConfigErrors(
    rawPath,
    formatConfigIssue,
    async () => (await client.post('/v1/runs/preview', RunPreviewResponse, { body })).data,
  );
  // the preview is for people: upstream prints its tables in rich output only (--plain stdout is
  // the result; a confirmation --plain needs goes to stderr with the summary)
  if (ctx.format === 'rich') {
    say(ctx, renderPreview(preview, ctx.color));
    say(ctx, '');
  }
  // the rich preview shows them; --json and --plain get upstream's warning lines on stderr
  if (ctx.format !== 'rich')
    for (const w of preview.warnings) printWarning({ ...ctx, cliVersion: cliVersion() }, w.code, w.message);
  const ok = await confirm(ctx, {
    message: 'Submit this benchmark run?',
    yes: options.yes,
    defaultYes: true,
    summary: [
      ['Benchmark', preview.benchmark.key],
      ['Tasks', preview.tasks.description],
      ['Agents', String(preview.agents.length)],
      ['Attempts per task', String(preview.attempts_per_task)],
      ['Max concurrent attempts', String(preview.max_concurrent_attempts)],
      ...preview.agents.map((a): [string, string] => [`agent.${a.index + 1} · ${a.harness}`, a.model]),
      ...preview.secrets.map((sec): [string, string] => [`secret.${sec.name}`, sec.scope]),
    ],
    warnings: preview.warnings.map((w) => `${w.code}: ${w.message}`),
  });
  if (!ok) {
    printAction(ctx, {
      status: 'cancelled',
      operation: 'benchmark.submit',
      message: 'Cancelled. Nothing was submitted.',
    });
    return;
  }
  const run: SubmittedRun = await withConfigErrors(
    rawPath,
    formatConfigIssue,
    async () => (await client.post('/v1/runs', SubmitRunResponse, { body, timeoutMs: 180_000 })).data,
  );
  printAction(ctx, {
    status: 'success',
    operation: 'benchmark.submit',
    resource: {
      id: run.id,
      name: run.name,
      status: run.status,
      benchmark_name: config.experiment.benchmark,
      workflow_id: null,
      task_count: run.task_count,
      created_at: run.created_at,
      platform_url: run.platform_url,
      config: {
        experiment: config.experiment,
        tasks: config.tasks ?? {},
        agents: config.agents,
        execution: config.execution,
      },
      benchmark: preview.benchmark,
      total_attempts: run.total_attempts,
      reuse: run.reuse ?? null,
      warnings: run.warnings,
      secrets: preview.secrets.map((sec) => ({ name: sec.name, scope: sec.scope })),
    },
    message: `Benchmark run submitted: ${run.name}`,
    display: [
      `Status: ${run.status}`,
      `Benchmark: ${config.experiment.benchmark}`,
      ...(run.reuse
        ? [
            `Reused: ${run.reuse.attempts} finished attempt(s) from run ${run.reuse.from}; ${run.reuse.to_run} to run`,
          ]
        : []),
      `Check status with: osmosis benchmark runs info ${run.name}`,
      `View: ${run.platform_url}`,
    ],
    next_steps_structured: [
      {
        ...step('Check status', `osmosis benchmark runs info ${run.name}`),
        action: 'benchmark_info',
        name: run.name,
      },
      { ...step('See your runs', 'osmosis benchmark runs list'), action: 'benchmark_list' },
      { action: 'open_url', description: 'View', url: run.platform_url },
      step('Its log', `osmosis benchmark runs logs ${run.name}`),
    ],
  });
  if (options.follow) {
    // Live progress until the run ends, then its scores (with --json: a second `{data}` line).
    const { watchRun } = await import('./watch.ts');
    const results = await watchRun(client, run.name, { ctx });
    if (results.status !== 'finished') setExitCode(1);
  }
}

/** Adds `submit` to the `benchmark` command group. */
export function registerSubmit(benchmark: Command): Command {
  const cmd = benchmark
    .command('submit')
    .argument(
      '<config>',
      'run config under configs/benchmark/ (relative paths from the workspace directory), e.g. configs/benchmark/terminal-bench-smoke.toml',
    )
    .description(
      'Validate a run config, show a preview (benchmark, tasks, agents, attempts, concurrency and the\n' +
        "workspace's limit, secret scopes and the phase each secret goes to) " +
        'and submit it after confirmation. Without a terminal, --yes is required.',
    );
  addYesOption(cmd, 'skip the confirmation prompt (required with --json, --plain or without a terminal)');
  cmd.option(
    '--secrets-file <path>',
    'dotenv file supplying values for [secrets] names; - reads stdin. Values are never saved and are re-supplied on every run',
  );
  cmd.option(
    '--reuse-from <run>',
    'take over the finished, scored attempts of an earlier run whose task and agent match (overrides [execution] reuse_from); only the rest run',
  );
  cmd.option('--follow', 'show live progress until the run ends, then its scores');
  cmd.action(async (file: string, options: SubmitOptions, command: Command) => {
    await submit(contextOf(command), file, options);
  });
  return cmd;
}
