// The worker host's Python, copied into a bundle so it runs in images with no Python (or another
// one): its program, its standard library (without site-packages, tests, the IDE, Tk and the static
// build files) and every shared library the program and the standard library's extension modules
// load, with the host's loader. Python finds its standard library beside its program (the landmark
// lib/pythonX.Y/os.py), so the bundle runs with `-I` and no PYTHONHOME that would leak into the
// commands an agent runs.
import { cp, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { runCommand, ToolPrepError } from './host.ts';
import type { BuildContext } from './spec.ts';

/** What the standard library keeps that an agent never uses (tests, IDLE, Tk, static build files). */
const LEFT_OUT = /^(site-packages|dist-packages|test|idlelib|tkinter|turtledemo|ensurepip|config-.*)$/;
/** Their extension modules: Tk's (it would bring X11's libraries) and the test suite's. */
const LEFT_OUT_MODULES = /^(_tkinter|_test|_xxtest|xxlimited|xxsubtype)/;

const PythonFacts = z.object({
  /** The real program (not a venv's or pyenv's shim). */
  executable: z.string().min(1),
  stdlib: z.string().min(1),
  /** Extension modules' folder (lib-dynload), inside stdlib or not (Debian: inside). */
  dynload: z.string().min(1),
  /** `3.11` */
  short: z.string().regex(/^\d+\.\d+$/),
  /** `3.11.7` */
  version: z.string().min(1),
});
export type PythonFacts = z.infer<typeof PythonFacts>;

const FACTS_SCRIPT = [
  'import json, os, sys, sysconfig',
  'exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)',
  'print(json.dumps({"executable": exe, "stdlib": sysconfig.get_paths()["stdlib"],',
  ' "dynload": sysconfig.get_config_var("DESTSHARED") or os.path.join(sysconfig.get_paths()["stdlib"], "lib-dynload"),',
  ' "short": "%d.%d" % sys.version_info[:2], "version": sys.version.split()[0]}))',
].join('\n');

/** The facts of `python` (a path or a pyenv shim on PATH) as it reports them. */
export async function pythonFacts(python: string, ctx: Pick<BuildContext, 'env' | 'signal'>) {
  const r = await runCommand([python, '-c', FACTS_SCRIPT], {
    timeoutMs: 30_000,
    env: ctx.env,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const parsed = r.code === 0 ? PythonFacts.safeParse(safeJson(r.stdout)) : null;
  if (!parsed?.success)
    throw new ToolPrepError(
      `${python} did not describe itself (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(0, 500)}`,
    );
  return parsed.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function sharedObjects(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && /\.so(\.\d+)*$/.test(entry.name))
      found.push(path.join(entry.parentPath, entry.name));
  }
  return found;
}

export interface BundledPython {
  /** The program, relative to the bundle (`python/bin/python3.11`). */
  program: string;
  /** Its site folder for installed packages, relative to the bundle. */
  stdlib: string;
  facts: PythonFacts;
}

/** Copies the host's Python program and standard library into `dir/python`. */
export async function copyPython(dir: string, facts: PythonFacts): Promise<BundledPython> {
  const program = `python/bin/python${facts.short}`;
  const stdlib = `python/lib/python${facts.short}`;
  await mkdir(path.join(dir, 'python/bin'), { recursive: true });
  await cp(facts.executable, path.join(dir, program));
  // timestamps kept: the compiled __pycache__ files stay valid on the read-only mount
  const keep = (from: string) => {
    const rel = path.relative(facts.stdlib, from);
    const top = rel.split(path.sep)[0] ?? '';
    return !LEFT_OUT.test(top) && !LEFT_OUT_MODULES.test(path.basename(from));
  };
  await cp(facts.stdlib, path.join(dir, stdlib), {
    recursive: true,
    dereference: true,
    preserveTimestamps: true,
    filter: keep,
  });
  const dynload = path.join(dir, stdlib, 'lib-dynload');
  if (!(await stat(dynload).catch(() => null)))
    await cp(facts.dynload, dynload, {
      recursive: true,
      dereference: true,
      preserveTimestamps: true,
      filter: (from) => !LEFT_OUT_MODULES.test(path.basename(from)),
    });
  return { program, stdlib, facts };
}

/** Every shared object (extension modules, wheels' own libraries) under `folders` of `dir`. */
export async function sharedObjectsUnder(dir: string, folders: string[]): Promise<string[]> {
  const all: string[] = [];
  for (const folder of folders) {
    const root = path.join(dir, folder);
    if (await stat(root).catch(() => null))
      for (const file of await sharedObjects(root)) all.push(path.relative(dir, file));
  }
  return all.sort();
}
