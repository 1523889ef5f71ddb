// CPU seconds of the processes around an attempt, read from /proc/<pid>/stat (utime + stime),
// for the platform throughput bench. Processes come and go (a containerd shim per container, a
// Postgres backend per connection), so a sampler reads /proc every `periodMs` and keeps each
// process's last figure: a process that ended between two samples loses at most one period of
// its CPU, and a short-lived one (runc, docker-init) may not be seen at all — the engine's figure
// is a lower bound.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export type CpuGroup = 'api' | 'worker' | 'postgres' | 'engine';
export const CPU_GROUPS: readonly CpuGroup[] = ['api', 'worker', 'postgres', 'engine'];

/** utime + stime of a process in ticks and its start time (with the pid, its identity), or null when it is gone. */
function statOf(pid: number): { ticks: number; started: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces: split after its closing parenthesis
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ticks: Number(fields[11]) + Number(fields[12]), started: fields[19] ?? '' };
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) process `pid` has spent so far, or null when it is gone. */
export function cpuSecondsOf(pid: number): number | null {
  const stat = statOf(pid);
  return stat ? stat.ticks / TICKS_PER_SECOND : null;
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

export interface CpuSampler {
  /** CPU seconds per group since the last mark (or the start). */
  mark(): Record<CpuGroup, number>;
  stop(): void;
}

/**
 * Samples the API and worker processes (by pid), the Postgres backends of `database` (their
 * command line names it; the bench's own connection excluded by pid) and the Docker engine
 * (dockerd, containerd, containerd-shim*). Postgres's shared processes (WAL writer, checkpointer)
 * serve every engineer's databases on this machine and are left out.
 */
export function startCpuSampler(options: {
  apiPid: number;
  workerPid: number;
  database: string;
  excludePids: () => readonly number[];
  periodMs?: number;
}): CpuSampler {
  const groupOf = (pid: number): CpuGroup | null => {
    if (pid === options.apiPid) return 'api';
    if (pid === options.workerPid) return 'worker';
    const comm = commOf(pid);
    if (comm === 'dockerd' || comm === 'containerd' || comm.startsWith('containerd-shim')) return 'engine';
    if (comm === 'postgres' && cmdlineOf(pid).includes(` ${options.database} `)) {
      return options.excludePids().includes(pid) ? null : 'postgres';
    }
    return null;
  };
  // keyed by pid and start time: a pid the kernel reuses is another process
  const groups = new Map<string, CpuGroup | null>();
  const seen = new Map<string, number>();
  const acc: Record<CpuGroup, number> = { api: 0, worker: 0, postgres: 0, engine: 0 };
  let first = true;
  const sample = () => {
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) continue;
      const stat = statOf(pid);
      if (!stat) continue;
      const key = `${pid}:${stat.started}`;
      let group = groups.get(key);
      if (group === undefined) {
        group = groupOf(pid);
        groups.set(key, group);
      }
      if (!group) continue;
      // a process first seen after the start started during the measure: all its CPU counts
      const before = seen.get(key) ?? (first ? stat.ticks : 0);
      acc[group] += stat.ticks - before;
      seen.set(key, stat.ticks);
    }
    first = false;
  };
  sample();
  const timer = setInterval(sample, options.periodMs ?? 100);
  return {
    mark() {
      sample();
      const out = { ...acc };
      for (const group of CPU_GROUPS) {
        out[group] /= TICKS_PER_SECOND;
        acc[group] = 0;
      }
      return out;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
