/**
 * Vitest global setup: one PostgreSQL for every test file that runs the store and API suites
 * on PostgreSQL (each test then makes its own schema). `TEST_DATABASE_URL` uses an existing
 * server instead. A cluster that cannot start is reported by those suites, not skipped.
 * Meanwhile, a PGlite data folder with the migrations applied, which the PGlite suites copy
 * instead of starting a database cold (`pgliteTemplate.ts`); kept in `.tmp/` for the next run.
 */
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type PgCluster, startPgCluster } from './pgCluster';
import { makeTemplate } from './pgliteTemplate';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string } | { error: string };
    /** The PGlite template's folder (`seedDataDir` copies it). */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const template = makeTemplate(path.resolve(project.config.root, '.tmp'));
  if (process.env.TEST_DATABASE_URL) {
    project.provide('postgres', { url: process.env.TEST_DATABASE_URL });
    project.provide('pgliteTemplate', await template);
    return () => {};
  }
  let cluster: PgCluster | null = null;
  try {
    cluster = await startPgCluster();
    project.provide('postgres', { url: cluster.url });
  } catch (e) {
    project.provide('postgres', { error: (e as Error).message });
  }
  project.provide('pgliteTemplate', await template);
  return () => cluster?.stop();
}
