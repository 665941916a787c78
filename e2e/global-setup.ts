/**
 * Makes (or finds) the PGlite data folder with every migration applied that the test servers'
 * data folders start from (`seedDataDir` in `helpers.ts`): a server on an empty folder first runs
 * PGlite's initdb and the migrations, seconds of CPU for each of the suite's servers. Vitest's
 * global setup makes the same template (`src/server/store/pgliteTemplate.ts`), kept in `.tmp/`.
 */
import path from 'node:path';
import { makeTemplate } from '../src/server/store/pgliteTemplate';

export default async function globalSetup(): Promise<void> {
  // Workers inherit the environment the global setup leaves.
  process.env.E2E_PGLITE_TEMPLATE = await makeTemplate(path.resolve('.tmp'));
}
