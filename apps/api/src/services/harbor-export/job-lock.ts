// Harbor 0.9's JobLock (harbor/models/job/lock.py, the job's lock.json) from the platform's run
// lock and the export's trial configs. Harbor did not make it: its `harbor` info and `invocation`
// are null. Each TaskLock's digest is the platform's task content digest, not Harbor's Packager
// content hash (a different walk over the task's files), so Harbor's resume check will not find it
// equal to a lock Harbor made for the same tasks. The platform's own lock, with its fingerprint,
// is written next to it as osmosis-lock.json.
import type { RunLock } from '@osmosis/contracts';
import type { HarborTrialConfig, harborJobConfig } from './configs.ts';

/** The form Harbor's digest validator accepts: `sha256:` and 64 lowercase hex characters. */
const HARBOR_DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Our task digest (64 hex, with or without `sha256:`) in Harbor's form; throws when it is not a SHA-256. */
export function harborTaskDigest(digest: string): string {
  const hex = digest.replace(/^sha256:/i, '').toLowerCase();
  const out = `sha256:${hex}`;
  if (!HARBOR_DIGEST.test(out)) throw new Error(`task digest ${JSON.stringify(digest)} is not a SHA-256`);
  return out;
}

export interface LockedTrial {
  taskName: string;
  /** the digest the attempt ran the task at (used when the run lock does not list the task) */
  taskDigest: string;
  config: HarborTrialConfig;
}

function taskLock(lock: RunLock, trial: LockedTrial) {
  const source = lock.benchmark.source;
  const git = source.kind === 'git';
  const digest = lock.tasks.find((t) => t.name === trial.taskName)?.digest ?? trial.taskDigest;
  return {
    name: trial.taskName,
    type: git ? ('git' as const) : ('local' as const),
    digest: harborTaskDigest(digest),
    source: trial.config.task.source,
    path: trial.config.task.path,
    git_url: git ? source.url : null,
    git_commit_id: git ? source.commit : null,
  };
}

export function harborJobLock(
  lock: RunLock,
  jobConfig: Pick<ReturnType<typeof harborJobConfig>, 'n_concurrent_trials' | 'retry'>,
  trials: readonly LockedTrial[],
) {
  return {
    schema_version: 1,
    created_at: lock.run.created_at,
    harbor: { version: null, git_commit_hash: null, is_editable: null },
    invocation: null,
    n_concurrent_trials: jobConfig.n_concurrent_trials,
    retry: jobConfig.retry,
    trials: trials.map((t) => ({
      task: taskLock(lock, t),
      timeout_multiplier: t.config.timeout_multiplier,
      agent_timeout_multiplier: t.config.agent_timeout_multiplier,
      verifier_timeout_multiplier: t.config.verifier_timeout_multiplier,
      agent_setup_timeout_multiplier: t.config.agent_setup_timeout_multiplier,
      environment_build_timeout_multiplier: t.config.environment_build_timeout_multiplier,
      extra_instructions: null,
      agent: t.config.agent,
      skills: [],
      environment: t.config.environment,
      extra_docker_compose: null,
      verifier: t.config.verifier,
    })),
  };
}
