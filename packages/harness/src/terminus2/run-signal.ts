// The run's abort signal: the agent timeout or the caller's cancel, whichever comes first.

class StopSignal extends Error {}

/** An abort signal that fires at the agent timeout or when the caller's signal does. */
export function runSignal(options: { timeoutMs: number; signal?: AbortSignal | undefined }) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new StopSignal('agent timeout'));
  }, options.timeoutMs);
  const onOuterAbort = () => controller.abort(new StopSignal('aborted'));
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onOuterAbort);
    },
  };
}
