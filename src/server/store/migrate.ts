/**
 * Bringing a database's schema up to date with `migrations.ts`, on PGlite or PostgreSQL alike.
 */
import type { Driver, Queryable } from './driver';
import { migrations } from './migrations';

/** Applies the migrations not yet recorded, each in its own transaction; safe with several servers starting at once. */
export async function migrate(db: Driver): Promise<number[]> {
  // Every step holds the same lock, which serialises concurrent starts against the same schema;
  // the table itself too, since two CREATE TABLE IF NOT EXISTS at once can collide.
  const lock = (tx: Queryable) =>
    tx.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.schema_migrations'))`);
  await db.transaction(async (tx) => {
    await lock(tx);
    await tx.exec(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await db.transaction(async (tx) => {
      await lock(tx);
      const seen = await tx.query(`SELECT 1 FROM schema_migrations WHERE version = $1`, [m.version]);
      if (seen.rows.length) return false;
      await tx.exec(m.sql);
      await tx.query(`INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}
