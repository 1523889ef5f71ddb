// The bundle of an installed agent that is a Python package (mini-swe-agent, OpenHands), at the
// harness's pinned version: a worker host's Python that fits the package (python-choice.ts,
// python-runtime.ts) with its libraries and loader, the package installed by that Python's pip with
// `--target` from whatever index the worker's pip is configured for (pip.conf, PIP_INDEX_URL: never
// a host named here), wheels only, and a wrapper in `bin/` that runs, through the bundled loader,
// either the package's console script or (OpenHands, run as `python -m`) the bundled Python itself.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { outputTail, runCommand, ToolPrepError } from './host.ts';
import { CHECK_VARIABLE } from './npm-cli.ts';
import { choosePython, type PythonRequirement } from './python-choice.ts';
import { copyPython, sharedObjectsUnder } from './python-runtime.ts';
import {
  type BuildContext,
  type BuildResult,
  copyRuntime,
  launchArgv,
  launchOf,
  shQuote,
  type ToolSpec,
  wrapperScript,
} from './spec.ts';

export interface PythonCliOptions {
  /** The tool's name: the harness's (`mini-swe-agent`). */
  name: string;
  /** The distribution on the index (`mini-swe-agent`). */
  package: string;
  version: string;
  /**
   * The command the harness runs: the package's console script of that name (`mini-swe-agent`),
   * or with `runs: 'python'` the bundled Python's own command (`openhands-python`).
   */
  binary: string;
  /**
   * `console-script` (the default): `bin/<binary>` runs the package's console script. `python`:
   * `bin/<binary>` is the bundled Python with the package importable, for `<binary> -m module`.
   */
  runs?: 'console-script' | 'python';
  /** Which host Python to bundle: candidates on the worker's PATH (default `python3`), a version range, an operator variable. */
  python?: Omit<PythonRequirement, 'tool'>;
}

/** Where pip puts the package: beside the bundled Python, not inside its standard library. */
const SITE = 'site';
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** PEP 503's normalized name: how an index and a wheel's dist-info spell the distribution. */
export const normalizedName = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

interface Installed {
  version: string;
  /** `module:attr` of the console script; null when the bundle runs as a Python. */
  entry: string | null;
}

/** The installed distribution's version and the console script `binary`'s entry point. */
async function installedDistribution(site: string, o: PythonCliOptions): Promise<Installed> {
  const want = normalizedName(o.package);
  for (const name of await readdir(site)) {
    const m = /^(.+)-([^-]+)\.dist-info$/.exec(name);
    if (!m || normalizedName(m[1]!) !== want) continue;
    if (o.runs === 'python') return { version: m[2]!, entry: null };
    const entries = await readFile(path.join(site, name, 'entry_points.txt'), 'utf8').catch(() => '');
    let section = '';
    for (const line of entries.split('\n')) {
      const t = line.trim();
      if (t.startsWith('[')) section = t;
      const kv = /^([^=\s]+)\s*=\s*([\w.]+):([\w.]+)\s*$/.exec(t);
      if (section === '[console_scripts]' && kv?.[1] === o.binary)
        return { version: m[2]!, entry: `${kv[2]}:${kv[3]}` };
    }
    throw new ToolPrepError(
      `${o.package} ${m[2]} has no \`${o.binary}\` console script of the form module:function in its entry_points.txt`,
    );
  }
  throw new ToolPrepError(`pip reported success but ${o.package} is not in the installed folder`);
}

