// The GDPVal-style rubric judge's prompt, and its identity: the prompt is built in code, so its
// digest is the SHA-256 of the prompt rendered with fixed placeholders (one of each kind of
// delivered file). It changes when the wording changes, never with the task being graded.
import { z } from 'zod';
import type { ChatAttachment } from '../models/types.ts';
import { sha256 } from '../terminus2/templates.ts';
import type { JudgeTemplate } from './template-id.ts';

export const RubricItem = z.object({
  id: z.string().optional(),
  criterion: z.string(),
  /** Points this criterion is worth (> 0). */
  points: z.number().positive(),
});
export type RubricItem = z.infer<typeof RubricItem>;

/** A delivered file as the prompt lists it (verifier.ts readDeliverables). */
export interface RubricFileInput {
  path: string;
  size: number;
  text?: string;
  attachment?: ChatAttachment;
}

function filesSection(files: readonly RubricFileInput[]): string {
  if (files.length === 0) return '';
  const parts = files.map((f) =>
    f.text !== undefined
      ? `--- ${f.path} (${f.size} bytes) ---\n${f.text}`
      : f.attachment
        ? `--- ${f.path} (${f.size} bytes): attached to this message ---`
        : `--- ${f.path} (${f.size} bytes): a file you cannot open; judge it by its name and size only ---`,
  );
  return `\n\n[files delivered]:\n${parts.join('\n\n')}`;
}

export function rubricJudgePrompt(
  task: string,
  rubric: RubricItem[],
  deliverable: string,
  files: readonly RubricFileInput[] = [],
): string {
  const items = rubric.map((r, i) => `${i}. (${r.points} points) ${r.criterion}`).join('\n');
  return `You are grading a piece of work against a rubric. Judge only what the work contains.

[task given to the worker]:
${task}

[work submitted]:
${deliverable || '(no text answer; see the files)'}${filesSection(files)}

[rubric]:
${items}

For every rubric item award between 0 and its points (partial credit allowed where the item is partly met). Reply with one JSON object and nothing else:
{ "scores": [ { "index": 0, "awarded": 1.5, "justification": "…" }, … one entry per rubric item … ] }`;
}

export type RubricPromptRenderer = typeof rubricJudgePrompt;

/**
 * The SHA-256 of a rubric prompt rendered with fixed placeholders: every part of the wording
 * (the files section in each of its three forms, the no-text fallback aside) is in it.
 */
export function rubricPromptDigest(render: RubricPromptRenderer = rubricJudgePrompt): string {
  const rubric = [{ criterion: '{criterion}', points: 1 }];
  const files: RubricFileInput[] = [
    { path: '{text_file}', size: 0, text: '{text}' },
    {
      path: '{attached_file}',
      size: 0,
      attachment: { kind: 'image', filename: '{name}', media_type: 'image/png', data_base64: '' },
    },
    { path: '{unreadable_file}', size: 0 },
  ];
  return sha256(
    [render('{task}', rubric, '{deliverable}', files), render('{task}', rubric, '', [])].join('\n'),
  );
}

let rubricTemplate: JudgeTemplate | undefined;

/** The rubric judge's template identity (the platform's wording; there is no reference one). */
export function rubricJudgeTemplate(): JudgeTemplate {
  rubricTemplate ??= { kind: 'default', digest: rubricPromptDigest() };
  return rubricTemplate;
}
