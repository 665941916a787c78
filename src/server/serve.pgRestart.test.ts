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

const ADMIN = 'pg-restart-test-researcher-token-0123456789';
const PARTICIPANTS = 8;
const EVENTS_PER_BATCH = 5;
/** Generous: a restart on a busy machine takes seconds; every wait below ends on a condition well before. */
const WAIT = { timeout: 180_000, interval: 100 };

interface Refusal {
  status: number;
  error: string;
  retryAfter: string | null;
}

/** A participant's browser: events in order, resent from the first unacknowledged one until acknowledged. */
class Participant {
  acked = -1;
  sent = -1;
  readonly refusals: Refusal[] = [];
  /** Acknowledged events the server later did not have. */
  readonly lost: string[] = [];
  /** Failures that are not an HTTP answer (the server gone). */
  readonly networkErrors: string[] = [];
  private stopping = false;
  private done: Promise<void> | null = null;

  private constructor(
    private readonly url: string,
    readonly sessionId: string,
    private readonly token: string,
  ) {}

  static async join(url: string): Promise<Participant> {
    const res = await fetch(`${url}/api/studies/sample/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    if (res.status !== 201) throw new Error(`creating a session: ${res.status} ${await res.text()}`);
    const { sessionId, token } = (await res.json()) as { sessionId: string; token: string };
    return new Participant(url, sessionId, token);
  }

  /** Sends until `finish` is called and then until everything sent is acknowledged. */
  start(): void {
    this.done = (async () => {
      while (!this.stopping || this.acked < this.sent) {
        // New events only while running; afterwards the unacknowledged ones are sent again.
        if (!this.stopping && this.sent - this.acked < EVENTS_PER_BATCH) this.sent += EVENTS_PER_BATCH;
        const from = this.acked + 1;
        const events = Array.from({ length: this.sent - from + 1 }, (_, i) => ({
          seq: from + i,
          t: (from + i) * 10,
          kind: 'paint',
          data: { row: 0, col: (from + i) % 3, color: 1, stroke: from + i, i: from + i },
        }));
        let pause = 20;
        try {
          const res = await fetch(`${this.url}/api/sessions/${this.sessionId}/events`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.token}` },
            body: JSON.stringify({ events }),
          });
          const body = (await res.json()) as { ackedThrough?: number; error?: string };
          if (res.status === 200) {
            const acked = body.ackedThrough ?? -1;
            // The server no longer holds events it acknowledged: the browser has already let them go.
            if (acked < this.acked)
              this.lost.push(`the server acknowledged through ${this.acked}, then answered ackedThrough ${acked}`);
            this.acked = Math.max(this.acked, acked);
          } else {
            this.refusals.push({
              status: res.status,
              error: body.error ?? '',
              retryAfter: res.headers.get('retry-after'),
            });
            pause = 200;
          }
        } catch (e) {
          this.networkErrors.push((e as Error).message);
          pause = 200;
        }
        // The pace of a participant's browser, not a wait for anything.
        await new Promise((r) => setTimeout(r, pause));
      }
    })();
  }

  /** No new events from now on; resolves when everything sent is acknowledged. */
  finish(): Promise<void> {
    this.stopping = true;
    return this.done ?? Promise.resolve();
  }
}

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

    const participants = await Promise.all(Array.from({ length: PARTICIPANTS }, () => Participant.join(server.url)));
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
      // The retries got everything acknowledged...
      expect(p.acked).toBe(p.sent);
      const res = await fetch(`${server.url}/api/admin/sessions/${p.sessionId}/events`, {
        headers: { Authorization: `Bearer ${ADMIN}` },
      });
      expect(res.status).toBe(200);
      const stored = (await res.json()) as { ackedThrough: number; events: { seq: number; data: { i: number } }[] };
      // ...and each acknowledged event is stored once: none lost, none doubled, none changed.
      expect(stored.ackedThrough).toBe(p.acked);
      expect(stored.events.map((e) => e.seq)).toEqual(Array.from({ length: p.acked + 1 }, (_, i) => i));
      expect(stored.events.every((e) => e.data.i === e.seq)).toBe(true);
    }
  }, 600_000);
});
