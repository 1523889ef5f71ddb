// The two behaviour profiles, each difference seen where it leaves the platform: the request the
// fake model server receives, the tmux argv, the overflow classification, the recorded reference,
// and the completion a multi-step trial carries from one step to the next.
import type { AgentParams, Terminus2Profile } from '@osmosis/contracts';
import { terminus2ProfileOf } from '@osmosis/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from '../../../../test/helpers/fake-model-server.ts';
import { createModelClient } from '../models/client.ts';
import type { ModelError } from '../models/errors.ts';
import { runTerminus2 } from './agent.ts';
import { PROFILE_BEHAVIOUR } from './profile.ts';
import type { ExecHost } from './tmux.ts';

let fake: FakeModelServer;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  fake = await startFakeModelServer();
  env = {
    OSMOSIS_PROVIDER_OPENAI_BASE_URL: fake.openaiBaseUrl,
    OSMOSIS_PROVIDER_ANTHROPIC_BASE_URL: fake.anthropicBaseUrl,
  };
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

/** A terminal that answers as tmux would and records every argv. */
function fakeTmux() {
  const calls: string[][] = [];
  const host: ExecHost = {
    async exec(cmd) {
      const argv = Array.isArray(cmd) ? cmd : [cmd];
      calls.push(argv);
      const stdout = argv.includes('capture-pane') ? 'root@box:/app# \n' : '';
      return { exitCode: 0, stdout, stderr: '', timedOut: false };
    },
  };
  return { host, sendKeys: () => calls.filter((a) => a.includes('send-keys')) };
}

const done = JSON.stringify({
  analysis: 'a',
  plan: 'p',
  commands: [{ keystrokes: '-n\n', duration: 0.1 }],
  task_complete: true,
});

async function run(profile: Terminus2Profile, params: AgentParams = {}, pendingCompletion = false) {
  const terminal = fakeTmux();
  const model = createModelClient(
    { type: 'provider', model: 'openai/gpt-4.1' },
    { apiKey: 'sk-test', env, contextOverflowPhrases: PROFILE_BEHAVIOUR[profile].contextOverflowPhrases },
  );
  const result = await runTerminus2({
    host: terminal.host,
    model,
    instruction: 'do it',
    timeoutMs: 60_000,
    profile,
    params,
    pendingCompletion,
    tmux: { paneLog: null },
  });
  return { result, sendKeys: terminal.sendKeys() };
}

describe('harbor-0.6.4 and harbor-0.9', () => {
  it('0.6.4 sends temperature 0.7 and keystrokes without `--`; records Harbor 0.6.4', async () => {
    fake.enqueue({ kind: 'text', text: done }, { kind: 'text', text: done });
    const { result, sendKeys } = await run('harbor-0.6.4');
    expect(result.stopReason).toBe('task_complete');
    expect(fake.requests.map((r) => r.body.temperature)).toEqual([0.7, 0.7]);
    expect(sendKeys[0]).toEqual(['tmux', 'send-keys', '-t', 'terminus-2', '-n\n']);
    expect(result.harnessInfo.reference).toMatchObject({
      version: '0.6.4',
      commit: expect.stringMatching(/^331dcba/),
    });
    expect(result.harnessInfo.model_params).toMatchObject({ temperature: 0.7, temperature_sent: true });
  });

  it('0.9 sends no temperature unless configured, and `--` before the keystrokes; records Harbor 0.9.0', async () => {
    fake.enqueue({ kind: 'text', text: done }, { kind: 'text', text: done });
    const { result, sendKeys } = await run('harbor-0.9');
    expect(result.stopReason).toBe('task_complete');
    expect(fake.requests).toHaveLength(2);
    for (const r of fake.requests) expect(r.body).not.toHaveProperty('temperature');
    expect(sendKeys[0]).toEqual(['tmux', 'send-keys', '-t', 'terminus-2', '--', '-n\n']);
    expect(result.harnessInfo.reference).toMatchObject({
      version: '0.9.0',
      commit: expect.stringMatching(/^1b1dbc4/),
    });
    expect(result.harnessInfo.model_params).toMatchObject({ temperature: null, temperature_sent: false });

    fake.requests.length = 0;
    fake.enqueue({ kind: 'text', text: done }, { kind: 'text', text: done });
    await run('harbor-0.9', { temperature: 0.3 });
    expect(fake.requests.map((r) => r.body.temperature)).toEqual([0.3, 0.3]);
  });

  it('a completion pending from the previous step ends the next step at its first task_complete', async () => {
    fake.enqueue({ kind: 'text', text: done });
    const carried = await run('harbor-0.6.4', {}, true);
    expect(carried.result).toMatchObject({ stopReason: 'task_complete', turns: 1, pendingCompletion: true });
    fake.enqueue({ kind: 'text', text: done }, { kind: 'text', text: done });
    const fresh = await run('harbor-0.9');
    expect(fresh.result).toMatchObject({ stopReason: 'task_complete', turns: 2 });
  });
});

