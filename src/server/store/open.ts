/**
 * Opening the store: PGlite in `<dataDir>/db` by default, PostgreSQL when a URL is given.
 * Migrations are applied before the store is returned.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Driver, Queryable, Transacting } from './driver';
import { migrate } from './migrate';
import { sqlStore } from './sqlStore';
import type { Store } from './types';
import { lockFolder } from './folderLock';
import { DatabaseUnavailableError, isConnectionLoss } from './unavailable';
import { StorageFullError, type StorageWatch, isDiskFull, mayWrite } from './storageFull';

export interface OpenStoreOptions {
  /** PostgreSQL connection URL; PGlite when absent. */
  readonly databaseUrl?: string;
  /** Folder for PGlite's files (`<dataDir>/db`), locked to this process until `close` (`folderLock.ts`); in memory when absent. */
  readonly dataDir?: string;
  /** A schema to use instead of `public` (created when missing), e.g. one per test. */
  readonly schema?: string;
  /** An already open PGlite to use (its owner closes it). */
  readonly pglite?: PGlite;
  /** PostgreSQL pool size. */
  readonly poolSize?: number;
  /**
   * The state of the database's disk (`storageFull.ts`): told of writes refused for want of space,
   * and on PGlite asked before each write. Without it a full disk still fails as `StorageFullError`.
   */
  readonly storage?: StorageWatch;
}

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openStore(opts: OpenStoreOptions = {}): Promise<Store> {
  if (opts.schema !== undefined && !SCHEMA.test(opts.schema))
    throw new Error(`Schema name "${opts.schema}" is not allowed: use lower-case letters, digits and "_".`);
  const driver = opts.databaseUrl
    ? await postgresDriver(opts.databaseUrl, opts.schema, opts.poolSize ?? 10, opts.storage)
    : await pgliteDriver(opts);
  try {
    await migrate(driver);
  } catch (e) {
    await driver.close();
    throw new Error(`Could not apply the database migrations: ${(e as Error).message}`);
  }
  return sqlStore(driver);
}

