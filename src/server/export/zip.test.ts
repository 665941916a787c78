import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ZipError, crc32, readZip, zipStream } from './zip';

const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-zip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return Buffer.concat(out);
}

describe('streaming ZIP', () => {
  it('computes the standard CRC-32, also over data in pieces', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(Buffer.from('6789'), crc32(Buffer.from('12345')))).toBe(0xcbf43926);
    expect(crc32(Buffer.alloc(0))).toBe(0);
  });

  it('writes entries from generators that other tools open and check', async () => {
    async function* big() {
      for (let i = 0; i < 200; i++) yield `line ${i} ${'x'.repeat(i % 97)}\n`.repeat(50);
    }
    const zip = await collect(
      zipStream(
        [
          { name: 'a.txt', data: ['hello ', Buffer.from('world')] },
          { name: 'empty.txt', data: [] },
          { name: 'dir/big.txt', data: big() },
          { name: 'ünïcode.json', data: ['{"k": "v"}'] },
        ],
        { modified: new Date(2026, 0, 2, 3, 4, 6) },
      ),
    );
    const entries = readZip(zip);
    expect(entries.map((e) => [e.name, e.data.length])).toEqual([
      ['a.txt', 11],
      ['empty.txt', 0],
      ['dir/big.txt', expect.any(Number)],
      ['ünïcode.json', 10],
    ]);
    expect(entries[0].data.toString()).toBe('hello world');
    let expected = '';
    for (let i = 0; i < 200; i++) expected += `line ${i} ${'x'.repeat(i % 97)}\n`.repeat(50);
    expect(entries[2].data.toString()).toBe(expected);
    // Python's zipfile checks every CRC and the data descriptors.
    const file = path.join(dir, 'test.zip');
    writeFileSync(file, zip);
    const py = spawnSync(
      'python3',
      [
        '-c',
        'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(z.testzip(), len(z.namelist()), z.getinfo("a.txt").date_time)',
        file,
      ],
      { encoding: 'utf8' },
    );
    expect(py.stderr).toBe('');
    expect(py.stdout.trim()).toBe('None 4 (2026, 1, 2, 3, 4, 6)');
  });

  it('refuses unsafe or repeated names and passes on a failing source', async () => {
    await expect(collect(zipStream([{ name: '../evil', data: [] }]))).rejects.toThrow(ZipError);
    await expect(
      collect(
        zipStream([
          { name: 'a', data: [] },
          { name: 'a', data: [] },
        ]),
      ),
    ).rejects.toThrow(/written twice/);
    async function* broken() {
      yield 'part';
      throw new Error('database went away');
    }
    await expect(collect(zipStream([{ name: 'a', data: broken() }]))).rejects.toThrow('database went away');
    // Also once the entry is past the size deflated in one call and streams.
    async function* brokenLater() {
      yield 'x'.repeat(200_000);
      yield 'y'.repeat(200_000);
      throw new Error('database went away later');
    }
    await expect(collect(zipStream([{ name: 'a', data: brokenLater() }]))).rejects.toThrow('database went away later');
  });

  it('deflates large entries in blocks side by side into streams that unzip and Python inflate, in order', async () => {
    // Three entries of several blocks each (each block deflated apart, from the 32 KiB before it),
    // their lines different enough that a block boundary cuts matches.
    const text = (k: number) => {
      let t = '';
      for (let i = 0; t.length < 2_500_000 + k * 700_000; i++) t += `${k}:${i} ${'abcdefgh'.repeat((i * 7) % 13)}\n`;
      return t;
    };
    const pieces = function* (t: string) {
      for (let i = 0; i < t.length; i += 12_000) yield t.slice(i, i + 12_000);
    };
    const texts = [0, 1, 2].map(text);
    const zip = await collect(
      zipStream([
        { name: 'one.txt', data: pieces(texts[0]) },
        { name: 'small.txt', data: ['between'] },
        { name: 'two.txt', data: pieces(texts[1]) },
        { name: 'three.txt', data: [texts[2]] },
      ]),
    );
    const entries = readZip(zip);
    expect(entries.map((e) => e.name)).toEqual(['one.txt', 'small.txt', 'two.txt', 'three.txt']);
    expect(entries[0].data.toString()).toBe(texts[0]);
    expect(entries[2].data.toString()).toBe(texts[1]);
    expect(entries[3].data.toString()).toBe(texts[2]);
    const file = path.join(dir, 'blocks.zip');
    writeFileSync(file, zip);
    const test = spawnSync('unzip', ['-tq', file], { encoding: 'utf8' });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    const py = spawnSync(
      'python3',
      [
        '-c',
        'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(z.testzip(), [len(z.read(n)) for n in z.namelist()])',
        file,
      ],
      { encoding: 'utf8' },
    );
    expect(py.stderr).toBe('');
    expect(py.stdout.trim()).toBe(`None [${texts[0].length}, 7, ${texts[1].length}, ${texts[2].length}]`);
  });

  it('stops reading entries when its consumer stops early', async () => {
    const ended: string[] = [];
    let read = 0;
    function* source(name: string) {
      try {
        for (let i = 0; i < 1000; i++) {
          read++;
          yield `${name} ${i} `.repeat(5000);
        }
      } finally {
        ended.push(name);
      }
    }
    let entriesEnded = false;
    function* entries() {
      try {
        yield { name: 'a', data: source('a') };
        yield { name: 'b', data: source('b') };
      } finally {
        entriesEnded = true;
      }
    }
    const zip = zipStream(entries());
    await zip.next();
    await zip.next();
    await zip.return(undefined);
    // What the source was reading when the consumer stopped ends it; nothing is read after.
    await expect.poll(() => ended).toEqual(['a']);
    expect(entriesEnded).toBe(true);
    const after = read;
    await new Promise((r) => setImmediate(r));
    expect(read).toBe(after);
    expect(after).toBeLessThan(1000);
  });

  it('writes more than 65,535 entries with a ZIP64 end record that unzip and Python read, checksums intact', async () => {
    // The fewest entries past what the classic end record counts.
    const n = 65_536;
    function* many() {
      for (let i = 0; i < n; i++) yield { name: `r/${i}.txt`, data: [`entry ${i}\n`] };
    }
    const zip = await collect(zipStream(many(), { modified: new Date(2026, 0, 2, 3, 4, 6) }));
    // The classic end record says "see ZIP64"; the ZIP64 end record holds the real count.
    const eocd = zip.length - 22;
    expect(zip.readUInt32LE(eocd)).toBe(0x06054b50);
    expect(zip.readUInt16LE(eocd + 10)).toBe(0xffff);
    expect(zip.readUInt32LE(eocd - 20)).toBe(0x07064b50);
    const entries = readZip(zip);
    expect(entries.length).toBe(n);
    expect(entries[n - 1]).toMatchObject({ name: `r/${n - 1}.txt` });
    expect(entries[n - 1].data.toString()).toBe(`entry ${n - 1}\n`);
    const file = path.join(dir, 'many.zip');
    writeFileSync(file, zip);
    const list = spawnSync('unzip', ['-l', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`\\s${n} files$`));
    const test = spawnSync('unzip', ['-tq', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/^No errors detected/);
    // Python checks every CRC against the data (testzip), and each equals the CRC-32 of the entry's text.
    const py = spawnSync(
      'python3',
      [
        '-c',
        [
          'import sys, zipfile, zlib',
          'z = zipfile.ZipFile(sys.argv[1])',
          'infos = z.infolist()',
          'bad = [i.filename for i in infos if i.CRC != zlib.crc32(("entry " + i.filename[2:-4] + "\\n").encode())]',
          'print(z.testzip(), len(infos), len(bad))',
        ].join('\n'),
        file,
      ],
      { encoding: 'utf8' },
    );
    expect(py.stderr).toBe('');
    expect(py.stdout.trim()).toBe(`None ${n} 0`);
  });

  it('writes the ZIP64 fields for sizes and offsets past 4 GiB in the layout unzip and Python read', async () => {
    // `always` writes, for small entries, the fields that entries and offsets past 4 GiB get.
    async function* big() {
      for (let i = 0; i < 100; i++) yield `line ${i} ${'y'.repeat(i)}\n`.repeat(40);
    }
    const zip = await collect(
      zipStream(
        [
          { name: 'a.txt', data: ['hello'] },
          { name: 'dir/big.txt', data: big() },
          { name: 'empty', data: [] },
        ],
        { zip64: 'always' },
      ),
    );
    const entries = readZip(zip);
    expect(entries.map((e) => [e.name, e.data.length])).toEqual([
      ['a.txt', 5],
      ['dir/big.txt', expect.any(Number)],
      ['empty', 0],
    ]);
    // The central directory says 0xFFFFFFFF for sizes and offset: the real values are in the ZIP64 extra field.
    const cd = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    expect([zip.readUInt32LE(cd + 20), zip.readUInt32LE(cd + 24), zip.readUInt32LE(cd + 42)]).toEqual([
      0xffffffff, 0xffffffff, 0xffffffff,
    ]);
    const file = path.join(dir, 'zip64.zip');
    writeFileSync(file, zip);
    const test = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/No errors detected in compressed data/);
    const py = spawnSync(
      'python3',
      [
        '-c',
        'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(z.testzip(), [(i.filename, i.file_size, i.header_offset) for i in z.infolist()][0], z.read("a.txt").decode())',
        file,
      ],
      { encoding: 'utf8' },
    );
    expect(py.stderr).toBe('');
    expect(py.stdout.trim()).toBe("None ('a.txt', 5, 0) hello");
  });

  it('finds a damaged entry', async () => {
    const zip = await collect(zipStream([{ name: 'a.txt', data: ['some text that deflates'] }]));
    const bad = Buffer.from(zip);
    bad[40] ^= 0xff;
    expect(() => readZip(bad)).toThrow(ZipError);
  });
});
