/**
 * Brotli and gzip copies of the built app's files, made once at build time so the server sends
 * a participant's first load compressed without compressing anything per request
 * (`serveStatic({ precompressed: true })` in src/server/serve.ts picks `name.br` or `name.gz` by
 * the request's `Accept-Encoding`).
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** Files worth compressing: text formats. Fonts in woff/woff2 and images are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map|ttf|otf|wasm)$/;

/**
 * Below this a compressed copy saves less than a packet and costs a file: such files are sent as
 * they are.
 */
export const MIN_BYTES = 1024;

/** What {@link precompressFolder} wrote. */
export interface PrecompressReport {
  files: number;
  bytes: number;
  brotliBytes: number;
  gzipBytes: number;
}

/**
 * Writes `name.br` and `name.gz` beside every compressible file of `dir` (recursively) of at
 * least {@link MIN_BYTES}, at the highest compression levels: the build pays once, every
 * participant gains. A copy that would not be smaller than the file is not written.
 * @example await precompressFolder('dist'); // dist/assets/index-abc.js.br, .gz, ...
 */
export async function precompressFolder(dir: string): Promise<PrecompressReport> {
  const report: PrecompressReport = { files: 0, bytes: 0, brotliBytes: 0, gzipBytes: 0 };
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && COMPRESSIBLE.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
  await Promise.all(
    files.map(async (file) => {
      if ((await stat(file)).size < MIN_BYTES) return;
      const data = await readFile(file);
      const [br, gzipped] = await Promise.all([
        brotli(data, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
            [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          },
        }),
        gz(data, { level: constants.Z_BEST_COMPRESSION }),
      ]);
      report.files++;
      report.bytes += data.length;
      if (br.length < data.length) {
        await writeFile(`${file}.br`, br);
        report.brotliBytes += br.length;
      }
      if (gzipped.length < data.length) {
        await writeFile(`${file}.gz`, gzipped);
        report.gzipBytes += gzipped.length;
      }
    }),
  );
  return report;
}

/**
 * The Vite plugin: compresses the output folder once the bundle is written, in a production build
 * only (`vite build`; a development build, `--mode development`, is for checking the app, never
 * for participants, and its files would take about 10 s of CPU to compress).
 */
export function precompress(): Plugin {
  let outDir = 'dist';
  let production = true;
  return {
    name: 'arc-studio-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      production = config.isProduction;
    },
    async closeBundle() {
      if (production) await precompressFolder(outDir);
    },
  };
}
