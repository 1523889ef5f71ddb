// The Terminal-Bench 2 leaderboard's submission rules, as its README states what its bot checks
// (huggingface.co/datasets/harborframework/terminal-bench-2-leaderboard; docs/reproducibility.md
// "Export"): timeout_multiplier 1.0, no agent timeout, verifier timeout or resource overrides, at
// least five trials of each task, a valid result.json in every trial folder and the run's other
// artifacts present. The bot's source is not public, so every override field is checked at both
// levels it could read (the job's config.json and each trial's), including the per-phase
// multipliers and override_gpus/override_setup_timeout_sec it may or may not check.
import type { HarborJob } from './job-files.ts';
import type { ExportRun } from './model.ts';

export const LEADERBOARD_MIN_TRIALS = 5;

export type LeaderboardRule =
  | 'timeout_multiplier'
  | 'agent_timeout_override'
  | 'verifier_timeout_override'
  | 'resource_override'
  | 'min_trials'
  | 'missing_trial'
  | 'missing_artifact';

export interface RuleBreak {
  rule: LeaderboardRule;
  message: string;
  /** the tasks concerned (min_trials: with their trial counts) */
  tasks?: { task: string; trials: number }[];
}

const MULTIPLIERS = [
  'agent_timeout_multiplier',
  'verifier_timeout_multiplier',
  'agent_setup_timeout_multiplier',
  'environment_build_timeout_multiplier',
] as const;
const AGENT_OVERRIDES = ['override_timeout_sec', 'override_setup_timeout_sec', 'max_timeout_sec'] as const;
const VERIFIER_OVERRIDES = ['override_timeout_sec', 'max_timeout_sec'] as const;
const RESOURCE_OVERRIDES = [
  'override_cpus',
  'override_memory_mb',
  'override_storage_mb',
  'override_gpus',
  'override_tpu',
] as const;

type Loose = Record<string, unknown>;
interface ConfigLevel {
  where: string;
  config: Loose;
  agents: Loose[];
}

const set = (o: Loose | undefined, keys: readonly string[]) =>
  keys.filter((k) => o?.[k] !== null && o?.[k] !== undefined);

function overrideBreaks(levels: ConfigLevel[]): RuleBreak[] {
  const found = new Map<LeaderboardRule, string[]>();
  const add = (rule: LeaderboardRule, what: string) => found.set(rule, [...(found.get(rule) ?? []), what]);
  for (const { where, config, agents } of levels) {
    if (config.timeout_multiplier !== 1) add('timeout_multiplier', `${where}: ${config.timeout_multiplier}`);
    for (const k of MULTIPLIERS)
      if (config[k] !== null && config[k] !== undefined && config[k] !== 1)
        add('timeout_multiplier', `${where}: ${k} = ${config[k]}`);
    for (const agent of agents)
      for (const k of set(agent, AGENT_OVERRIDES)) add('agent_timeout_override', `${where}: agent.${k}`);
    for (const k of set(config.verifier as Loose, VERIFIER_OVERRIDES))
      add('verifier_timeout_override', `${where}: verifier.${k}`);
    for (const k of set(config.environment as Loose, RESOURCE_OVERRIDES))
      add('resource_override', `${where}: environment.${k}`);
  }
  const text: Record<string, string> = {
    timeout_multiplier: 'the timeout multiplier must be 1.0',
    agent_timeout_override: 'agent timeouts must not be overridden',
    verifier_timeout_override: 'verifier timeouts must not be overridden',
    resource_override: 'cpus, memory, storage and GPUs must not be overridden',
  };
  return [...found].map(([rule, where]) => {
    const shown = [...new Set(where)];
    const more = shown.length > 3 ? ` and ${shown.length - 3} more` : '';
    return { rule, message: `${text[rule]} (found ${shown.slice(0, 3).join('; ')}${more})` };
  });
}

function trialCountBreaks(run: ExportRun, job: HarborJob): RuleBreak[] {
  const breaks: RuleBreak[] = [];
  const planned = run.taskNames.length * run.attemptsPerTask * run.agents.length;
  if (job.trials.length < planned) {
    breaks.push({
      rule: 'missing_trial',
      message: `${planned - job.trials.length} of the run's ${planned} attempts have no finished trial (still running, never started or stopped)`,
    });
  }
  const short: { task: string; trials: number }[] = [];
  for (const agent of run.agents) {
    for (const task of run.taskNames) {
      const n = job.trials.filter(
        (t) => t.attempt.agentIndex === agent.index && t.attempt.taskName === task,
      ).length;
      if (n < LEADERBOARD_MIN_TRIALS) short.push({ task, trials: n });
    }
  }
  if (short.length) {
    const listed = short.slice(0, 5).map((s) => `${s.task} (${s.trials})`);
    const more = short.length > 5 ? ` and ${short.length - 5} more` : '';
    breaks.push({
      rule: 'min_trials',
      message: `every task needs at least ${LEADERBOARD_MIN_TRIALS} trials; ${short.length} have fewer: ${listed.join(', ')}${more}`,
      tasks: short,
    });
  }
  return breaks;
}

/** A trial whose verifier gave rewards must carry the verifier's output (reward file, stdout). */
function artifactBreaks(job: HarborJob): RuleBreak[] {
  const missing = job.trials.filter((t) => {
    const paths = t.attempt.artifactPaths;
    if (t.result.verifier_result === null) return false;
    return !paths.some((p) => /^(steps\/[^/]+\/)?verifier\/reward\.(txt|json)$/.test(p));
  });
  if (missing.length === 0) return [];
  const names = missing.slice(0, 3).map((t) => t.name);
  return [
    {
      rule: 'missing_artifact',
      message: `${missing.length} trials have a reward but no verifier/reward.txt or reward.json among their artifacts (${names.join(', ')}${missing.length > 3 ? ', …' : ''})`,
    },
  ];
}

/** Every rule the export of `run` breaks (empty: it can be submitted). */
export function leaderboardBreaks(run: ExportRun, job: HarborJob): RuleBreak[] {
  const levels: ConfigLevel[] = [
    { where: 'config.json', config: job.config as unknown as Loose, agents: job.config.agents as Loose[] },
    ...job.trials.map((t) => ({
      where: `${t.name}/config.json`,
      config: t.result.config as unknown as Loose,
      agents: [t.result.config.agent as Loose],
    })),
  ];
  return [...overrideBreaks(levels), ...trialCountBreaks(run, job), ...artifactBreaks(job)];
}

/** The `[execution]` lines of a run that completes `run` for the leaderboard, reusing its finished attempts. */
export function reuseFromHint(run: ExportRun): string {
  return `[execution]\nattempts_per_task = ${Math.max(LEADERBOARD_MIN_TRIALS, run.attemptsPerTask)}\ntimeout_multiplier = 1.0\nreuse_from = "${run.name}"`;
}
