/**
 * Which failures of node-postgres mean "the database is away" (answered 503, sent again) and
 * which stay the request's own failure (500): on real errors of the test PostgreSQL.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freePort } from './pgCluster';
import { postgresUrl } from './testing';
import { DatabaseUnavailableError, databaseUnavailable, isConnectionLoss } from './unavailable';

/** The error `fn` rejects with. */
async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

describe('a lost database connection', () => {
  it('is a connection refused, and a connection ended by the server under a client', async () => {
    const nobody = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres` });
    expect(isConnectionLoss(await failure(() => nobody.connect()))).toBe(true);

    const victim = new pg.Client({ connectionString: postgresUrl() });
    let emitted: Error | null = null;
    // Without a listener this event would end the process: the trap `open.ts` guards every pooled client against.
    victim.on('error', (e) => {
      emitted = e;
    });
    await victim.connect();
    const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    try {
      // Its failure is taken at once: it comes while the terminate below is still answering.
      const during = failure(() => victim.query('SELECT pg_sleep(30)'));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      const e = await during;
      expect(isConnectionLoss(e), String(e)).toBe(true);
      await expect.poll(() => emitted).not.toBeNull();
      expect(isConnectionLoss(emitted)).toBe(true);
      // The client is done for; what it is asked next fails the same way.
      expect(isConnectionLoss(await failure(() => victim.query('SELECT 1')))).toBe(true);
    } finally {
      await admin.end();
      await victim.end().catch(() => {});
    }
  });

  it('is not a statement the database refuses', async () => {
    const c = new pg.Client({ connectionString: postgresUrl() });
    await c.connect();
    try {
      expect(isConnectionLoss(await failure(() => c.query('SELEC 1')))).toBe(false);
      expect(isConnectionLoss(await failure(() => c.query('SELECT 1/0')))).toBe(false);
    } finally {
      await c.end();
    }
    expect(isConnectionLoss(new Error('Study x has no version 3'))).toBe(false);
  });

  it('is found through the causes of an error that wraps it', () => {
    const lost = new DatabaseUnavailableError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    );
    expect(databaseUnavailable(new Error('reading the session', { cause: lost }))).toBe(lost);
    expect(databaseUnavailable(new Error('something else'))).toBeNull();
    expect(lost.message).toBe('The database is not reachable: connect ECONNREFUSED 127.0.0.1:1');
  });
});
