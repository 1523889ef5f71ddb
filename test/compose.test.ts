// The container deployment runs: docker-compose.yml with docker-compose.local.yml (every image built
// here, FROM the local base image: no registry) is brought up as a project of its own, the sample
// benchmark is added and run with the oracle through the `osmosis` CLI against it, /metrics
// answers, and everything the project made is removed (containers, network, volumes, the sandboxes
// and task images of its deployment). The images it builds are kept as the build cache, like the
// base image: a second run rebuilds nothing (see docs/operations.md for the CI cost).
// Compose: `docker compose` (v2) when the Docker CLI has it, else `docker-compose` (v1, Debian's
// package; scripts/setup.sh installs it).
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parsePrometheus, sampleValue } from './helpers/prometheus.ts';
import { osmosis } from './submit-cli-support.ts';

const root = path.join(import.meta.dirname, '..');

interface ComposeFile {
  services: Record<
    string,
    {
      image?: string;
      command?: string[];
      entrypoint?: string[];
      environment?: Record<string, string>;
      volumes?: string[];
      build?: unknown;
      depends_on?: Record<string, { condition: string }>;
      ports?: string[];
    }
  >;
  volumes: Record<string, unknown>;
}
const readCompose = (file: string) =>
  parse(readFileSync(path.join(root, file), 'utf8'), { merge: true }) as ComposeFile;
const compose = readCompose('docker-compose.yml');
const local = readCompose('docker-compose.local.yml');
const SERVICES = ['api', 'minio', 'minio-bucket', 'postgres', 'redis', 'worker'];

describe('docker-compose.yml', () => {
  it('describes postgres, redis, minio, api and worker from registry images and the repository Dockerfile', () => {
    expect(Object.keys(compose.services).sort()).toEqual(SERVICES);
    expect(compose.services.postgres?.image).toBe('postgres:15');
    expect(compose.services.redis?.image).toBe('redis:7');
    // MinIO pinned to a release (its on-disk format changes between releases), never :latest
    for (const name of ['minio', 'minio-bucket'])
      expect(compose.services[name]?.image).toMatch(/minio\/minio:RELEASE\.\d{4}-\d\d-\d\dT[\d-]+Z\}?$/);
    for (const name of ['api', 'worker']) {
      const command = compose.services[name]?.command ?? [];
      expect(command[0]).toBe('node');
      expect(existsSync(path.join(root, command[1] ?? 'missing'))).toBe(true);
      expect(compose.services[name]?.build).toMatchObject({ context: '.' });
    }
    expect(readFileSync(path.join(root, 'Dockerfile'), 'utf8')).toMatch(
      /^ARG BASE_IMAGE=osmosis\/base:bookworm$/m,
    );
  });

  it('gives api and worker the same platform environment, the socket to the worker only', () => {
    const api = compose.services.api?.environment ?? {};
    const worker = compose.services.worker?.environment ?? {};
    for (const key of [
      'DATABASE_URL',
      'REDIS_URL',
      'OSMOSIS_QUEUE_PREFIX',
      'OSMOSIS_DATA_DIR',
      'OSMOSIS_SECRET_KEYS',
      'OSMOSIS_STORAGE',
      'OSMOSIS_S3_ENDPOINT',
      'OSMOSIS_S3_BUCKET',
      'OSMOSIS_S3_ACCESS_KEY_ID',
      'OSMOSIS_S3_SECRET_ACCESS_KEY',
      'OSMOSIS_WORKSPACE_MAX_CONCURRENT_ATTEMPTS',
    ])
      expect(worker[key], key).toBe(api[key]);
    expect(compose.services.worker?.volumes).toContain('/var/run/docker.sock:/var/run/docker.sock');
    expect(compose.services.api?.volumes ?? []).not.toContain('/var/run/docker.sock:/var/run/docker.sock');
    expect(compose.services.redis?.command).toEqual(
      expect.arrayContaining(['--maxmemory-policy', 'noeviction']),
    );
    for (const service of Object.values(compose.services))
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (!source.startsWith('/')) expect(compose.volumes, source).toHaveProperty(source);
      }
  });

  it('keeps blobs in the MinIO bucket the one-shot minio-bucket service creates, after MinIO is healthy', () => {
    const api = compose.services.api?.environment ?? {};
    expect(api.OSMOSIS_STORAGE).toBe('s3');
    expect(api.OSMOSIS_S3_ENDPOINT).toBe('http://minio:9000');
    const bucketJob = (compose.services['minio-bucket']?.command ?? []).join(' ');
    expect(bucketJob).toContain(`mc mb --ignore-existing osmosis/${api.OSMOSIS_S3_BUCKET}`);
    expect(compose.services['minio-bucket']?.depends_on).toMatchObject({
      minio: { condition: 'service_healthy' },
    });
    for (const name of ['api', 'worker'])
      expect(compose.services[name]?.depends_on, name).toMatchObject({
        'minio-bucket': { condition: 'service_completed_successfully' },
      });
    // MinIO is for the platform's containers only: no port on the host
    expect(compose.services.minio?.ports).toBeUndefined();
  });

  it('the local override swaps the images of postgres and redis (built from the base image) and keeps blobs local', () => {
    // api and worker only for their storage settings; minio and minio-bucket as stand-ins
    expect(Object.keys(local.services).sort()).toEqual(SERVICES);
    // no MinIO image without a registry: stand-ins on the base image, and the local folder backend
    for (const name of ['minio', 'minio-bucket'])
      expect(local.services[name]?.image).toMatch(/osmosis\/base:bookworm\}?$/);
    for (const name of ['api', 'worker']) {
      const environment = local.services[name]?.environment ?? {};
      expect(environment.OSMOSIS_STORAGE, name).toBe('local');
      for (const [key, value] of Object.entries(environment))
        if (key.startsWith('OSMOSIS_S3_')) expect(value, `${name} ${key}`).toBe('');
    }
    for (const name of ['postgres', 'redis'] as const) {
      expect(local.services[name]?.image).toBe('osmosis-local/services:bookworm');
      const entry = local.services[name]?.entrypoint?.[0] ?? '';
      expect(existsSync(path.join(root, 'docker/local', entry))).toBe(true);
    }
    expect(readFileSync(path.join(root, 'docker/local/Dockerfile'), 'utf8')).toMatch(
      /^FROM \$\{BASE_IMAGE\}$/m,
    );
  });
});

