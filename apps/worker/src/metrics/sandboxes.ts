// osmosis_sandbox_containers: sandbox containers alive on this worker's engine, labelled with its
// scope and this worker's id (each worker counts its own, so the sum over workers is the total).
import type { Gauge } from 'prom-client';
import { Gauge as PromGauge } from 'prom-client';
import type { WorkerContext } from '../queues/types.ts';
import type { WorkerMetrics } from './registry.ts';

export type CountSandboxes = () => Promise<number>;

/** Counts this worker's sandbox containers through the engine (one list call per scrape, 2 s at most). */
export async function dockerSandboxCounter(ctx: WorkerContext): Promise<CountSandboxes> {
  const { getDocker, LABELS } = await import('@osmosis/sandbox');
  const docker = getDocker();
  return async () => {
    const list = docker.listContainers({
      all: false,
      filters: JSON.stringify({
        label: [`${LABELS.scope}=${ctx.scope}`, `${LABELS.worker}=${ctx.config.workerId}`],
      }),
    });
    const timeout = new Promise<never>((_, reject) => {
      setTimeout(() => reject(new Error('the engine did not list containers within 2 s')), 2_000).unref();
    });
    return (await Promise.race([list, timeout])).length;
  };
}

export function registerSandboxGauge(metrics: WorkerMetrics, count: CountSandboxes): Gauge {
  return new PromGauge({
    name: 'osmosis_sandbox_containers',
    help: 'Sandbox containers alive that this worker started (its scope and worker labels); -1 when the engine did not answer',
    registers: [metrics.registry],
    async collect() {
      this.set(await count().catch(() => -1));
    },
  });
}
