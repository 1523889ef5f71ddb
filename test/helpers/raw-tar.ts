// Tar archives written by hand, byte by byte, so tests can put in exactly what an attacker
// would: `../x` names, links to anywhere, devices, duplicate names, size headers that lie.
// Not a general tar writer: names over 100 bytes go in a pax header.
import { gzipSync } from 'node:zlib';

export type RawType = 'file' | 'dir' | 'symlink' | 'link' | 'char' | 'block' | 'fifo';

export interface RawEntry {
  name: string;
  type?: RawType;
  content?: string | Buffer;
  linkname?: string;
  mode?: number;
  /** the size written in the header, when it should differ from the content's */
  size?: number;
  /** how the header's size field is written: 11 octal digits (default), 12 octal digits, base-256 */
  sizeEncoding?: 'octal' | 'octal12' | 'base256';
  /** a pax extended header before the entry (`{size: '10737418240'}`) */
  pax?: Record<string, string>;
}

const TYPE_FLAG: Record<RawType, string> = {
  file: '0',
  link: '1',
  symlink: '2',
  char: '3',
  block: '4',
  dir: '5',
  fifo: '6',
};

function writeSize(header: Buffer, size: number, encoding: RawEntry['sizeEncoding']): void {
  if (encoding === 'base256') {
    header[124] = 0x80;
    let n = size;
    for (let i = 11; i > 0; i--) {
      header[124 + i] = n % 256;
      n = Math.floor(n / 256);
    }
  } else if (encoding === 'octal12') {
    header.write(size.toString(8).padStart(12, '0'), 124, 12, 'ascii');
  } else {
    header.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  }
}

/** One 512-byte header block with a valid checksum (`flag`: the type, e.g. 'x' for pax, 'L' for a GNU long name). */
export function headerBlock(name: string, flag: string, size: number, entry: Partial<RawEntry> = {}): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write(`${(entry.mode ?? 0o644).toString(8).padStart(7, '0')}\0`, 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  writeSize(header, size, entry.sizeEncoding);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write(flag, 156);
  if (entry.linkname) header.write(entry.linkname, 157, 100, 'utf8');
  header.write('ustar\u000000', 257);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return header;
}

function padded(content: Buffer): Buffer {
  return Buffer.concat([content, Buffer.alloc((512 - (content.length % 512)) % 512)]);
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
  return `${length}${body}`;
}

/** The blocks of one entry (pax header included), without the end-of-archive blocks. */
export function rawEntry(entry: RawEntry): Buffer {
  const type = entry.type ?? 'file';
  const content =
    typeof entry.content === 'string' ? Buffer.from(entry.content) : (entry.content ?? Buffer.alloc(0));
  const pax = { ...entry.pax };
  let name = entry.name;
  if (Buffer.byteLength(name) > 100) {
    pax.path = name;
    name = name.slice(0, 90);
  }
  const blocks: Buffer[] = [];
  if (Object.keys(pax).length > 0) {
    const body = Buffer.from(
      Object.entries(pax)
        .map(([k, v]) => paxRecord(k, v))
        .join(''),
    );
    blocks.push(headerBlock('PaxHeader', 'x', body.length, {}), padded(body));
  }
  blocks.push(headerBlock(name, TYPE_FLAG[type], entry.size ?? content.length, entry), padded(content));
  return Buffer.concat(blocks);
}

/** A whole tar: the entries and the two zero blocks that end it. */
export function rawTar(entries: RawEntry[]): Buffer {
  return Buffer.concat([...entries.map(rawEntry), Buffer.alloc(1024)]);
}

export function rawTarGz(entries: RawEntry[]): Buffer {
  return gzipSync(rawTar(entries));
}

/**
 * A gzip bomb: a tar.gz whose one entry `name` declares (and holds) `size` zero bytes, about
 * size/1000 bytes compressed. Built from repeated gzip members of 1 MiB of zeros (a valid
 * multi-member gzip), so making it costs almost nothing.
 */
export function gzipBomb(name: string, size: number): Buffer {
  const mib = 1024 * 1024;
  if (size % mib !== 0) throw new Error('gzipBomb: size must be whole MiB');
  const zeros = gzipSync(Buffer.alloc(mib), { level: 9 });
  const parts = [gzipSync(rawEntry({ name, size }).subarray(0, 512))];
  for (let i = 0; i < size / mib; i++) parts.push(zeros);
  parts.push(gzipSync(Buffer.alloc(1024)));
  return Buffer.concat(parts);
}