// ── the stack itself ─────────────────────────────────────────────────────────────────────────────

function composeCommand(): string[] | null {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0)
    return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose'];
  return null;
}

/** The CA certificates this host added to its trust store (/usr/local/share/ca-certificates). */
function localCaCertificates(): string {
  const dir = '/usr/local/share/ca-certificates';
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.crt'))
    .map((name) => readFileSync(path.join(dir, name), 'utf8').trim())
    .join('\n');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

function run(
  cmd: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd[0]!,
      cmd.slice(1),
      { cwd: root, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

const docker = (args: string[]) =>
  spawnSync('docker', args, { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);

const COMPOSE = composeCommand();
const project = `osmosis-compose-${process.pid}-${randomBytes(3).toString('hex')}`;
const metricsToken = randomBytes(16).toString('hex');
let env: NodeJS.ProcessEnv;
let url: string;
let home: string;
let scope: string | null = null;
const base = () => [...COMPOSE!, '-p', project, '-f', 'docker-compose.yml', '-f', 'docker-compose.local.yml'];

/** The label scope of the stack's deployment (its worker labels sandboxes and task images so). */
async function deploymentScope(): Promise<string | null> {
  const psql = ['exec', '-T', 'postgres', 'psql', '-U', 'osmosis', '-d', 'osmosis', '-tAc'];
  const deployment = await run([...base(), ...psql, 'SELECT id FROM deployment'], env, 60_000);
  const id = deployment.out.trim().toLowerCase();
  return deployment.code === 0 && /^[0-9a-f-]{36}$/.test(id) ? `osmosis-${id}` : null;
}

// Building the stack's images fetches Debian packages and npm packages from the internet (20–30
// minutes on a machine that never built them), and test traffic stays on loopback: the stack run
// is opt-in. OSMOSIS_COMPOSE_TEST=1 runs it (docs/operations.md); the file checks above always run.
const runStack = process.env.OSMOSIS_COMPOSE_TEST === '1';

describe.skipIf(!runStack)('the compose stack (OSMOSIS_COMPOSE_TEST=1)', () => {
  beforeAll(async () => {
    if (!COMPOSE)
      throw new Error(
        'neither `docker compose` nor `docker-compose` is installed: run scripts/setup.sh (it installs docker-compose)',
      );
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    home = mkdtempSync(path.join(os.tmpdir(), 'osmosis-compose-'));
    env = {
      ...process.env,
      OSMOSIS_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      // docker-compose.yml requires it; the local override's stand-in MinIO does not use it
      MINIO_ROOT_PASSWORD: randomBytes(16).toString('hex'),
      OSMOSIS_API_PUBLISH: `127.0.0.1:${port}`,
      OSMOSIS_PUBLIC_URL: url,
      OSMOSIS_IMAGE: 'osmosis-local/platform:dev',
      OSMOSIS_METRICS_TOKEN: metricsToken,
      OSMOSIS_WORKER_CONCURRENCY: '4',
      // a TLS-inspecting proxy between this host and the npm registry: its CAs (public
      // certificates this host trusts beyond Debian's) go to the image build (npm, pnpm)
      OSMOSIS_BUILD_CA_CERTS: localCaCertificates(),
    };
  }, 60_000);

  afterAll(async () => {
    if (!COMPOSE) return;
    // a test that failed before it read the scope: read it while the stack still runs
    scope ??= await deploymentScope().catch(() => null);
    const down = await run(
      [...base(), 'down', '--volumes', '--remove-orphans', '--timeout', '5'],
      env,
      300_000,
    );
    if (down.code !== 0) console.error(down.out);
    if (scope) {
      // what the stack's worker left on the shared engine: its sandboxes (none once the run ended)
      // and the task images it built under its deployment's scope
      for (const id of docker(['ps', '-aq', '--filter', `label=osmosis.scope=${scope}`]))
        docker(['rm', '-f', id]);
      for (const id of docker(['images', '-q', '--filter', `label=osmosis.scope=${scope}`]))
        docker(['rmi', '-f', id]);
    }
    if (home) rmSync(home, { recursive: true, force: true });
  }, 600_000);

  it(
    'builds without a registry, runs the sample benchmark through the CLI, and leaves nothing behind',
    async () => {
      const build = await run([...base(), 'build'], env, 45 * 60_000);
      expect(build.code, build.out.slice(-4000)).toBe(0);
      const up = await run([...base(), 'up', '-d'], env, 10 * 60_000);
      expect(up.code, up.out.slice(-4000)).toBe(0);

      // the API migrates its database, then answers
      const deadline = Date.now() + 180_000;
      for (;;) {
        const ready = await fetch(`${url}/readyz`)
          .then((r) => r.status)
          .catch(() => 0);
        if (ready === 200) break;
        if (Date.now() > deadline) {
          const logs = await run([...base(), 'logs', '--tail', '60'], env, 60_000);
          throw new Error(`the API did not become ready:\n${logs.out.slice(-6000)}`);
        }
        await new Promise((r) => setTimeout(r, 1000));
      }

      const boot = await run(
        [
          ...base(),
          'exec',
          '-T',
          'api',
          'node',
          'apps/api/src/bootstrap.ts',
          '--workspace',
          'default',
          '--email',
          'owner@localhost',
        ],
        env,
        120_000,
      );
      expect(boot.code, boot.out).toBe(0);
      const token = /osm_[A-Za-z0-9_-]+/.exec(boot.out)?.[0];
      expect(token, boot.out).toBeDefined();
      const cli = (args: string[]) => osmosis(args, { platform: url, token: token!, home, cwd: root });

      const added = await cli([
        'benchmark',
        'add',
        'examples/benchmarks/sample',
        '--key',
        'sample',
        '--name',
        'Osmosis Sample',
        '--wait',
      ]);
      expect(added.code, added.stderr + added.stdout).toBe(0);
      // the quick start's config with its task timeouts tripled: this host is shared by other test
      // runs, and a verifier that overruns its timeout here measures the host, not the deployment
      const config = path.join(home, 'sample-oracle.toml');
      const quickStart = readFileSync(path.join(root, 'configs/benchmark/sample-oracle.toml'), 'utf8');
      expect(quickStart).toMatch(/^\[execution\]$/m);
      writeFileSync(config, quickStart.replace(/^\[execution\]$/m, '[execution]\ntimeout_multiplier = 3'));
      const submitted = await cli(['--json', 'benchmark', 'submit', config, '--yes']);
      expect(submitted.code, submitted.stderr).toBe(0);
      const name = JSON.parse(submitted.stdout).data?.name ?? JSON.parse(submitted.stdout).resource?.name;
      expect(name, submitted.stdout).toBeTruthy();

      let info: { status: string; progress?: Record<string, number> } = { status: 'queued' };
      const runDeadline = Date.now() + 15 * 60_000;
      while (!['finished', 'failed', 'stopped'].includes(info.status)) {
        if (Date.now() > runDeadline) throw new Error(`the run did not end: ${JSON.stringify(info)}`);
        await new Promise((r) => setTimeout(r, 3000));
        const res = await cli(['--json', 'benchmark', 'runs', 'info', name]);
        if (res.code === 0) info = JSON.parse(res.stdout).data;
      }
      expect(info.status).toBe('finished');
      expect(info.progress, JSON.stringify(info)).toMatchObject({ passed: 7, failed: 0, errored: 0 });

      // the deployment's /metrics answers with the token
      const metrics = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
      expect(metrics.status).toBe(200);
      const exposition = parsePrometheus(await metrics.text());
      expect(sampleValue(exposition, 'osmosis_runs', { status: 'finished' })).toBe(1);
      expect(sampleValue(exposition, 'osmosis_workers', { state: 'live' })).toBe(1);

      scope = await deploymentScope();
      expect(scope).toMatch(/^osmosis-[0-9a-f-]{36}$/);

      const down = await run(
        [...base(), 'down', '--volumes', '--remove-orphans', '--timeout', '5'],
        env,
        300_000,
      );
      expect(down.code, down.out).toBe(0);
      const label = `label=com.docker.compose.project=${project}`;
      expect(docker(['ps', '-aq', '--filter', label])).toEqual([]);
      expect(docker(['volume', 'ls', '-q', '--filter', label])).toEqual([]);
      expect(docker(['network', 'ls', '-q', '--filter', label])).toEqual([]);
      expect(docker(['ps', '-aq', '--filter', `label=osmosis.scope=${scope}`])).toEqual([]);
    },
    70 * 60_000,
  );
});
