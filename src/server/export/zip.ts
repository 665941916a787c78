/**
 * A streaming ZIP writer: entries are deflated as their data arrives and written with data
 * descriptors (general purpose bit 3), so nothing is held whole in memory and the size and
 * CRC-32 of an entry follow its data. No ZIP64: an archive past 4 GiB, or with more than
 * 65,535 entries, is refused with a clear error. A small reader is here too, for tests.
 */
import { createDeflateRaw, inflateRawSync } from 'node:zlib';
import { once } from 'node:events';

/** A ZIP that cannot be written or read; the message says why. */
export class ZipError extends Error {
  override readonly name = 'ZipError';
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/**
 * CRC-32 (the ZIP and PNG polynomial) of `buf`, continuing from `crc` for data in pieces.
 * @example crc32(Buffer.from('123456789')) // 0xcbf43926
 */
export function crc32(buf: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** One entry to write: a path inside the archive (`/` separated) and its data in chunks. */
export interface ZipInput {
  readonly name: string;
  readonly data: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;
}

const MAX32 = 0xffffffff;
const toBuf = (c: string | Uint8Array): Buffer => (typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength));

function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

interface Written { name: Buffer; crc: number; csize: number; usize: number; offset: number }

/**
 * Writes a ZIP of `entries`, yielding the archive in chunks. Entries are deflated; names are
 * UTF-8 (bit 11). `modified` stamps every entry (default: now).
 * @throws ZipError past 4 GiB or 65,535 entries (ZIP64 is not written), or for a bad name.
 * @example for await (const chunk of zipStream([{ name: 'a.txt', data: ['hello'] }])) out.write(chunk);
 */
export async function* zipStream(entries: AsyncIterable<ZipInput> | Iterable<ZipInput>, opts: { modified?: Date } = {}): AsyncGenerator<Buffer> {
  const { time, date } = dosDateTime(opts.modified ?? new Date());
  const written: Written[] = [];
  const names = new Set<string>();
  let offset = 0;
  const tooBig = () => new ZipError('the archive would pass 4 GiB, the most a ZIP without ZIP64 holds; export the files one by one instead (jsonl, csv, recordings to a folder).');
  for await (const entry of entries) {
    if (!entry.name || entry.name.startsWith('/') || entry.name.split('/').includes('..')) throw new ZipError(`entry name "${entry.name}" is not a relative path inside the archive.`);
    if (names.has(entry.name)) throw new ZipError(`entry "${entry.name}" is written twice; names in an archive must be unique.`);
    names.add(entry.name);
    if (written.length >= 0xffff) throw new ZipError('more than 65,535 files, the most a ZIP without ZIP64 holds; export fewer sessions at once (e.g. one study version).');
    const name = Buffer.from(entry.name, 'utf8');
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(0x0808, 6);
    header.writeUInt16LE(8, 8);
    header.writeUInt16LE(time, 10);
    header.writeUInt16LE(date, 12);
    // CRC and sizes are 0 here and follow the data in its descriptor.
    header.writeUInt16LE(name.length, 26);
    const start = offset;
    yield Buffer.concat([header, name]);
    offset += 30 + name.length;

    let crc = 0;
    let usize = 0;
    let csize = 0;
    const deflater = createDeflateRaw({ level: 6 });
    let failed: unknown = null;
    const feed = (async () => {
      try {
        for await (const chunk of entry.data) {
          const b = toBuf(chunk);
          if (b.length === 0) continue;
          crc = crc32(b, crc);
          usize += b.length;
          if (!deflater.write(b)) await once(deflater, 'drain');
        }
        deflater.end();
      } catch (e) {
        failed = e;
        deflater.destroy(e as Error);
      }
    })();
    let done = false;
    try {
      for await (const out of deflater as AsyncIterable<Buffer>) {
        csize += out.length;
        if (offset + out.length > MAX32) throw tooBig();
        offset += out.length;
        yield out;
      }
      done = true;
    } catch (e) {
      throw failed ?? e;
    } finally {
      // A consumer that stops early (a closed download) must not leave the deflater running.
      if (!done) deflater.destroy();
    }
    await feed;
    if (failed) throw failed;
    if (usize > MAX32) throw tooBig();
    const desc = Buffer.alloc(16);
    desc.writeUInt32LE(0x08074b50, 0);
    desc.writeUInt32LE(crc, 4);
    desc.writeUInt32LE(csize, 8);
    desc.writeUInt32LE(usize, 12);
    if (offset + 16 > MAX32) throw tooBig();
    yield desc;
    offset += 16;
    written.push({ name, crc, csize, usize, offset: start });
  }
  const cdStart = offset;
  const parts: Buffer[] = [];
  for (const w of written) {
    const h = Buffer.alloc(46);
    h.writeUInt32LE(0x02014b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(20, 6);
    h.writeUInt16LE(0x0808, 8);
    h.writeUInt16LE(8, 10);
    h.writeUInt16LE(time, 12);
    h.writeUInt16LE(date, 14);
    h.writeUInt32LE(w.crc, 16);
    h.writeUInt32LE(w.csize, 20);
    h.writeUInt32LE(w.usize, 24);
    h.writeUInt16LE(w.name.length, 28);
    h.writeUInt32LE(w.offset, 42);
    parts.push(h, w.name);
    offset += 46 + w.name.length;
  }
  if (offset > MAX32) throw tooBig();
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(written.length, 8);
  end.writeUInt16LE(written.length, 10);
  end.writeUInt32LE(offset - cdStart, 12);
  end.writeUInt32LE(cdStart, 16);
  parts.push(end);
  yield Buffer.concat(parts);
}

/** One entry as read back. */
export interface ZipEntryRead {
  readonly name: string;
  readonly data: Buffer;
  readonly crc: number;
}

/**
 * Reads a whole ZIP from memory through its central directory, inflating each entry and
 * checking its CRC-32 and size. For tests and small archives.
 * @throws ZipError for a damaged archive or an entry whose CRC or size does not match.
 */
export function readZip(zip: Buffer): ZipEntryRead[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new ZipError('no end of central directory record: not a ZIP, or cut short.');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out: ZipEntryRead[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new ZipError(`central directory entry ${i + 1} is damaged.`);
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    const csize = zip.readUInt32LE(p + 20);
    const usize = zip.readUInt32LE(p + 24);
    const nlen = zip.readUInt16LE(p + 28);
    const xlen = zip.readUInt16LE(p + 30);
    const clen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nlen);
    p += 46 + nlen + xlen + clen;
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new ZipError(`the local header of "${name}" is damaged.`);
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataStart, dataStart + csize);
    if (method !== 8 && method !== 0) throw new ZipError(`"${name}" uses compression method ${method}; only deflate and stored are read.`);
    let data: Buffer;
    try {
      data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw);
    } catch (e) {
      throw new ZipError(`"${name}" does not inflate (${(e as Error).message}).`);
    }
    if (data.length !== usize) throw new ZipError(`"${name}" holds ${data.length} bytes, its header says ${usize}.`);
    if (crc32(data) !== crc) throw new ZipError(`"${name}" fails its CRC-32 check.`);
    out.push({ name, data, crc });
  }
  return out;
}
