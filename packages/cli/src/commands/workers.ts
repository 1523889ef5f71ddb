// `osmosis workers`: the deployment's worker processes (its operators; GET /v1/workers) — state,
// host, engine, slots, and per resource what the worker advertises and what its running attempts
// hold now (OSMOSIS_WORKER_CPUS, _MEMORY_MB, _GPUS; the dispatcher never reserves past them).
import type { WorkerInfo, WorkerResources } from '@osmosis/contracts';
import type { Command } from 'commander';
import { authenticatedClient } from '../api.ts';
import { contextOf } from '../context.ts';
import { printList } from '../output.ts';
import { EMPTY_CELL } from '../table.ts';

const num = (n: number) => String(Number(n.toFixed(3)));

/** `reserved / advertised` cells of a worker's resources (EMPTY_CELL when it advertises none). */
export function resourceCells(r: WorkerResources | null): { cpus: string; memory: string; gpus: string } {
  if (!r) return { cpus: EMPTY_CELL, memory: EMPTY_CELL, gpus: EMPTY_CELL };
  const held = new Set(r.reserved.gpus);
  const free = r.gpus.filter((id) => !held.has(id));
  return {
    cpus: `${num(r.reserved.cpus)} / ${num(r.cpus)}`,
    memory: `${r.reserved.memory_mb} / ${r.memory_mb} MB`,
    gpus:
      r.gpus.length === 0
        ? '0'
        : `${r.reserved.gpus.length} / ${r.gpus.length} (held: ${r.reserved.gpus.join(',') || 'none'}; free: ${free.join(',') || 'none'})`,
  };
}

export function register(program: Command): void {
  program
    .command('workers')
    .description(
      'Worker processes of the platform (its operators): live, dead or stopped, host, Docker engine,\n' +
        'attempt slots, and for cpus, memory and GPUs what each advertises and what its running\n' +
        'attempts reserve now (reserved / advertised). An attempt starts only on a worker it fits.',
    )
    .action(async (_options: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = authenticatedClient(ctx);
      const { WorkerList } = await import('@osmosis/contracts');
      const list = await client.get('/v1/workers', WorkerList);
      printList<WorkerInfo>(ctx, list, {
        columns: [
          { header: 'Worker', value: (w) => w.id, noShrink: true },
          { header: 'State', value: (w) => w.state },
          { header: 'Host', value: (w) => w.host },
          { header: 'Engine', value: (w) => w.engine.state },
          { header: 'Slots', value: (w) => `${w.slots_in_use} / ${w.capacity ?? EMPTY_CELL}` },
          { header: 'CPUs', value: (w) => resourceCells(w.resources).cpus },
          { header: 'Memory', value: (w) => resourceCells(w.resources).memory },
          { header: 'GPUs', value: (w) => resourceCells(w.resources).gpus },
          { header: 'Last heartbeat', value: (w) => w.last_heartbeat_at },
        ],
        empty: 'No worker has started yet. Start one: node apps/worker/src/main.ts (see docs/deployment.md).',
        extra: { deployment_id: list.deployment_id },
      });
    });
}
