// biome-ignore-all lint/suspicious/noExplicitAny: tests read loosely typed JSON bodies
// Pulls as a member sees them, through the API and the real worker, from a loopback registry
// behind a slow proxy (it sends bytes no faster than a set rate and counts the manifest requests
// each repository gets). Each test pushes images of its own (busybox and a layer of random data,
// so a pull downloads it) that the engine does not have:
// - while a task's image is pulled, the run's waiting reason (GET /v1/runs/:name, what
//   `runs info` shows) reads `pulling <ref> · N / M MB`, and the attempt's events name the pull;
// - a run of three tasks on three absent images: when the worker starts the run's first attempt
//   it pulls the other images ahead (the engine has them while the first attempts are still held
//   at their gate), and each image reaches the registry as one pull although the prefetch and
//   two attempts of its task ask for it; the image of a task that builds instead
//   (`image_source = "build"`) is not pulled ahead.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { parseAllowList } from '@osmosis/egress';
import { createImageSupplier, getDocker, imagePolicy, pulledCandidates } from '@osmosis/sandbox';
import type { RunningWorker } from '@osmosis/worker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGates } from './helpers/gates.ts';
import {
  type CountingProxy,
  pushImage,
  removeLocalNames,
  startCountingProxy,
  startRegistry,
  type TestRegistry,
} from './helpers/registry.ts';
import { addBenchmark, runEnded, submitRun } from './helpers/runs.ts';
import { BASE_IMAGE, ensureNoGlibcImage } from './helpers/tool-images.ts';
import { waitFor } from './helpers/wait.ts';
import { startTestWorker, TEST_PRIVATE_NETWORK_ALLOWLIST } from './helpers/worker.ts';

const run = promisify(execFile);
const docker = getDocker();
const unique = randomUUID().slice(0, 8);
/** what the proxy lets through, per answer */
const BYTES_PER_SECOND = 2_000_000;

let registry: TestRegistry;
let proxy: CountingProxy;
let api: TestApi;
let worker: RunningWorker;
let owner: SeededMember;
let root: string;
const savedEnv: Record<string, string | undefined> = {};
const benchmarkDirs = new Map<string, string>();

/**
 * Pushes busybox (no glibc, a few MB; its shell also as bash, which runs solve.sh and test.sh)
 * plus a layer of `bytes` random data as `alexgshaw/<name>-…:20251031`; the engine keeps no copy
 * of the random layer.
 */
async function pushRandom(name: string, bytes: number): Promise<{ reference: string; digest: string }> {
  const local = `osmosis-test-image-pulls/${name}:${unique}`;
  const ctx = mkdtempSync(path.join(root, 'ctx-'));
  writeFileSync(
    path.join(ctx, 'Dockerfile'),
    `FROM ${await ensureNoGlibcImage()}\nRUN printf '#!/bin/sh\\nexec /bin/sh "$@"\\n' > /bin/bash && chmod 755 /bin/bash && head -c ${bytes} /dev/urandom > /random.bin\n`,
  );
  await run('docker', ['build', '-q', '--network', 'none', '-t', local, ctx]);
  try {
    const digest = await pushImage(local, `${registry.host}/alexgshaw/${name}-${unique}:20251031`);
    return { reference: `${proxy.host}/alexgshaw/${name}-${unique}:20251031`, digest };
  } finally {
    await removeLocalNames([local]);
  }
}

/** A benchmark of one task per image; with `gated`, the oracle waits at the gate (helpers/gates.ts). */
function writeBenchmark(key: string, images: Record<string, string>, gated: boolean): string {
  const dir = path.join(root, key);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'benchmark.toml'), `key = "${key}"\nname = "${key}"\n`);
  for (const [task, image] of Object.entries(images)) {
    const t = path.join(dir, task);
    for (const sub of ['tests', 'solution']) mkdirSync(path.join(t, sub), { recursive: true });
    writeFileSync(
      path.join(t, 'task.toml'),
      `version = "1.0"\n\n[agent]\ntimeout_sec = 600.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\ndocker_image = "${image}"\nimage_source = "pull"\ncpus = 1\nmemory_mb = 512\nstorage_mb = 1024\n`,
    );
    writeFileSync(path.join(t, 'instruction.md'), 'Nothing to do.\n');
    writeFileSync(
      path.join(t, 'solution', 'solve.sh'),
      gated ? '#!/bin/sh\nwhile [ ! -e /tmp/osmosis-gate-open ]; do sleep 0.2; done\n' : '#!/bin/sh\ntrue\n',
    );
    writeFileSync(
      path.join(t, 'tests', 'test.sh'),
      '#!/bin/sh\nif [ -s /random.bin ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
    );
  }
  benchmarkDirs.set(key, dir);
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'osmosis-image-pulls-'));
  registry = await startRegistry();
  proxy = await startCountingProxy(registry.host, { bytesPerSecond: BYTES_PER_SECOND });
  for (const [k, v] of Object.entries({
    // the public defaults too: a task's build FROM the base image
    OSMOSIS_IMAGE_REGISTRIES: `defaults,${registry.host},${proxy.host}`,
    OSMOSIS_DATA_DIR: path.join(root, 'data'),
    OSMOSIS_SECRET_KEYS: `pulls1:${Buffer.alloc(32, 3).toString('base64')}`,
  })) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
  api = await startTestApi({ privateNetworkAllowlist: TEST_PRIVATE_NETWORK_ALLOWLIST });
  owner = await api.seedWorkspace();
  worker = await startTestWorker(api, path.join(root, 'data'), { concurrency: 2 });
}, 600_000);

