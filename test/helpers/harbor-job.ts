// Harbor job directories written as Harbor 0.9 writes them (job.py, trial/trial.py): the job's
// config.json and result.json (without trial_results), one `<task>__<id>` folder per trial with
// config.json, result.json (every TrialResult field), trial.log, agent/<agent>.txt,
// agent/trajectory.json (ATIF), verifier/test-stdout.txt and verifier/reward.txt. Test data for
// `runs import`; tests then break one thing at a time.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface HarborTrialSpec {
  task: string;
  /** the verifier's reward; null: no verifier result (the trial raised first) */
  reward: number | null;
  agent?: string;
  model?: { name: string; provider: string | null } | null;
  /** Harbor's exception type, e.g. AgentTimeoutError */
  exception?: string;
  trialName?: string;
  tokens?: { input: number; output: number; cache: number };
  costUsd?: number;
  startedAt?: string;
}

const at = (base: string, seconds: number) => new Date(Date.parse(base) + seconds * 1000).toISOString();

export function harborTrialResult(spec: HarborTrialSpec, trialName: string): Record<string, unknown> {
  const start = spec.startedAt ?? '2026-11-02T10:00:00.000000+00:00';
  const agent = spec.agent ?? 'terminus-2';
  const model = spec.model === undefined ? { name: 'gpt-5', provider: 'openai' } : spec.model;
  const timing = (from: number, to: number) => ({ started_at: at(start, from), finished_at: at(start, to) });
  return {
    id: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
    task_name: spec.task,
    trial_name: trialName,
    trial_uri: `file:///home/me/jobs/demo/${trialName}`,
    task_id: { path: `tasks/${spec.task}` },
    source: 'sample',
    task_checksum: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    config: {
      task: { path: `tasks/${spec.task}`, source: 'sample' },
      trial_name: trialName,
      trials_dir: 'jobs/demo',
      timeout_multiplier: 1.0,
      agent: { name: agent, model_name: model ? `${model.provider}/${model.name}` : null, kwargs: {} },
      environment: { type: 'docker', force_build: false, delete: true },
      verifier: { disable: false },
      job_id: '9a8b7c6d-5e4f-4321-8a9b-0c1d2e3f4a5b',
    },
    agent_info: { name: agent, version: '0.9.0', model_info: model },
    agent_result: {
      n_input_tokens: spec.tokens?.input ?? 1200,
      n_cache_tokens: spec.tokens?.cache ?? 100,
      n_output_tokens: spec.tokens?.output ?? 300,
      cost_usd: spec.costUsd ?? 0.0125,
      rollout_details: null,
      metadata: null,
    },
    verifier_result: spec.reward === null ? null : { rewards: { reward: spec.reward } },
    exception_info: spec.exception
      ? {
          exception_type: spec.exception,
          exception_message: `${spec.exception} raised`,
          exception_traceback: 'Traceback (most recent call last):\n  ...',
          occurred_at: at(start, 50),
        }
      : null,
    started_at: at(start, 0),
    finished_at: at(start, 70),
    environment_setup: timing(0, 5),
    agent_setup: timing(5, 10),
    agent_execution: timing(10, 52),
    verifier: spec.reward === null ? null : timing(55, 65),
    step_results: null,
  };
}

/** Writes the job folder `dir` (created) and returns its trials' folder names in order. */
export function writeHarborJob(dir: string, trials: HarborTrialSpec[], jobName = 'demo'): string[] {
  mkdirSync(dir, { recursive: true });
  const json = (file: string, value: unknown) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(value, null, 4));
  };
  json(path.join(dir, 'config.json'), {
    job_name: jobName,
    jobs_dir: 'jobs',
    n_attempts: 1,
    timeout_multiplier: 1.0,
  });
  json(path.join(dir, 'result.json'), {
    id: '9a8b7c6d-5e4f-4321-8a9b-0c1d2e3f4a5b',
    started_at: '2026-11-02T10:00:00.000000',
    updated_at: '2026-11-02T11:00:00.000000',
    finished_at: '2026-11-02T11:00:00.000000',
    n_total_trials: trials.length,
    stats: { n_completed_trials: trials.length, n_errored_trials: 0, evals: {} },
  });
  writeFileSync(path.join(dir, 'job.log'), 'job started\n');
  return trials.map((spec, i) => {
    const name = spec.trialName ?? `${spec.task.slice(0, 32)}__t${String(i).padStart(6, '0')}`;
    const trial = path.join(dir, name);
    const result = harborTrialResult(spec, name);
    json(path.join(trial, 'config.json'), result.config);
    json(path.join(trial, 'result.json'), result);
    writeFileSync(path.join(trial, 'trial.log'), `trial ${name}\n`);
    mkdirSync(path.join(trial, 'agent'), { recursive: true });
    writeFileSync(path.join(trial, 'agent', `${spec.agent ?? 'terminus-2'}.txt`), `agent ran ${spec.task}\n`);
    json(path.join(trial, 'agent', 'trajectory.json'), {
      schema_version: 'ATIF-v1.4',
      session_id: `session-${i}`,
      agent: { name: spec.agent ?? 'terminus-2', version: '0.9.0' },
      steps: [{ step_id: 1, source: 'user', message: `solve ${spec.task}` }],
    });
    if (spec.reward !== null) {
      mkdirSync(path.join(trial, 'verifier'), { recursive: true });
      writeFileSync(path.join(trial, 'verifier', 'test-stdout.txt'), 'tests ran\n');
      writeFileSync(path.join(trial, 'verifier', 'reward.txt'), `${spec.reward}\n`);
    }
    return name;
  });
}
