import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import type { ResolvedConfig } from 'vite';
import { MIN_BYTES, precompress, precompressFolder } from './precompress';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
});

it('writes brotli and gzip copies that decode to each text file, and leaves small and binary files alone', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'precompress-'));
  folders.push(dir);
  await mkdir(path.join(dir, 'assets'));
  const script = `export const rows = [${Array.from({ length: 800 }, (_, i) => i % 10).join(',')}];\n`;
  const files: Record<string, string> = {
    'index.html': `<!doctype html><title>x</title>${'<p>row</p>'.repeat(200)}`,
    'assets/index-abc123.js': script,
    'assets/index-abc123.css': `.a{color:red}`.repeat(200),
    'assets/small-abc123.js': 'export {};\n',
    'assets/font-abc123.woff2': 'w'.repeat(4000),
  };
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);

  const report = await precompressFolder(dir);

  expect(report.files).toBe(3);
  for (const name of ['index.html', 'assets/index-abc123.js', 'assets/index-abc123.css']) {
    const file = path.join(dir, name);
    expect(brotliDecompressSync(await readFile(`${file}.br`)).toString(), name).toBe(files[name]);
    expect(gunzipSync(await readFile(`${file}.gz`)).toString(), name).toBe(files[name]);
  }
  expect(files['assets/small-abc123.js'].length).toBeLessThan(MIN_BYTES);
  expect((await readdir(path.join(dir, 'assets'))).sort()).toEqual([
    'font-abc123.woff2',
    'index-abc123.css',
    'index-abc123.css.br',
    'index-abc123.css.gz',
    'index-abc123.js',
    'index-abc123.js.br',
    'index-abc123.js.gz',
    'small-abc123.js',
  ]);
  expect(report.brotliBytes).toBeLessThan(report.bytes / 4);
});

it('compresses the output of a production build and leaves a development build as it is', async () => {
  const written: Record<string, string[]> = {};
  for (const isProduction of [true, false]) {
    const dir = await mkdtemp(path.join(tmpdir(), 'precompress-plugin-'));
    folders.push(dir);
    await writeFile(path.join(dir, 'index.js'), 'export const a = 1;\n'.repeat(200));
    const plugin = precompress();
    const config = { root: dir, isProduction, build: { outDir: '.' } } as unknown as ResolvedConfig;
    (plugin.configResolved as (c: ResolvedConfig) => void)(config);
    await (plugin.closeBundle as () => Promise<void>)();
    written[isProduction ? 'production' : 'development'] = (await readdir(dir)).sort();
  }
  expect(written).toEqual({
    production: ['index.js', 'index.js.br', 'index.js.gz'],
    development: ['index.js'],
  });
});
