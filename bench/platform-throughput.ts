// Attempt throughput and per-attempt time through the whole platform against bare Docker doing
// the same work, in one run, with where the time and the CPU go.
//
// Platform side: the API (`node apps/api/src/main.ts`) and the worker (`node apps/worker/src/
// main.ts`) as separate child processes on a fresh database, a one-task benchmark uploaded as an
// archive, and per level two runs of the `nop` harness (attempts_per_task = N/2 each) at
// max_concurrent_attempts = c. Each attempt: dispatch, lease, the attempt's rows loaded, image
// lookup, sandbox create + start (limits, hardening), the nop agent (no command), the
// stray-process check (the sandbox cgroup's task count; the sweep's exec only when something is
// left) and storage check, tests/ copied in (with the /logs folders in the same tar), `bash
// /tests/test.sh`, /logs downloaded, the reward read, the container removed, artifacts stored,
// the result and the run events written. Levels run platform, bare, bare, platform halves, so
// a load that drifts weighs on both sides alike.
// Bare side (bench/bare-docker.ts): the engine API alone, at the same concurrency: create (the
// same limits and hardening, no network), start, exec `true` (an agent command: more than the
// nop harness runs, which is none), one tar
// upload of tests/test.sh, exec `bash /tests/test.sh`, one tar download of the reward file (read
// and parsed), remove. Nothing is stored.
//
// Printed: attempts/s per level and platform/bare; per-attempt time at concurrency 1 (platform:
// from when the attempt was due — the run's submit, or the end of the attempt before it — to its
// finished_at; bare: create → removed) and its ratio; CPU seconds per attempt of the API, the
// worker, the bench database's Postgres backends and the Docker engine (dockerd, containerd,
// shims) from /proc (bench/process-cpu.ts), for each side; the median per phase of the pipeline
// at concurrency 1 and at the highest level (from the attempt rows, the run events and the
// `timings_ms` the worker's last event of each attempt carries); the bench database's committed
// transactions per attempt (pg_stat_database, the bench's own polling subtracted); core count
// and load average.
//
// Figures, 2026-12-01 04:29 UTC, 2 cores, nothing else running (load average 0.5 at the start,
// 16.7 at the end of c=16), after the dispatch and pipeline changes of that day (batched lease
// renewals, one-query execution rows, refill in the result's transaction; no pre-start /logs
// upload, no sweep exec on an idle sandbox, events stored once a second). `node
// bench/platform-throughput.ts 8 1,2,4,8,16`:
//   concurrency  attempts  platform/s  bare/s  platform/bare   (aim >= 0.85)
//        1           8       0.81       0.88      0.92
//        2           8       1.00       1.15      0.87
//        4           8       0.87       0.92      0.95
//        8          16       0.98       1.04      0.95
//       16          32       0.89       0.98      0.90
//   per-attempt time at c=1: platform median 1143 ms (p90 1267), bare 1091 (p90 1246): 1.05×
//   CPU ms per attempt     api  worker  postgres  engine
//     c=1  platform         24    125       39      208
//     c=1  bare             11     18        8      229   (bare: the idle API and worker)
//     c=4  platform         26    141      103      303
//     c=16 platform         21    114       82      326
//     c=16 bare              8     15        6      351
//   Postgres transactions per attempt (API and worker): 16.1, 14.9, 12.8, 13.2, 15.9 at c=1..16
//   (39.8-47.5 before, measured under load)
//   phases, median ms   c=1    c=16
//     lease              36    144     (dispatched_at → started_at)
//     load               19    746     (started_at → first pipeline event: rows, task files, secrets)
//     image               2      6     (ensureImage: one inspect)
//     sandbox_create    503   7153     (create, start)
//     agent, setup        0      0     (nop)
//     sweep               3    146     (the cgroup's task count, the storage measure)
//     copy_in           136   2851     (tests/ and the /logs folders as one tar)
//     verifier_exec     116   1072
//     collect           158   2607     (/logs as one tar, extracted, scrubbed)
//     teardown          149   1178     (force remove)
//     finalize           15    526     (last event → finished_at: artifacts stored, result written)
// Before that day (quiet machine): 0.72, 0.75, 0.77, 0.82, 0.81 and 1.36× per attempt; the sweep
// took 122 ms and the /logs upload was part of a 771 ms sandbox create. Under other load a
// level's ratio moves by about ±0.2 between runs (halves run platform, bare, bare, platform).
//
//   cd /work/main && source scripts/env.sh && scripts/services.sh start
//   node bench/platform-throughput.ts [attempts-per-level=16] [levels=1,2,4,8,16] [--compose]
// (a level runs 2 × max(attempts / 2, c) attempts, as platform, bare, bare, platform halves;
// --compose adds the compose task's line)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDb, migrateDeploy } from '@osmosis/db';
import { createWorkspaceWithOwner } from '../apps/api/src/services/workspaces.ts';
import { packTarBuffer } from '../packages/tasks/src/index.ts';
import { adminQuery } from '../test/helpers/db.ts';
import { databaseUrl } from '../test/helpers/env.ts';
import { bareCompose, bareDocker } from './bare-docker.ts';
import {
  BENCH_IMAGE,
  composeTaskDir,
  SIDECAR_SERVER,
  SIDECAR_VERIFIER,
  TRIVIAL_TEST,
  trivialTaskDir,
} from './bench-tasks.ts';
import { median, phaseRows, printPhases } from './pipeline-phases.ts';
import { CPU_GROUPS, type CpuGroup, startCpuSampler } from './process-cpu.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:63799';
const args = process.argv.slice(2);
const positional = args.filter((a) => !a.startsWith('--'));
const PER_LEVEL = Number(positional[0] ?? 16);
const LEVELS = (positional[1] ?? '1,2,4,8,16').split(',').map(Number);
const WITH_COMPOSE = args.includes('--compose');
const REPO = path.resolve(import.meta.dirname, '..');

