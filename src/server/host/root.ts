/**
 * Where the package is installed. Files that ship beside the code (the built app in `dist/`,
 * `data/`, `package.json`, the Python engine process's `worker.py`) are found from here, so that
 * the same code finds them whether it runs from its sources (`src/server/…` through tsx) or
 * compiled into one folder (`dist-server/`), where a path relative to the module would point
 * elsewhere.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder at or above `from` that holds a `package.json`. */
export function packageRootOf(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir)
      throw new Error(`no package.json in ${from} or any folder above it; run arc-studio from its installed package`);
  }
}

/** The package's root folder (the one holding `package.json`, `data/` and `dist/`). */
export const ROOT = packageRootOf(path.dirname(fileURLToPath(import.meta.url)));
