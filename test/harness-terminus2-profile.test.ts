// terminus-2's harbor-0.9 profile through the Harness interface in a real sandbox from
// osmosis/base:bookworm: `[agents.params] reference` reaches the loop, tmux types keystrokes that
// start with `-` (Harbor 0.9's `send-keys --`, tmux_session.py L358–360), no temperature goes to
// the model (terminus_2.py L151), and the attempt records Harbor 0.9.0 and, for a model no limits
// table knows, the warning naming the settings.
import { getHarness } from '@osmosis/harness';
import { createSandbox, type Sandbox } from '@osmosis/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './helpers/fake-model-server.ts';
import { testHarnessContext } from './helpers/harness-context.ts';

const IMAGE = process.env.OSMOSIS_BASE_IMAGE ?? 'osmosis/base:bookworm';
const API_KEY = 'sk-planted-model-key-0123456789';

let fake: FakeModelServer;
let sandbox: Sandbox;
const json = (keystrokes: string[], taskComplete: boolean) =>
  JSON.stringify({
    analysis: 'a',
    plan: 'p',
    commands: keystrokes.map((k) => ({ keystrokes: k, duration: 0.5 })),
    task_complete: taskComplete,
  });

beforeAll(async () => {
  fake = await startFakeModelServer();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(async () => {
  fake.reset();
  sandbox = await createSandbox({
    image: IMAGE,
    workdir: '/root',
    labels: { extra: { test: 'harness-terminus2-profile' } },
  });
});
afterEach(async () => {
  await sandbox.destroy();
});

describe('terminus-2 as harbor-0.9', { timeout: 180_000 }, () => {
  it('types keystrokes starting with `-`, sends no temperature, records Harbor 0.9.0 and the unknown context size', async () => {
    process.env.OSMOSIS_PROVIDER_OPENAI_BASE_URL = fake.openaiBaseUrl;
    const dashed = '-x 2>/dev/null; echo typed > /tmp/dash.txt\n';
    fake.enqueue({ kind: 'text', text: json([dashed], true) }, { kind: 'text', text: json([], true) });
    const ctx = testHarnessContext({
      sandbox,
      env: { OPENAI_API_KEY: API_KEY },
      secrets: [API_KEY],
      agentMs: 100_000,
      workdir: '/tmp',
      harness: 'terminus-2',
      config: {
        harness: 'terminus-2',
        model: { type: 'provider', model: 'openai/model-no-table-knows', api_key_secret: 'OPENAI_API_KEY' },
        params: { reference: 'harbor-0.9' },
      },
    });
    const harness = getHarness('terminus-2');
    await harness.setup(ctx);
    const result = await harness.run(ctx, 'type a dash');
    expect(result.error).toBeUndefined();
    const typed = await sandbox.exec(['cat', '/tmp/dash.txt']);
    expect(typed.stdout).toBe('typed\n');
    expect(fake.requests).toHaveLength(2);
    for (const r of fake.requests) expect(r.body).not.toHaveProperty('temperature');
    expect(result.harnessInfo).toMatchObject({
      reference: { project: 'harbor', version: '0.9.0', commit: '1b1dbc43729edff705071a797bb0f98a90cf62f5' },
      model_params: { temperature: null, temperature_sent: false },
    });
    expect(result.harnessInfo?.warnings).toEqual([
      expect.stringMatching(
        /context size of openai\/model-no-table-knows is unknown.*OSMOSIS_UNKNOWN_MODEL_CONTEXT_TOKENS/,
      ),
    ]);
  });

  it('a multi-step task: harbor-0.6.4 ends the second step at its first task_complete, harbor-0.9 asks again', async () => {
    process.env.OSMOSIS_PROVIDER_OPENAI_BASE_URL = fake.openaiBaseUrl;
    const complete = { kind: 'text' as const, text: json([], true) };
    const requestsPerStep = async (reference: 'harbor-0.6.4' | 'harbor-0.9') => {
      const ctx = testHarnessContext({
        sandbox,
        env: { OPENAI_API_KEY: API_KEY },
        secrets: [API_KEY],
        agentMs: 100_000,
        workdir: '/tmp',
        harness: 'terminus-2',
        config: {
          harness: 'terminus-2',
          model: { type: 'provider', model: 'openai/gpt-5.2', api_key_secret: 'OPENAI_API_KEY' },
          params: { reference },
        },
      });
      const harness = getHarness('terminus-2');
      await harness.setup(ctx);
      const counts: number[] = [];
      for (const step of ['step one', 'step two']) {
        const before = fake.requests.length;
        fake.enqueue(complete, complete);
        expect((await harness.run(ctx, step)).error).toBeUndefined();
        counts.push(fake.requests.length - before);
        fake.reset();
      }
      return counts;
    };
    expect(await requestsPerStep('harbor-0.6.4')).toEqual([2, 1]);
    await sandbox.destroy();
    sandbox = await createSandbox({
      image: IMAGE,
      workdir: '/root',
      labels: { extra: { test: 'harness-terminus2-profile' } },
    });
    expect(await requestsPerStep('harbor-0.9')).toEqual([2, 2]);
  });
});
