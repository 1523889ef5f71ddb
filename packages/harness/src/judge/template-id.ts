// Which judge prompt graded an attempt: its kind (the platform's wording or the adapter's own) and
// the SHA-256 of its text. Reported to the worker as `kind:sha256hex`, the form the run lock lists
// (contracts' JUDGE_TEMPLATE_ID).
import { z } from 'zod';

export const JudgeTemplate = z.object({
  kind: z.enum(['default', 'reference']),
  digest: z.string(),
});
export type JudgeTemplate = z.infer<typeof JudgeTemplate>;

/** `kind:sha256hex`, as the run lock lists a judge template. */
export const judgeTemplateId = (template: JudgeTemplate): string => `${template.kind}:${template.digest}`;
