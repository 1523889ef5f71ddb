// A Python agent prepared once on the worker and run from its bundle: a stand-in mini-swe-agent
// wheel (built here with zipfile) served by a loopback "simple" package index, installed by the
// worker host's pip into a bundle with the host's own Python, its libraries and loader; then
// mini-swe-agent runs from that read-only bundle in an image with no Python, no apt and no network
// but the fake model server (the relay's namespace), on a task with allow_internet = false.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createInstalledHarness,
  type HarnessEvent,
  INSTALLED_AGENTS,
  nodeToolFromBinary,
  type PreparedTools,
  pythonCliTool,
  TOOL_SPECS,
  ToolStore,
} from '@osmosis/harness';
import { createSandbox, type Sandbox } from '@osmosis/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testHarnessContext } from './helpers/harness-context.ts';
import { pipEnv, startPackageIndex } from './helpers/package-index.ts';
import { type CliNetwork, RELAY_MODEL_URL, startCliNetwork } from './helpers/real-cli/relay.ts';
import { BASE_IMAGE, ensureNoPythonImage } from './helpers/tool-images.ts';

const KEY = 'sk-pytools-planted-key-1122334455';
const STANDIN = path.join(import.meta.dirname, 'fixtures/standin-pip-cli');
const MINI = INSTALLED_AGENTS['mini-swe-agent']!;
const PINNED = MINI.version ?? 'unpinned';
const hostPython = () =>
  execFileSync('python3', ['-c', 'import sys; print(sys.version.split()[0])'], { encoding: 'utf8' }).trim();

const startIndex = (wheel: string) => startPackageIndex('mini-swe-agent', wheel);

