/**
 * A PostgreSQL restart costs retried requests, never the server: the real `arc-studio serve`
 * runs on a PostgreSQL of this test's own, participants send event batches and send them again
 * when refused (as the browser's outbox does), and the database is stopped (as if it crashed,
 * then in an orderly shutdown) and started again under them. Every wait is on a condition.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startPgCluster, type PgCluster } from './store/pgCluster';
import { kill9, startServe, type ServeProcess } from './testing/serve';
import { EventSender } from './testing/eventSender';

const ADMIN = 'pg-restart-test-researcher-token-0123456789';
const PARTICIPANTS = 8;
const EVENTS_PER_BATCH = 5;
/** Generous: a restart on a busy machine takes seconds; every wait below ends on a condition well before. */
const WAIT = { timeout: 180_000, interval: 100 };

describe('PostgreSQL restarted under load', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('answers 503 with Retry-After meanwhile, stays up, and stores every acknowledged event exactly once', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-pg-restart-'));
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const dist = path.join(tmp, 'dist');
    mkdirSync(dist);
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>test</title>');
    // As in production: a commit PostgreSQL acknowledged survives its crash.
    const cluster: PgCluster = await startPgCluster({ crashSafe: true });
    cleanups.push(() => cluster.stop());
    const server: ServeProcess = await startServe({
      dataDir: path.join(tmp, 'data'),
      dist,
      port: await freePort(),
      adminToken: ADMIN,
      databaseUrl: cluster.url,
      env: { ARC_STUDIO_SESSION_EVENTS_PER_SECOND: '10000', ARC_STUDIO_DB_POOL: '6' },
    });
    cleanups.push(() => kill9(server));

    const participants = await Promise.all(
      Array.from({ length: PARTICIPANTS }, () => EventSender.join(server.url, { perBatch: EVENTS_PER_BATCH })),
    );
    for (const p of participants) p.start();
    // Every condition below first checks that the server is still there and has lost nothing, so
    // that a crash or a loss fails with what happened rather than a timeout.
    const up = (): void => {
      if (server.proc.exitCode !== null || server.proc.signalCode !== null)
        throw new Error(`serve ended (${server.proc.exitCode ?? server.proc.signalCode}):\n${server.output()}`);
      const lost = participants.flatMap((p) => p.lost);
      if (lost.length) throw new Error(`acknowledged events lost: ${lost.join('; ')}`);
    };
    const unavailable = () => {
      up();
      return participants.flatMap((p) => p.refusals).filter((r) => r.error === 'database_unavailable').length;
    };
    const progressed = (since: readonly number[]) => {
      up();
      return participants.every((p, i) => p.acked > since[i] + EVENTS_PER_BATCH);
    };

    for (const mode of ['immediate', 'fast'] as const) {
      // Under load: every participant has events acknowledged before the database goes away.
      const before = participants.map((p) => p.acked);
      await expect.poll(() => progressed(before), WAIT).toBe(true);
      const refusedBefore = unavailable();
      await cluster.halt(mode);
      // The participants keep sending and are told to come back later.
      await expect.poll(unavailable, WAIT).toBeGreaterThan(refusedBefore);
      expect(server.proc.exitCode, server.output()).toBeNull();
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(200);
      await cluster.resume();
      // The pool reconnects: every participant gets past what it had acknowledged.
      const down = participants.map((p) => p.acked);
      await expect.poll(() => progressed(down), WAIT).toBe(true);
    }
    const finished = Promise.all(participants.map((p) => p.finish()));
    await expect
      .poll(() => {
        up();
        return participants.every((p) => p.acked === p.sent);
      }, WAIT)
      .toBe(true);
    await finished;

    expect(server.proc.exitCode, server.output()).toBeNull();
    expect(server.proc.signalCode).toBeNull();
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i);
    expect(participants.flatMap((p) => p.networkErrors)).toEqual([]);
    // Every refusal was the retriable one, saying when to come back; none was a 500.
    const refusals = participants.flatMap((p) => p.refusals);
    expect(refusals.length).toBeGreaterThan(0);
    for (const r of refusals) {
      expect(r.status).toBe(503);
      expect(['database_unavailable', 'overloaded']).toContain(r.error);
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    expect(participants.flatMap((p) => p.lost)).toEqual([]);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);

    for (const p of participants) {
      // The retries got everything acknowledged, and each acknowledged event is stored once:
      // none lost, none doubled, none changed.
      expect(p.acked).toBe(p.sent);
      expect(await p.storedOnce(ADMIN)).toBeNull();
    }
  }, 600_000);
});
