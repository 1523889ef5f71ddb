// A compose environment on the real engine: a sidecar built from the base image serves HTTP,
// main waits for it to be healthy and reaches it by name on an internal network made for the
// attempt; every container, the network and the volume carry the attempt's labels, and both
// teardown and the reaper leave nothing behind.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPOSE_PROJECT_LABEL, startComposeEnvironment } from './compose.ts';
import { getDocker } from './docker.ts';
import { LABELS } from './labels.ts';
import { reapOrphans } from './reaper.ts';

const docker = getDocker();
const scope = `test-compose-${randomUUID().slice(0, 8)}`;
const digest = randomUUID().slice(0, 12);
let dir: string;

const SERVER = `import socket, threading
BODY = b"sidecar says hi\\n"
def handle(c):
    try:
        c.recv(4096)
        c.sendall(b"HTTP/1.0 200 OK\\r\\nContent-Length: " + str(len(BODY)).encode() + b"\\r\\n\\r\\n" + BODY)
    finally:
        c.close()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 8000))
s.listen(8)
while True:
    c, _ = s.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
`;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'osmosis-compose-test-'));
  await mkdir(path.join(dir, 'web'));
  await writeFile(path.join(dir, 'web', 'server.py'), SERVER);
  await writeFile(
    path.join(dir, 'web', 'Dockerfile'),
    'FROM osmosis/base:bookworm\nCOPY server.py /srv/server.py\nCMD ["python3", "/srv/server.py"]\n',
  );
  await writeFile(
    path.join(dir, 'docker-compose.yaml'),
    `services:
  main:
    depends_on:
      web: {condition: service_healthy}
  web:
    build: {context: ./web}
    volumes: [data:/data]
    healthcheck:
      test: ["CMD", "python3", "-c", "import socket; socket.create_connection(('127.0.0.1', 8000), 2).close()"]
      interval: 1s
      timeout: 3s
      retries: 30
volumes:
  data: {}
`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await docker
    .getImage(`osmosis-task:${digest}-web`)
    .remove({ force: true })
    .catch(() => undefined);
});

async function leftovers(project: string) {
  const filters = JSON.stringify({ label: [`${COMPOSE_PROJECT_LABEL}=${project}`] });
  return {
    containers: (await docker.listContainers({ all: true, filters })).length,
    networks: (await docker.listNetworks({ filters })).length,
    volumes: ((await docker.listVolumes({ filters })).Volumes ?? []).length,
  };
}

function start(attempt: string) {
  return startComposeEnvironment({
    projectDir: dir,
    composeFile: 'docker-compose.yaml',
    services: [
      { name: 'main', build: null },
      { name: 'web', build: { context: 'web', dockerfile: 'Dockerfile' } },
    ],
    volumes: ['data'],
    mainImage: 'osmosis/base:bookworm',
    imageRefPrefix: `osmosis-task:${digest}`,
    imageLabels: { [LABELS.managed]: 'true', [LABELS.kind]: 'task-image', [LABELS.scope]: scope },
    main: { cpus: 1, memoryMb: 256 },
    serviceLimits: { cpus: 1, memoryMb: 256 },
    allowInternet: false,
    labels: { run: 'run-1', attempt, worker: 'compose-test' },
    scope,
    timeoutMs: 300_000,
  });
}

describe('startComposeEnvironment', { timeout: 400_000 }, () => {
  it('runs main beside a healthy sidecar on an internal attempt network, and leaves nothing', async () => {
    const attempt = randomUUID();
    const env = await start(attempt);
    try {
      const got = await env.main.exec(
        ['bash', '-c', 'exec 3<>/dev/tcp/web/8000; printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3; cat <&3'],
        { timeoutMs: 20_000 },
      );
      expect(got.stdout).toContain('sidecar says hi');
      const network = await docker.getNetwork(env.network).inspect();
      expect(network.Internal).toBe(true);
      expect(network.Labels).toMatchObject({
        [LABELS.kind]: 'attempt-network',
        [LABELS.attempt]: attempt,
        [LABELS.scope]: scope,
      });
      const containers = await docker.listContainers({
        all: true,
        filters: JSON.stringify({ label: [`${COMPOSE_PROJECT_LABEL}=${env.project}`] }),
      });
      expect(containers.map((c) => c.Labels[LABELS.service]).sort()).toEqual(['main', 'web']);
      for (const c of containers) {
        expect(c.Labels).toMatchObject({
          [LABELS.kind]: 'sandbox',
          [LABELS.attempt]: attempt,
          [LABELS.scope]: scope,
        });
        const info = await docker.getContainer(c.Id).inspect();
        expect(info.HostConfig.CapDrop).toEqual(['ALL']);
        expect(info.HostConfig.Privileged).toBe(false);
        expect(info.HostConfig.SecurityOpt).toContain('no-new-privileges:true');
        expect(info.HostConfig.Memory).toBe(256 * 1024 * 1024);
      }
      const { Volumes } = await docker.listVolumes({
        filters: JSON.stringify({ label: [`${COMPOSE_PROJECT_LABEL}=${env.project}`] }),
      });
      expect(Volumes?.[0]?.Labels).toMatchObject({
        [LABELS.kind]: 'attempt-volume',
        [LABELS.attempt]: attempt,
      });
    } finally {
      await env.destroy();
    }
    expect(await leftovers(env.project)).toEqual({ containers: 0, networks: 0, volumes: 0 });
  });

  it('is reaped like a sandbox when its attempt is no longer live', async () => {
    const attempt = randomUUID();
    const env = await start(attempt);
    const result = await reapOrphans({ isLive: (a) => a !== attempt, scope });
    expect(result.removed.map((r) => r.attemptId)).toEqual([attempt, attempt]);
    expect(result.removedNetworks).toEqual([env.network]);
    expect(result.removedVolumes).toHaveLength(1);
    expect(await leftovers(env.project)).toEqual({ containers: 0, networks: 0, volumes: 0 });
  });
});
