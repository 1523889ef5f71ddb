// OpenHands prepared once on the worker and run from its bundle: a stand-in openhands-ai wheel
// (built here with zipfile, requiring Python >=3.12,<3.14 as the real one does) served by a loopback
// package index, installed by the pip of a worker host's Python 3.12/3.13 (found among the
// candidates on the worker's PATH) into a bundle with that Python, its libraries and loader; then
// the openhands harness runs `openhands-python -m openhands.core.main` from that read-only bundle in
// an image with no Python, no apt and no network but the fake model server, on a task with
// allow_internet = false.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { AtifTrajectory, atifProblems } from '@osmosis/contracts';
import {
  createInstalledHarness,
  type HarnessEvent,
  INSTALLED_AGENTS,
  nodeToolFromBinary,
  type PreparedTools,
  TOOL_SPECS,
  ToolStore,
  toolsForHarness,
} from '@osmosis/harness';
import { createSandbox, type Sandbox } from '@osmosis/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testHarnessContext } from './helpers/harness-context.ts';
import { type PackageIndex, pipEnv, startPackageIndex } from './helpers/package-index.ts';
import { type CliNetwork, RELAY_MODEL_URL, startCliNetwork } from './helpers/real-cli/relay.ts';
import { BASE_IMAGE, ensureNoPythonGitImage, ensureNoPythonImage } from './helpers/tool-images.ts';

const KEY = 'sk-openhands-planted-key-99887766';
const STANDIN = path.join(import.meta.dirname, 'fixtures/standin-openhands');
const OPENHANDS = INSTALLED_AGENTS.openhands!;
const PINNED = OPENHANDS.version ?? 'unpinned';
const BUNDLE = '/opt/osmosis/tools/openhands';

/**
 * A Python 3.12 or 3.13 on this machine: OSMOSIS_OPENHANDS_PYTHON, else pyenv's newest of them;
 * else why there is none (the bundle's tests are then skipped with that reason).
 */
function fittingPython(): { python: string } | { missing: string } {
  try {
    return { python: pythonOfThisMachine() };
  } catch (error) {
    return { missing: (error as Error).message };
  }
}

function pythonOfThisMachine(): string {
  if (process.env.OSMOSIS_OPENHANDS_PYTHON) return process.env.OSMOSIS_OPENHANDS_PYTHON;
  const versions = path.join(process.env.PYENV_ROOT ?? path.join(homedir(), '.pyenv'), 'versions');
  const found = (() => {
    try {
      return readdirSync(versions).filter((v) => /^3\.1[23]\.\d+$/.test(v));
    } catch {
      return [];
    }
  })().sort();
  if (!found.length)
    throw new Error(
      `no Python 3.12 or 3.13 in ${versions}: install one (pyenv install 3.13) or set OSMOSIS_OPENHANDS_PYTHON to its path`,
    );
  return path.join(versions, found.at(-1)!, 'bin/python3');
}

const FITTING = fittingPython();