describe('mini-swe-agent from a bundle made from a package index', { timeout: 600_000 }, () => {
  let workDir: string;
  let index: Awaited<ReturnType<typeof startIndex>>;
  let prepared: PreparedTools;
  let net: CliNetwork;
  let image: string;
  const sandboxes: Sandbox[] = [];

  beforeAll(async () => {
    workDir = mkdtempSync(path.join(tmpdir(), 'osmosis-pytools-'));
    const wheel = execFileSync('python3', [path.join(STANDIN, 'build_wheel.py'), PINNED, workDir], {
      encoding: 'utf8',
    }).trim();
    index = await startIndex(wheel);
    const store = new ToolStore({
      dir: path.join(workDir, 'tools'),
      env: pipEnv(index.url),
      specs: { ...TOOL_SPECS, node: nodeToolFromBinary(process.execPath, process.versions.node) },
    });
    prepared = await store.prepare(['mini-swe-agent', 'node']);
    expect(prepared.notes).toEqual([]);
    const node = prepared.tools.find((t) => t.name === 'node')!;
    net = await startCliNetwork(BASE_IMAGE, {
      node: [node.commands.node!],
      toolMounts: prepared.mounts.filter((m) => m.target.endsWith('/node')),
    });
    image = await ensureNoPythonImage();
  }, 600_000);

  afterAll(async () => {
    for (const s of sandboxes) await s.destroy().catch(() => undefined);
    await net?.close();
    index?.server.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('pip fetched the pinned version from the configured index, and the bundle records where from', () => {
    expect(index.asked).toContain('/simple/mini-swe-agent/');
    expect(index.asked.some((u) => u.startsWith('/files/mini_swe_agent-'))).toBe(true);
    const bundle = prepared.bundles.find((b) => b.name === 'mini-swe-agent')!;
    expect(bundle.version).toBe(PINNED);
    expect(bundle.manifest.source.package).toBe(`mini-swe-agent==${PINNED}`);
    expect(bundle.manifest.source.python).toContain(hostPython());
  });

  it('runs from the bundle on its own Python: no Python in the image, no install, no network but the fake', async () => {
    const sandbox = await createSandbox({
      image,
      labels: { extra: { test: 'agent-tools-python' } },
      toolMounts: prepared.mounts.filter((m) => !m.target.endsWith('/node')),
      networkMode: net.networkMode,
      directories: [
        { path: '/logs/agent', mode: 0o777 },
        { path: '/work', mode: 0o777 },
      ],
    });
    sandboxes.push(sandbox);
    expect(
      (await sandbox.exec(['sh', '-c', 'command -v python3 || command -v python || ls /usr/lib/python3*']))
        .stdout,
    ).toBe('');
    net.fake.enqueue({
      kind: 'text',
      text: 'echo by-the-python-bundle > /work/standin.txt; (env | grep -c "^PYTHON" || true) > /work/python-env.txt',
      usage: { input: 70, output: 7 },
    });
    const events: HarnessEvent[] = [];
    const ctx = {
      ...testHarnessContext({
        sandbox,
        env: { MODEL_KEY: KEY },
        harness: 'mini-swe-agent',
        config: {
          harness: 'mini-swe-agent',
          model: { type: 'provider', model: 'openai/gpt-5.2', api_key_secret: 'MODEL_KEY' },
        },
        log: (e) => events.push(e),
      }),
      tools: prepared.tools,
      internet: false,
    };
    const harness = createInstalledHarness(MINI, {
      env: { OSMOSIS_PROVIDER_OPENAI_BASE_URL: `${RELAY_MODEL_URL}/v1` },
    });
    await harness.setup(ctx);
    expect(events.map((e) => e.message)).toEqual([
      `mini-swe-agent: mini-swe-agent ${PINNED} from the worker's bundle (/opt/osmosis/tools/mini-swe-agent, read-only)`,
    ]);
    const result = await harness.run(ctx, 'write it');
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect((await sandbox.exec(['cat', '/work/standin.txt'])).stdout).toBe('by-the-python-bundle\n');
    expect(result.usage).toMatchObject({ inputTokens: 70, outputTokens: 7 });
    expect(result.harnessInfo?.tools).toEqual([
      { name: 'mini-swe-agent', version: PINNED, source: 'bundle' },
    ]);
    // the bundle's Python (the host's version, its ssl with it), not one from the image
    expect((await sandbox.exec(['cat', '/logs/agent/standin-python.txt'])).stdout).toMatch(
      new RegExp(
        `^/opt/osmosis/tools/mini-swe-agent/python/bin/python\\S+ ${hostPython().replace(/\./g, '\\.')} OpenSSL\n$`,
      ),
    );
    // the commands the agent runs see the image, none of the bundle's Python settings
    expect((await sandbox.exec(['cat', '/work/python-env.txt'])).stdout).toBe('0\n');
    expect(net.fake.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`]);
    expect(net.observations(), 'look-ups or connections other than to the fake').toEqual([]);
    // read-only: the agent cannot change its own bundle
    expect(
      (await sandbox.exec(['sh', '-c', 'echo x > /opt/osmosis/tools/mini-swe-agent/bin/mini-swe-agent']))
        .exitCode,
    ).not.toBe(0);
  });
});

describe('when no Python bundle can be made', { timeout: 300_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'osmosis-pytools-fail-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an index that cannot be reached is named and no bundle is given (the harness falls back to its install)', async () => {
    // a port that was just closed: nothing listens there
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const store = new ToolStore({
      dir: path.join(dir, 'unreachable'),
      env: { ...pipEnv(`http://127.0.0.1:${port}/simple/`), PIP_RETRIES: '0', PIP_TIMEOUT: '5' },
    });
    const prepared = await store.prepare(['mini-swe-agent']);
    expect(prepared.tools).toEqual([]);
    expect(prepared.notes.join('\n')).toMatch(
      /pip could not install mini-swe-agent==\S+ from the worker's package index \(pip config list, PIP_INDEX_URL\)/,
    );
  });

  it('a package whose console script is not a plain module:function is refused, not written into the launcher', async () => {
    const hostile = 'minisweagent.run.mini:app;__import__("os").system("touch /tmp/osmosis-pwned")';
    const out = path.join(dir, 'hostile');
    mkdirSync(out);
    const wheel = execFileSync('python3', [path.join(STANDIN, 'build_wheel.py'), PINNED, out, hostile], {
      encoding: 'utf8',
    }).trim();
    const index = await startIndex(wheel);
    try {
      const store = new ToolStore({ dir: path.join(dir, 'hostile-tools'), env: pipEnv(index.url) });
      const prepared = await store.prepare(['mini-swe-agent']);
      expect(prepared.tools).toEqual([]);
      expect(prepared.notes.join('\n')).toContain(
        `mini-swe-agent ${PINNED} has no \`mini-swe-agent\` console script`,
      );
    } finally {
      index.server.close();
    }
  });

  it('a worker without the Python it bundles says what to install', async () => {
    const store = new ToolStore({
      dir: path.join(dir, 'no-python'),
      specs: {
        'mini-swe-agent': pythonCliTool({
          name: 'mini-swe-agent',
          package: 'mini-swe-agent',
          version: PINNED,
          binary: 'mini-swe-agent',
          python: { candidates: ['osmosis-no-such-python3'] },
        }),
      },
    });
    const prepared = await store.prepare(['mini-swe-agent']);
    expect(prepared.tools).toEqual([]);
    expect(prepared.notes.join('\n')).toContain(
      'the worker has no osmosis-no-such-python3 on its PATH: install it there (Debian/Ubuntu: apt-get install python3 python3-pip)',
    );
  });
});
