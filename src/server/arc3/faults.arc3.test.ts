/**
 * Game runs hold through database faults: two `arc-studio serve` processes on one real
 * PostgreSQL, participants playing ls20 through the participant routes with the study page's own
 * controller (`ServerGameController`: a step sent again after a 503 or a lost connection, a run
 * resumed with the end of its log after `run_lost`) and the page's outbox sending their events,
 * each request going to one server or the other as a load balancer sends them. Meanwhile the
 * database is restarted (`pg_ctl restart -m fast`, then `-m immediate`), its postmaster killed
 * with SIGKILL and started again, and one server killed with SIGKILL and started again.
 * Afterwards every acknowledged event is stored once, every step a participant was answered is
 * stored once with the frame they saw, and every run reads back whole and verifies on the engine.
 *
 * Its size is set for the suite; `ARC_STUDIO_FAULT_PLAYERS`, `ARC_STUDIO_FAULT_STEPS` (steps
 * each participant plays between faults) and `ARC_STUDIO_FAULT_ROUNDS` (times the four faults
 * come) make it larger by hand, e.g. twice: 12, 8 and 2.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ServerGameController, sessionRunApi } from '../../client/game/serverController';
import type { LogEvent } from '../../core/log/events';
import { freePort, startPgCluster, type PgCluster } from '../store/pgCluster';
import { kill9, serveFolders, startServe, type ServeProcess } from '../testing/serve';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const ADMIN = 'arc3-faults-test-researcher-token-0123456789';
const GAME = 'ls20-9607627b';
const size = (name: string, fallback: number): number => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${process.env[name]} is not a whole number from 1`);
  return n;
};
const PLAYERS = size('ARC_STUDIO_FAULT_PLAYERS', 6);
const STEPS = size('ARC_STUDIO_FAULT_STEPS', 4);
const ROUNDS = size('ARC_STUDIO_FAULT_ROUNDS', 1);
const MOVES = ['ACTION1', 'ACTION2', 'ACTION3', 'ACTION4'] as const;
/** How long a condition may take on a busy machine (never a wait of its own). */
const WAIT = { timeout: 180_000, interval: 50 };
const ENGINE_ENV = {
  ARC_STUDIO_PYTHONPATH: path.join(VENDOR, 'python'),
  PYTHONDONTWRITEBYTECODE: '1',
  ARC_STUDIO_ARC3_WORKERS: '1',
  ARC_STUDIO_DB_POOL: '4',
};

/** One participant: their page's log, its controller, and the outbox's acknowledged seq. */
interface Page {
  readonly sessionId: string;
  readonly token: string;
  readonly log: LogEvent[];
  readonly controller: ServerGameController;
  acked: number;
}

const steps = (p: Page) => p.log.filter((e) => e.kind === 'game.action');

