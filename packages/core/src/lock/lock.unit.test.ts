import type { RunLock } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { diffFields } from './diff.ts';
import { countedLockFields, lockFingerprint, taskAgentFingerprint } from './fingerprint.ts';

function lock(): Omit<RunLock, 'fingerprint'> {
  return {
    schema_version: 1,
    run: { id: 'a1', name: 'brave-otter', created_at: '2026-12-05T10:00:00.000Z', status: 'completed' },
    platform: { version: '0.1.0', commit: null },
    benchmark: {
      key: 'tb',
      source: {
        kind: 'git',
        url: 'https://example.test/x.git',
        ref: null,
        commit: null,
        archive: null,
        path: null,
      },
    },
    tasks: [
      { name: 'hello', digest: 'sha256:aa', env_digest: 'e1', image: null },
      { name: 'world', digest: 'sha256:bb', env_digest: 'e2', image: 'docker.io/x/y:1' },
    ],
    images: [{ reference: 'docker.io/x/y:1', digest: 'sha256:cc' }],
    agents: [
      {
        index: 0,
        harness: 'terminus-2',
        harness_version: '2.0.0-parity.1',
        model: {
          type: 'endpoint',
          name: 'm',
          base_url: 'http://127.0.0.1:41234/v1',
          secret: 'KEY_A',
          header_names: [],
        },
        params: { temperature: 0.7 },
        env: { A: '1' },
        secret_env: ['KEY_A'],
        harness_api_key_secret: null,
        runs: [],
      },
    ],
    judge: { kind: null, model: null, secret: null, template_digests: [] },
    execution: {
      attempts_per_task: 2,
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
    complete: true,
  };
}

describe('canonical JSON', () => {
  it('sorts keys at every depth and leaves out undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });
  it('refuses what JSON cannot hold', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/number NaN/);
  });
  it('escapes hostile keys instead of letting them break the text', () => {
    const hostile = JSON.parse('{"__proto__":1,"a\\",\\"b":"x"}');
    expect(canonicalJson(hostile)).toBe('{"__proto__":1,"a\\",\\"b":"x"}');
  });
});

describe('lock fingerprint', () => {
  it('ignores volatile fields: ids, names, times, ports, secret names, operational limits', () => {
    const a = lock();
    const b = lock();
    b.run = { id: 'b2', name: 'calm-heron', created_at: '2026-12-06T00:00:00.000Z', status: 'running' };
    b.agents[0]!.model.base_url = 'http://127.0.0.1:50000/v1';
    b.agents[0]!.model.secret = 'KEY_B';
    b.agents[0]!.secret_env = ['KEY_B'];
    b.execution.max_concurrent_attempts = 64;
    b.execution.max_retries = 3;
    b.execution.reuse_from = 'brave-otter';
    b.platform.commit = 'abc';
    b.complete = false;
    expect(lockFingerprint(b)).toBe(lockFingerprint(a));
  });
  it('does not depend on the order tasks, images and key were listed in', () => {
    const b = lock();
    b.tasks.reverse();
    b.agents[0]!.env = { A: '1' };
    expect(lockFingerprint(b)).toBe(lockFingerprint(lock()));
  });
  it('changes with each field that counts, and the diff names it', () => {
    const base = lock();
    const changes: [string, (l: Omit<RunLock, 'fingerprint'>) => void][] = [
      [
        'tasks.hello.digest',
        (l) => {
          l.tasks[0]!.digest = 'sha256:dd';
        },
      ],
      [
        'images.docker.io/x/y:1',
        (l) => {
          l.images[0]!.digest = 'sha256:ee';
        },
      ],
      [
        'agents.0.model.name',
        (l) => {
          l.agents[0]!.model.name = 'other';
        },
      ],
      [
        'agents.0.params.temperature',
        (l) => {
          l.agents[0]!.params = { temperature: 1 };
        },
      ],
      [
        'execution.timeout_multiplier',
        (l) => {
          l.execution.timeout_multiplier = 2;
        },
      ],
      [
        'judge.model',
        (l) => {
          l.judge.model = 'openai/gpt-5';
        },
      ],
    ];
    for (const [field, change] of changes) {
      const other = lock();
      change(other);
      expect(lockFingerprint(other), field).not.toBe(lockFingerprint(base));
      expect(diffFields(countedLockFields(base), countedLockFields(other))).toEqual([field]);
    }
  });
  it('names a task present in one lock only', () => {
    const other = lock();
    other.tasks.pop();
    expect(diffFields(countedLockFields(lock()), countedLockFields(other))).toEqual(['tasks.world']);
  });
});

describe('task+agent fingerprint', () => {
  it('is the same for the same task and agent whatever else the run holds', () => {
    const a = lock();
    const b = lock();
    b.tasks[1]!.digest = 'sha256:changed';
    b.execution.attempts_per_task = 5;
    expect(taskAgentFingerprint(b, 'hello', 0)).toBe(taskAgentFingerprint(a, 'hello', 0));
    expect(taskAgentFingerprint(b, 'world', 0)).not.toBe(taskAgentFingerprint(a, 'world', 0));
  });
  it('is null for a task or agent the lock does not hold', () => {
    expect(taskAgentFingerprint(lock(), 'nope', 0)).toBeNull();
    expect(taskAgentFingerprint(lock(), 'hello', 3)).toBeNull();
  });
});
