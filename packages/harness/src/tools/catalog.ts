// The tools the platform bundles, at the versions it pins, and which harness uses which. tmux is
// the worker host's own; Node and the CLIs come from the npm registry; mini-swe-agent and
// OpenHands from the package index the worker's pip is configured for, each with a copy of a
// worker host's Python that fits it (OpenHands needs 3.12 or 3.13: OSMOSIS_OPENHANDS_PYTHON, else
// the first fitting python3.13, python3.12, python3 on the worker's PATH). A new tool is one more
// ToolSpec here, needing no change to the store, the mounts or the harness.
import { readFile } from 'node:fs/promises';
import { CLI_VERSIONS, NPM_PACKAGES, OPENHANDS_BUNDLE_PYTHON } from '../installed/agents.ts';
import type { HostFacts } from './host.ts';
import { nodeTool } from './node.ts';
import { npmCliTool } from './npm-cli.ts';
import { pythonCliTool } from './python-cli.ts';
import type { ToolSpec } from './spec.ts';
import { tmuxTool } from './tmux.ts';

/** opencode's postinstall picks the baseline build on x64 CPUs without AVX2; so does this. */
async function hasAvx2(): Promise<boolean> {
  const info = await readFile('/proc/cpuinfo', 'utf8').catch(() => '');
  return /(^|\s)avx2(\s|$)/m.test(info);
}

export const TOOL_SPECS: Readonly<Record<string, ToolSpec>> = {
  tmux: tmuxTool,
  node: nodeTool,
  'claude-code': npmCliTool({
    name: 'claude-code',
    package: NPM_PACKAGES['claude-code'],
    version: CLI_VERSIONS['claude-code'],
    binary: 'claude',
    native: async (host: HostFacts) => ({
      program: `node_modules/${NPM_PACKAGES['claude-code']}-linux-${host.nodeArch}/claude`,
    }),
  }),
  codex: npmCliTool({
    name: 'codex',
    package: NPM_PACKAGES.codex,
    version: CLI_VERSIONS.codex,
    binary: 'codex',
  }),
  'gemini-cli': npmCliTool({
    name: 'gemini-cli',
    package: NPM_PACKAGES['gemini-cli'],
    version: CLI_VERSIONS['gemini-cli'],
    binary: 'gemini',
  }),
  opencode: npmCliTool({
    name: 'opencode',
    package: NPM_PACKAGES.opencode,
    version: CLI_VERSIONS.opencode,
    binary: 'opencode',
    native: async (host: HostFacts) => {
      const base = `opencode-linux-${host.nodeArch}`;
      const baseline = host.nodeArch === 'x64' && !(await hasAvx2());
      const [use, other] = baseline ? [`${base}-baseline`, base] : [base, `${base}-baseline`];
      return { program: `node_modules/${use}/bin/opencode`, drop: [`node_modules/${other}`] };
    },
    // opencode installs @opencode-ai/plugin into its config folder when it starts, unless the
    // same version is there (the per-attempt install puts it there too)
    home: { package: '@opencode-ai/plugin', to: '.config/opencode' },
  }),
  'mini-swe-agent': pythonCliTool({
    name: 'mini-swe-agent',
    package: 'mini-swe-agent',
    version: CLI_VERSIONS['mini-swe-agent'],
    binary: 'mini-swe-agent',
  }),
  // run as Harbor runs it, `python -m openhands.core.main`, with the bundle's Python
  openhands: pythonCliTool({
    name: 'openhands',
    package: 'openhands-ai',
    version: CLI_VERSIONS.openhands,
    binary: OPENHANDS_BUNDLE_PYTHON,
    runs: 'python',
    python: {
      candidates: ['python3.13', 'python3.12', 'python3'],
      range: { min: '3.12', below: '3.14' },
      variable: 'OSMOSIS_OPENHANDS_PYTHON',
    },
  }),
};

/** The installed agents bundled from a Python package index. */
const PYTHON_HARNESSES = new Set(['mini-swe-agent', 'openhands']);

/** The tools a harness can run from bundles (none: it installs per attempt, or needs none). */
export function toolsForHarness(harness: string): string[] {
  if (harness === 'terminus-2') return ['tmux'];
  // OpenHands' local runtime drives bash through tmux
  if (harness === 'openhands') return ['openhands', 'tmux'];
  if (harness in NPM_PACKAGES || PYTHON_HARNESSES.has(harness)) return [harness];
  return [];
}
