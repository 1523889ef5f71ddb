// What a score is comparable with, and the scores beside pass@1 that some benchmarks report:
// the calibration error of HLE answers and the mean rubric score of partial-credit judges.
// docs/terminus-2.md ("Comparability"), docs/scores.md.
import { z } from 'zod';

export const Comparability = z.object({
  comparable: z.boolean().describe("True only when the agent's scored attempts all ran as the reference did"),
  with: z
    .string()
    .describe('What it is (or is not) comparable with: "published terminus-2 scores (Harbor 0.6.4)"'),
  reasons: z.array(z.string()).describe('Why not, one line each; empty when comparable'),
});
export type Comparability = z.infer<typeof Comparability>;

export const CalibrationErrorScore = z.object({
  value: z
    .number()
    .nullable()
    .describe(
      'Expected calibration error in percent (L2, bins of `beta`); null with fewer than `beta` judged attempts',
    ),
  beta: z
    .number()
    .int()
    .positive()
    .describe('Target bin size of the calibration error (judged attempts per bin)'),
  n: z.number().int().nonnegative().describe('judged attempts (those with a stated confidence)'),
});
export type CalibrationErrorScore = z.infer<typeof CalibrationErrorScore>;

/** Added to each agent of a run's results (absent where it does not apply). */
export const AgentQuality = z.object({
  comparability: Comparability.nullable()
    .optional()
    .describe('null: the benchmark publishes no terminus-2 scores to compare with'),
  calibration_error: CalibrationErrorScore.nullable()
    .optional()
    .describe('HLE: calibration error of the stated confidences'),
  mean_score: z
    .number()
    .nullable()
    .optional()
    .describe('judges with partial credit (GDPVal): mean over tasks of the mean reward, errored attempts 0'),
  grader: z
    .enum(['platform', 'reference'])
    .nullable()
    .optional()
    .describe(
      `who graded: "platform" for the platform's own grader (GDPVal), "reference" for a reference grader`,
    ),
});
export type AgentQuality = z.infer<typeof AgentQuality>;