describe('context-too-long phrases (lite_llm.py _is_context_length_error)', () => {
  const classOf = async (profile: Terminus2Profile | null, model: string, message: string) => {
    const client = createModelClient(
      { type: 'provider', model },
      {
        apiKey: 'sk-test',
        env,
        retry: { maxRetries: 0 },
        ...(profile ? { contextOverflowPhrases: PROFILE_BEHAVIOUR[profile].contextOverflowPhrases } : {}),
      },
    );
    fake.enqueue({ kind: 'error', status: 400, message });
    const error = (await client.chat([{ role: 'user', content: 'x' }]).catch((e) => e)) as ModelError;
    return error.errorClass;
  };

  it("a proxy's Anthropic and Bedrock messages are an overflow for 0.9, a bad request for 0.6.4", async () => {
    const anthropicViaProxy = 'prompt is too long: 210000 tokens > 200000 maximum';
    const bedrockViaProxy = 'Input is too long for requested model.';
    for (const message of [anthropicViaProxy, bedrockViaProxy]) {
      expect(await classOf('harbor-0.6.4', 'openai/gpt-4.1', message)).toBe('provider_bad_request');
      expect(await classOf('harbor-0.9', 'openai/gpt-4.1', message)).toBe('provider_context_overflow');
    }
    // Anthropic's own API: LiteLLM maps its message itself, in both
    expect(await classOf('harbor-0.6.4', 'anthropic/claude-sonnet-4-5', anthropicViaProxy)).toBe(
      'provider_context_overflow',
    );
  });

  it("both know OpenAI's and vLLM's; the judge and other callers keep the widest set", async () => {
    for (const profile of ['harbor-0.6.4', 'harbor-0.9'] as const) {
      expect(
        await classOf(profile, 'openai/gpt-4.1', "This model's maximum context length is 8192 tokens"),
      ).toBe('provider_context_overflow');
      expect(await classOf(profile, 'openai/gpt-4.1', "exceeds the model's context length (32768)")).toBe(
        'provider_context_overflow',
      );
      expect(await classOf(profile, 'openai/gpt-4.1', 'Unsupported parameter: temperature')).toBe(
        'provider_bad_request',
      );
    }
    expect(await classOf(null, 'openai/gpt-4.1', 'prompt is too long: 9 tokens')).toBe(
      'provider_context_overflow',
    );
  });
});

describe('choosing the profile', () => {
  it("the agent's reference, else the operator's default, else harbor-0.6.4; a wrong setting names the allowed ones", () => {
    expect(terminus2ProfileOf(undefined, {})).toBe('harbor-0.6.4');
    expect(terminus2ProfileOf(undefined, { OSMOSIS_TERMINUS2_REFERENCE: 'harbor-0.9' })).toBe('harbor-0.9');
    expect(terminus2ProfileOf('harbor-0.6.4', { OSMOSIS_TERMINUS2_REFERENCE: 'harbor-0.9' })).toBe(
      'harbor-0.6.4',
    );
    expect(() => terminus2ProfileOf(undefined, { OSMOSIS_TERMINUS2_REFERENCE: '0.9' })).toThrow(
      /OSMOSIS_TERMINUS2_REFERENCE=0\.9: .*"harbor-0\.6\.4", "harbor-0\.9"/,
    );
  });
});
