// Compiles the server and the `arc-studio` command for production into `dist-server/` (or the
// folder after `--outdir`): one ES module per entry, every npm dependency left as an import.
// `bin/arc-studio.mjs` runs it, and refuses to while a source it was made from (listed with its
// fingerprint in `build.json`) reads otherwise than when it was built.
//
// The worker threads' entries are compiled under the names their callers ask for beside
// themselves (`new URL('./threadWorker.mjs', import.meta.url)`): in the sources those `.mjs` files
// load the compiled thread, or the TypeScript through tsx when the sources run
// (`src/server/host/compiled.mjs`); compiled, they are the thread's code itself. Shared code
// goes to chunks in the same folder, never a subfolder, so `import.meta.url` in any of them names
// that folder.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_BUILD } from './serverBuildOptions.mjs';
import { sourceHash } from '../src/server/host/compiled.mjs';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const at = process.argv.indexOf('--outdir');
const outdir = path.resolve(at > 0 ? process.argv[at + 1] : path.join(ROOT, 'dist-server'));

/** Output name (without `.mjs`) -> source. */
export const ENTRIES = {
  main: 'src/cli/main.ts',
  threadWorker: 'src/server/export/threadWorker.ts',
  worker: 'src/server/digests/worker.ts',
  validateWorker: 'src/cli/validateWorker.ts',
  bench: 'src/bench/main.ts',
  prolificStandin: 'src/prolificStandin/main.ts',
};

// Built beside, then swapped in, so that a server running from the old folder keeps its chunks
// until the last moment and a failed build leaves the old one in place.
const staging = `${outdir}.part-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
const started = Date.now();
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: Object.entries(ENTRIES).map(([out, src]) => ({ in: src, out })),
  outdir: staging,
  ...SERVER_BUILD,
  sourcemap: true,
  metafile: true,
});
const sources = Object.keys(result.metafile.inputs)
  .filter((f) => !f.startsWith('node_modules/'))
  .sort();
const hashes = Object.fromEntries(sources.map((f) => [f, sourceHash(readFileSync(path.join(ROOT, f)))]));
writeFileSync(path.join(staging, 'build.json'), JSON.stringify({ builtAt: started, hashes }, null, 1) + '\n');
rmSync(outdir, { recursive: true, force: true });
renameSync(staging, outdir);
console.log(
  `server compiled into ${path.relative(process.cwd(), outdir) || '.'} (${sources.length} sources, ${Date.now() - started} ms)`,
);
