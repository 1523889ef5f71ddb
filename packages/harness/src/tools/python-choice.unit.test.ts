import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choosePython, type PythonRequirement, versionFits } from './python-choice.ts';

const OPENHANDS: PythonRequirement = {
  tool: 'openhands',
  candidates: ['python3.13', 'python3.12', 'python3'],
  range: { min: '3.12', below: '3.14' },
  variable: 'OSMOSIS_OPENHANDS_PYTHON',
};

/** A program that describes itself as Python `version`, as python-runtime.ts asks it to. */
function fakePython(dir: string, name: string, version: string | null) {
  const file = path.join(dir, name);
  const short = version?.split('.').slice(0, 2).join('.');
  const facts = JSON.stringify({ executable: file, stdlib: dir, dynload: dir, short, version });
  writeFileSync(
    file,
    version === null
      ? // what a pyenv shim for a version pyenv has not selected does
        `#!/bin/sh\necho "pyenv: ${name}: command not found" >&2\nexit 127\n`
      : `#!/bin/sh\necho '${facts}'\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

describe('choosing the Python a bundle is made with', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'osmosis-python-choice-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const folder = (name: string) => {
    const dir = path.join(root, name);
    mkdirSync(dir);
    return dir;
  };

  it('a version is in the range from its minimum up to, not including, its bound', () => {
    const range = OPENHANDS.range;
    expect(['3.12', '3.13'].map((v) => versionFits(v, range))).toEqual([true, true]);
    expect(['3.11', '3.14', '2.7', '4.0', '3.9'].map((v) => versionFits(v, range))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(versionFits('3.6', undefined)).toBe(true);
  });

  it('takes the first candidate on PATH that runs and fits, past a shim that does not run and one too old', async () => {
    const a = folder('a');
    const b = folder('b');
    fakePython(a, 'python3.13', null);
    fakePython(a, 'python3', '3.11.2');
    const want = fakePython(b, 'python3.12', '3.12.1');
    const got = await choosePython(OPENHANDS, { env: { PATH: `${a}:${b}` } });
    expect(got.python).toBe(want);
    expect(got.facts.version).toBe('3.12.1');
  });

  it('none fits: the error names each one found and how to fix it', async () => {
    const dir = folder('none-fits');
    fakePython(dir, 'python3.13', null);
    fakePython(dir, 'python3', '3.11.2');
    const error = await choosePython(OPENHANDS, { env: { PATH: dir } }).catch((e: Error) => e);
    expect((error as Error).name).toBe('ToolPrepError');
    expect((error as Error).message).toBe(
      `openhands is bundled with the worker host's Python and needs Python >=3.12,<3.14; on the worker's PATH ${dir}/python3.13 did not describe itself (exit 127): pyenv: python3.13: command not found; ${dir}/python3 is 3.11.2: install Python 3.12 or later, below 3.14 with pip on the worker, or set OSMOSIS_OPENHANDS_PYTHON to the path of one`,
    );
  });

  it('the operator variable wins over PATH, and a Python there that does not fit is refused, not passed over', async () => {
    const onPath = folder('on-path');
    const chosen = folder('chosen');
    fakePython(onPath, 'python3.13', '3.13.0');
    const old = fakePython(chosen, 'python3', '3.11.7');
    const fits = fakePython(chosen, 'python3.12', '3.12.9');
    expect(
      (await choosePython(OPENHANDS, { env: { PATH: onPath, OSMOSIS_OPENHANDS_PYTHON: fits } })).python,
    ).toBe(fits);
    await expect(
      choosePython(OPENHANDS, { env: { PATH: onPath, OSMOSIS_OPENHANDS_PYTHON: old } }),
    ).rejects.toThrow(
      `OSMOSIS_OPENHANDS_PYTHON=${old} is Python 3.11.7, and openhands needs Python >=3.12,<3.14: install Python 3.12 or later, below 3.14 with pip on the worker, or set OSMOSIS_OPENHANDS_PYTHON to the path of one`,
    );
    // a name, looked up on PATH
    await expect(
      choosePython(OPENHANDS, { env: { PATH: onPath, OSMOSIS_OPENHANDS_PYTHON: 'python3.99' } }),
    ).rejects.toThrow("OSMOSIS_OPENHANDS_PYTHON=python3.99: there is no python3.99 on the worker's PATH");
    expect(
      (await choosePython(OPENHANDS, { env: { PATH: onPath, OSMOSIS_OPENHANDS_PYTHON: 'python3.13' } })).facts
        .short,
    ).toBe('3.13');
  });

  it('without a range (mini-swe-agent): the plain python3 it has always asked for', async () => {
    const dir = folder('plain');
    const req = { tool: 'mini-swe-agent', candidates: ['python3'] };
    await expect(choosePython(req, { env: { PATH: dir } })).rejects.toThrow(
      "mini-swe-agent is bundled with the worker host's Python, and the worker has no python3 on its PATH: install it there (Debian/Ubuntu: apt-get install python3 python3-pip)",
    );
    const py = fakePython(dir, 'python3', '3.9.18');
    expect((await choosePython(req, { env: { PATH: dir } })).python).toBe(py);
  });
});
