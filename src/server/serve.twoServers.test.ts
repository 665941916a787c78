/**
 * Two servers on one PostgreSQL, as a deployment behind a load balancer runs them: both
 * `arc-studio serve` processes start at the same instant on a new database (so they migrate it
 * together), 200 participants' batches go to one and the other in turn, one server is killed
 * with SIGKILL half-way and its participants send again to the survivor. Every event is then
 * stored exactly once, and the results are the same whichever server computes them (a third
 * server started with the two computes them first).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './store/pgCluster';
import { freshPostgresDatabase } from './store/testing';
import { serveFolders, startServe, type ServeProcess } from './testing/serve';

const ROOT = path.resolve(__dirname, '../..');
const ADMIN = 'two-servers-researcher-token-0123456789';
const PARTICIPANTS = 200;
const BATCHES = 10;
const BATCH_EVENTS = 20;

type Server = ServeProcess;

const startTwin = (dataDir: string, dist: string, port: number, databaseUrl: string) =>
  startServe({
    dataDir,
    dist,
    port,
    adminToken: ADMIN,
    databaseUrl,
    env: { ARC_STUDIO_DB_POOL: '4', ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000' },
  });

const json = { 'Content-Type': 'application/json' };

/** Participant `p`'s batch `b`: the item's start first, then paint strokes numbered by seq. */
function batch(p: number, b: number) {
  return Array.from({ length: BATCH_EVENTS }, (_, i) => {
    const seq = b * BATCH_EVENTS + i;
    const t = seq * 250 + p;
    if (seq === 0)
      return { seq, t, kind: 'session.start', data: { mode: 'study', wallClock: '2026-01-01T00:00:00.000Z' } };
    if (seq === 1) return { seq, t, kind: 'item.start', data: { item: 'downscale' } };
    return { seq, t, kind: 'paint', data: { row: seq % 3, col: (seq + p) % 3, color: seq % 10, stroke: seq, i: seq } };
  });
}

