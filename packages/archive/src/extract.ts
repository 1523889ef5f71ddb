// The one extractor for every archive the platform reads: uploaded benchmark archives, registry
// tarballs, task tars read back from storage by the worker, and downloads out of a sandbox.
//
// tar-stream only parses; every filesystem decision is made here, against the REAL path:
//   - names: no NUL, backslash, absolute path or `..` (names.ts);
//   - every parent folder is created one component at a time and lstat'ed: a link on the way
//     is refused, and the realpath of the parent must be exactly root + its name;
//   - an existing name is only ever replaced file-by-file (a later copy of the same file, as
//     `tar -r` writes); a folder or link is never replaced, so nothing checked earlier changes;
//   - symlinks: relative, of the form `../../a/b` (no `..` after a folder name, which could
//     climb out through another link), inside the root, not a loop, not through another link
//     (checked when made and again once everything is extracted, when later entries exist);
//   - hard links: only to a regular file this extraction wrote, and copied (no shared inode);
//   - devices, fifos and unknown types are refused (or skipped, for sandbox downloads);
//   - limits: entries, bytes per entry, bytes in all, the tar stream's length and the gzip
//     expansion ratio, checked before the bytes are written.
// Every stream involved has its errors handled: a bad archive rejects the returned promise
// with an ArchiveError, it never emits an `error` nobody listens to.
import { createWriteStream, constants as fsConstants, type Stats } from 'node:fs';
import { copyFile, lstat, mkdir, realpath, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { ArchiveError } from './errors.ts';
import {
  DEFAULT_EXTRACT_LIMITS,
  type ExtractedFile,
  type ExtractLimits,
  type ExtractOptions,
  type ExtractResult,
  RATIO_FLOOR_BYTES,
} from './extract-options.ts';
import { type ArchiveInput, byteCounter, isGzip, peek, toReadable } from './input.ts';
import { checkLinkTarget } from './links.ts';
import { lstatOrNull } from './lstat.ts';
import { entryParts } from './names.ts';

interface LinkRecord {
  /** the entry's name as written in the archive */
  entry: string;
  target: string;
  /** where it points, relative to the root */
  resolved: string;
}

const USER_FS_ERRORS = new Set(['ENAMETOOLONG', 'ENOTDIR', 'EISDIR', 'EEXIST', 'ELOOP']);

function describe(st: Stats): string {
  if (st.isDirectory()) return 'folder';
  if (st.isSymbolicLink()) return 'link';
  if (st.isFile()) return 'file';
  return 'special file';
}

class Extraction {
  readonly root: string;
  readonly limits: ExtractLimits;
  readonly options: ExtractOptions;
  entries = 0;
  bytes = 0;
  skipped = 0;
  /** folders (relative) known to be real folders inside the root */
  readonly dirs = new Set<string>();
  /** regular files written, by relative path */
  readonly files = new Map<string, ExtractedFile>();
  readonly links = new Map<string, LinkRecord>();

  constructor(root: string, limits: ExtractLimits, options: ExtractOptions) {
    this.root = root;
    this.limits = limits;
    this.options = options;
  }

  tooLarge(entry: string | null, what: string, limit: keyof ExtractLimits): ArchiveError {
    const setting = this.options.limitNames?.[limit];
    return new ArchiveError(
      'too_large',
      entry,
      `${what}${setting ? ` (the limit is set by ${setting})` : ''}; split the archive or leave the large files out`,
    );
  }

  async entry(header: tar.Header, stream: Readable): Promise<void> {
    const name = header.name;
    try {
      await this.#entry(header, stream);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const nameError =
        (error instanceof ArchiveError && error.nameProblem) ||
        (!(error instanceof ArchiveError) && code !== undefined && USER_FS_ERRORS.has(code));
      if (nameError && this.options.unsafeNames === 'skip') {
        stream.resume();
        this.skipped += 1;
        return;
      }
      if (!(error instanceof ArchiveError) && code && USER_FS_ERRORS.has(code)) {
        throw new ArchiveError('invalid', name, `cannot be extracted (${code})`);
      }
      throw error;
    }
  }

  async #entry(header: tar.Header, stream: Readable): Promise<void> {
    const name = header.name;
    const { maxEntries, maxEntryBytes, maxBytes } = this.limits;
    this.entries += 1;
    if (this.entries > maxEntries) {
      throw this.tooLarge(name, `the archive has more than ${maxEntries} entries`, 'maxEntries');
    }
    let parts: string[];
    try {
      parts = entryParts(name, name, this.options.names ?? 'portable');
    } catch (error) {
      if (error instanceof ArchiveError) error.nameProblem = true;
      throw error;
    }
    const rel = parts.slice(this.options.stripComponents ?? 0).join('/');
    const size = header.size ?? 0;
    if (size > maxEntryBytes) {
      throw this.tooLarge(
        name,
        `${size} bytes is more than ${maxEntryBytes} bytes per file`,
        'maxEntryBytes',
      );
    }
    this.bytes += size;
    if (this.bytes > maxBytes) {
      throw this.tooLarge(name, `the archive's content is more than ${maxBytes} bytes`, 'maxBytes');
    }
    if (!rel || (this.options.filter && !this.options.filter(rel))) {
      stream.resume();
      return;
    }
    const skipLinks = this.options.links === 'skip';
    switch (header.type) {
      case 'directory':
        stream.resume();
        await this.ensureDir(name, rel);
        return;
      case 'file':
      case 'contiguous-file':
        await this.writeFile(name, rel, stream, header.mode ?? 0o644);
        return;
      case 'symlink':
        stream.resume();
        if (!skipLinks) await this.makeSymlink(name, rel, header.linkname ?? '');
        return;
      case 'link':
        stream.resume();
        if (!skipLinks) await this.copyHardLink(name, rel, header.linkname ?? '');
        return;
      default: {
        stream.resume();
        if (this.options.special === 'skip') return;
        const kind = header.type ?? 'unknown';
        if (kind === 'character-device' || kind === 'block-device') {
          throw new ArchiveError('unsafe', name, 'device files are not allowed');
        }
        if (kind === 'fifo') throw new ArchiveError('unsafe', name, 'fifos are not allowed');
        throw new ArchiveError('invalid', name, `unsupported entry type (${kind})`);
      }
    }
  }

  /** Creates `rel` and its parents as real folders inside the root, refusing links on the way. */
  async ensureDir(entry: string, rel: string): Promise<string> {
    const abs = rel ? path.join(this.root, rel) : this.root;
    if (!rel) return abs;
    let current = '';
    for (const part of rel.split('/')) {
      current = current ? `${current}/${part}` : part;
      if (this.dirs.has(current)) continue;
      const at = path.join(this.root, current);
      let st = await lstatOrNull(at);
      if (!st) {
        await mkdir(at, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        st = await lstat(at);
      }
      if (st.isSymbolicLink())
        throw new ArchiveError('unsafe', entry, `the path goes through the link "${current}"`);
      if (!st.isDirectory())
        throw new ArchiveError('unsafe', entry, `"${current}" is a ${describe(st)}, not a folder`);
      this.dirs.add(current);
    }
    // the folder's real path must be exactly where its name says: nothing on the way was a link
    if ((await realpath(abs)) !== abs) {
      throw new ArchiveError('unsafe', entry, `the folder "${rel}" does not resolve inside the archive`);
    }
    return abs;
  }

  /** The host path for a new entry `rel`, after its parent is made; refuses replacing anything but a file. */
  async place(entry: string, rel: string, kind: 'file' | 'link'): Promise<string> {
    const slash = rel.lastIndexOf('/');
    await this.ensureDir(entry, slash < 0 ? '' : rel.slice(0, slash));
    const abs = path.join(this.root, rel);
    const existing = await lstatOrNull(abs);
    if (!existing) return abs;
    if (kind === 'file' && existing.isFile() && this.files.has(rel)) {
      // a later copy of the same file (`tar -r`): the last one wins, as with tar
      await unlink(abs);
      this.files.delete(rel);
      return abs;
    }
    throw new ArchiveError(
      'unsafe',
      entry,
      `a second entry with this name would replace the ${describe(existing)} extracted before it`,
    );
  }

  async writeFile(entry: string, rel: string, stream: Readable, headerMode: number): Promise<void> {
    const abs = await this.place(entry, rel, 'file');
    const mode = this.options.executable !== false && headerMode & 0o111 ? 0o755 : 0o644;
    await writeEntry(stream, abs, mode);
    const st = await lstat(abs);
    this.files.set(rel, { path: rel, size: st.size, hostPath: abs });
  }

  async makeSymlink(entry: string, rel: string, target: string): Promise<void> {
    const check = checkLinkTarget(rel, target);
    if (!check.ok) throw new ArchiveError(target ? 'unsafe' : 'invalid', entry, check.issue);
    await this.refuseThroughLinks(entry, target, check.resolved);
    const abs = await this.place(entry, rel, 'link');
    await symlink(check.canonical, abs);
    this.links.set(rel, { entry, target, resolved: check.resolved });
  }

  /** Refuses a link whose target goes through (or is) another link, or through a file. */
  async refuseThroughLinks(entry: string, target: string, resolved: string): Promise<void> {
    const parts = resolved.split('/');
    let current = '';
    for (const [i, part] of parts.entries()) {
      current = current ? `${current}/${part}` : part;
      const st = await lstatOrNull(path.join(this.root, current));
      if (this.links.has(current) || st?.isSymbolicLink()) {
        throw new ArchiveError('unsafe', entry, `symlink points through another link ("${current}")`);
      }
      if (!st) return; // nothing there (yet): checked again once the archive is extracted
      // looking under a file is ENOTDIR, an error of no entry (a 500 naming a host path)
      if (i < parts.length - 1 && !st.isDirectory()) {
        throw new ArchiveError(
          'invalid',
          entry,
          `symlink target "${target}" goes through "${current}", which is a ${describe(st)}, not a folder; point the link at a file or folder that exists`,
        );
      }
    }
  }

  async copyHardLink(entry: string, rel: string, linkname: string): Promise<void> {
    let targetParts: string[];
    try {
      targetParts = entryParts(linkname, entry);
    } catch (error) {
      if (error instanceof ArchiveError) {
        throw new ArchiveError('unsafe', entry, `hard link to an unsafe path (${linkname})`);
      }
      throw error;
    }
    const targetRel = targetParts.slice(this.options.stripComponents ?? 0).join('/');
    if (targetRel === rel) {
      // placing the copy would first remove the file it copies from
      throw new ArchiveError(
        'invalid',
        entry,
        `hard link to itself ("${linkname}"); remove the link entry or point it at another file`,
      );
    }
    const source = this.files.get(targetRel);
    if (!source) {
      throw new ArchiveError(
        'unsafe',
        entry,
        `hard link to "${linkname}", which is not a regular file extracted earlier from this archive`,
      );
    }
    if (source.size > this.limits.maxEntryBytes) {
      throw this.tooLarge(
        entry,
        `${source.size} bytes is more than ${this.limits.maxEntryBytes} bytes per file`,
        'maxEntryBytes',
      );
    }
    this.bytes += source.size;
    if (this.bytes > this.limits.maxBytes) {
      throw this.tooLarge(
        entry,
        `the archive's content is more than ${this.limits.maxBytes} bytes`,
        'maxBytes',
      );
    }
    const st = await lstat(source.hostPath);
    if (!st.isFile() || (await realpath(source.hostPath)) !== source.hostPath) {
      throw new ArchiveError(
        'unsafe',
        entry,
        `hard link to "${linkname}", which is no longer a regular file`,
      );
    }
    const abs = await this.place(entry, rel, 'file');
    // a copy, not a link: the extracted tree shares no inode with anything
    await copyFile(source.hostPath, abs, fsConstants.COPYFILE_EXCL);
    this.files.set(rel, { path: rel, size: source.size, hostPath: abs });
  }

  /** Once every entry exists: no link resolves through another link or outside the root. */
  async verifyLinks(): Promise<void> {
    for (const [rel, link] of this.links) {
      await this.refuseThroughLinks(link.entry, link.target, link.resolved);
      const real = await realpath(path.join(this.root, rel)).catch(() => null);
      if (real !== null && real !== path.join(this.root, link.resolved)) {
        throw new ArchiveError(
          'unsafe',
          link.entry,
          `symlink resolves outside where it says (${link.target})`,
        );
      }
    }
  }

  result(): ExtractResult {
    return {
      files: [...this.files.values()],
      entries: this.entries,
      bytes: this.bytes,
      skipped: this.skipped,
    };
  }
}

/**
 * Copies an entry's bytes into a new file. By hand rather than with stream.pipeline: an entry
 * stream (streamx) that tar-stream destroyed before we got to it would never settle a pipeline.
 */
function writeEntry(stream: Readable, file: string, mode: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const cut = () => new Error('the archive ends inside this entry');
    if (stream.destroyed) {
      reject(cut());
      return;
    }
    // 'wx': O_CREAT|O_EXCL, which never follows a link that appeared at this name
    const out = createWriteStream(file, { flags: 'wx', mode });
    let ended = false;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      out.destroy();
      stream.destroy();
      reject(error);
    };
    out.on('error', fail);
    out.on('close', () => {
      if (!failed) resolve();
    });
    stream.on('error', fail);
    stream.on('end', () => {
      ended = true;
    });
    stream.on('close', () => {
      if (!ended) fail(cut());
    });
    stream.pipe(out);
  });
}

