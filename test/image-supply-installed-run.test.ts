// biome-ignore-all lint/suspicious/noExplicitAny: tests read loosely typed JSON bodies
// An installed agent through the whole platform on a TB2-shaped task, from the worker's prepared
// tools: a benchmark uploaded to the API whose task names a `docker_image` on a loopback registry
// (Debian with no Node, no tmux and no package manager; the engine has no image of that name),
// ships environment/Dockerfile and has `allow_internet = false`; a run submitted; the real
// worker pulls the image, mounts its tool bundles (a stand-in codex CLI packed for npm, and
// Node) read-only and runs the agent in a sandbox whose only network is the relay's loopback
// (helpers/real-cli/relay.ts: no route off the machine, every look-up and connection recorded).
// Agent setup installs nothing: the bundle's CLI answers, nothing but the fake is reached, and
// the attempt records the image's digest and the CLI's version from the bundle.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SeededMember, startTestApi, type TestApi } from '@osmosis/api/testing';
import { nodeToolFromBinary, npmCliTool, TOOL_SPECS, ToolStore } from '@osmosis/harness';
import { getDocker, pulledCandidates } from '@osmosis/sandbox';
import type { RunningWorker } from '@osmosis/worker/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliNetwork, RELAY_MODEL_URL, startCliNetwork } from './helpers/real-cli/relay.ts';
import { pushImage, removeLocalNames, startRegistry, type TestRegistry } from './helpers/registry.ts';
import { addBenchmark, submitAndWait } from './helpers/runs.ts';
import { BASE_IMAGE, ensureNoAptImage } from './helpers/tool-images.ts';
import { startTestWorker, TEST_PRIVATE_NETWORK_ALLOWLIST } from './helpers/worker.ts';

const MODEL_KEY = 'sk-IMGRUN-planted-key-5be81c07';
const STANDIN = path.join(import.meta.dirname, 'fixtures/standin-codex-cli');
const docker = getDocker();

let registry: TestRegistry;
let reference: string;
let pushedDigest: string;
let net: CliNetwork;
let api: TestApi;
let worker: RunningWorker;
let owner: SeededMember;
let root: string;
const savedEnv: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string>): void {
  for (const [k, v] of Object.entries(values)) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
}

/** A TB2-shaped benchmark of one task: docker_image, environment/Dockerfile, no internet. */
function writeBenchmark(): string {
  const dir = path.join(root, 'bench');
  const task = path.join(dir, 'write-answer');
  for (const sub of ['environment', 'tests']) mkdirSync(path.join(task, sub), { recursive: true });
  writeFileSync(path.join(dir, 'benchmark.toml'), 'key = "tb2-shaped"\nname = "TB2-shaped"\n');
  writeFileSync(
    path.join(task, 'task.toml'),
    `version = "1.0"\n\n[agent]\ntimeout_sec = 300.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\ndocker_image = "${reference}"\nbuild_timeout_sec = 300.0\ncpus = 1\nmemory_mb = 1024\nstorage_mb = 2048\nallow_internet = false\n`,
  );
  writeFileSync(path.join(task, 'instruction.md'), 'Write "by-the-bundle" to /app/answer.txt.\n');
  writeFileSync(path.join(task, 'environment', 'Dockerfile'), `FROM ${BASE_IMAGE}\n`);
  writeFileSync(
    path.join(task, 'tests', 'test.sh'),
    '#!/bin/sh\nif [ "$(cat /app/answer.txt)" = by-the-bundle ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n',
  );
  return dir;
}

