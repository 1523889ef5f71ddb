// A deterministic tar(.gz) of named entries given by the caller (generated files and streams read
// from storage), with the same header conventions as packDirectory: zero mtimes and owners, files
// 0644, folders 0755 (each parent folder written once, before its first entry). The caller gives
// each entry's exact size: a stream that ends short or runs long fails the archive.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { safeEntryPath } from './names.ts';

export interface EntrySource {
  /** relative `/`-separated path; refused unless the extractor would take it as it is */
  name: string;
  size: number;
  /** the bytes, or a function opening them */
  content: Buffer | (() => Promise<Readable>);
}

const EPOCH = new Date(0);

async function copyInto(source: Readable, sink: NodeJS.WritableStream & { readonly destroyed?: boolean }) {
  try {
    for await (const chunk of source) {
      if (sink.write(chunk as Buffer)) continue;
      await new Promise((resolve) => {
        sink.once('drain', resolve);
        sink.once('close', resolve);
      });
      if (sink.destroyed) throw new Error('packing stopped: the tar stream was closed');
    }
    sink.end();
  } finally {
    source.destroy();
  }
}

/** The entries as a tar stream (gzipped with `gzip`), in the order given. */
export function packEntries(entries: Iterable<EntrySource>, options: { gzip?: boolean } = {}): Readable {
  const pack = tar.pack();
  const common = { mtime: EPOCH, uid: 0, gid: 0 };
  const folders = new Set<string>();
  const write = async () => {
    for (const e of entries) {
      // throws an ArchiveError for a name the extractor would refuse
      if (e.name === '' || safeEntryPath(e.name) !== e.name)
        throw new Error(`entry name ${JSON.stringify(e.name)} is not plain`);
      const parts = e.name.split('/');
      for (let i = 1; i < parts.length; i++) {
        const folder = parts.slice(0, i).join('/');
        if (folders.has(folder)) continue;
        folders.add(folder);
        pack.entry({ ...common, name: folder, type: 'directory', mode: 0o755 });
      }
      await new Promise<void>((resolve, reject) => {
        const sink = pack.entry(
          { ...common, name: e.name, type: 'file', mode: 0o644, size: e.size },
          (error) => (error ? reject(error) : resolve()),
        );
        const open = Buffer.isBuffer(e.content) ? Promise.resolve(Readable.from([e.content])) : e.content();
        // an entry stream's error (a size mismatch) with no listener would end the process
        sink.on('error', reject);
        open.then((source) => copyInto(source, sink)).catch(reject);
      });
    }
    pack.finalize();
  };
  write().catch((error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
  if (!options.gzip) return pack as unknown as Readable;
  const gzip = createGzip();
  pipeline(pack as unknown as Readable, gzip).catch((error: unknown) =>
    gzip.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return gzip;
}
