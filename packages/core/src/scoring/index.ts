export { type CalibrationPoint, calibrationBeta, calibrationError } from './calibration.ts';
export { effectiveSampleSize, intraTaskCorrelation } from './clustering.ts';
export {
  COMPARABLE_WITH,
  type HarnessInfoCount,
  meanTaskScore,
  terminus2Comparability,
} from './comparability.ts';
export {
  comparePaired,
  comparePairedGroups,
  mcnemarExact,
  type PairedComparison,
  type PairedOptions,
  type PairedPValueMethod,
  type PairedTaskGroup,
  type PairedTaskRates,
  pairedBootstrap,
  rateDifference,
  seededRandom,
  signFlipTest,
} from './paired.ts';
export { kValues, passAtK } from './pass-at-k.ts';
export {
  DEFAULT_RANKED_MAX_ERRORED_SHARE,
  erroredShare,
  type Rankable,
  rankAgents,
  runUnrankedReason,
  unrankedReason,
} from './ranking.ts';
export {
  type AgentAggregate,
  addCounts,
  agentLabel,
  buildRunResults,
  emptyCounts,
  type RunResultsInput,
  runIntervalMethod,
  runProgress,
} from './results.ts';
export {
  bucketsFromTasks,
  INTERVAL_LEVEL,
  meanPassAtK,
  normalizeBuckets,
  passAt1,
  passAt1Interval,
  scoreAgent,
} from './score.ts';
export { addUsageSums, emptyUsageSums, perTaskUsage, usageTotals } from './usage.ts';
export { type Bounds, wilsonInterval, Z_95 } from './wilson.ts';
