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
    const zip = await collect(zipStream([
      { name: 'a.txt', data: ['hello ', Buffer.from('world')] },
      { name: 'empty.txt', data: [] },
      { name: 'dir/big.txt', data: big() },
      { name: 'ünïcode.json', data: ['{"k": "v"}'] },
    ], { modified: new Date(2026, 0, 2, 3, 4, 6) }));
    const entries = readZip(zip);
    expect(entries.map((e) => [e.name, e.data.length])).toEqual([['a.txt', 11], ['empty.txt', 0], ['dir/big.txt', expect.any(Number)], ['ünïcode.json', 10]]);
    expect(entries[0].data.toString()).toBe('hello world');
    let expected = '';
    for (let i = 0; i < 200; i++) expected += `line ${i} ${'x'.repeat(i % 97)}\n`.repeat(50);
    expect(entries[2].data.toString()).toBe(expected);
    // Python's zipfile checks every CRC and the data descriptors.
    const file = path.join(dir, 'test.zip');
    writeFileSync(file, zip);
    const py = spawnSync('python3', ['-c', 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(z.testzip(), len(z.namelist()), z.getinfo("a.txt").date_time)', file], { encoding: 'utf8' });
    expect(py.stderr).toBe('');
    expect(py.stdout.trim()).toBe('None 4 (2026, 1, 2, 3, 4, 6)');
  });

  it('refuses unsafe or repeated names and passes on a failing source', async () => {
    await expect(collect(zipStream([{ name: '../evil', data: [] }]))).rejects.toThrow(ZipError);
    await expect(collect(zipStream([{ name: 'a', data: [] }, { name: 'a', data: [] }]))).rejects.toThrow(/written twice/);
    async function* broken() { yield 'part'; throw new Error('database went away'); }
    await expect(collect(zipStream([{ name: 'a', data: broken() }]))).rejects.toThrow('database went away');
  });

  it('finds a damaged entry', async () => {
    const zip = await collect(zipStream([{ name: 'a.txt', data: ['some text that deflates'] }]));
    const bad = Buffer.from(zip);
    bad[40] ^= 0xff;
    expect(() => readZip(bad)).toThrow(ZipError);
  });
});
