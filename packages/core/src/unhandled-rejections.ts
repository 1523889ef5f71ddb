// Node ends the process on a promise rejection nobody handled. In the API that lets one request's
// bug (a promise nobody awaited) take every other request and stream down with it; in a worker it
// abandons every attempt in flight to its lease. Such a rejection is logged, through the process's
// own (scrubbing) logger, and the process goes on. An uncaught exception still ends the process:
// after a throw escaped to the event loop, state may be half-updated and a restart is the answer.

export interface RejectionLog {
  error(details: { err: unknown }, message: string): void;
}

/** Logs every unhandled rejection instead of exiting; returns the function that stops doing so. */
export function logUnhandledRejections(log: RejectionLog): () => void {
  const onRejection = (reason: unknown) => {
    try {
      log.error({ err: reason }, 'unhandled promise rejection (a bug: please report it); carrying on');
    } catch {
      // a logger that throws must not turn a logged rejection into a crash
    }
  };
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}
