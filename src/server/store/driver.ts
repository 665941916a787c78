/**
 * What a database driver gives the stores: queries, transactions and its kind. PGlite and
 * PostgreSQL (`open.ts`) each implement it; the SQL above it is shared.
 */
export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs several statements without parameters. */
  exec(sql: string): Promise<void>;
}

export interface Driver extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