/** The worker's tool store: the stand-in CLI packed as npm would fetch it, Node from this process. */
async function standinTools(): Promise<ToolStore> {
  const pack = path.join(root, 'pack');
  mkdirSync(pack);
  const tgz = execFileSync('npm', ['pack', STANDIN, '--pack-destination', pack, '--silent'], {
    encoding: 'utf8',
  }).trim();
  return new ToolStore({
    dir: path.join(root, 'tools'),
    specs: {
      ...TOOL_SPECS,
      node: nodeToolFromBinary(process.execPath, process.versions.node),
      codex: npmCliTool({ name: 'codex', package: path.join(pack, tgz), version: '1.0.0', binary: 'codex' }),
    },
  });
}

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'osmosis-image-installed-'));
  registry = await startRegistry();
  reference = `${registry.host}/alexgshaw/standin-${randomUUID().slice(0, 8)}:20251031`;
  pushedDigest = await pushImage(await ensureNoAptImage(), reference);
  const tools = await standinTools();
  // the relay runs on the bundle's Node (its image has none of its own to rely on)
  const nodeOnly = await tools.prepare(['node']);
  const node = nodeOnly.tools.find((t) => t.name === 'node')!;
  net = await startCliNetwork(BASE_IMAGE, { node: [node.commands.node!], toolMounts: nodeOnly.mounts });
  // the operator's image policy: the loopback registry allowed, and loopback on the private list
  setEnv({
    OSMOSIS_IMAGE_REGISTRIES: registry.host,
    OSMOSIS_DATA_DIR: path.join(root, 'data'),
    OSMOSIS_SECRET_KEYS: `imgrun1:${Buffer.alloc(32, 9).toString('base64')}`,
  });
  api = await startTestApi({ privateNetworkAllowlist: TEST_PRIVATE_NETWORK_ALLOWLIST });
  owner = await api.seedWorkspace();
  // the sandboxes join the relay's namespace; the agent tools are the store above
  worker = await startTestWorker(
    api,
    path.join(root, 'data'),
    { concurrency: 1 },
    {
      pipeline: { networkMode: net.networkMode, tools },
    },
  );
  const secret = await api.request('PUT', '/v1/secrets/MODEL_KEY', {
    token: owner.token,
    body: { value: MODEL_KEY },
  });
  expect(secret.status).toBe(201);
  await addBenchmark(api, owner.token, writeBenchmark());
}, 600_000);

afterAll(async () => {
  const scope = worker?.context.scope;
  await worker?.close();
  await api?.close();
  await net?.close();
  if (scope)
    for (const candidate of await pulledCandidates(docker, scope).catch(() => []))
      await candidate.remove().catch(() => undefined);
  const leftovers = (await docker.listImages())
    .flatMap((i) => [...(i.RepoTags ?? []), ...(i.RepoDigests ?? [])])
    .filter((n) => registry && n.startsWith(`${registry.host}/`));
  await removeLocalNames(leftovers);
  await registry?.stop();
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('an installed agent on a TB2-shaped task through the platform', { timeout: 900_000 }, () => {
  it('pulls the image, runs the CLI from the worker’s bundle with no network but the fake, and passes', async () => {
    expect(
      await docker
        .getImage(reference)
        .inspect()
        .catch(() => null),
      'the engine has it first',
    ).toBeNull();
    net.clear();
    net.fake.enqueue({
      kind: 'text',
      text: 'mkdir -p /app && echo by-the-bundle > /app/answer.txt',
      usage: { input: 60, output: 6 },
    });
    const toml = `[experiment]\nbenchmark = "tb2-shaped"\n\n[execution]\nmax_concurrent_attempts = 1\n\n[[agents]]\nharness = "codex"\n[agents.model]\ntype = "endpoint"\nbase_url = "${RELAY_MODEL_URL}/v1"\nmodel = "gpt-5.2"\napi_key_secret = "MODEL_KEY"\n`;
    const run = await submitAndWait(api, owner.token, toml, { fileName: 'standin.toml', idleMs: 600_000 });
    expect(run.status).toBe('finished');
    const [attempt, ...others] = await api.db.attempt.findMany({ where: { runId: run.id } });
    expect(others).toEqual([]);
    expect(attempt!.errorMessage).toBeNull();
    expect(attempt).toMatchObject({ outcome: 'passed', reward: 1, inputTokens: 60, outputTokens: 6 });

    // the image came from the registry, pinned by the digest the registry gave the push
    expect(attempt!.imageInfo).toMatchObject({
      source: 'registry',
      digest: pushedDigest,
      built_because: null,
    });
    // the CLI's version as the bundle recorded it
    expect((attempt!.harnessInfo as any)?.tools).toEqual([
      { name: 'codex', version: '1.0.0', source: 'bundle' },
    ]);
    const events = (await api.db.runEvent.findMany({ where: { runId: run.id }, orderBy: { id: 'asc' } })).map(
      (e) => e.message,
    );
    const text = events.join('\n');
    expect(text).toMatch(/agent tools mounted read-only: .*codex 1\.0\.0/);
    expect(events).toContain(
      "codex: codex 1.0.0 from the worker's bundle (/opt/osmosis/tools/codex, read-only)",
    );
    expect(text).toMatch(/network container:/);
    // no install step: nothing but the fake was looked up or connected to, with the run's key
    expect(net.observations(), 'look-ups or connections other than to the fake').toEqual([]);
    expect(net.fake.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${MODEL_KEY}`]);

    // the same through `runs info --json` (GET /v1/runs/:name): the pin and the tool's version
    const info = (await api.request('GET', `/v1/runs/${run.name}`, { token: owner.token })).body.data;
    expect(info.image_pins).toEqual([
      expect.objectContaining({ reference: reference, digest: pushedDigest }),
    ]);
  });
});
