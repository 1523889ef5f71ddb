// The one vocabulary of run event steps. Every row in run_events carries one of these; the API
// streams them (`runs logs`, the events stream) and the worker's metrics read them back, so a
// step spelled two ways would split one history into two.
import { z } from 'zod';

/** A run's lifecycle, written by the API (submit, stop, retry) and the worker (dispatch, completion). */
export const RunLifecycleStep = z.enum([
  'run.submitted',
  'run.queued',
  'run.running',
  'run.waiting',
  'run.finished',
  'run.failed',
  'run.stopped',
  'run.retried',
  'run.budget_reached',
  'run.imported',
]);
export type RunLifecycleStep = z.infer<typeof RunLifecycleStep>;

/** An attempt's lifecycle around its trial, written by the worker's lease and the API's retry. */
export const AttemptLifecycleStep = z.enum([
  'attempt.started',
  'attempt.released',
  'attempt.retry',
  'attempt.retried',
  'attempt.requeued',
  'attempt.finished',
  'attempt.cancelled',
  'attempt.discarded',
  'attempt.lease_expired',
]);
export type AttemptLifecycleStep = z.infer<typeof AttemptLifecycleStep>;

/** The phases of one trial, emitted by the worker's pipeline while the attempt runs. */
export const TrialPhaseStep = z.enum([
  'environment',
  'agent_setup',
  'agent',
  'verifier',
  'artifacts',
  'teardown',
  'attempt',
]);
export type TrialPhaseStep = z.infer<typeof TrialPhaseStep>;

export const RunEventStep = z.union([RunLifecycleStep, AttemptLifecycleStep, TrialPhaseStep]);
export type RunEventStep = z.infer<typeof RunEventStep>;

export const RunEventLevel = z.enum(['debug', 'info', 'warn', 'error']);
export type RunEventLevel = z.infer<typeof RunEventLevel>;

/** The run a finished run's status names: `run.finished`, `run.failed`, `run.stopped`. */
export function runEndStep(status: 'finished' | 'failed' | 'stopped'): RunLifecycleStep {
  return `run.${status}`;
}
