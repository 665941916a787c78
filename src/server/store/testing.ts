/**
 * Test helpers: the same suites run on both back ends. Each store gets a schema of its own, on one
 * PGlite per test file (a copy of the template the global setup made: starting PGlite cold takes
 * seconds) or on the shared test PostgreSQL. A closed store's schema is emptied and given to the
 * next store opened in the process, as long as its tables are still those the migrations made:
 * emptying costs a tenth of migrating a new schema (some 0.04 s of CPU on PGlite against 0.4 s,
 * with hundreds of stores opened in a run).
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
  spare.pglite.length = 0;
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

/** A query on the database a store's schema is in; without parameters, it may hold several statements. */
type Query = (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

/** The schemas closed stores left, emptied and ready for the next store (the PGlite ones are the file's PGlite's). */
const spare: Record<Backend['name'], string[]> = { pglite: [], postgres: [] };
/** What the migrations make of a schema (`layout`), once per back end and process. */
const pristine: Partial<Record<Backend['name'], string>> = {};

/**
 * A count of a schema's relations, columns, constraints, triggers and functions, and of the
 * migrations recorded in it: a test that added a trigger or dropped a column leaves a schema that
 * counts differently, which is then dropped instead of being used again. (A read of the catalogs
 * alone, some hundredths of the migrations' cost.)
 */
async function layout(q: Query, schema: string): Promise<string> {
  const { rows } = await q(
    `SELECT concat_ws(':',
       (SELECT count(*) FROM pg_class WHERE relnamespace = $1::regnamespace),
       (SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
          WHERE c.relnamespace = $1::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
       (SELECT count(*) FROM pg_constraint WHERE connamespace = $1::regnamespace),
       (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = $1::regnamespace),
       (SELECT count(*) FROM pg_proc WHERE pronamespace = $1::regnamespace),
       (SELECT count(*) FROM ${schema}.schema_migrations)) AS layout`,
    [schema],
  );
  return (rows[0] as { layout: string }).layout;
}

/**
 * Empties a closed store's schema for the next store, keeping its record of migrations: true when
 * it can be used again, false when a test changed its tables (the caller then drops it).
 */
async function emptied(name: Backend['name'], q: Query, schema: string): Promise<boolean> {
  if ((await layout(q, schema)) !== pristine[name]) return false;
  // Row by row, foreign keys off meanwhile (replica role), and the sequences from 1 again: on a
  // test's few rows cheaper than TRUNCATE, which gives every table and index new files.
  const { rows } = await q(
    `SELECT (SELECT string_agg(format('DELETE FROM %I.%I;', $1::text, tablename), ' ') FROM pg_tables
               WHERE schemaname = $1::text AND tablename <> 'schema_migrations') AS deletes,
            (SELECT string_agg(format('SELECT setval(%L, 1, false);', $1::text || '.' || sequencename), ' ') FROM pg_sequences
               WHERE schemaname = $1::text) AS sequences`,
    [schema],
  );
  const { deletes, sequences } = rows[0] as { deletes: string | null; sequences: string | null };
  await q(
    `SET session_replication_role = replica; ${deletes ?? ''} RESET session_replication_role; ${sequences ?? ''}`,
    [],
  );
  return true;
}

/** A schema for a new store: one a closed store left, or a new one (and the first new one's layout kept as what the migrations make). */
async function schemaFor(
  name: Backend['name'],
  open: (schema: string) => Promise<Store>,
  q: Query,
): Promise<{ store: Store; schema: string }> {
  const reused = spare[name].pop();
  const schema = reused ?? `t_${randomBytes(6).toString('hex')}`;
  const store = await open(schema);
  if (!reused && pristine[name] === undefined) pristine[name] = await layout(q, schema);
  return { store, schema };
}

/** `close` run on the first call only: true then, false on any later call (whose schema must not be given out twice). */
function once(close: () => Promise<void>): () => Promise<boolean> {
  let closed = false;
  return async () => {
    if (closed) return false;
    closed = true;
    await close();
    return true;
  };
}

/** Runs `fn` with a query function over a connection of its own to the test PostgreSQL. */
async function onPostgres<T>(url: string, fn: (q: Query) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(async (sql, params) => ({ rows: (await c.query(sql, params)).rows }));
  } finally {
    await c.end();
  }
}

export const backends: readonly Backend[] = [
  {
    name: 'pglite',
    async open() {
      pglite ??= filePglite();
      const db = await pglite;
      // Statements without parameters may be several at once (PGlite's exec; a query takes one).
      const q: Query = async (sql, params) => (params.length ? db.query(sql, params) : { rows: await db.exec(sql) });
      const { store, schema } = await schemaFor('pglite', (schema) => openStore({ pglite: db, schema }), q);
      const close = once(store.close.bind(store));
      store.close = async () => {
        if (!(await close())) return;
        // A later file's PGlite is another database: a schema of this one is not given to it.
        if (pglite && (await pglite) === db && (await emptied('pglite', q, schema))) spare.pglite.push(schema);
      };
      return store;
    },
  },
  {
    name: 'postgres',
    async open() {
      const url = postgresUrl();
      const { store, schema } = await schemaFor(
        'postgres',
        (schema) => openStore({ databaseUrl: url, schema, poolSize: 4 }),
        (sql, params) => onPostgres(url, (q) => q(sql, params)),
      );
      const close = once(store.close.bind(store));
      store.close = async () => {
        if (!(await close())) return;
        await onPostgres(url, async (q) => {
          if (await emptied('postgres', q, schema)) spare.postgres.push(schema);
          else await q(`DROP SCHEMA ${schema} CASCADE`, []);
        });
      };
      return store;
    },
  },
];
