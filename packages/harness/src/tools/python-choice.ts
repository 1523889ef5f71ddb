// Which of the worker host's Pythons a Python bundle is made with: the one an operator's variable
// names, else the first of the candidates on the worker's PATH that runs and whose version fits
// the package's range (OpenHands: >=3.12,<3.14). A pyenv shim for a version pyenv has not
// selected fails to run: it is reported, not chosen.
import { onPath, ToolPrepError } from './host.ts';
import { type PythonFacts, pythonFacts } from './python-runtime.ts';
import type { BuildContext } from './spec.ts';

export interface PythonRequirement {
  /** The tool it is for, named in errors (`openhands`). */
  tool: string;
  /** Names on PATH, tried in order (`python3.13`, `python3.12`, `python3`). */
  candidates: readonly string[];
  /** The supported versions, `>=min,<below` as `3.12` and `3.14`; any when absent. */
  range?: { min: string; below: string };
  /** The operator's variable naming the Python (a path, or a name on PATH), tried alone when set. */
  variable?: string;
}

export interface ChosenPython {
  /** The program as found (a path, possibly a shim). */
  python: string;
  facts: PythonFacts;
}

const parts = (v: string) => v.split('.').map((n) => Number.parseInt(n, 10) || 0) as [number, number];
const before = (a: [number, number], b: [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

/** `short` (`3.13`) is in `range`. */
export function versionFits(short: string, range: PythonRequirement['range']): boolean {
  if (!range) return true;
  const v = parts(short);
  return !before(v, parts(range.min)) && before(v, parts(range.below));
}

const rangeText = (r: PythonRequirement) =>
  r.range ? `Python >=${r.range.min},<${r.range.below}` : 'Python 3';

/** What to do about it, for the error: the versions to install, or the variable to set. */
function howToFix(r: PythonRequirement): string {
  const versions = r.range ? `Python ${r.range.min} or later, below ${r.range.below}` : 'python3';
  const debian = r.range ? '' : ' (Debian/Ubuntu: apt-get install python3 python3-pip)';
  const variable = r.variable ? `, or set ${r.variable} to the path of one` : '';
  return `install ${versions} with pip on the worker${debian}${variable}`;
}

/** The Python to bundle, or a ToolPrepError naming every candidate found and why it was not taken. */
export async function choosePython(
  r: PythonRequirement,
  ctx: Pick<BuildContext, 'env' | 'signal'>,
): Promise<ChosenPython> {
  const named = r.variable ? ctx.env[r.variable]?.trim() : undefined;
  if (named) {
    const python = named.includes('/') ? named : await onPath(named, ctx.env);
    if (!python) throw new ToolPrepError(`${r.variable}=${named}: there is no ${named} on the worker's PATH`);
    const facts = await pythonFacts(python, ctx).catch((error: unknown) => {
      throw new ToolPrepError(`${r.variable}=${named}: ${(error as Error).message}`);
    });
    if (!versionFits(facts.short, r.range))
      throw new ToolPrepError(
        `${r.variable}=${named} is Python ${facts.version}, and ${r.tool} needs ${rangeText(r)}: ${howToFix(r)}`,
      );
    return { python, facts };
  }
  const seen: string[] = [];
  for (const name of r.candidates) {
    const python = await onPath(name, ctx.env);
    if (!python) continue;
    let facts: PythonFacts;
    try {
      facts = await pythonFacts(python, ctx);
    } catch (error) {
      if (!(error instanceof ToolPrepError)) throw error;
      seen.push(error.message.split('\n')[0]!.slice(0, 300));
      continue;
    }
    if (versionFits(facts.short, r.range)) return { python, facts };
    seen.push(`${python} is ${facts.version}`);
  }
  const names = r.candidates.join(', ');
  if (!seen.length && !r.range)
    throw new ToolPrepError(
      `${r.tool} is bundled with the worker host's Python, and the worker has no ${names} on its PATH: install it there (Debian/Ubuntu: apt-get install python3 python3-pip)`,
    );
  throw new ToolPrepError(
    `${r.tool} is bundled with the worker host's Python and needs ${rangeText(r)}; on the worker's PATH ${seen.length ? seen.join('; ') : `there is no ${names}`}: ${howToFix(r)}`,
  );
}
