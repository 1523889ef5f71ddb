import { describe, expect, it } from 'vitest';
import { validateRunConfig } from './run-config.ts';

// harness named: the file-only rules check it (config-rules does the same with the benchmark's default)
const config = (agent: string) =>
  `[experiment]\nbenchmark = "terminal-bench-2-1"\n\n[[agents]]\n${agent.startsWith('harness') ? '' : 'harness = "terminus-2"\n'}${agent}\n`;
const openai =
  '[agents.model]\ntype = "provider"\nmodel = "openai/gpt-5.2"\napi_key_secret = "OPENAI_API_KEY"\n';
const claude =
  '[agents.model]\ntype = "provider"\nmodel = "anthropic/claude-sonnet-4-5"\napi_key_secret = "ANTHROPIC_API_KEY"\n';

describe('[agents.params]', () => {
  it('takes temperature, reasoning_effort and a Claude thinking budget for terminus-2', () => {
    const r = validateRunConfig(
      config(
        `harness = "terminus-2"\n${openai}[agents.params]\ntemperature = 0.2\nreasoning_effort = "high"\n`,
      ),
    );
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.config.agents[0]!.params).toEqual({ temperature: 0.2, reasoning_effort: 'high' });
    const thinking = validateRunConfig(
      config(`${claude}[agents.params]\ntemperature = 1\nmax_thinking_tokens = 4000\n`),
    );
    expect(thinking.ok).toBe(true);
  });

  it('names the key, the table and the fix when something is wrong', () => {
    const unknown = validateRunConfig(config(`${openai}[agents.params]\ntemprature = 0.2\n`));
    expect(unknown.issues[0]).toMatchObject({ code: 'UNKNOWN_KEY', path: 'agents[0].params.temprature' });
    expect(unknown.issues[0]!.message).toContain('did you mean `temperature`?');
    const other = validateRunConfig(
      config(`harness = "codex"\n${openai}[agents.params]\ntemperature = 0.2\n`),
    );
    expect(other.issues[0]).toMatchObject({ code: 'PARAMS_NOT_ACCEPTED', path: 'agents[0].params' });
    const budget = validateRunConfig(config(`${openai}[agents.params]\nmax_thinking_tokens = 2000\n`));
    expect(budget.issues[0]).toMatchObject({
      code: 'PARAMS_CONFLICT',
      path: 'agents[0].params.max_thinking_tokens',
    });
    const hot = validateRunConfig(config(`${claude}[agents.params]\nreasoning_effort = "low"\n`));
    expect(hot.issues[0]).toMatchObject({ code: 'PARAMS_CONFLICT', path: 'agents[0].params.temperature' });
    expect(hot.issues[0]!.message).toContain('add temperature = 1');
    const effort = validateRunConfig(
      config(`${claude}[agents.params]\nreasoning_effort = "xhigh"\ntemperature = 1\n`),
    );
    expect(effort.issues[0]!.message).toMatch(/only low, medium and high/);
    const small = validateRunConfig(
      config(`${claude}[agents.params]\nmax_thinking_tokens = 100\ntemperature = 1\n`),
    );
    expect(small.ok).toBe(false);
  });

  it('reference chooses the behaviour profile of terminus-2; any other value names the allowed ones', () => {
    const ok = validateRunConfig(config(`${openai}[agents.params]\nreference = "harbor-0.9"\n`));
    expect(ok.issues).toEqual([]);
    if (ok.ok) expect(ok.config.agents[0]!.params).toEqual({ reference: 'harbor-0.9' });
    const wrong = validateRunConfig(config(`${openai}[agents.params]\nreference = "0.9"\n`));
    expect(wrong.ok).toBe(false);
    expect(wrong.issues[0]).toMatchObject({ path: 'agents[0].params.reference' });
    expect(wrong.issues[0]!.message).toContain('use one of "harbor-0.6.4", "harbor-0.9"');
    const codex = validateRunConfig(
      config(`harness = "claude-code"\n${claude}[agents.params]\nreference = "harbor-0.9"\n`),
    );
    expect(codex.issues[0]).toMatchObject({
      code: 'PARAMS_NOT_ACCEPTED',
      path: 'agents[0].params.reference',
    });
    // 0.9 sends no temperature by default, so a Claude thinking budget needs no temperature = 1
    const thinking = validateRunConfig(
      config(`${claude}[agents.params]\nreference = "harbor-0.9"\nreasoning_effort = "low"\n`),
    );
    expect(thinking.issues).toEqual([]);
  });

  it('claude-code takes max_turns and reasoning_effort (its --effort levels) and nothing else', () => {
    const claudeCode = (params: string) =>
      validateRunConfig(config(`harness = "claude-code"\n${claude}[agents.params]\n${params}`));
    const ok = claudeCode('max_turns = 30\nreasoning_effort = "max"\n');
    expect(ok.issues).toEqual([]);
    expect(claudeCode('temperature = 0.2\n').issues[0]).toMatchObject({
      code: 'PARAMS_NOT_ACCEPTED',
      path: 'agents[0].params.temperature',
    });
    expect(claudeCode('reasoning_effort = "minimal"\n').issues[0]).toMatchObject({
      code: 'PARAMS_CONFLICT',
      path: 'agents[0].params.reasoning_effort',
    });
    expect(
      validateRunConfig(config(`harness = "terminus-2"\n${openai}[agents.params]\nmax_turns = 3\n`))
        .issues[0],
    ).toMatchObject({
      code: 'PARAMS_NOT_ACCEPTED',
      path: 'agents[0].params.max_turns',
    });
  });
});
