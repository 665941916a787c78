/**
 * Reading a ZIP file on disk entry by entry, without holding it in memory: the central directory
 * is read from the file's end, and an entry's data streams from its offset through the inflater,
 * its CRC-32 and size checked as it ends. An archive a restore reads (`restore.ts`) may be far
 * larger than the memory a server can spare; `readZip` (zip.ts) reads a ZIP held in memory.
 */
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { createInflateRaw } from 'node:zlib';
import { ZipError, centralEntries, crc32, type CentralEntry } from './zip';

const MAX16 = 0xffff;
const MAX32 = 0xffffffff;
/** The end record and the longest comment a ZIP may carry after it. */
const TAIL = 22 + MAX16;
/** Bytes read from the file at a time. */
export const ZIP_CHUNK = 64 * 1024;

/** An entry as the central directory lists it. */
export type ZipFileEntry = CentralEntry;

/** Reads `length` bytes at `position`, refusing a file that ends first. */
async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  if (bytesRead < length) throw new ZipError('the file ends inside a ZIP record: it is cut short.');
  return buf;
}

/** Where the central directory is and how many entries it lists (ZIP64 included). */
async function directory(fh: FileHandle, size: number): Promise<{ count: number; start: number; size: number }> {
  const tailStart = Math.max(0, size - TAIL);
  const tail = await readAt(fh, tailStart, size - tailStart);
  const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new ZipError('no end of central directory record: not a ZIP, or cut short.');
  let count = tail.readUInt16LE(eocd + 10);
  let cdSize = tail.readUInt32LE(eocd + 12);
  let start = tail.readUInt32LE(eocd + 16);
  if (count === MAX16 || start === MAX32 || cdSize === MAX32) {
    const loc = tailStart + eocd - 20;
    const locator = loc >= 0 ? await readAt(fh, loc, 20) : null;
    if (!locator || locator.readUInt32LE(0) !== 0x07064b50)
      throw new ZipError('the end record points to a ZIP64 end record, but its locator is missing.');
    const rec = await readAt(fh, Number(locator.readBigUInt64LE(8)), 56);
    if (rec.readUInt32LE(0) !== 0x06064b50) throw new ZipError('the ZIP64 end record is damaged.');
    count = Number(rec.readBigUInt64LE(32));
    cdSize = Number(rec.readBigUInt64LE(40));
    start = Number(rec.readBigUInt64LE(48));
  }
  if (start + cdSize > size)
    throw new ZipError('the central directory lies past the end of the file: it is cut short.');
  return { count, start, size: cdSize };
}

/** A ZIP file open for reading: its entries, and each one's data as a stream. */
export class ZipFile {
  private constructor(
    private readonly file: string,
    private readonly fh: FileHandle,
    readonly entries: ReadonlyMap<string, ZipFileEntry>,
  ) {}

  /**
   * Opens `file` and reads its central directory.
   * @throws ZipError for a file that is not a whole ZIP.
   */
  static async open(file: string): Promise<ZipFile> {
    const fh = await open(file, 'r');
    try {
      const { size } = await fh.stat();
      const cd = await directory(fh, size);
      const entries = centralEntries(await readAt(fh, cd.start, cd.size), 0, cd.count);
      return new ZipFile(file, fh, new Map(entries.map((e) => [e.name, e])));
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  /**
   * The entry's data, inflated, in chunks of at most about {@link ZIP_CHUNK} bytes read from
   * the file at a time; its CRC-32 and size are checked at its end.
   * @throws ZipError naming the entry when it does not inflate or its check fails.
   */
  async *read(entry: ZipFileEntry): AsyncGenerator<Buffer> {
    const head = await readAt(this.fh, entry.local, 30);
    if (head.readUInt32LE(0) !== 0x04034b50) throw new ZipError(`the local header of "${entry.name}" is damaged.`);
    if (entry.method !== 8 && entry.method !== 0)
      throw new ZipError(`"${entry.name}" uses compression method ${entry.method}; only deflate and stored are read.`);
    const start = entry.local + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
    if (entry.csize === 0) return yield* this.checked(entry, []);
    const raw = createReadStream(this.file, { start, end: start + entry.csize - 1, highWaterMark: ZIP_CHUNK });
    if (entry.method === 0) return yield* this.checked(entry, raw);
    const inflater = createInflateRaw({ chunkSize: ZIP_CHUNK });
    raw.on('error', (e) => inflater.destroy(e));
    raw.pipe(inflater);
    try {
      yield* this.checked(entry, inflater);
    } catch (e) {
      if (e instanceof ZipError) throw e;
      throw new ZipError(`"${entry.name}" does not inflate (${(e as Error).message}).`);
    } finally {
      raw.destroy();
      inflater.destroy();
    }
  }

  private async *checked(entry: ZipFileEntry, data: AsyncIterable<Buffer> | Buffer[]): AsyncGenerator<Buffer> {
    let crc = 0;
    let size = 0;
    for await (const chunk of data) {
      crc = crc32(chunk, crc);
      size += chunk.length;
      yield chunk;
    }
    if (size !== entry.usize)
      throw new ZipError(`"${entry.name}" holds ${size} bytes, its header says ${entry.usize}.`);
    if (crc !== entry.crc) throw new ZipError(`"${entry.name}" fails its CRC-32 check.`);
  }

  /** Closes the file. */
  close(): Promise<void> {
    return this.fh.close();
  }
}
