// Whether the compiled server (`dist-server/`, made by `npm run build`) stands for the sources: it
// does when it is at least as new as every source it was made from, and always when
// NODE_ENV=production. `bin/arc-studio.mjs` then runs it, and the worker threads' entries in the
// sources load their compiled thread (`loadThread`).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The compiled server's folder: `ARC_STUDIO_SERVER_DIST`, else `dist-server/`. */
export const compiledDir = path.resolve(process.env.ARC_STUDIO_SERVER_DIST ?? path.join(root, 'dist-server'));

/** Why the compiled server cannot be used, or null when it can. */
export function staleness() {
  let build;
  try {
    build = JSON.parse(readFileSync(path.join(compiledDir, 'build.json'), 'utf8'));
  } catch {
    return `there is no compiled server in ${compiledDir}`;
  }
  if (process.env.NODE_ENV === 'production') return null;
  for (const file of build.sources) {
    let mtime;
    try {
      mtime = statSync(path.join(root, file)).mtimeMs;
    } catch {
      return `the compiled server in ${compiledDir} was made from ${file}, which is gone`;
    }
    if (mtime > build.builtAt) return `${file} changed after the server in ${compiledDir} was compiled`;
  }
  return null;
}

/**
 * Loads a worker thread's code in a thread started from the sources (tests, development): the
 * compiled thread `<name>.mjs` while the compiled server is current, as `arc-studio` would run
 * it, else the TypeScript `fromSources` imports, through tsx, which a worker thread does not
 * inherit from its main thread. A thread that loads its sources through tsx spends about three
 * times the CPU of the compiled thread before it starts.
 */
export async function loadThread(name, fromSources) {
  if (staleness() === null) return import(pathToFileURL(path.join(compiledDir, `${name}.mjs`)).href);
  const { register } = await import('tsx/esm/api');
  register();
  return fromSources();
}
