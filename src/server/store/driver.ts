/**
 * What a database driver gives the stores: queries, transactions and its kind. PGlite and
 * PostgreSQL (`open.ts`) each implement it; the SQL above it is shared.
 */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs several statements without parameters. */
  exec(sql: string): Promise<void>;
}

/** Something that runs transactions: the driver itself, or one connection it holds (`hold`). */
export interface Transacting {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

export interface Driver extends Queryable, Transacting {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` with one connection kept for it throughout, for a sequence of transactions that
   * must not wait for a connection between them (a queue of work drained batch after batch).
   * The connection returns to the pool when `fn` settles. PGlite has one connection anyway.
   *
   * @example
   * await db.hold(async (conn) => { while (queue.length) await conn.transaction(runNext); });
   */
  hold<T>(fn: (conn: Transacting) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