describe('two servers on one PostgreSQL', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('start together, lose and double nothing when one is killed, and compute the same results', async () => {
    const { tmp, dist, remove } = serveFolders('arc-studio-two-');
    cleanups.push(remove);
    const db = await freshPostgresDatabase('two');
    cleanups.push(db.drop);
    const servers: Server[] = [];
    cleanups.push(() => {
      for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGKILL');
    });

    // Both at the same instant, on a database without a table yet; a third one too, which gets no
    // participant and computes the results at the end from what the other two stored.
    const ports = [await freePort(), await freePort(), await freePort()];
    const started = await Promise.allSettled(
      ports.map((port, k) => startTwin(path.join(tmp, `s${k}`), dist, port, db.url)),
    );
    for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const [a, b, c3] = servers;
    // The sample study, but giving the code to participants who leave items undone (these only paint
    // in the first task): the sessions finish and are flagged, as the study's rule says.
    const sample = JSON.parse(readFileSync(path.join(ROOT, 'data/studies/sample.json'), 'utf8')) as {
      completion: Record<string, unknown>;
    };
    const saved = await fetch(`${a.url}/api/admin/studies/two-servers`, {
      method: 'PUT',
      headers: { ...json, Authorization: `Bearer ${ADMIN}` },
      body: JSON.stringify({ definition: { ...sample, completion: { ...sample.completion, unfinished: 'flag' } } }),
    });
    expect(saved.status, await saved.text()).toBe(201);

    // Sessions made on one server or the other; each participant's batches then alternate.
    const sessions = await Promise.all(
      Array.from({ length: PARTICIPANTS }, async (_, p) => {
        const res = await fetch(`${(p % 2 ? b : a).url}/api/studies/two-servers/sessions`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ params: { PROLIFIC_PID: `two-${p}` } }),
        });
        expect(res.status).toBe(201);
        return (await res.json()) as { sessionId: string; token: string };
      }),
    );

    let acks = 0;
    let killed = false;
    let resent = 0;
    let waited = 0;
    const killAt = (PARTICIPANTS * BATCHES) / 2;
    let killing: Promise<void> | null = null;
    const kill = () => {
      killing ??= new Promise<void>((resolve) => {
        b.proc.once('exit', () => {
          killed = true;
          resolve();
        });
        b.proc.kill('SIGKILL');
      });
      return killing;
    };
    /** Sends what the participant's outbox holds after its last acknowledged event; B's clients go to A once B is gone. */
    const participant = async (p: number) => {
      const { sessionId, token } = sessions[p];
      let acked = -1;
      for (let n = 0; n < BATCHES; n++) {
        for (let attempt = 0; ; attempt++) {
          const target = killed ? a : (p + n) % 2 ? b : a;
          // The outbox sends every event after the last acknowledged one.
          const events = Array.from({ length: n + 1 }, (_, k) => batch(p, k))
            .flat()
            .filter((e) => e.seq > acked);
          try {
            const res = await fetch(`${target.url}/api/sessions/${sessionId}/events`, {
              method: 'POST',
              headers: { ...json, Authorization: `Bearer ${token}` },
              body: JSON.stringify({ events }),
            });
            if (res.status === 503) {
              // Past capacity (a server compiling its code hot at first): wait as the outbox does.
              waited++;
              await new Promise((r) => setTimeout(r, Number(res.headers.get('Retry-After')) * 1000));
              continue;
            }
            expect(res.status, await res.clone().text()).toBe(200);
            acked = ((await res.json()) as { ackedThrough: number }).ackedThrough;
            break;
          } catch (e) {
            if (target !== b || attempt > 20) throw e;
            resent++;
            await kill();
          }
        }
        if (++acks === killAt) void kill();
      }
      expect(acked).toBe(BATCHES * BATCH_EVENTS - 1);
      const fin = await fetch(`${(killed ? a : p % 2 ? b : a).url}/api/sessions/${sessionId}/finish`, {
        method: 'POST',
        headers: { ...json, Authorization: `Bearer ${token}` },
        body: JSON.stringify({ lastSeq: acked }),
      }).catch(() => null);
      if (!fin || fin.status !== 200) {
        const again = await fetch(`${a.url}/api/sessions/${sessionId}/finish`, {
          method: 'POST',
          headers: { ...json, Authorization: `Bearer ${token}` },
          body: JSON.stringify({ lastSeq: acked }),
        });
        expect(again.status).toBe(200);
      }
    };
    await Promise.all(Array.from({ length: PARTICIPANTS }, (_, p) => participant(p)));
    await kill();
    expect(killed).toBe(true);
    expect(b.output()).not.toContain('Error');

    // Every event once, as sent.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const rows = (
        await c.query<{ session_id: string; n: string; distinct_seq: string; lo: number; hi: number; wrong: string }>(
          `SELECT session_id, count(*) AS n, count(DISTINCT seq) AS distinct_seq, min(seq) AS lo, max(seq) AS hi,
           count(*) FILTER (WHERE kind = 'paint' AND (data->>'i')::int <> seq) AS wrong
         FROM events GROUP BY session_id`,
        )
      ).rows;
      expect(rows.length).toBe(PARTICIPANTS);
      for (const r of rows) {
        expect({
          n: Number(r.n),
          distinct: Number(r.distinct_seq),
          lo: r.lo,
          hi: r.hi,
          wrong: Number(r.wrong),
        }).toEqual({
          n: BATCHES * BATCH_EVENTS,
          distinct: BATCHES * BATCH_EVENTS,
          lo: 0,
          hi: BATCHES * BATCH_EVENTS - 1,
          wrong: 0,
        });
      }
      const states = (
        await c.query<{ state: string; n: string }>(`SELECT state, count(*) AS n FROM sessions GROUP BY state`)
      ).rows;
      expect(states.map((s) => [s.state, Number(s.n)])).toEqual([['finished', PARTICIPANTS]]);
      expect((await c.query(`SELECT version FROM schema_migrations`)).rows.length).toBeGreaterThan(0);

      // The results: computed cold by the third server, then cold again by A, then warm.
      const results = async (s: Server) => {
        const res = await fetch(`${s.url}/api/admin/studies/two-servers/results`, {
          headers: { Authorization: `Bearer ${ADMIN}` },
        });
        expect(res.status).toBe(200);
        return res.json() as Promise<{ sessions?: unknown }>;
      };
      const byB = await results(c3);
      expect(Number((await c.query(`SELECT count(*) AS n FROM session_digests`)).rows[0].n)).toBe(PARTICIPANTS);
      await c.query(`DELETE FROM session_digests`);
      const byA = await results(a);
      const warmOnB = await results(c3);
      expect(byA).toEqual(byB);
      expect(warmOnB).toEqual(byB);
      expect(JSON.stringify(byB)).toContain('downscale');
    } finally {
      await c.end();
    }
    console.log(
      `two servers: ${resent} batches sent again to the survivor after the kill, ${waited} answered 503 and sent again`,
    );
    // Two `serve` processes started, one killed and started again, on a heavily loaded machine: minutes.
  }, 300_000);
});
