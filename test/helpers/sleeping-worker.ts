// A real worker process (queues, dispatch, leases, reservations, presence, reconciler) whose
// executor is a stand-in that only sleeps: for tests and benches about dispatch, not Docker.
// Configured like apps/worker/src/main.ts from the environment; OSMOSIS_TEST_SLEEP_MS is how long
// each attempt "runs" (default 1000). kill -9 it to simulate a crashed host.
import { loadWorkerConfig } from '../../apps/worker/src/config.ts';
import { startWorker } from '../../apps/worker/src/worker.ts';

const sleepMs = Number(process.env.OSMOSIS_TEST_SLEEP_MS ?? 1000);
const worker = await startWorker(loadWorkerConfig(), {
  executor: async (execution) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, sleepMs);
      execution.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    return { outcome: 'passed', reward: 1 };
  },
  reaper: null,
  engineProbe: null,
  taskFiles: async () => '/nonexistent',
});
process.on('SIGTERM', () => {
  worker.close().then(() => process.exit(0));
});
process.stdout.write('ready\n');