describe('game runs through database faults, on two servers sharing PostgreSQL', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('stores every acknowledged event and step once, and every run reads back whole and verifies', async () => {
    // As in production: a commit PostgreSQL acknowledged survives its crash.
    const cluster: PgCluster = await startPgCluster({ crashSafe: true });
    cleanups.push(() => cluster.stop());
    const { tmp, dist, remove } = serveFolders('arc-studio-arc3-faults-');
    cleanups.push(remove);
    const options = async (k: number) => ({
      dataDir: path.join(tmp, `s${k}`),
      dist,
      port: await freePort(),
      adminToken: ADMIN,
      databaseUrl: cluster.url,
      env: ENGINE_ENV,
      args: ['--arc3-games', path.join(VENDOR, 'environment_files')],
    });
    const configs = [await options(0), await options(1)];
    const servers: (ServeProcess | null)[] = [];
    for (const o of configs) servers.push(await startServe(o));
    cleanups.push(async () => {
      for (const s of servers) if (s) await kill9(s);
    });

    // The pages' calls name paths on their own origin: a balancer sends each to the next server up.
    let turn = 0;
    const pageFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const up = servers.filter((s): s is ServeProcess => s !== null);
      const server = up[turn++ % up.length];
      return pageFetch(new URL(String(input), server.url), init);
    };
    cleanups.push(() => {
      globalThis.fetch = pageFetch;
    });
    const admin = async (method: string, route: string, body?: unknown) => {
      const res = await pageFetch(`${servers[0]!.url}${route}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, text: await res.text() };
    };

    const saved = await admin('POST', '/api/admin/studies/faults', {
      definition: {
        title: 'Faults',
        consent: 'c',
        instructions: 'Play.',
        completion: { code: 'C' },
        items: [{ kind: 'game', id: 'g', game: GAME }],
      },
    });
    expect(saved.status, saved.text).toBeLessThan(300);

    const pages: Page[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const res = await fetch('/api/studies/faults/sessions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ params: { PROLIFIC_PID: `faults-${i}` } }),
      });
      expect(res.status).toBe(201);
      const { sessionId, token } = (await res.json()) as { sessionId: string; token: string };
      const log: LogEvent[] = [];
      const sink = {
        append: (kind: string, data: Record<string, unknown>) => {
          const e = { seq: log.length, t: log.length * 10, kind, data };
          log.push(e);
          return e;
        },
      };
      sink.append('session.start', { mode: 'study', wallClock: '2026-01-01T00:00:00.000Z' });
      sink.append('item.start', { item: 'g' });
      const controller = new ServerGameController(
        { id: GAME, title: 'ls20', fps: 1000, levels: 7 },
        sessionRunApi(sessionId, token, 'g'),
        sink,
      );
      cleanups.push(() => controller.dispose());
      pages.push({ sessionId, token, log, controller, acked: -1 });
    }

    // The outbox: every event after the last acknowledged one, sent again until acknowledged.
    let playing = true;
    let sending = true;
    const outboxes = pages.map(async (p) => {
      while (sending || p.acked < p.log.length - 1) {
        const events = p.log.slice(p.acked + 1);
        let pause = 100;
        if (events.length) {
          try {
            const res = await fetch(`/api/sessions/${p.sessionId}/events`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${p.token}` },
              body: JSON.stringify({ events }),
            });
            const body = (await res.json()) as { ackedThrough?: number; error?: string };
            if (res.status === 200) {
              expect(body.ackedThrough, 'an acknowledged event was lost').toBeGreaterThanOrEqual(p.acked);
              p.acked = body.ackedThrough!;
              pause = 20;
            } else expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(500);
          } catch (e) {
            if (!(e instanceof TypeError)) throw e;
          }
        }
        // The pace of a browser's outbox, not a wait for anything.
        await new Promise((r) => setTimeout(r, pause));
      }
    });

    // Each page plays one action after another, the next once the last one's answer is logged.
    const answered = (p: Page, n: number) =>
      vi.waitFor(() => {
        expect(p.controller.error ?? '').toBe('');
        expect(steps(p).length).toBe(n);
      }, WAIT);
    const players = pages.map(async (p, i) => {
      p.controller.start();
      await answered(p, 1);
      for (let n = 1; playing; n++) {
        const state = p.controller.hud.getState().state;
        const ended = state === 'WIN' || state === 'GAME_OVER';
        p.controller.act({ action: ended ? 'RESET' : MOVES[(i * 7 + n * 3) % MOVES.length] });
        await answered(p, n + 1);
      }
    });
    const playedOn = async () => {
      const from = pages.map((p) => steps(p).length);
      await vi.waitFor(() => {
        for (const [k, p] of pages.entries()) {
          expect(p.controller.error ?? '', `participant ${k}`).toBe('');
          expect(steps(p).length).toBeGreaterThanOrEqual(from[k] + STEPS);
        }
      }, WAIT);
    };

    const faults: [string, () => Promise<void>][] = [
      [
        'a server killed',
        async () => {
          const s = servers[1]!;
          servers[1] = null;
          await kill9(s);
          servers[1] = await startServe(configs[1]);
        },
      ],
      ['pg_ctl restart -m fast', () => cluster.halt('fast').then(() => cluster.resume())],
      ['the postmaster killed', () => cluster.killPostmaster().then(() => cluster.resume())],
      ['pg_ctl restart -m immediate', () => cluster.halt('immediate').then(() => cluster.resume())],
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [k, [, fault]] of faults.entries()) {
        await playedOn();
        // The participants stop as the last fault comes, with steps in flight: nothing after it
        // gives a step answered before it a second chance to be stored.
        if (round === ROUNDS - 1 && k === faults.length - 1) playing = false;
        await fault();
      }
    }
    await Promise.all(players);
    sending = false;
    await Promise.all(outboxes);
    for (const s of servers) expect(s!.output()).not.toMatch(/TypeError|ReferenceError|unhandled/i);

    const db = new pg.Client({ connectionString: cluster.url });
    await db.connect();
    cleanups.push(() => db.end());
    for (const [k, p] of pages.entries()) {
      const who = `participant ${k} (session ${p.sessionId})`;
      // Every event once, as logged.
      const events = await db.query<{ seq: number; kind: string }>(
        `SELECT seq, kind FROM events WHERE session_id = $1 ORDER BY seq`,
        [p.sessionId],
      );
      expect(
        events.rows.map((e) => `${e.seq} ${e.kind}`),
        who,
      ).toEqual(p.log.map((e) => `${e.seq} ${e.kind}`));
      // Every step answered, once, with the frame the participant saw; and only those.
      const seen = steps(p).map((e) => e.data as { run: string; step: number; frameHash: string; action: string });
      const run = seen[0].run;
      expect(new Set(seen.map((s) => s.run)), who).toEqual(new Set([run]));
      const stored = await db.query<{ step: number; frame_hash: string; action: string }>(
        `SELECT step, frame_hash, action FROM game_steps WHERE run_id = $1 ORDER BY step`,
        [run],
      );
      expect(
        stored.rows.map((r) => `${r.step} ${r.action} ${r.frame_hash}`),
        who,
      ).toEqual(seen.map((s) => `${s.step} ${s.action} ${s.frameHash}`));
      // Read back whole: a document that parses, with every step.
      const read = await admin('GET', `/api/admin/sessions/${p.sessionId}/runs`);
      expect(read.status, `${who}: ${read.text}`).toBe(200);
      const doc = JSON.parse(read.text) as { runs: { runId: string; steps: unknown[]; damaged?: unknown }[] };
      expect(
        doc.runs.map((r) => [r.runId, r.steps.length, r.damaged ?? null]),
        who,
      ).toEqual([[run, seen.length, null]]);
      // Played again on the engine, every step matches.
      const started = await admin('POST', `/api/admin/sessions/${p.sessionId}/runs/verify`);
      expect(started.status, started.text).toBe(202);
      const { job } = JSON.parse(started.text) as { job: string };
      await vi.waitFor(async () => {
        const r = await admin('GET', `/api/admin/sessions/${p.sessionId}/runs/verify/${job}`);
        const body = JSON.parse(r.text) as { state: string; report?: string[]; check?: { ok: boolean } };
        expect(body.state, r.text).toBe('done');
        expect(body.check?.ok, `${who}: ${body.report?.join('\n')}`).toBe(true);
      }, WAIT);
    }
    // No run read back from the database played to another frame than the stored one.
    const rebuilt = servers.flatMap((s) => s!.output().match(/rebuilt to a frame other.*/g) ?? []);
    expect(rebuilt).toEqual([]);
  }, 600_000);
});