describe('OpenHands from a bundle made from a package index', { timeout: 600_000 }, () => {
  let workDir: string;
  let python: string;
  let pythonVersion: string;
  let index: PackageIndex;
  let prepared: PreparedTools;
  let net: CliNetwork;
  let image: string;
  const sandboxes: Sandbox[] = [];

  beforeAll(async () => {
    if ('missing' in FITTING) return;
    workDir = mkdtempSync(path.join(tmpdir(), 'osmosis-ohtools-'));
    python = FITTING.python;
    pythonVersion = execFileSync(python, ['-c', 'import sys; print(sys.version.split()[0])'], {
      encoding: 'utf8',
    }).trim();
    const wheel = execFileSync(python, [path.join(STANDIN, 'build_wheel.py'), PINNED, workDir], {
      encoding: 'utf8',
    }).trim();
    index = await startPackageIndex('openhands-ai', wheel);
    // the fitting Python's folder first on the worker's PATH, no variable: chosen among the candidates
    const env = pipEnv(index.url, { ...process.env, PATH: `${path.dirname(python)}:${process.env.PATH}` });
    delete env.OSMOSIS_OPENHANDS_PYTHON;
    const store = new ToolStore({
      dir: path.join(workDir, 'tools'),
      env,
      specs: { ...TOOL_SPECS, node: nodeToolFromBinary(process.execPath, process.versions.node) },
    });
    prepared = await store.prepare([...toolsForHarness('openhands'), 'node']);
    expect(prepared.notes).toEqual([]);
    const node = prepared.tools.find((t) => t.name === 'node')!;
    net = await startCliNetwork(BASE_IMAGE, {
      node: [node.commands.node!],
      toolMounts: prepared.mounts.filter((m) => m.target.endsWith('/node')),
    });
    image = await ensureNoPythonGitImage();
  }, 600_000);

  const sandboxIn = async (of: string) => {
    const sandbox = await createSandbox({
      image: of,
      labels: { extra: { test: 'agent-tools-openhands' } },
      toolMounts: prepared.mounts.filter((m) => !m.target.endsWith('/node')),
      networkMode: net.networkMode,
      directories: [
        { path: '/logs/agent', mode: 0o777 },
        { path: '/work', mode: 0o777 },
      ],
    });
    sandboxes.push(sandbox);
    return sandbox;
  };
  const contextIn = (sandbox: Sandbox, events: HarnessEvent[]) => ({
    ...testHarnessContext({
      sandbox,
      env: { MODEL_KEY: KEY },
      harness: 'openhands',
      config: {
        harness: 'openhands',
        model: { type: 'provider', model: 'openai/gpt-5.2', api_key_secret: 'MODEL_KEY' },
      },
      log: (e) => events.push(e),
    }),
    tools: prepared.tools,
    internet: false,
  });
  const harness = createInstalledHarness(OPENHANDS, {
    env: { OSMOSIS_PROVIDER_OPENAI_BASE_URL: `${RELAY_MODEL_URL}/v1` },
  });

  afterAll(async () => {
    for (const s of sandboxes) await s.destroy().catch(() => undefined);
    await net?.close();
    index?.server.close();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('pip fetched the pinned openhands-ai from the configured index with a Python 3.12/3.13', (test) => {
    if ('missing' in FITTING) return test.skip(FITTING.missing);
    expect(index.asked).toContain('/simple/openhands-ai/');
    const bundle = prepared.bundles.find((b) => b.name === 'openhands')!;
    expect(bundle.version).toBe(PINNED);
    expect(bundle.manifest.source.package).toBe(`openhands-ai==${PINNED}`);
    expect(bundle.manifest.source.python).toMatch(/ 3\.1[23]\.\d+$/);
    expect(bundle.manifest.source.python).toContain(pythonVersion);
    expect(bundle.manifest.commands).toEqual({ 'openhands-python': 'bin/openhands-python' });
  });

  it('runs -m openhands.core.main on the bundle’s Python: no Python in the image, no install, no network but the fake', async (test) => {
    if ('missing' in FITTING) return test.skip(FITTING.missing);
    const sandbox = await sandboxIn(image);
    expect(
      (
        await sandbox.exec([
          'sh',
          '-c',
          'command -v python3 || command -v python || command -v uv || command -v apt-get || command -v tmux',
        ])
      ).stdout,
    ).toBe('');
    net.fake.enqueue({
      kind: 'tool',
      calls: [
        {
          name: 'execute_bash',
          input: {
            command:
              'echo by-the-openhands-bundle > /work/standin.txt; (env | grep -c -e "^PYTHON" -e "^LOCPATH=" -e "^TERMINFO_DIRS=" || true) > /work/bundle-env.txt; echo "$TMUX" > /work/tmux.txt',
          },
        },
      ],
      usage: { input: 80, output: 9 },
    });
    const events: HarnessEvent[] = [];
    const ctx = contextIn(sandbox, events);
    await harness.setup(ctx);
    expect(events.map((e) => e.message)).toEqual([
      `openhands: openhands-python ${PINNED} from the worker's bundle (${BUNDLE}, read-only)`,
    ]);
    const result = await harness.run(ctx, 'write it');
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect((await sandbox.exec(['cat', '/work/standin.txt'])).stdout).toBe('by-the-openhands-bundle\n');
    expect(result.usage).toMatchObject({ inputTokens: 80, outputTokens: 9 });
    expect(result.harnessInfo?.version).toBe(PINNED);
    expect(result.harnessInfo?.tools).toEqual([{ name: 'openhands', version: PINNED, source: 'bundle' }]);
    // the model call as OpenHands makes it: LLM_MODEL's model, LLM_API_KEY
    expect(net.fake.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${KEY}`]);
    expect(net.fake.requests[0]!.body.model).toBe('gpt-5.2');
    // the bundle's Python (the chosen host version), and sys.executable the wrapper, through which
    // the action server (a second Python) ran the command
    expect((await sandbox.exec(['cat', '/logs/agent/standin-python.txt'])).stdout).toBe(
      `${BUNDLE}/bin/openhands-python ${pythonVersion} OpenSSL\n`,
    );
    // the command ran in tmux (the image has none: the tmux bundle's, from PATH), and sees the
    // image: none of the bundles' Python or tmux settings
    expect((await sandbox.exec(['cat', '/work/tmux.txt'])).stdout).toMatch(
      /^\/tmp\/tmux-0\/default,\d+,\d+\n$/,
    );
    expect((await sandbox.exec(['cat', '/work/bundle-env.txt'])).stdout).toBe('0\n');
    // the event store became the trajectory: the execute_bash call with its observation
    const trajectory = AtifTrajectory.parse(result.trajectory);
    expect(atifProblems(trajectory)).toEqual([]);
    const steps = trajectory.steps;
    const call = steps.find((s) => s.tool_calls?.length);
    expect(call?.tool_calls?.[0]).toMatchObject({
      function_name: 'execute_bash',
      arguments: { command: expect.stringContaining('by-the-openhands-bundle') },
    });
    expect(call?.observation?.results[0]?.content).toBe('');
    expect(call?.metrics).toMatchObject({ prompt_tokens: 80, completion_tokens: 9 });
    expect(trajectory.agent).toMatchObject({ name: 'openhands', version: PINNED });
    expect(net.observations(), 'look-ups or connections other than to the fake').toEqual([]);
    // read-only: the agent cannot change its own bundle
    expect((await sandbox.exec(['sh', '-c', `echo x > ${BUNDLE}/bin/openhands-python`])).exitCode).not.toBe(
      0,
    );
  });

  it('an image without git (its local runtime starts with `git config`) does not get the bundle; with no internet, setup says why', async (test) => {
    if ('missing' in FITTING) return test.skip(FITTING.missing);
    const sandbox = await sandboxIn(await ensureNoPythonImage());
    const events: HarnessEvent[] = [];
    await expect(harness.setup(contextIn(sandbox, events))).rejects.toThrow(
      '/opt/openhands-venv/bin/python is not in the image, the image has no git, which openhands needs beside its bundle, and the sandbox has no internet to install it',
    );
    expect(events.map((e) => e.message)).toEqual([
      'openhands: the image has no git, which openhands needs beside its bundle; falling back',
    ]);
  });
});

describe('when no Python fits OpenHands', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'osmosis-ohtools-fail-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the note names what was looked for and what to do, and no bundle is given (the harness falls back to its install)', async () => {
    // a worker with no Python on its PATH at all
    const store = new ToolStore({ dir: path.join(dir, 'tools'), env: { ...process.env, PATH: dir } });
    const prepared = await store.prepare(['openhands']);
    expect(prepared.tools).toEqual([]);
    expect(prepared.notes).toEqual([
      "openhands: openhands is bundled with the worker host's Python and needs Python >=3.12,<3.14; on the worker's PATH there is no python3.13, python3.12, python3: install Python 3.12 or later, below 3.14 with pip on the worker, or set OSMOSIS_OPENHANDS_PYTHON to the path of one",
    ]);
  });
});