async function pipInstall(python: string, dir: string, ctx: BuildContext, o: PythonCliOptions) {
  const argv = [
    python,
    '-m',
    'pip',
    'install',
    '--no-input',
    '--no-cache-dir',
    '--disable-pip-version-check',
    // wheels only: nothing of the package (a setup.py) runs on the worker host
    '--only-binary=:all:',
    '--target',
    path.join(dir, SITE),
    `${o.package}==${o.version}`,
  ];
  const r = await runCommand(argv, {
    timeoutMs: INSTALL_TIMEOUT_MS,
    env: { ...ctx.env, PIP_NO_INPUT: '1' },
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (r.code === 0) return;
  if (/No module named pip/.test(r.stderr))
    throw new ToolPrepError(
      `${python} has no pip, which bundles ${o.name} from the package index: install it on the worker (Debian/Ubuntu: apt-get install python3-pip)`,
    );
  throw new ToolPrepError(
    `pip could not install ${o.package}==${o.version} from the worker's package index (pip config list, PIP_INDEX_URL): ${outputTail(r)}`,
  );
}

/** The Python the bundled program runs first: the package's folder on sys.path, then its console script. */
const launcherScript = (sandboxDir: string, o: PythonCliOptions, entry: string) => {
  const [module, attr] = entry.split(':') as [string, string];
  return [
    `# ${o.name} ${o.version}: prepared by the osmosis platform, mounted read-only`,
    'import site, sys',
    `site.addsitedir(${JSON.stringify(`${sandboxDir}/${SITE}`)})`,
    `sys.argv[0] = ${JSON.stringify(o.binary)}`,
    `from ${module} import ${attr.split('.')[0]} as _entry`,
    `sys.exit(_entry${attr.includes('.') ? `.${attr.split('.').slice(1).join('.')}` : ''}())`,
    '',
  ].join('\n');
};

/**
 * Imported by the bundled Python at every start (it is the bundle's own copy of the standard
 * library): the package's folder on sys.path, and sys.executable the wrapper, so a program that
 * starts Python again (OpenHands' action server) runs through the bundle's loader too.
 */
const siteCustomize = (sandboxDir: string, o: PythonCliOptions) =>
  [
    `# ${o.name} ${o.version}: prepared by the osmosis platform, mounted read-only`,
    'import site, sys',
    `site.addsitedir(${JSON.stringify(`${sandboxDir}/${SITE}`)})`,
    `sys.executable = ${JSON.stringify(`${sandboxDir}/bin/${o.binary}`)}`,
    '',
  ].join('\n');

export function pythonCliTool(o: PythonCliOptions): ToolSpec {
  return {
    name: o.name,
    version: async () => o.version,
    async build(dir, ctx): Promise<BuildResult> {
      const { python, facts } = await choosePython(
        { tool: o.name, candidates: ['python3'], ...o.python },
        ctx,
      );
      await pipInstall(python, dir, ctx, o);
      const got = await installedDistribution(path.join(dir, SITE), o);
      if (normalizedName(got.version) !== normalizedName(o.version))
        throw new ToolPrepError(
          `${o.name}: pip installed ${o.package} ${got.version}, not the pinned ${o.version}`,
        );
      // scripts pip wrote for the host's Python; the wrapper below replaces them
      await rm(path.join(dir, SITE, 'bin'), { recursive: true, force: true });
      const bundled = await copyPython(dir, facts);
      const objects = await sharedObjectsUnder(dir, [bundled.stdlib, SITE]);
      const runtime = await copyRuntime(dir, [bundled.program], ctx.host, {
        objects,
        skipped: (object, why) => ctx.log(`${o.name} bundle: ${object} left without its libraries: ${why}`),
      });
      let runs: string;
      if (got.entry === null) {
        await writeFile(path.join(dir, bundled.stdlib, 'sitecustomize.py'), siteCustomize(ctx.sandboxDir, o));
        runs = '';
      } else {
        await mkdir(path.join(dir, 'libexec'), { recursive: true });
        await writeFile(
          path.join(dir, 'libexec', `${o.binary}.py`),
          launcherScript(ctx.sandboxDir, o, got.entry),
        );
        runs = ` ${shQuote(`${ctx.sandboxDir}/libexec/${o.binary}.py`)}`;
      }
      // no --argv0: Python finds its standard library from the program path it is given
      const python3 = launchArgv(ctx.sandboxDir, launchOf(runtime, bundled.program, ctx.host))
        .map(shQuote)
        .join(' ');
      const wrapper = wrapperScript(`${o.name} ${o.version}`, [
        `if [ -n "\${${CHECK_VARIABLE}:-}" ]; then exec ${python3} -I -c 'import encodings, ssl, sys'; fi`,
        `exec ${python3} -I${runs} "$@"`,
      ]);
      await mkdir(path.join(dir, 'bin'));
      await writeFile(path.join(dir, 'bin', o.binary), wrapper, { mode: 0o755 });
      return {
        commands: { [o.binary]: `bin/${o.binary}` },
        source: {
          package: `${o.package}==${got.version}`,
          python: `${facts.executable} ${facts.version}`,
          loader: runtime.hostLoader,
          installer: 'pip install --only-binary=:all: --target (the worker’s pip configuration)',
        },
      };
    },
  };
}