async function pgliteDriver(opts: OpenStoreOptions): Promise<Driver> {
  let release = () => {};
  let db = opts.pglite;
  if (!db) {
    let dir: string | undefined;
    if (opts.dataDir) {
      mkdirSync(opts.dataDir, { recursive: true });
      dir = path.join(opts.dataDir, 'db');
      release = await lockFolder(opts.dataDir);
    }
    try {
      db = new PGlite(dir);
      await db.waitReady;
    } catch (e) {
      release();
      throw new Error(`Could not open the embedded database in ${dir ?? 'memory'}: ${(e as Error).message}`);
    }
  }
  const owned = !opts.pglite;
  const pgl = db;
  if (opts.schema) await pgl.exec(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}; SET search_path TO ${opts.schema}`);
  const { storage } = opts;
  /** A write is refused before it reaches PGlite while the disk is under its reserve (see `storageFull.ts`). */
  const guarded = async <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    if (storage?.refusing && mayWrite(sql)) storage.guard();
    try {
      return await run();
    } catch (e) {
      if (isDiskFull(e)) throw storage ? storage.failed(e) : new StorageFullError(e);
      throw e;
    }
  };
  const wrap = (q: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    query: <R>(sql: string, params?: unknown[]) =>
      guarded(sql, async () => ({ rows: (await q.query<R>(sql, params)).rows })),
    exec: (sql: string) =>
      guarded(sql, async () => {
        await q.exec(sql);
      }),
  });
  const transaction: Driver['transaction'] = (fn) => pgl.transaction((tx) => fn(wrap(tx)));
  return {
    kind: 'pglite',
    ...wrap(pgl),
    transaction,
    hold: (fn) => fn({ transaction }),
    close: async () => {
      if (owned) await pgl.close();
      release();
    },
  };
}

async function postgresDriver(
  url: string,
  schema: string | undefined,
  max: number,
  storage: StorageWatch | undefined,
): Promise<Driver> {
  if (schema) {
    const c = new pg.Client({ connectionString: url });
    // Its failure reaches the query below; without a listener it would end the process.
    c.on('error', () => {});
    try {
      await c.connect();
      // Under a lock: two servers creating the same schema at once would otherwise collide.
      await c.query('BEGIN');
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('arc-studio.create-schema'))`);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await c.query('COMMIT');
    } catch (e) {
      throw new Error(
        `Could not connect to PostgreSQL at ${redact(url)}: ${(e as Error).message}. Check DATABASE_URL and that the server is running.`,
      );
    } finally {
      await c.end().catch(() => {});
    }
  }
  // Connections that die while PostgreSQL restarts are found by the keep-alive, not only by the
  // next query; a connect that hangs (a server half there) fails instead of holding a request.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    keepAlive: true,
    connectionTimeoutMillis: 10_000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // WARNING: node-postgres emits 'error' on a client whose connection ends (PostgreSQL restarting,
  // a failover, an administrator's pg_terminate_backend), and an 'error' event without a listener
  // ends the process. The pool listens only while a client is idle; a client checked out (by
  // `pool.query` between its own listeners, or held in a transaction) would have none. So every
  // client gets one for its whole life: the query waiting on it fails with the same error (and
  // is answered 503, see `unavailable.ts`), and the pool drops the client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  let lastIdleReport = 0;
  pool.on('error', (e) => {
    // Idle clients all fail together when the server goes away: one line per burst is enough.
    const now = Date.now();
    if (now - lastIdleReport > 5_000)
      console.error(`PostgreSQL connection lost (${e.message}); the pool reconnects on the next request.`);
    lastIdleReport = now;
  });
  try {
    (await pool.connect()).release();
  } catch (e) {
    await pool.end().catch(() => {});
    throw new Error(
      `Could not connect to PostgreSQL at ${redact(url)}: ${(e as Error).message}. Check DATABASE_URL and that the server is running.`,
    );
  }
  /**
   * A lost connection becomes a `DatabaseUnavailableError` and a full disk a `StorageFullError`
   * (both answered 503); other errors pass unchanged.
   */
  const lost = (e: unknown): never => {
    if (isConnectionLoss(e)) throw new DatabaseUnavailableError(e);
    if (isDiskFull(e)) throw storage ? storage.failed(e) : new StorageFullError(e);
    throw e;
  };
  /** A write that succeeds while the disk was full says that PostgreSQL has space again. */
  const stored = (sql: string) => {
    if (storage?.full && mayWrite(sql)) storage.wrote();
  };
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    query: async <R>(sql: string, params?: unknown[]) => {
      const rows = (await q.query(sql, params).catch(lost)).rows as R[];
      stored(sql);
      return { rows };
    },
    exec: async (sql: string) => {
      await q.query(sql).catch(lost);
      stored(sql);
    },
  });
  /**
   * Transactions on one checked-out client. While held, the connection's end is noted here, so
   * the client is destroyed on release rather than handed to the next request, and a transaction
   * after it fails at once instead of waiting on a dead socket.
   */
  const holding = (client: pg.PoolClient): Transacting & { release(): void } => {
    let broken: Error | undefined;
    const onError = (e: Error) => {
      broken ??= e;
    };
    client.on('error', onError);
    return {
      async transaction(fn) {
        if (broken) throw new DatabaseUnavailableError(broken);
        try {
          await client.query('BEGIN').catch(lost);
          const out = await fn(wrap(client));
          await client.query('COMMIT').catch(lost);
          return out;
        } catch (e) {
          await client.query('ROLLBACK').catch((r: Error) => {
            broken ??= r;
          });
          throw e;
        }
      },
      release() {
        client.removeListener('error', onError);
        client.release(broken);
      },
    };
  };
  const hold: Driver['hold'] = async (fn) => {
    const client = await pool.connect().catch(lost);
    const held = holding(client);
    try {
      return await fn(held);
    } finally {
      held.release();
    }
  };
  return {
    kind: 'postgres',
    ...wrap(pool),
    transaction: (fn) => hold((conn) => conn.transaction(fn)),
    hold,
    close: () => pool.end(),
  };
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable URL)';
  }
}
