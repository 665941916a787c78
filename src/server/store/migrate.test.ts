/**
 * Several servers starting at the same instant on one PostgreSQL: every one opens the database,
 * each migration is applied exactly once, and the schema and the migrations table are created
 * once. Each server here is a store with its own connection pool, all opened in the same tick.
 */
import { PGlite } from '@electric-sql/pglite';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from './migrations';
import { openStore } from './open';
import { postgresUrl, seedDataDir } from './testing';
import type { Store } from './types';

const schemas: string[] = [];
afterAll(async () => {
  const c = new pg.Client({ connectionString: postgresUrl() });
  await c.connect();
  for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await c.end();
});

describe('migrations on PostgreSQL', () => {
  it('eight servers starting at once on a new database all open it, and each migration is applied once', async () => {
    for (let round = 0; round < 3; round++) {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      schemas.push(schema);
      const opened = await Promise.allSettled(
        Array.from({ length: 8 }, () => openStore({ databaseUrl: postgresUrl(), schema, poolSize: 2 })),
      );
      const stores = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      const failures = opened.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error).message)] : []));
      try {
        expect(failures).toEqual([]);
        const c = new pg.Client({ connectionString: postgresUrl() });
        await c.connect();
        const rows = (await c.query(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)).rows as {
          version: number;
        }[];
        await c.end();
        expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
        // Every server works on the one schema: a study saved by one is read by another.
        await stores[0].saveStudy('s', { title: 'one' }, 'file', 1);
        expect((await stores[7].getStudy('s'))?.definition).toEqual({ title: 'one' });
      } finally {
        await Promise.all(stores.map((s: Store) => s.close()));
      }
    }
  });
});

describe("the tests' PGlite template", () => {
  it('seeds a database with every migration applied and a small buffer pool, which a server opening it keeps', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-template-'));
    try {
      seedDataDir(dir);
      const db = new PGlite(path.join(dir, 'db'));
      try {
        expect((await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers).toBe('16MB');
        const applied = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
        expect(applied.rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
      } finally {
        await db.close();
      }
      // The store opens it as it is: nothing to migrate, the setting untouched.
      const store = await openStore({ dataDir: dir });
      await store.close();
      const again = new PGlite(path.join(dir, 'db'));
      try {
        expect((await again.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0].shared_buffers).toBe(
          '16MB',
        );
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
