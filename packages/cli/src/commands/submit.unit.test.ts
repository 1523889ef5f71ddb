import type { RunPreview } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { describeReceivers, renderPreview, workspaceLimitText } from './submit.ts';

const preview: RunPreview = {
  benchmark: { id: 'b', key: 'hle', name: "Humanity's Last Exam", default_harness: 'terminus-2' },
  tasks: {
    description: 'task set parity → 1 task',
    mode: 'task_set',
    task_set: 'parity',
    task_names: null,
    categories: null,
    task_count: 1,
    sample: ['hle/q1'],
    skipped_count: 0,
  },
  agents: [
    {
      index: 0,
      harness: 'codex',
      harness_defaulted: false,
      model_type: 'provider',
      model: 'openai/gpt-5.2',
      secret_names: ['OPENAI_API_KEY'],
    },
  ],
  attempts_per_task: 1,
  total_attempts: 1,
  max_concurrent_attempts: 4,
  timeout_multiplier: 1,
  max_retries: 0,
  pass_threshold: 1,
  judge_model: 'openai/o3-mini',
  secrets: [
    {
      name: 'OPENAI_API_KEY',
      scope: 'personal',
      used_by: ['agents[0].model.api_key_secret'],
      phases: ['agent', 'verifier'],
      receivers: [
        { phase: 'agent', agent_index: 0, in_sandbox: true },
        { phase: 'verifier', agent_index: null, in_sandbox: true },
      ],
    },
    {
      name: 'JUDGE_KEY',
      scope: 'workspace',
      used_by: ['execution.judge_api_key_secret'],
      phases: ['judge'],
      receivers: [{ phase: 'judge', agent_index: null, in_sandbox: false }],
    },
    {
      name: 'HF_TOKEN',
      scope: 'workspace',
      used_by: ['benchmark hle (required_secret_names)'],
      phases: [],
      receivers: [],
    },
  ],
  warnings: [],
};

describe('the submit preview says which phase receives each secret', () => {
  it('names each receiver and whether the value enters the sandbox', () => {
    expect(describeReceivers(preview.secrets[0]!)).toBe(
      'agent 1 (in the sandbox), verifier (in the sandbox)',
    );
    expect(describeReceivers(preview.secrets[1]!)).toBe('judge (stays in the platform)');
    expect(describeReceivers(preview.secrets[2]!)).toBe('no phase receives it');
    const text = renderPreview(preview);
    expect(text).toMatch(
      /Secrets\s+OPENAI_API_KEY → personal record \(agents\[0\]\.model\.api_key_secret\) → agent 1 \(in the sandbox\), verifier \(in the sandbox\)/,
    );
    expect(text).toContain(
      'JUDGE_KEY → workspace record (execution.judge_api_key_secret) → judge (stays in the platform)',
    );
    expect(text).toContain(
      'HF_TOKEN → workspace record (benchmark hle (required_secret_names)) → no phase receives it',
    );
  });

  it("shows the workspace's limit in force and its attempts in flight under the run's concurrency", () => {
    const limits = {
      max_concurrent_attempts: 16,
      workspace_max_concurrent_attempts: 16,
      operator_max_concurrent_attempts: 64,
      attempts_in_flight: 5,
    };
    expect(workspaceLimitText(limits)).toBe(
      'workspace limit 16 at a time across its runs (operator maximum 64), 5 in flight now',
    );
    const text = renderPreview({ ...preview, workspace_limits: limits });
    expect(text).toMatch(
      /Concurrency\s+4 attempts at a time\n\s+workspace limit 16 at a time across its runs \(operator maximum 64\), 5 in flight now/,
    );
    expect(renderPreview(preview)).not.toContain('workspace limit');
  });
});

describe('the submit preview with reuse_from', () => {
  it('says how many attempts are taken over and how many still run', () => {
    const text = renderPreview({ ...preview, reuse: { from: 'brave-otter', attempts: 3, to_run: 5 } });
    expect(text).toContain('3 finished attempt(s) taken over from run brave-otter; 5 to run');
    expect(renderPreview(preview)).not.toContain('taken over');
  });
});
