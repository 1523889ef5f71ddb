// A platform run lock (contracts' RunLock) as the Harbor export's pure tests need one: tasks with
// digests, a benchmark source, one agent. Parsed through the schema so it cannot drift from it.
import { RunLock, type RunLockSource } from '@osmosis/contracts';

export function runLockFixture(
  tasks: { name: string; digest: string }[],
  source: Partial<RunLockSource> = {},
): RunLock {
  return RunLock.parse({
    schema_version: 1,
    platform: { version: '0.1.0', commit: null },
    benchmark: {
      key: 'terminal-bench',
      source: { kind: 'archive', url: null, ref: null, commit: null, archive: 'k', path: null, ...source },
    },
    tasks: tasks.map((t) => ({ ...t, env_digest: 'e'.repeat(64), image: null })),
    agents: [],
    judge: { kind: null, model: null, secret: null, template_digests: [] },
    execution: {
      attempts_per_task: 1,
      timeout_multiplier: 1,
      max_retries: 0,
      pass_threshold: 1,
      max_concurrent_attempts: 4,
      max_cost_usd: null,
      selection: { task_set: null, task_names: null, categories: null },
      secrets: [],
      verifier_secrets: [],
      reuse_from: null,
    },
    fingerprint: 'f'.repeat(64),
    run: { id: 'r1', name: 'calm-heron', created_at: '2026-12-01T10:00:00.000Z', status: 'finished' },
    images: [],
    complete: true,
  });
}
