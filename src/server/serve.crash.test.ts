/**
 * Nothing acknowledged is lost when the server dies: the real `arc-studio serve` is killed with
 * SIGKILL in the middle of a session, restarted on the same data, and the session goes on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './store/pgCluster';
import { seedDataDir } from './store/testing';
import { kill9, serveDatabases, serveFolders, startServe } from './testing/serve';

const ADMIN = 'crash-test-researcher-token-0123456789';

const targets = serveDatabases('crash');

describe.each(targets)('serve killed with SIGKILL on $name', (target) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('keeps every acknowledged event and the session goes on after a restart', async () => {
    const { dist, dataDir, remove } = serveFolders('arc-studio-crash-');
    cleanups.push(remove);
    const db = await target.database();
    cleanups.push(db.drop);
    const port = await freePort();
    if (!db.url) seedDataDir(dataDir);

    let server = await startServe({ dataDir, dist, port, adminToken: ADMIN, databaseUrl: db.url });
    cleanups.push(() => {
      if (server.proc.exitCode === null) server.proc.kill('SIGKILL');
    });
    expect(server.output()).not.toContain(ADMIN);
    const created = await fetch(`${server.url}/api/studies/sample/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: { PROLIFIC_PID: 'crash' } }),
    });
    expect(created.status).toBe(201);
    const { sessionId, token } = (await created.json()) as { sessionId: string; token: string };
    const send = async (url: string, from: number, to: number): Promise<number> => {
      const events = Array.from({ length: to - from + 1 }, (_, i) => ({
        seq: from + i,
        t: (from + i) * 3.5,
        kind: 'paint',
        data: { row: (from + i) % 30, col: 0, color: 1, stroke: from + i, i: from + i },
      }));
      const res = await fetch(`${url}/api/sessions/${sessionId}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ events }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { ackedThrough: number }).ackedThrough;
    };

    let acked = -1;
    for (let from = 0; from < 150; from += 10) acked = await send(server.url, from, from + 9);
    expect(acked).toBe(149);
    // Batches in flight while the process dies: whatever was acknowledged must survive. The kill
    // comes once one of them moved the acknowledgement on (the server may take them in any order,
    // so an early answer can still say 149 while a later batch waits for the one before it).
    let movedOn: () => void = () => {};
    const someAck = new Promise<void>((r) => {
      movedOn = r;
    });
    const inflight: Promise<void>[] = [];
    for (let from = 150; from < 350; from += 10) {
      inflight.push(
        send(server.url, from, from + 9).then(
          (a) => {
            acked = Math.max(acked, a);
            if (a >= 159) movedOn();
          },
          () => {},
        ),
      );
    }
    await someAck;
    await kill9(server);
    await Promise.all(inflight);
    expect(acked).toBeGreaterThanOrEqual(159);

    server = await startServe({ dataDir, dist, port, adminToken: ADMIN, databaseUrl: db.url });
    const read = async () => {
      const res = await fetch(`${server.url}/api/admin/sessions/${sessionId}/events`, {
        headers: { Authorization: `Bearer ${ADMIN}` },
      });
      return (await res.json()) as { ackedThrough: number; events: { seq: number; data: { i: number } }[] };
    };
    const afterCrash = await read();
    expect(afterCrash.ackedThrough).toBeGreaterThanOrEqual(acked);
    const stored = new Set(afterCrash.events.map((e) => e.seq));
    for (let seq = 0; seq <= acked; seq++) expect(stored.has(seq), `acknowledged event ${seq} was lost`).toBe(true);

    // The client resends everything after what it saw acknowledged, plus more; each is stored once.
    let final = -1;
    for (let from = acked + 1; from < 500; from += 50) final = await send(server.url, from, Math.min(from + 49, 499));
    expect(final).toBe(499);
    const end = await read();
    expect(end.events.map((e) => e.seq)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(end.events.every((e) => e.data.i === e.seq)).toBe(true);
    await kill9(server);
    // Two starts of `serve`: on a heavily loaded machine (or run from the sources, without a server
    // build) each takes tens of seconds.
  });
});
