// How many tasks (processes and threads) a container holds, read from the host's cgroup file
// system without asking the engine: the stray-process sweep (stray-processes.ts) is skipped when
// a sandbox holds no more than its idle processes, which saves an exec per attempt.
//
// The kernel's `pids.current` of the container's cgroup counts every task in it and in its
// sub-cgroups, zombies included until they are reaped; nothing inside the container can lower it
// (its cgroup file system is read-only and it has no CAP_SYS_ADMIN). The file is only where the
// worker shares the engine's host (not through a remote DOCKER_HOST, not from inside another
// container's cgroup namespace, not under a custom --cgroup-parent): then the count is null and
// the caller runs the sweep. A worker in a container can be given the host's file system
// read-only (`-v /sys/fs/cgroup:/host-cgroup:ro`, OSMOSIS_SANDBOX_CGROUP_ROOT=/host-cgroup);
// OSMOSIS_SANDBOX_CGROUP_ROOT set empty turns the check off (the sweep always runs).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

const PARENTS = ['pids/docker', 'pids/system.slice', 'docker', 'system.slice'];

/** The host's cgroup file system as this process sees it; null when the check is off. */
export function cgroupRoot(env: NodeJS.ProcessEnv = process.env): string | null {
  const root = env.OSMOSIS_SANDBOX_CGROUP_ROOT ?? '/sys/fs/cgroup';
  return root.startsWith('/') ? root.replace(/\/+$/, '') || '/' : null;
}

/** Where the engine puts a container's cgroup, for cgroup v1 and v2, cgroupfs and systemd drivers. */
export function cgroupTaskFiles(containerId: string, root: string): string[] {
  return PARENTS.map((parent) =>
    parent.endsWith('docker')
      ? `${root}/${parent}/${containerId}/pids.current`
      : `${root}/${parent}/docker-${containerId}.scope/pids.current`,
  );
}

/** Are the engine's container cgroups visible from this process (so counts can be read)? */
export function engineCgroupsVisible(root = cgroupRoot()): boolean {
  return root !== null && PARENTS.some((parent) => existsSync(`${root}/${parent}`));
}

/** The container's task count, or null when its cgroup is not readable from here. */
export async function containerTaskCount(containerId: string, root = cgroupRoot()): Promise<number | null> {
  // an id is 64 hex digits; anything else is not looked up as a path
  if (root === null || !/^[0-9a-f]{64}$/.test(containerId)) return null;
  for (const file of cgroupTaskFiles(containerId, root)) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    const count = Number(text.trim());
    return Number.isInteger(count) && count >= 0 ? count : null;
  }
  return null;
}
