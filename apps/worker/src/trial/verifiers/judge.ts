// The judge verifier: a worker-side LLM judge (HLE, GDPVal; @osmosis/harness) reading the agent's
// files under the verifier's timeout; its token usage is counted as the judge's, and the prompt
// it graded with goes with the result (judgeTemplate) for the run's lock.
import { errorMessage } from '@osmosis/contracts';
import { PhaseError, withTimeout } from '../trial-context.ts';
import { collectVerifierLogs, type Verifier } from './verifier.ts';

export const judgeVerifier: Verifier = {
  kind: 'judge',
  runsTestScript: false,
  async verify(ctx, v) {
    const judge = ctx.input.verifier!;
    const t0 = Date.now();
    try {
      const judged = await withTimeout(
        judge({
          sandbox: v.main,
          task: ctx.input.task,
          timeoutMs: v.timeoutMs,
          signal: ctx.signal,
          log: ctx.emit,
        }),
        v.timeoutMs,
        'verifier',
      );
      if (judged?.usage) {
        const r = ctx.result;
        r.judgeInputTokens = (r.judgeInputTokens ?? 0) + judged.usage.inputTokens;
        r.judgeOutputTokens = (r.judgeOutputTokens ?? 0) + judged.usage.outputTokens;
        r.judgeCostUsd =
          judged.usage.costUsd === null ? r.judgeCostUsd : (r.judgeCostUsd ?? 0) + judged.usage.costUsd;
      }
      // recorded per run when the result is written (dispatch/run-judge-templates.ts)
      if (judged?.template) ctx.result.judgeTemplate = judged.template;
    } catch (error) {
      ctx.checkCancelled();
      if (/did not finish within/.test(errorMessage(error))) {
        throw new PhaseError('verifier_timeout', `the verifier exceeded its timeout of ${v.timeoutMs} ms`);
      }
      throw new PhaseError('verifier_crash', `the verifier failed: ${errorMessage(error)}`);
    } finally {
      ctx.result.verifierCommandMs = (ctx.result.verifierCommandMs ?? 0) + (Date.now() - t0);
    }
    await collectVerifierLogs(ctx, v.main, v.prefix, ['agent', 'verifier', 'artifacts']);
    return { exitCode: null };
  },
};
