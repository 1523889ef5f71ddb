// What the Harbor export reads of a run (plain data, loaded by services/harbor-export/load.ts) and
// the small helpers every mapping shares. Everything under harbor-export/ but load.ts and
// archive.ts is pure: rows in, Harbor's JSON out.
import type { AttemptStepResult } from '@osmosis/contracts';

export interface ExportAgent {
  index: number;
  harness: string;
  /** `none` (oracle, nop), `provider`, `endpoint` or `hosted` */
  modelType: string;
  /** the run's model label (`openai/gpt-5`, `model @ host`, `base + lora`) */
  model: string;
  /** the agent's [agents.params] as submitted, Harbor's agent kwargs */
  params: Record<string, unknown>;
}

export interface ExportAttempt {
  id: string;
  agentIndex: number;
  taskName: string;
  /** the task's content digest (`sha256:<hex>`) */
  taskDigest: string;
  /** which try of the task this is (0-based) */
  index: number;
  /** times it was executed (retries of errored tries included) */
  tryCount: number;
  status: string;
  outcome: string | null;
  reward: number | null;
  rewards: Record<string, number> | null;
  errorClass: string | null;
  errorMessage: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheTokens: number | null;
  costUsd: number | null;
  envMs: number | null;
  agentSetupMs: number | null;
  agentMs: number | null;
  verifierMs: number | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** the harness's version as the attempt recorded it */
  harnessVersion: string | null;
  steps: AttemptStepResult[] | null;
  /** the attempt's artifact paths (agent/…, verifier/…, artifacts/…, steps/<name>/…) */
  artifactPaths: string[];
}

export interface ExportRun {
  id: string;
  name: string;
  status: string;
  benchmarkKey: string;
  timeoutMultiplier: number;
  attemptsPerTask: number;
  maxConcurrentAttempts: number;
  maxRetries: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  agents: ExportAgent[];
  /** the run's selected tasks, by name */
  taskNames: string[];
}

/** An attempt that ended after it started: Harbor writes a trial's result.json only then. */
export function isExportedAttempt(a: ExportAttempt): boolean {
  return a.startedAt !== null && a.finishedAt !== null && a.outcome !== null;
}

/** Harbor's `model_name` of an agent: the provider/model, an endpoint's model, a hosted model; null without one. */
export function harborModelName(agent: ExportAgent): string | null {
  if (agent.modelType === 'none') return null;
  if (agent.modelType === 'endpoint') return agent.model.split(' @ ')[0] ?? agent.model;
  return agent.model;
}

/** Harbor's ModelInfo: `provider/name` split on the first `/`, as `BaseAgent.to_agent_info` does. */
export function harborModelInfo(modelName: string | null): { name: string; provider: string | null } | null {
  if (!modelName) return null;
  const slash = modelName.indexOf('/');
  return slash < 0
    ? { name: modelName, provider: null }
    : { name: modelName.slice(slash + 1), provider: modelName.slice(0, slash) };
}

export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
