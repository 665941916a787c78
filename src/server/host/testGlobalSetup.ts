/**
 * Vitest's global setup for the compiled server: the servers, commands and threads the tests
 * start run it, as production does (`compiled.mjs`), so it is made again first when it is missing
 * or was made from sources that changed since; `npx vitest run <file>` after a change then tests
 * that change. With ARC_STUDIO_SOURCES=1 they run the TypeScript sources, and nothing is built.
 */
import { spawnSync } from 'node:child_process';
import { ROOT } from './root';
import { runsSources, staleness } from './compiled.mjs';

export default function setup(): void {
  if (runsSources() || staleness() === null) return;
  const built = spawnSync(process.execPath, ['scripts/build-server.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0)
    throw new Error(
      'The server build failed (`node scripts/build-server.mjs`, its output is above): the servers the tests start run it. Fix the build, or run the tests on the sources with ARC_STUDIO_SOURCES=1.',
    );
}
