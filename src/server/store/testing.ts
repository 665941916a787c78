/**
 * Test helpers: the same suites run on both back ends. Each store gets a fresh schema, on one
 * PGlite per test file (starting PGlite takes seconds) or on the shared test PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore } from './open';
import type { Store } from './types';

export interface Backend {
  readonly name: 'pglite' | 'postgres';
  /** A new store in a schema of its own; `close` drops the schema. */
  open(): Promise<Store>;
}

let pglite: PGlite | null = null;

/** The test PostgreSQL's URL; throws the reason when it could not be started. */
export function postgresUrl(): string {
  const p = inject('postgres');
  if (!p) throw new Error('No test PostgreSQL: run the tests with vitest (vite.config.ts names the global setup that starts it).');
  if ('error' in p) throw new Error(`The test PostgreSQL could not be started: ${p.error}`);
  return p.url;
}

export const backends: readonly Backend[] = [
  {
    name: 'pglite',
    async open() {
      pglite ??= new PGlite();
      return openStore({ pglite, schema: `t_${randomBytes(6).toString('hex')}` });
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
