// The rubric judge's template identity: the SHA-256 of its prompt rendered with placeholders. It
// must follow the wording (any part of it, the files section included) and nothing else.
import { JUDGE_TEMPLATE_ID } from '@osmosis/contracts';
import { describe, expect, it } from 'vitest';
import { hleJudgeTemplateFromEnv } from './hle-template.ts';
import { rubricJudgePrompt, rubricJudgeTemplate, rubricPromptDigest } from './rubric-prompt.ts';
import { judgeTemplateId } from './template-id.ts';

// a phrase the prompt no longer says leaves the digest as it was, and fails the test below
const reworded =
  (from: string, to: string): typeof rubricJudgePrompt =>
  (...args) =>
    rubricJudgePrompt(...args).replace(from, to);

describe('the rubric judge template digest', () => {
  it('is stable: the same wording gives the same digest, whatever the task', () => {
    const template = rubricJudgeTemplate();
    expect(template.kind).toBe('default');
    expect(template.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(rubricPromptDigest()).toBe(template.digest);
    expect(rubricPromptDigest((...args) => rubricJudgePrompt(...args))).toBe(template.digest);
    expect(judgeTemplateId(template)).toMatch(JUDGE_TEMPLATE_ID);
  });

  it('changes when the wording changes: the instructions, the files section, the no-text fallback', () => {
    const digest = rubricPromptDigest();
    const changes = [
      reworded('Judge only what the work contains.', 'Judge what the work contains.'),
      reworded('partial credit allowed', 'partial credit is allowed'),
      reworded('attached to this message', 'attached'),
      reworded('judge it by its name and size only', 'judge it by its name only'),
      reworded('(no text answer; see the files)', '(no text answer)'),
    ];
    const digests = changes.map((render) => rubricPromptDigest(render));
    for (const other of digests) expect(other).not.toBe(digest);
    expect(new Set(digests).size).toBe(changes.length);
  });

  it("is not the HLE judge's: the two judges' templates are told apart", () => {
    expect(rubricJudgeTemplate().digest).not.toBe(hleJudgeTemplateFromEnv({}).digest);
  });
});
