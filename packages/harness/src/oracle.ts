import { stat } from 'node:fs/promises';
import type { Harness, HarnessContext, HarnessRunResult } from './harness.ts';
import { SANDBOX_PATHS } from './harness.ts';

/**
 * Runs the task's reference solution as the agent: uploads `solution/` to `/solution` and runs
 * `bash /solution/solve.sh` with the agent env plus `[solution].env`, under the agent timeout.
 * In a multi-step task each step's `steps/<name>/solution/` replaces the last before its run.
 * Its output is kept as the artifact `agent/oracle.txt`.
 */
export const oracleHarness: Harness = {
  name: 'oracle',
  async setup(ctx: HarnessContext): Promise<void> {
    const exists = await stat(ctx.task.solutionDir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!exists) throw new Error(`the task ${ctx.task.name} has no solution/ folder: the oracle cannot run`);
    await ctx.sandbox.putDir(ctx.task.solutionDir, SANDBOX_PATHS.solution);
    ctx.log({ level: 'info', step: 'agent_setup', message: 'uploaded solution/ to /solution' });
  },
  async run(ctx: HarnessContext): Promise<HarnessRunResult> {
    if (ctx.step && ctx.step.index > 0) {
      // a multi-step task: each step's own solution (the first was uploaded by setup)
      await ctx.sandbox.exec(['rm', '-rf', SANDBOX_PATHS.solution], { user: '0', timeoutMs: 60_000 });
      await ctx.sandbox.putDir(ctx.task.solutionDir, SANDBOX_PATHS.solution);
    }
    const result = await ctx.sandbox.exec(['bash', `${SANDBOX_PATHS.solution}/solve.sh`], {
      timeoutMs: ctx.timeouts.agentMs,
      env: { ...ctx.env, ...ctx.task.config.solution.env },
      ...(ctx.task.agentUser ? { user: ctx.task.agentUser } : {}),
      ...(ctx.task.workdir ? { workdir: ctx.task.workdir } : {}),
      signal: ctx.signal,
    });
    const transcript =
      `$ bash /solution/solve.sh\n${result.stdout}` +
      (result.stderr ? `\n--- stderr ---\n${result.stderr}` : '') +
      `\n--- exit code ${result.exitCode ?? 'unknown'}${result.timedOut ? ' (timed out)' : ''} after ${result.durationMs} ms ---\n`;
    return {
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      commandMs: result.durationMs,
      files: [{ path: 'agent/oracle.txt', content: transcript }],
    };
  },
};

/** Does nothing: the verifier sees the untouched environment (a floor for every benchmark). */
export const nopHarness: Harness = {
  name: 'nop',
  async setup(): Promise<void> {},
  async run(): Promise<HarnessRunResult> {
    return { exitCode: 0, timedOut: false, commandMs: 0 };
  },
};
