// A folder (or extracted archive) of Harbor tasks as one benchmark: its tasks and, when the
// folder has a `benchmark.toml` (an Osmosis extension), the benchmark's own metadata.
import { constants as fsConstants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { BenchmarkMetadataOverrides, type TaskManifest } from '@osmosis/contracts';
import { parse, TomlError } from 'smol-toml';
import { underFolder } from './source-path-error.ts';
import { findTaskDirs, parseTaskDir } from './task-dir.ts';
import { MAX_TASK_TEXT_BYTES, nulPath } from './task-text.ts';

export class BenchmarkFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchmarkFileError';
  }
}

/** Reads a file of a source without following a link (a link named benchmark.toml could point at a host file). */
async function readNoFollow(file: string): Promise<string | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new BenchmarkFileError(`${path.basename(file)} is a link; write the file itself`);
    return null;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return null;
    if (st.size > MAX_TASK_TEXT_BYTES) {
      throw new BenchmarkFileError(
        `${path.basename(file)} is ${st.size} bytes; it may be at most ${MAX_TASK_TEXT_BYTES} bytes`,
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** `benchmark.toml` of `dir`, validated, or null when there is none. */
export async function readBenchmarkToml(dir: string): Promise<BenchmarkMetadataOverrides | null> {
  const text = await readNoFollow(path.join(dir, 'benchmark.toml'));
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      throw new BenchmarkFileError(
        `benchmark.toml:${error.line}: invalid TOML: ${error.message.split('\n')[0]}`,
      );
    }
    throw error;
  }
  const nul = nulPath(doc);
  if (nul)
    throw new BenchmarkFileError(
      `benchmark.toml: ${nul.join('.')} holds a NUL character (\\u0000); remove it`,
    );
  const parsed = BenchmarkMetadataOverrides.strict().safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BenchmarkFileError(
      `benchmark.toml: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

export interface LoadedTask {
  /** folder of the task relative to the benchmark root ('' when the root is the task) */
  dir: string;
  manifest: TaskManifest;
}

/** Every task under `root`, parsed; duplicate names get a parse error on the later ones. */
export async function loadBenchmarkDir(root: string): Promise<LoadedTask[]> {
  const dirs = await findTaskDirs(root);
  const out: LoadedTask[] = [];
  const seen = new Map<string, string>();
  for (const dir of dirs) {
    const manifest = await parseTaskDir(
      dir ? path.join(root, dir) : root,
      dir ? {} : { name: path.basename(root) },
    ).catch((error: unknown) => {
      throw underFolder(error, dir);
    });
    const first = seen.get(manifest.name);
    if (first !== undefined) {
      out.push({
        dir,
        manifest: {
          ...manifest,
          name: `${manifest.name}~${dir}`,
          parse_error: `duplicate task name "${manifest.name}" (also at ${first || '.'})`,
        },
      });
      continue;
    }
    seen.set(manifest.name, dir);
    out.push({ dir, manifest });
  }
  return out;
}
