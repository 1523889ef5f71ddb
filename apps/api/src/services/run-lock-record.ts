// The part of a run's lock known at submit (contracts' RunLockRecord, stored as runs.lock): the
// benchmark's source, each task's digests and image reference, each agent as configured, the
// judge and the effective execution config. Secrets appear by record name only; an endpoint's
// extra headers by name only (a header can carry a credential).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  effectiveEnv,
  isGitCommitId,
  RUN_LOCK_SCHEMA_VERSION,
  type RunConfig,
  type RunLockAgent,
  type RunLockRecord,
  type RunLockSource,
  TERMINUS2_HARNESS_VERSION,
} from '@osmosis/contracts';
import { agentSecretNames } from '@osmosis/core';
import type { Db } from '@osmosis/db';
import { redactUrl } from '@osmosis/tasks';
import type { Prepared } from './submit-prepare.ts';

function platformVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../../../package.json'), 'utf8'));
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
const PLATFORM = { version: platformVersion(), commit: process.env.OSMOSIS_GIT_COMMIT?.trim() || null };

/** A URL without credentials or query (either may carry a key). */
function bareUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString();
  } catch {
    return redactUrl(url).replace(/[?#].*$/, '');
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The benchmark's source as the lock names it, from its stored kind and description. A git
 * source's commit is the one its sync checked out (`syncedCommit`), else the ref
 * when that is a commit id; only a 40- or 64-hex id is ever recorded.
 */
export function lockSource(kind: string, source: unknown, syncedCommit: string | null = null): RunLockSource {
  const s = (source ?? {}) as Record<string, unknown>;
  if (kind === 'git') {
    const ref = str(s.ref);
    const url = str(s.url);
    const refCommit = ref?.toLowerCase() ?? null;
    return {
      kind: 'git',
      url: url ? bareUrl(url) : null,
      ref,
      commit: isGitCommitId(syncedCommit) ? syncedCommit : isGitCommitId(refCommit) ? refCommit : null,
      archive: null,
      path: str(s.path),
    };
  }
  if (kind === 'archive') {
    return {
      kind: 'archive',
      url: null,
      ref: null,
      commit: null,
      archive: str(s.archive_key),
      path: str(s.path),
    };
  }
  const url = str(s.registry_url);
  const dataset = str(s.dataset)?.split('@')[0] ?? null;
  const version = str(s.resolved_version);
  return {
    kind: 'registry',
    url: url ? bareUrl(url) : null,
    ref: dataset && version ? `${dataset}@${version}` : str(s.dataset),
    commit: null,
    archive: str(s.registry_key),
    path: null,
  };
}

function lockAgent(config: RunConfig, index: number, harness: string): RunLockAgent {
  const agent = config.agents[index]!;
  const m = agent.model;
  const model: RunLockAgent['model'] = !m
    ? { type: 'none', name: null, base_url: null, secret: null, header_names: [] }
    : m.type === 'hosted'
      ? {
          type: 'hosted',
          name: m.lora_model_name ? `${m.base_model}+${m.lora_model_name}` : m.base_model,
          base_url: null,
          secret: null,
          header_names: [],
        }
      : {
          type: m.type,
          name: m.model,
          base_url: m.type === 'endpoint' ? bareUrl(m.base_url) : null,
          secret: m.api_key_secret,
          header_names: m.type === 'endpoint' ? Object.keys(m.extra_headers ?? {}).sort() : [],
        };
  return {
    index,
    harness,
    harness_version: harness === 'terminus-2' ? TERMINUS2_HARNESS_VERSION : PLATFORM.version,
    model,
    params: { ...(agent.params ?? {}) },
    env: effectiveEnv(config, index),
    secret_env: agentSecretNames(config, index),
    harness_api_key_secret: agent.harness_api_key_secret ?? null,
    runs: [],
  };
}

/** The lock's submit-time part for a prepared submit. */
export async function buildRunLockRecord(
  db: Db,
  prepared: Prepared,
  reuseFrom: string | null,
): Promise<RunLockRecord> {
  const { config, resolved, benchmark } = prepared;
  const bench = await db.benchmark.findUniqueOrThrow({
    where: { id: benchmark.id },
    select: { sourceKind: true, source: true, sourceCommit: true, judgeKind: true },
  });
  const rows = await db.task.findMany({
    where: { id: { in: resolved.selection.tasks.map((t) => t.id) } },
    select: { name: true, digest: true, envDigest: true, config: true },
    orderBy: { name: 'asc' },
  });
  const tasks = rows.map((t) => {
    const env = ((t.config ?? {}) as { environment?: { docker_image?: unknown } }).environment;
    return { name: t.name, digest: t.digest, env_digest: t.envDigest, image: str(env?.docker_image) };
  });
  const x = config.execution;
  return {
    schema_version: RUN_LOCK_SCHEMA_VERSION,
    platform: PLATFORM,
    benchmark: { key: benchmark.key, source: lockSource(bench.sourceKind, bench.source, bench.sourceCommit) },
    tasks,
    agents: config.agents.map((_, i) => lockAgent(config, i, resolved.harnesses[i]!)),
    judge: {
      kind: bench.judgeKind,
      model: resolved.judgeModel,
      secret: resolved.judgeModel ? (x.judge_api_key_secret ?? null) : null,
      // the prompts the worker records as attempts are judged: added when the lock is read (run-lock.ts)
      template_digests: [],
    },
    execution: {
      attempts_per_task: x.attempts_per_task,
      timeout_multiplier: x.timeout_multiplier,
      max_retries: x.max_retries,
      pass_threshold: resolved.passThreshold,
      max_concurrent_attempts: x.max_concurrent_attempts,
      max_cost_usd: x.max_cost_usd ?? null,
      selection: {
        task_set: config.tasks?.task_set ?? null,
        task_names: config.tasks?.task_names ?? null,
        categories: config.tasks?.categories ?? null,
      },
      secrets: config.secrets?.required ?? [],
      verifier_secrets: config.verifier?.required ?? [],
      reuse_from: reuseFrom,
    },
  };
}
