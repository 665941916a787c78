/**
 * Test helpers: the same suites run on both back ends. Each store gets a fresh schema, on one
 * PGlite per test file (a copy of the template the global setup made: starting PGlite cold takes
 * seconds) or on the shared test PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { openStore } from './open';
import { seedDataDir as seedFromTemplate } from './pgliteTemplate';
import type { Store } from './types';

export interface Backend {
  readonly name: 'pglite' | 'postgres';
  /** A new store in a schema of its own; `close` drops the schema. */
  open(): Promise<Store>;
}

let pglite: Promise<PGlite> | null = null;

/**
 * Puts a database with the migrations applied in `dataDir` (as `<dataDir>/db`), for a test that
 * opens a data folder (`openStore({ dataDir })`, `startServer`, a spawned `serve`): a copy of the
 * template, where a new folder would start PGlite cold.
 */
export function seedDataDir(dataDir: string): void {
  const template = inject('pgliteTemplate');
  if (!template)
    throw new Error(
      'No PGlite template: run the tests with vitest (vitest.config.ts names the global setup that makes it).',
    );
  seedFromTemplate(template, dataDir);
}

let pgliteDir: string | null = null;

/** This test file's PGlite: a copy of the template in a folder removed after the file's tests. */
async function filePglite(): Promise<PGlite> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-test-pglite-'));
  pgliteDir = dir;
  seedDataDir(dir);
  const db = new PGlite(path.join(dir, 'db'));
  await db.waitReady;
  return db;
}

/** Closes this test file's PGlite, if it opened one, and removes its folder. */
export async function closeFilePglite(): Promise<void> {
  const db = await pglite?.catch(() => null);
  pglite = null;
  await db?.close();
  if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
  pgliteDir = null;
}

// Registered while the test file that imports this module is collected, before the file's own
// hooks, so it runs after them (Vitest runs `afterAll` hooks last registered first). A process
// exit handler would not do: Vitest ends a test file's process without one. In a process that
// runs several files (the `shared` project), this module is evaluated for the first of
// them only: `testFileSetup.ts` registers the same for each.
afterAll(closeFilePglite);

/** The test PostgreSQL's URL; throws the reason when it could not be started. */
export function postgresUrl(): string {
  const p = inject('postgres');
  if (!p)
    throw new Error(
      'No test PostgreSQL: run the tests with vitest (vitest.config.ts names the global setup that starts it).',
    );
  if ('error' in p) throw new Error(`The test PostgreSQL could not be started: ${p.error}`);
  return p.url;
}

/**
 * A new, empty database on the test PostgreSQL, for servers a test spawns (`serve` migrates it
 * itself); `drop` removes it, ending any connection still open.
 */
export async function freshPostgresDatabase(prefix = 'db'): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = postgresUrl();
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`).finally(() => c.end());
  const u = new URL(base);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: base });
      await d.connect();
      await d.query(`DROP DATABASE ${name} WITH (FORCE)`).finally(() => d.end());
    },
  };
}

export const backends: readonly Backend[] = [
  {
    name: 'pglite',
    async open() {
      pglite ??= filePglite();
      return openStore({ pglite: await pglite, schema: `t_${randomBytes(6).toString('hex')}` });
    },
  },
  {
    name: 'postgres',
    async open() {
      const url = postgresUrl();
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const store = await openStore({ databaseUrl: url, schema, poolSize: 4 });
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP SCHEMA ${schema} CASCADE`).finally(() => c.end());
      };
      return store;
    },
  },
];
