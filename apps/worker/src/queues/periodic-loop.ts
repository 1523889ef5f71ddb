// A background loop of a queue module (the presence heartbeat, the reconciler): runs `once` at
// start, then again `intervalMs()` after each run ends, so two runs never overlap however long
// one takes. close() stops it and waits for the run in flight. `once` handles its own errors.
import type { QueueModuleInstance } from './types.ts';

export function periodicLoop(
  once: () => Promise<unknown>,
  intervalMs: () => number,
): Required<Pick<QueueModuleInstance, 'start' | 'close'>> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = once().finally(() => {
      if (!stopped) timer = setTimeout(tick, intervalMs());
    });
  };
  return {
    start() {
      tick();
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
