// summary.csv columns for the scores beside pass@1 (services/quality.ts). Empty cells where a score
// does not apply.
import type { RunAgentResult } from '@osmosis/contracts';

export const QUALITY_COLUMNS = [
  'comparable_with_published_terminus2',
  'not_comparable_because',
  'calibration_error',
  'calibration_beta',
  'mean_score',
  'grader',
] as const;

export function qualityCells(a: RunAgentResult): Array<string | number | boolean | null | undefined> {
  return [
    a.comparability ? a.comparability.comparable : null,
    a.comparability ? a.comparability.reasons.join('; ') : null,
    a.calibration_error?.value,
    a.calibration_error?.beta,
    a.mean_score,
    a.grader,
  ];
}
