// Which code runs, said explicitly: the compiled server (`dist-server/`, made by `npm run build`),
// as production runs it, unless ARC_STUDIO_SOURCES=1 (`arc-studio --sources`) asks for the
// TypeScript sources through tsx, for development. Nothing is decided by file times: a compiled
// server made from sources whose content changed since is refused, with the command that makes
// it again. `bin/arc-studio.mjs` and the worker threads' entries in the sources (`loadThread`) go
// by this one rule.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The compiled server's folder: `ARC_STUDIO_SERVER_DIST`, else `dist-server/`. */
export const compiledDir = path.resolve(process.env.ARC_STUDIO_SERVER_DIST ?? path.join(root, 'dist-server'));

/** Whether this process (and the threads and commands it starts) runs the TypeScript sources. */
export function runsSources() {
  return process.env.ARC_STUDIO_SOURCES === '1';
}

/** A source's fingerprint as `build.json` records it. */
export function sourceHash(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * Why the compiled server cannot run, or null when it can: there is none, or a source it was made
 * from (`build.json`) is gone or reads otherwise now (where the sources are installed at all).
 * Reading the ~200 sources takes a few milliseconds.
 */
export function staleness() {
  let build;
  try {
    build = JSON.parse(readFileSync(path.join(compiledDir, 'build.json'), 'utf8'));
  } catch {
    return `there is no compiled server in ${compiledDir}`;
  }
  if (!build.hashes) return `the compiled server in ${compiledDir} was made by an older build script`;
  // An install that ships the build without the sources has nothing to compare it with.
  if (!existsSync(path.join(root, 'src'))) return null;
  for (const [file, hash] of Object.entries(build.hashes)) {
    let text;
    try {
      text = readFileSync(path.join(root, file));
    } catch {
      return `the compiled server in ${compiledDir} was made from ${file}, which is gone`;
    }
    if (sourceHash(text) !== hash) return `${file} changed after the server in ${compiledDir} was compiled`;
  }
  return null;
}

/** What to do about {@link staleness}'s answer, as one sentence for the user. */
export function whatToDo(why) {
  return `arc-studio: ${why}. Run \`npm run build\`, or, in development, run the TypeScript sources with \`arc-studio --sources\` (ARC_STUDIO_SOURCES=1).`;
}

/** tsx's loader, or an error that says how to get it. */
export async function registerTsx() {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    throw new Error(
      'arc-studio: ARC_STUDIO_SOURCES=1 (--sources) runs the TypeScript sources, which needs tsx, a development dependency that is not installed. Run `npm install`, or run the compiled server (`npm run build`, then arc-studio without --sources).',
    );
  }
  register();
}

/**
 * Loads a worker thread's code, in a thread started from its entry in the sources (tests,
 * development): the TypeScript `fromSources` imports through tsx (which a thread does not inherit
 * from its main thread) when the sources run, else the compiled thread `<name>.mjs`, refused when
 * it is missing or stale. A thread that loads its sources through tsx spends about three times the
 * CPU of the compiled thread before it starts.
 */
export async function loadThread(name, fromSources) {
  if (runsSources()) {
    await registerTsx();
    return fromSources();
  }
  const why = staleness();
  if (why !== null) throw new Error(whatToDo(why));
  return import(pathToFileURL(path.join(compiledDir, `${name}.mjs`)).href);
}
