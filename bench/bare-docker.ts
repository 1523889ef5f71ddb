// The bare Docker side of the platform throughput bench: what an attempt minimally needs, done
// straight through the engine API with nothing around it (no database, no queue, no events).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { getDocker, packFiles } from '@osmosis/sandbox';
import { readOneFile } from '../packages/sandbox/src/tar.ts';

type Container = ReturnType<ReturnType<typeof getDocker>['getContainer']>;

/** Runs a command in a container to its end; its time in ms. */
export async function execMs(container: Container, cmd: string[]): Promise<number> {
  const start = performance.now();
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  await new Promise((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.resume();
  });
  return performance.now() - start;
}

/**
 * One bare attempt: create (the sandbox's limits and hardening, no network), start, exec the
 * agent command (`true`, what the nop harness runs), one tar upload of tests/test.sh and the
 * /logs/verifier folder, exec the verifier (`bash /tests/test.sh`), one tar download of
 * /logs/verifier/reward.txt (read and parsed), force-remove. Returns its wall time in ms.
 */
async function bareAttempt(image: string, testScript: string): Promise<number> {
  const docker = getDocker();
  const start = performance.now();
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ['sleep'],
    Cmd: ['infinity'],
    HostConfig: {
      NetworkMode: 'none',
      Init: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges:true'],
      PidsLimit: 1024,
      NanoCpus: 1e9,
      Memory: 2048 * 1024 * 1024,
      MemorySwap: 2048 * 1024 * 1024,
    },
    Labels: { 'osmosis.bench': 'bare' },
  });
  try {
    await container.start();
    await execMs(container, ['true']);
    await container.putArchive(
      packFiles([
        { path: '/tests/test.sh', content: testScript, mode: 0o755 },
        { path: '/logs/verifier/.keep', content: '' },
      ]),
      { path: '/' },
    );
    await execMs(container, ['bash', '/tests/test.sh']);
    const reward = await readOneFile(
      await container.getArchive({ path: '/logs/verifier/reward.txt' }),
      '/logs/verifier/reward.txt',
      1024,
    );
    if (reward === null || Number.isNaN(Number(reward.toString().trim())))
      throw new Error('bare attempt: no reward');
  } finally {
    await container.remove({ force: true });
  }
  return performance.now() - start;
}

/** `total` bare attempts, `concurrency` at a time: attempts per second and each one's wall time. */
export async function bareDocker(
  image: string,
  testScript: string,
  concurrency: number,
  total: number,
): Promise<{ perSec: number; times: number[] }> {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next < total) {
      next++;
      times.push(await bareAttempt(image, testScript));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { perSec: total / ((performance.now() - t0) / 1000), times };
}

/**
 * The compose task's containers through the engine API, one attempt after the other: an internal
 * network, `web` and `main` on it, the agent command and the verifier script in `main`, both
 * containers and the network removed. Overhead = wall time minus the two execs.
 */
export async function bareCompose(
  image: string,
  sidecarServer: string,
  verifierScript: string,
  total: number,
): Promise<{ overheads: number[] }> {
  const docker = getDocker();
  const overheads: number[] = [];
  const labels = { 'osmosis.bench': 'bare-compose' };
  for (let i = 0; i < total; i++) {
    const start = performance.now();
    const network = await docker.createNetwork({
      Name: `osmosis-bench-${randomBytes(4).toString('hex')}`,
      Internal: true,
      Labels: labels,
    });
    const on = (alias: string) => ({ EndpointsConfig: { [network.id]: { Aliases: [alias] } } });
    const hardened = {
      NetworkMode: network.id,
      Init: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
    };
    const web = await docker.createContainer({
      Image: image,
      Cmd: ['python3', '-c', sidecarServer],
      HostConfig: hardened,
      NetworkingConfig: on('web'),
      Labels: labels,
    });
    await web.start();
    const main = await docker.createContainer({
      Image: image,
      Cmd: ['sleep', 'infinity'],
      WorkingDir: '/app',
      HostConfig: hardened,
      NetworkingConfig: on('main'),
      Labels: labels,
    });
    await main.start();
    const agentMs = await execMs(main, ['true']);
    const verifierMs = await execMs(main, ['bash', '-c', verifierScript]);
    await Promise.all([main.remove({ force: true }), web.remove({ force: true })]);
    await network.remove();
    overheads.push(performance.now() - start - agentMs - verifierMs);
  }
  return { overheads };
}