/** A non-ArchiveError from the pipeline, as the caller should see it. */
function classify(error: unknown, sourceError: unknown): unknown {
  const e = error as NodeJS.ErrnoException;
  // tar-stream reads a pax or GNU long-name header's data whole into memory, up to 4 MiB, and
  // refuses a larger one at its header block with this error (which the pipeline also hands the
  // source, so it is not the source's own failure)
  if (e?.message === 'Header exceeds max size') {
    return new ArchiveError(
      'too_large',
      null,
      'a pax or long-name header is over 4 MiB (such headers carry names and attributes, not content); repack the archive with a standard tar',
    );
  }
  if (error instanceof ArchiveError || error === sourceError) return error;
  if (typeof e?.code === 'string' && e.code.startsWith('Z_')) {
    return new ArchiveError('invalid', null, `not a valid gzip stream (${e.message}); was it cut short?`);
  }
  // the platform's own disk failing (ENOSPC, EACCES) is not the archive's fault
  if (typeof e?.syscall === 'string') return error;
  return new ArchiveError('invalid', null, `not a valid tar archive (${e?.message ?? String(error)})`);
}

/**
 * Extracts a tar or tar.gz (sniffed) into `dest` (created if missing). Rejects with an
 * ArchiveError naming the entry for anything unsafe or over a limit; `dest` may then hold a
 * partial extraction, so extract into a fresh temporary folder and remove it on failure.
 */
