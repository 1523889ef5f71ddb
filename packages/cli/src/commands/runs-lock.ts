// `osmosis benchmark runs lock RUN [--json]` and `runs reproduce RUN`.
// `runs lock`: the run's lock (GET /v1/runs/:name/lock) — its
// fingerprint, task and image digests, harness versions, judge and effective config. `--json`
// gives the whole lock as the API returns it (the data of the CLI's envelope).
import type { RunLock } from '@osmosis/contracts';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { printAction, printObjectAs, step } from '../output.ts';
import type { Style } from '../style.ts';

const short = (digest: string) => digest.replace(/^sha256:/, '').slice(0, 12);

function agentLine(agent: RunLock['agents'][number]): string {
  const model = agent.model.name ? ` ${agent.model.name}` : '';
  const versions = [...new Set(agent.runs.map((r) => r.version))];
  const tools = [
    ...new Set(agent.runs.flatMap((r) => Object.entries(r.tools).map(([n, v]) => `${n} ${v ?? '?'}`))),
  ];
  const ran = versions.length ? ` · version ${versions.join(', ')}` : ' · not run yet';
  return `${agent.index} ${agent.harness}${model}${ran}${tools.length ? ` · ${tools.join(', ')}` : ''}`;
}

/** ` · prompt default:1a2b3c4d5e6f` for each judge prompt the attempts were graded with. */
function judgePrompts(templates: readonly string[]): string {
  return templates.map((t) => ` · prompt ${t.replace(/:([0-9a-f]{12})[0-9a-f]*$/, ':$1')}`).join('');
}

/** The lock for people: the fingerprint first, then what it covers. */
export function renderRunLock(lock: RunLock, s: Style): string {
  const x = lock.execution;
  const lines = [
    `${s.bold('Fingerprint')} ${lock.fingerprint}${lock.complete ? '' : s.yellow(' (run not ended: images and versions may still be added)')}`,
    `Run          ${lock.run.name} (${lock.run.status})`,
    `Platform     ${lock.platform.version}${lock.platform.commit ? ` @ ${lock.platform.commit}` : ''}`,
    `Benchmark    ${lock.benchmark.key} (${lock.benchmark.source.kind}${lock.benchmark.source.commit ? ` @ ${lock.benchmark.source.commit}` : ''})`,
    `Execution    ${x.attempts_per_task} attempt(s) per task · timeout ×${x.timeout_multiplier} · pass threshold ${x.pass_threshold}${x.reuse_from ? ` · reused from ${x.reuse_from}` : ''}`,
    `Judge        ${lock.judge.model ?? 'none'}${judgePrompts(lock.judge.template_digests)}`,
    '',
    s.bold(`Tasks (${lock.tasks.length})`),
    ...lock.tasks.map((t) => `  ${t.name}  ${short(t.digest)}${t.image ? `  ${t.image}` : ''}`),
    '',
    s.bold(`Images (${lock.images.length})`),
    ...(lock.images.length
      ? lock.images.map((i) => `  ${i.reference}  ${short(i.digest)}`)
      : ['  none recorded yet']),
    '',
    s.bold('Agents'),
    ...lock.agents.map((a) => `  ${agentLine(a)}`),
  ];
  return lines.join('\n');
}

export function registerRunsLock(runs: Command): void {
  runs
    .command('lock <name>')
    .description(
      "The run's lock: its fingerprint, task and image digests, harness versions, judge and effective config (secrets by name)",
    )
    .action(async (name: string, _options, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { RunLockResponse } = await import('@osmosis/contracts');
      const res = await client.get(`/v1/runs/${encodeURIComponent(name)}/lock`, RunLockResponse);
      printObjectAs(
        ctx,
        res.data,
        {
          plain: (lock) => [
            ['Fingerprint', lock.fingerprint],
            ['Run', lock.run.name],
            ['Complete', String(lock.complete)],
            ...lock.tasks.map((t): [string, string] => [`Task ${t.name}`, t.digest]),
            ...lock.images.map((i): [string, string] => [`Image ${i.reference}`, i.digest]),
          ],
        },
        renderRunLock,
      );
    });
}

/** `runs reproduce RUN`: its config submitted again as a new run, checked against its lock. */
export function registerRunsReproduce(runs: Command): void {
  runs
    .command('reproduce <name>')
    .description(
      "Submit a run's config again as a new run with the same images, after checking its lock\n" +
        '(refused, naming each task, when a task changed since). Compare the fingerprints with `runs lock`.',
    )
    .action(async (name: string, _options, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { SubmitRunResponse } = await import('@osmosis/contracts');
      const path = `/v1/runs/${encodeURIComponent(name)}/reproduce`;
      const run = (await client.post(path, SubmitRunResponse, { body: {}, timeoutMs: 180_000 })).data;
      printAction(ctx, {
        status: 'success',
        operation: 'benchmark.reproduce',
        resource: {
          id: run.id,
          name: run.name,
          status: run.status,
          reproduces: name,
          task_count: run.task_count,
          total_attempts: run.total_attempts,
          platform_url: run.platform_url,
        },
        message: `Benchmark run ${name} reproduced as ${run.name}`,
        display: [`Status: ${run.status}`, `Check status with: osmosis benchmark runs info ${run.name}`],
        next_steps_structured: [
          step('Check status', `osmosis benchmark runs info ${run.name}`),
          step('Its lock, to compare', `osmosis benchmark runs lock ${run.name}`),
        ],
      });
    });
}
