// metrics: the worker's Prometheus endpoint (a background module, no queue). Starts a server only
// when OSMOSIS_WORKER_METRICS_PORT is set; the registry itself is always kept (metrics/registry.ts).
import type { Server } from 'node:http';
import { workerMetrics } from '../metrics/registry.ts';
import { dockerSandboxCounter, registerSandboxGauge } from '../metrics/sandboxes.ts';
import { startMetricsServer } from '../metrics/server.ts';
import type { QueueModule } from './types.ts';

/** The port the worker's /metrics server listens on (tests start it on port 0). */
export const metricsPorts = new WeakMap<object, number>();

export const metricsModule: QueueModule = {
  name: 'metrics',
  create(ctx) {
    let server: Server | undefined;
    return {
      async start() {
        const metrics = workerMetrics(ctx);
        // sandboxes exist only where attempts run on an engine
        if (ctx.engine) registerSandboxGauge(metrics, await dockerSandboxCounter(ctx));
        if (ctx.config.metricsPort === undefined) return;
        const started = await startMetricsServer({
          host: ctx.config.metricsHost,
          port: ctx.config.metricsPort,
          token: ctx.config.metricsToken,
          registry: metrics.registry,
        });
        server = started.server;
        metricsPorts.set(ctx, started.port);
        ctx.logger.info({ host: ctx.config.metricsHost, port: started.port }, 'metrics served at /metrics');
      },
      async close() {
        await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      },
    };
  },
};