export async function extractArchive(
  input: ArchiveInput,
  dest: string,
  options: ExtractOptions = {},
): Promise<ExtractResult> {
  const limits: ExtractLimits = {
    maxBytes: options.maxBytes ?? DEFAULT_EXTRACT_LIMITS.maxBytes,
    maxEntryBytes: options.maxEntryBytes ?? DEFAULT_EXTRACT_LIMITS.maxEntryBytes,
    maxEntries: options.maxEntries ?? DEFAULT_EXTRACT_LIMITS.maxEntries,
    maxRatio: options.maxRatio ?? DEFAULT_EXTRACT_LIMITS.maxRatio,
  };
  const source = toReadable(input);
  let sourceError: unknown = null;
  source.on('error', (error) => {
    sourceError = error;
  });
  try {
    await mkdir(dest, { recursive: true });
  } catch (error) {
    source.destroy();
    throw error;
  }
  const state = new Extraction(await realpath(dest), limits, options);
  const head = await peek(source, 2);
  if (!head || head.length === 0) throw new ArchiveError('invalid', null, 'the archive is empty');
  const gzip = isGzip(head);

  // header blocks and padding: at most 1.5 KiB per entry, plus room for long names
  const maxTarBytes = limits.maxBytes + limits.maxEntries * 1536 + 16 * 1024 * 1024;
  let compressed = 0;
  let tarBytes = 0;
  const countCompressed = byteCounter((n) => {
    compressed += n;
  });
  const countTar = byteCounter((n) => {
    tarBytes += n;
    if (tarBytes > maxTarBytes) {
      throw state.tooLarge(null, `the tar stream is longer than ${maxTarBytes} bytes`, 'maxBytes');
    }
    if (gzip && tarBytes > RATIO_FLOOR_BYTES && tarBytes > compressed * limits.maxRatio) {
      throw state.tooLarge(
        null,
        `it expands more than ${limits.maxRatio} times (${tarBytes} bytes from ${compressed}): a compression bomb?`,
        'maxRatio',
      );
    }
  });

  const extract = tar.extract();
  let inflight: Promise<unknown> = Promise.resolve();
  let entryError: unknown = null;
  extract.on('entry', (header, stream, next) => {
    // tar-stream destroys an unfinished entry stream with the archive's error: the pipeline
    // below reports that error, so this listener only keeps it from being "unhandled"
    stream.on('error', () => undefined);
    const job = state.entry(header, stream as unknown as Readable);
    inflight = job.catch(() => undefined);
    job.then(
      () => next(),
      (error: unknown) => {
        if (error instanceof ArchiveError) entryError ??= error;
        stream.resume();
        next(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

  try {
    if (gzip) await pipeline(source, countCompressed, createGunzip(), countTar, extract);
    else await pipeline(source, countTar, extract);
    if (options.links !== 'skip') await state.verifyLinks();
  } catch (error) {
    await inflight;
    // an entry refused while tar-stream was already failing the end of the stream: the
    // refusal says more ("10 GiB is over the limit" rather than "unexpected end of data")
    throw classify(sourceError ?? entryError ?? error, sourceError);
  }
  return state.result();
}
