// Where downloaded files go: ROOT/.osmosis/benchmarks/<run-name>/<manifest path>. A manifest
// path that is not a plain relative path inside that folder is refused, whatever the server says.
// Artifact names are data an agent or a verifier chose: each segment is written under a name
// every file system accepts (localName), so a name with markup or a `?` downloads as well.
import { createHash } from 'node:crypto';
import path from 'node:path';

export const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The default run folder, WORKSPACE/.osmosis/benchmarks/<run-name>, absolute (upstream's
 * `resolve_benchmark_output_dir`). A name that is not a plain slug is written as upstream's
 * safe name (other characters `_`) followed by `--<run id>`, so two runs never share a folder.
 */
export function runFolder(workspaceDir: string, runName: string, runId = 'run'): string {
  if (RUN_NAME.test(runName) && runName !== '.' && runName !== '..' && !DEVICE_NAMES.test(runName)) {
    return path.resolve(workspaceDir, '.osmosis', 'benchmarks', runName);
  }
  const safe = runName.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/^_+|_+$/g, '');
  const id = runId.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/^_+|_+$/g, '') || 'run';
  const suffix = `--${id}`;
  return path.resolve(
    workspaceDir,
    '.osmosis',
    'benchmarks',
    `${safe.slice(0, 255 - suffix.length)}${suffix}`,
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are replaced
const UNSAFE_IN_NAMES = /[<>:"|?*\u0000-\u001f\u007f]/g;
const DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
export const MAX_LOCAL_NAME_BYTES = 255;

/**
 * A path segment as a file name any common file system accepts: characters Windows refuses
 * (`<>:"|?*`, control characters) and trailing dots and spaces as `_`, device names (`CON`,
 * `nul.txt`…) prefixed with `_`, the CLI's own `.partial` suffix followed by `_`, names longer
 * than 255 bytes cut and suffixed with a hash of the whole.
 */
export function localName(segment: string): string {
  let name = segment.replace(UNSAFE_IN_NAMES, '_').replace(/[. ]+$/, (m) => '_'.repeat(m.length));
  if (DEVICE_NAMES.test(name)) name = `_${name}`;
  if (name.endsWith('.partial')) name = `${name}_`;
  if (Buffer.byteLength(name) > MAX_LOCAL_NAME_BYTES) {
    const hash = createHash('sha256').update(segment).digest('hex').slice(0, 12);
    let cut = name;
    while (Buffer.byteLength(cut) > MAX_LOCAL_NAME_BYTES - 13) cut = cut.slice(0, -1);
    name = `${cut.replace(/[\uD800-\uDBFF]$/, '')}~${hash}`;
  }
  return name;
}

/** `dir/name (2).ext` when `target` is taken already (two names that map to one local name). */
export function uniqueTarget(target: string, taken: ReadonlySet<string>): string {
  if (!taken.has(target)) return target;
  const { dir, name, ext } = path.parse(target);
  for (let n = 2; ; n++) {
    const candidate = path.join(dir, `${name} (${n})${ext}`);
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The absolute destination of a manifest path inside `runDir`, or null when the path is unsafe:
 * empty, absolute (`/x`, `C:\x`, `\\host`), with a backslash, a NUL or control character, an
 * empty, `.` or `..` segment, or anything that resolves outside `runDir`. Each segment is
 * written as its localName.
 */
export function safeTarget(runDir: string, manifestPath: string): string | null {
  if (typeof manifestPath !== 'string' || manifestPath.length === 0 || manifestPath.length > 4096)
    return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused
  if (/[\\\u0000-\u001f\u007f]/.test(manifestPath)) return null;
  if (manifestPath.startsWith('/') || /^[A-Za-z]:/.test(manifestPath)) return null;
  const segments = manifestPath.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  const base = path.resolve(runDir);
  const target = path.resolve(base, ...segments.map(localName));
  const rel = path.relative(base, target);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return target;
}