afterAll(async () => {
  const scope = worker?.context.scope;
  await worker?.close();
  await api?.close();
  for (const s of [scope, `test-image-pulls-${unique}`])
    if (s)
      for (const candidate of await pulledCandidates(docker, s).catch(() => []))
        await candidate.remove().catch(() => undefined);
  const hosts = [registry?.host, proxy?.host].filter(Boolean).map((h) => `${h}/`);
  const leftovers = (await docker.listImages())
    .flatMap((i) => [...(i.RepoTags ?? []), ...(i.RepoDigests ?? [])])
    .filter((n) => hosts.some((h) => n.startsWith(h)));
  await removeLocalNames(leftovers);
  await proxy?.close();
  await registry?.stop();
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

const present = (reference: string) =>
  docker
    .getImage(reference)
    .inspect()
    .then(
      () => true,
      () => false,
    );

describe('pulls seen by the member', { timeout: 900_000 }, () => {
  it('the run waits with `pulling <ref> · N / M MB` while its image is pulled, and an event names the pull', async () => {
    const big = await pushRandom('slow', 24_000_000);
    expect(await present(big.reference), 'the engine has it first').toBe(false);
    await addBenchmark(api, owner.token, writeBenchmark('slow-pull', { 'slow-task': big.reference }, false));
    const submitted = await submitRun(
      api,
      owner.token,
      '[experiment]\nbenchmark = "slow-pull"\n\n[[agents]]\nharness = "oracle"\n',
      'slow.toml',
    );
    const shape = new RegExp(
      `^pulling ${big.reference.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · [0-9]+(\\.[0-9]+)? / [0-9]+(\\.[0-9]+)? MB$`,
    );
    const seen = new Set<string>();
    const reason = await waitFor(
      async () => {
        const res = await api.request('GET', `/v1/runs/${submitted.name}`, { token: owner.token });
        const waiting = res.body.data?.waiting_reason as string | null;
        if (waiting) seen.add(waiting);
        return waiting && shape.test(waiting) ? waiting : null;
      },
      300_000,
      200,
    );
    expect(reason, [...seen].join(' | ')).toMatch(shape);

    const ended = await runEnded(api, owner.token, submitted.name, 600_000);
    expect(ended.status).toBe('finished');
    expect(ended.waiting_reason).toBeNull();
    const [attempt] = await api.db.attempt.findMany({ where: { runId: submitted.id } });
    expect(attempt, attempt?.errorMessage ?? '').toMatchObject({ outcome: 'passed' });
    expect(attempt!.imageInfo).toMatchObject({ source: 'registry', digest: big.digest });
    const events = (await api.db.runEvent.findMany({ where: { runId: submitted.id } })).map((e) => e.message);
    expect(events.some((m) => shape.test(m) || m === `pulling ${big.reference}`)).toBe(true);
    expect(events.some((m) => m.startsWith(`pulled ${big.reference}`))).toBe(true);
  });

  it('pulls the run’s other images ahead when its first attempt starts, one pull per image', async () => {
    // one pull of a lone image through the proxy: what a pull costs the registry in manifest requests
    const scope = `test-image-pulls-${unique}`;
    const lone = await pushRandom('lone', 1_000_000);
    const supplier = createImageSupplier({
      policy: imagePolicy({ registries: [proxy.host], privateNetwork: parseAllowList('127.0.0.1') }),
      scope,
    });
    await supplier.supply(lone.reference);
    const perPull = proxy.manifestRequests(`alexgshaw/lone-${unique}`);
    expect(perPull).toBeGreaterThan(0);

    const images: Record<string, { reference: string; digest: string }> = {};
    for (const n of [1, 2, 3]) images[`ahead-${n}`] = await pushRandom(`ahead-${n}`, 6_000_000);
    for (const image of Object.values(images)) expect(await present(image.reference)).toBe(false);
    const tasks = Object.fromEntries(Object.entries(images).map(([t, i]) => [t, i.reference]));
    await addBenchmark(api, owner.token, writeBenchmark('ahead', tasks, true));
    const submitted = await submitRun(
      api,
      owner.token,
      '[experiment]\nbenchmark = "ahead"\n\n[execution]\nattempts_per_task = 2\nmax_concurrent_attempts = 2\n\n[[agents]]\nharness = "oracle"\n',
      'ahead.toml',
    );
    // every attempt waits at its gate: while the first two hold both slots, all three images come
    // (and are pinned as the run's: the prefetch pins what it pulled once the pull is done)
    const pins = await waitFor(
      async () => {
        const all = (await Promise.all(Object.values(images).map((i) => present(i.reference)))).every(
          Boolean,
        );
        const pinned = await api.db.runImagePin.findMany({ where: { runId: submitted.id } });
        return all && pinned.length === 3 ? pinned : null;
      },
      300_000,
      250,
    );
    const started = await api.db.attempt.findMany({
      where: { runId: submitted.id, startedAt: { not: null } },
      include: { task: true },
    });
    expect(
      started.every((a) => a.outcome === null),
      'an attempt ended before the gates opened',
    ).toBe(true);
    const startedTasks = new Set(started.map((a) => a.task.name));
    expect(startedTasks.size, 'the tasks with an attempt started').toBeLessThan(3);
    // the images of the tasks with no attempt started yet came ahead, and were pinned by the prefetch
    for (const [task, image] of Object.entries(images)) {
      if (startedTasks.has(task)) continue;
      expect(pins.find((p) => p.reference === image.reference)).toMatchObject({
        digest: image.digest,
        attemptId: null,
      });
    }

    const gates = openGates(submitted.id);
    let ended: Record<string, unknown>;
    try {
      ended = await runEnded(api, owner.token, submitted.name, 600_000);
    } finally {
      await gates.stop();
    }
    expect(ended.status).toBe('finished');
    const attempts = await api.db.attempt.findMany({
      where: { runId: submitted.id },
      include: { task: true },
    });
    expect(attempts).toHaveLength(6);
    for (const a of attempts) {
      expect(a, `${a.task.name} #${a.index}: ${a.errorMessage}`).toMatchObject({ outcome: 'passed' });
      expect(a.imageInfo).toMatchObject({ digest: images[a.task.name]!.digest });
    }
    // each image reached the registry as one pull, though the prefetch and two attempts asked for it
    for (const name of Object.keys(images))
      expect(proxy.manifestRequests(`alexgshaw/${name}-${unique}`), name).toBe(perPull);
  });

  it('does not pull ahead the image of a task that builds its own', async () => {
    const pulled = await pushRandom('pulled', 1_000_000);
    const never = `${proxy.host}/alexgshaw/never-${unique}:20251031`;
    const dir = path.join(root, 'builds');
    for (const sub of ['environment', 'tests', 'solution'])
      mkdirSync(path.join(dir, 'built', sub), { recursive: true });
    writeBenchmark('builds', { pulled: pulled.reference }, false);
    writeFileSync(
      path.join(dir, 'built', 'task.toml'),
      `version = "1.0"\n\n[agent]\ntimeout_sec = 600.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\ndocker_image = "${never}"\nimage_source = "build"\ncpus = 1\nmemory_mb = 512\nstorage_mb = 1024\n`,
    );
    writeFileSync(path.join(dir, 'built', 'instruction.md'), 'Nothing to do.\n');
    writeFileSync(
      path.join(dir, 'built', 'environment', 'Dockerfile'),
      `FROM ${BASE_IMAGE}\nRUN echo ${unique} > /built\n`,
    );
    writeFileSync(path.join(dir, 'built', 'solution', 'solve.sh'), '#!/bin/sh\ntrue\n');
    writeFileSync(
      path.join(dir, 'built', 'tests', 'test.sh'),
      '#!/bin/sh\nif [ -s /built ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
    );
    await addBenchmark(api, owner.token, dir);
    const submitted = await submitRun(
      api,
      owner.token,
      '[experiment]\nbenchmark = "builds"\n\n[execution]\nmax_concurrent_attempts = 1\n\n[[agents]]\nharness = "oracle"\n',
      'builds.toml',
    );
    expect((await runEnded(api, owner.token, submitted.name, 600_000)).status).toBe('finished');
    const attempts = await api.db.attempt.findMany({
      where: { runId: submitted.id },
      include: { task: true },
    });
    for (const a of attempts)
      expect(a, `${a.task.name}: ${a.errorMessage}`).toMatchObject({ outcome: 'passed' });
    expect(attempts.find((a) => a.task.name === 'built')?.imageInfo).toMatchObject({ source: 'built' });
    // the image the task builds instead was never asked of the registry, nor pinned
    expect(proxy.manifestRequests(`alexgshaw/never-${unique}`)).toBe(0);
    const pins = await api.db.runImagePin.findMany({ where: { runId: submitted.id } });
    expect(pins.map((p) => p.reference)).toEqual([pulled.reference]);
  });
});