const p90 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)] as number;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** OSMOSIS_BENCH_CPU_PROFILE=<dir>: the API and the worker write V8 CPU profiles there on exit. */
const PROFILE_DIR = process.env.OSMOSIS_BENCH_CPU_PROFILE;

function child(entry: string, env: Record<string, string>, name: string): ChildProcess {
  const profile = PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`]
    : [];
  const proc = spawn(process.execPath, [...profile, path.join(REPO, entry)], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  proc.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk}`));
  return proc;
}

async function stopChild(proc: ChildProcess | null): Promise<void> {
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000)]);
  if (proc.exitCode === null) proc.kill('SIGKILL');
}

async function main(): Promise<void> {
  const dbName = `osmosis_bench_platform_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${dbName}"`);
  const url = databaseUrl(dbName);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'osmosis-bench-platform-'));
  const prefix = `bench-${randomBytes(3).toString('hex')}`;
  // one connection: its backend is left out of the Postgres figure
  const db = createDb(url, 1);
  let api: ChildProcess | null = null;
  let worker: ChildProcess | null = null;
  try {
    await migrateDeploy(url);
    const [own] = await db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    const ownBackend = own?.pid ?? -1;
    const owner = await createWorkspaceWithOwner(db, { name: 'bench', ownerEmail: 'bench@example.test' });
    const port = await freePort();
    const common = {
      DATABASE_URL: url,
      REDIS_URL,
      OSMOSIS_QUEUE_PREFIX: prefix,
      OSMOSIS_DATA_DIR: dataDir,
      OSMOSIS_LOG_LEVEL: 'warn',
    };
    api = child(
      'apps/api/src/main.ts',
      { ...common, OSMOSIS_API_PORT: String(port), OSMOSIS_SKIP_MIGRATIONS: '1' },
      'api',
    );
    worker = child(
      'apps/worker/src/main.ts',
      {
        ...common,
        OSMOSIS_WORKER_ID: `${prefix}-worker`,
        OSMOSIS_WORKER_CONCURRENCY: String(Math.max(...LEVELS)),
        // the worker reserves each attempt's cpus (1) and memory (2048 MB, task.toml's defaults):
        // it advertises room for the highest level, as the bare side starts that many containers
        // with the same limits on the same host
        OSMOSIS_WORKER_CPUS: String(Math.max(...LEVELS)),
        OSMOSIS_WORKER_MEMORY_MB: String(Math.max(...LEVELS) * 2048),
        OSMOSIS_SANDBOX_SCOPE: prefix,
      },
      'worker',
    );
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      const up = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (i > 300 || api.exitCode !== null) throw new Error('the API did not start');
      await sleep(100);
    }
    const headers = { authorization: `Bearer ${owner.token.token}` };
    const cpu = startCpuSampler({
      apiPid: api.pid as number,
      workerPid: worker.pid as number,
      database: dbName,
      excludePids: () => [ownBackend],
    });

    await addBenchmark('trivial', trivialTaskDir(dataDir));
    if (WITH_COMPOSE) await addBenchmark('sidecar', composeTaskDir(dataDir));
    // Warm-up: build the task image and start every process's connections so no level pays.
    await runLevel(2, 2);
    if (WITH_COMPOSE) await runLevel(1, 1, 'sidecar');

    const loadStart = load();
    console.log(
      `platform (API and worker processes → Postgres/BullMQ → Docker, nop harness) vs bare Docker doing the same work`,
    );
    console.log(`${os.cpus().length} cores; load average at start ${loadStart}`);
    const rows: string[][] = [];
    const cpuRows: string[][] = [];
    let once: { platform: number[]; bare: number[] } | null = null;
    for (const c of LEVELS) {
      const half = Math.max(Math.ceil(PER_LEVEL / 2), c);
      const n = 2 * half;
      // platform, bare, bare, platform: a machine load that drifts during the level weighs on
      // both sides alike (other work shares these cores)
      const p1 = await platformSide(c, half);
      const b1 = await bareSide(c, half);
      const b2 = await bareSide(c, half);
      const p2 = await platformSide(c, half);
      const platformPerSec = n / (p1.wallS + p2.wallS);
      const barePerSec = n / (b1.wallS + b2.wallS);
      if (c === 1) once = { platform: [...p1.times, ...p2.times], bare: [...b1.times, ...b2.times] };
      rows.push([
        String(c),
        String(n),
        platformPerSec.toFixed(2),
        barePerSec.toFixed(2),
        (platformPerSec / barePerSec).toFixed(2),
      ]);
      const per = (a: Record<CpuGroup, number>, b: Record<CpuGroup, number>, g: CpuGroup) =>
        (((a[g] + b[g]) / n) * 1000).toFixed(0);
      cpuRows.push([`${c} platform`, ...CPU_GROUPS.map((g) => per(p1.cpu, p2.cpu, g))]);
      cpuRows.push([`${c} bare`, ...CPU_GROUPS.map((g) => per(b1.cpu, b2.cpu, g))]);
      const phases = [
        ...(await phaseRows(db, p1.runId, c === 1)),
        ...(await phaseRows(db, p2.runId, c === 1)),
      ];
      printPhases(`c=${c}`, phases);
      console.log(
        `  Postgres transactions per attempt (API and worker): ${((p1.xacts + p2.xacts) / n).toFixed(1)}`,
      );
      console.log(`  (load average ${load()})`);
    }
    console.log('\nthroughput (attempts/s)');
    console.log(['concurrency', 'attempts', 'platform', 'bare docker', 'platform/bare'].join('\t'));
    for (const r of rows) console.log(r.join('\t'));
    if (once) {
      const mp = median(once.platform);
      const mb = median(once.bare);
      console.log(
        '\nper-attempt time at concurrency 1 (ms; platform: due → finished, bare: create → removed)',
      );
      console.log(`platform   median ${mp.toFixed(0)}  p90 ${p90(once.platform).toFixed(0)}`);
      console.log(`bare       median ${mb.toFixed(0)}  p90 ${p90(once.bare).toFixed(0)}`);
      console.log(`ratio      ${(mp / mb).toFixed(2)}×`);
    }
    console.log('\nCPU ms per attempt (from /proc; engine = dockerd + containerd + shims)');
    console.log(['level/side', ...CPU_GROUPS].join('\t'));
    for (const r of cpuRows) console.log(r.join('\t'));

    if (WITH_COMPOSE) {
      const composePlatform = (await runLevel(1, PER_LEVEL, 'sidecar')).times;
      const composeBare = (await bareCompose(BENCH_IMAGE, SIDECAR_SERVER, SIDECAR_VERIFIER, PER_LEVEL))
        .overheads;
      const cp = median(composePlatform);
      const cb = median(composeBare);
      console.log('\ncompose task (main + web sidecar) at concurrency 1 (ms)');
      console.log(
        `platform per-attempt time   median ${cp.toFixed(0)}  p90 ${p90(composePlatform).toFixed(0)}`,
      );
      console.log(`bare overhead (minus execs) median ${cb.toFixed(0)}  p90 ${p90(composeBare).toFixed(0)}`);
    }
    cpu.stop();
    console.log(`\n${os.cpus().length} cores; load average at start ${loadStart}, at the end ${load()}`);

    /** `k` attempts of one run at concurrency `c`, with the CPU and the transactions they took. */
    async function platformSide(c: number, k: number) {
      cpu.mark();
      const before = await commits();
      const level = await runLevel(c, k);
      const used = cpu.mark();
      // the statistics reach pg_stat_database within a second of each backend's last transaction
      await sleep(1500);
      const xacts = (await commits()) - before - level.ownQueries;
      return { ...level, cpu: used, xacts, wallS: k / level.perSec };
    }

    async function bareSide(c: number, k: number) {
      cpu.mark();
      const level = await bareDocker(BENCH_IMAGE, TRIVIAL_TEST, c, k);
      return { ...level, cpu: cpu.mark(), wallS: k / level.perSec };
    }

    /** Committed transactions of the bench database so far (each single statement is one). */
    async function commits(): Promise<number> {
      const [row] = await db.$queryRaw<{ n: bigint }[]>`
        SELECT xact_commit AS n FROM pg_stat_database WHERE datname = ${dbName}`;
      return Number(row?.n ?? 0);
    }

    async function addBenchmark(key: string, archiveRoot: string) {
      const add = await fetch(`${base}/v1/benchmarks/archive?key=${key}&name=${key}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/gzip' },
        body: await packTarBuffer(archiveRoot, { gzip: true }),
      });
      if (add.status !== 202) throw new Error(`benchmark add: ${add.status} ${await add.text()}`);
      for (;;) {
        const b = (await (await fetch(`${base}/v1/benchmarks/${key}`, { headers })).json()) as {
          data: { sync_status: string; sync_error: string | null };
        };
        if (b.data.sync_status === 'ready') break;
        if (b.data.sync_status === 'failed') throw new Error(`sync failed: ${b.data.sync_error}`);
        await sleep(200);
      }
    }

    async function runLevel(concurrency: number, attempts: number, benchmark = 'trivial') {
      const toml = `[experiment]\nbenchmark = "${benchmark}"\n\n[execution]\nattempts_per_task = ${attempts}\nmax_concurrent_attempts = ${concurrency}\n\n[[agents]]\nharness = "nop"\n`;
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/runs`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ config_toml: toml, file_name: 'bench.toml' }),
      });
      const body = (await res.json()) as { data: { id: string } };
      if (res.status >= 300) throw new Error(`submit: ${res.status} ${JSON.stringify(body)}`);
      const runId = body.data.id;
      let ownQueries = 3; // the polls below, the two reads after them, the transaction count's own
      for (; ; ownQueries++) {
        const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
        if (['finished', 'failed', 'stopped'].includes(run.status)) break;
        if (worker?.exitCode !== null) throw new Error('the worker exited');
        await sleep(200);
      }
      const wallS = (performance.now() - t0) / 1000;
      const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
      const done = await db.attempt.findMany({ where: { runId }, orderBy: { finishedAt: 'asc' } });
      const errored = done.filter((a) => a.outcome === 'errored');
      if (errored.length > 0)
        throw new Error(`${errored.length} attempts errored: ${errored[0]?.errorMessage}`);
      const times: number[] = [];
      let due = run.createdAt.getTime();
      for (const a of done) {
        const finished = a.finishedAt?.getTime() ?? due;
        times.push(finished - due);
        due = finished;
      }
      return { runId, perSec: attempts / wallS, times, ownQueries };
    }
  } finally {
    await Promise.all([stopChild(worker), stopChild(api)]);
    await db.$disconnect();
    rmSync(dataDir, { recursive: true, force: true });
    await adminQuery(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

await main();
