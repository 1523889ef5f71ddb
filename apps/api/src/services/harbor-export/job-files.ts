// The files of a Harbor job directory for a run (Harbor 0.9's layout, job.py and TrialPaths):
//
//   config.json                  JobConfig
//   result.json                  JobResult without trial_results
//   lock.json                    JobLock made from the run's lock (job-lock.ts), when the caller has one
//   osmosis-lock.json            the platform's run lock itself, with its fingerprint
//   <trial>/config.json          TrialConfig
//   <trial>/result.json          TrialResult
//   <trial>/agent/…              the attempt's artifacts, already in Harbor's places: agent/ (logs,
//   <trial>/verifier/…           trajectory.json in ATIF), verifier/ (reward.txt|json, test-stdout.txt),
//   <trial>/artifacts/…          artifacts/, steps/<name>/{agent,verifier,artifacts}/ for multi-step tasks
//
// One trial per attempt that started and ended; attempts still queued or running have none (as
// Harbor writes result.json only when a trial ends).
import type { RunLock } from '@osmosis/contracts';
import { harborJobConfig, harborTrialConfig } from './configs.ts';
import { harborJobLock, type LockedTrial } from './job-lock.ts';
import { harborJobResult } from './job-result.ts';
import { type ExportAttempt, type ExportRun, isExportedAttempt } from './model.ts';
import { trialNames } from './trial-names.ts';
import { type HarborTrialResult, harborTrialResult } from './trial-result.ts';

export interface JsonFile {
  path: string;
  json: unknown;
}

export interface ArtifactCopy {
  /** where it goes in the job directory */
  path: string;
  attemptId: string;
  /** its path among the attempt's artifacts */
  artifactPath: string;
}

export interface HarborTrial {
  attempt: ExportAttempt;
  name: string;
  result: HarborTrialResult;
}

export interface HarborJob {
  config: ReturnType<typeof harborJobConfig>;
  trials: HarborTrial[];
  jsonFiles: JsonFile[];
  artifacts: ArtifactCopy[];
}

/** `lock`: the run's lock; given, lock.json (as Harbor's JobLock) and osmosis-lock.json are written. */
export function harborJob(run: ExportRun, attempts: readonly ExportAttempt[], lock?: RunLock): HarborJob {
  const config = harborJobConfig(run);
  const exported = attempts.filter(isExportedAttempt);
  const names = trialNames(exported);
  const agents = new Map(run.agents.map((a) => [a.index, a]));
  const trials: HarborTrial[] = [];
  const jsonFiles: JsonFile[] = [{ path: 'config.json', json: config }];
  const artifacts: ArtifactCopy[] = [];
  const locked: LockedTrial[] = [];
  for (const attempt of exported) {
    const agent = agents.get(attempt.agentIndex);
    if (!agent) continue;
    const name = names.get(attempt.id) as string;
    const trialConfig = harborTrialConfig(run, agent, attempt.taskName, name);
    const result = harborTrialResult(run, agent, attempt, name, trialConfig);
    trials.push({ attempt, name, result });
    locked.push({ taskName: attempt.taskName, taskDigest: attempt.taskDigest, config: trialConfig });
    jsonFiles.push({ path: `${name}/config.json`, json: trialConfig });
    jsonFiles.push({ path: `${name}/result.json`, json: result });
    for (const p of attempt.artifactPaths)
      artifacts.push({ path: `${name}/${p}`, attemptId: attempt.id, artifactPath: p });
  }
  const open = attempts.filter((a) => !isExportedAttempt(a));
  const result = harborJobResult(
    run,
    trials.map((t) => t.result),
    {
      planned: run.taskNames.length * run.attemptsPerTask * run.agents.length,
      running: open.filter((a) => a.status === 'running').length,
      pending: open.filter((a) => a.status === 'queued').length,
      retries: attempts.reduce((n, a) => n + Math.max(0, a.tryCount - 1), 0),
    },
  );
  jsonFiles.splice(1, 0, { path: 'result.json', json: result });
  if (lock !== undefined)
    jsonFiles.splice(
      2,
      0,
      { path: 'lock.json', json: harborJobLock(lock, config, locked) },
      { path: 'osmosis-lock.json', json: lock },
    );
  return { config, trials, jsonFiles, artifacts };
}
