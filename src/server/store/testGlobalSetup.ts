/**
 * Vitest global setup: one PostgreSQL for every test file that runs the store and API suites
 * on PostgreSQL (each test then makes its own schema). `TEST_DATABASE_URL` uses an existing
 * server instead. A cluster that cannot start is reported by those suites, not skipped.
 */
import type { TestProject } from 'vitest/node';
import { type PgCluster, startPgCluster } from './pgCluster';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string } | { error: string };
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('postgres', { url: process.env.TEST_DATABASE_URL });
    return () => {};
  }
  let cluster: PgCluster | null = null;
  try {
    cluster = await startPgCluster();
    project.provide('postgres', { url: cluster.url });
  } catch (e) {
    project.provide('postgres', { error: (e as Error).message });
  }
  return () => cluster?.stop();
}
