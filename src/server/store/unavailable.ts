/**
 * The database went away (PostgreSQL restarting, failing over, refusing connections): a
 * request that needed it is answered 503 `database_unavailable` with `Retry-After`, never a
 * crash, and is safe to send again (event batches are idempotent on `(sessionId, seq)`).
 */

/** Seconds a client waits before sending a request refused because the database was away. */
export const DATABASE_RETRY_AFTER_S = 2;

/**
 * A query failed because the connection to the database was lost or could not be made. Its
 * outcome is unknown when it was a COMMIT: the request must be one that is safe to repeat.
 */
export class DatabaseUnavailableError extends Error {
  readonly code = 'database_unavailable';
  constructor(cause: unknown) {
    super(`The database is not reachable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** Socket errors of a connection that was refused, reset or cut. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * SQLSTATEs of a server that is going away or not there yet: class 08 (connection exception),
 * 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now ("the database system is
 * starting up"), 53300 too_many_connections.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** What node-postgres says when a client's connection ended under it or it cannot connect in time. */
const MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
];

/** True for an error of node-postgres that means the connection, not the statement, failed. */
export function isConnectionLoss(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)))
    return true;
  // An AggregateError (a connect that tried several addresses) is lost when all its parts are.
  if (e instanceof AggregateError && e.errors.length) return e.errors.every(isConnectionLoss);
  return MESSAGES.some((m) => e.message.includes(m));
}

/** The `DatabaseUnavailableError` in `e` or its causes, if any. */
export function databaseUnavailable(e: unknown): DatabaseUnavailableError | null {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    if (cur instanceof DatabaseUnavailableError) return cur;
  }
  return null;
}
