/**
 * The two databases a bench runs on: PGlite in a throwaway folder, then a PostgreSQL schema on
 * `TEST_DATABASE_URL` or a throwaway cluster started from the installed binaries. Each gives its
 * body what it needs to open stores and is cleaned up after it, whatever the body did.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPgCluster, type PgCluster } from '../server/store/pgCluster';

/** Runs `body` with a fresh PGlite data folder, removed afterwards. */
export async function* onPglite<T>(bench: string, body: (dataDir: string) => AsyncGenerator<T>): AsyncGenerator<T> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `arc-studio-bench-${bench}-`));
  try {
    yield* body(path.join(tmp, 'data'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Runs `body` with a PostgreSQL URL and a schema of its own (dropped afterwards on an external
 * server; a throwaway cluster is stopped). Without PostgreSQL the part is skipped, said on stderr.
 */
export async function* onPostgres<T>(
  bench: string,
  body: (url: string, schema: string) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  let cluster: PgCluster | null = null;
  let url = process.env.TEST_DATABASE_URL || null;
  if (!url) {
    try {
      cluster = await startPgCluster();
      url = cluster.url;
    } catch (e) {
      console.error(`bench ${bench}: PostgreSQL part skipped: ${(e as Error).message}`);
      return;
    }
  }
  const schema = `bench_${bench}_${process.pid}`;
  try {
    yield* body(url, schema);
    if (!cluster) {
      // An external server keeps nothing of the benchmark.
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
    }
  } finally {
    cluster?.stop();
  }
}

/** A new, empty database `name` on the PostgreSQL server at `base` (one of that name is dropped first), and its URL. */
export async function postgresDatabase(base: string, name: string): Promise<string> {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}
