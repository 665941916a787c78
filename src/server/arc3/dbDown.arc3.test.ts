/**
 * While PostgreSQL is down, a participant playing an arcengine game is answered at once, never
 * kept waiting: the real `arc-studio serve` plays ls20 for a few participants on a PostgreSQL of
 * the test's own, which is stopped (as if it crashed, then in an orderly shutdown) under them.
 * Every game step and event batch sent while it is down is answered before it comes back:
 * 503 `database_unavailable` with Retry-After. When it is back, each run goes on (after a resume
 * with the page's log should the server say `run_lost`, from where the resume's reply says, as
 * the study page does).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeTail, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import { RESUME_LOGGED_MAX } from '../../core/protocol/requests';
import { freePort, startPgCluster } from '../store/pgCluster';
import { kill9, serveFolders, startServe } from '../testing/serve';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const ADMIN = 'arc3-db-down-test-researcher-token-0123456789';
const PLAYERS = 3;
const MOVES = ['ACTION1', 'ACTION2', 'ACTION3', 'ACTION4'] as const;
/** Requests of each kind a player sends while the database is down. */
const TRIES = 4;

interface Answer {
  status: number;
  json: Record<string, unknown>;
  retryAfter: string | null;
}

const post = async (url: string, route: string, token: string | null, body: unknown): Promise<Answer> => {
  const res = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    json: (await res.json()) as Record<string, unknown>,
    retryAfter: res.headers.get('retry-after'),
  };
};

interface Player {
  sessionId: string;
  token: string;
  run: string;
  seen: ServerStep[];
  seq: number;
}

describe('PostgreSQL down under participants playing an arcengine game', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('answers their steps and events at once meanwhile, and their runs go on afterwards', async () => {
    const { dist, dataDir, remove } = serveFolders('arc-studio-arc3-db-down-');
    cleanups.push(remove);
    const cluster = await startPgCluster({ crashSafe: true });
    cleanups.push(() => cluster.stop());
    const server = await startServe({
      dataDir,
      dist,
      port: await freePort(),
      adminToken: ADMIN,
      databaseUrl: cluster.url,
      env: {
        ARC_STUDIO_PYTHONPATH: path.join(VENDOR, 'python'),
        PYTHONDONTWRITEBYTECODE: '1',
        ARC_STUDIO_ARC3_WORKERS: '1',
      },
      args: ['--arc3-games', path.join(VENDOR, 'environment_files')],
    });
    cleanups.push(() => kill9(server));
    const saved = await post(server.url, '/api/admin/studies/down', ADMIN, {
      definition: {
        title: 'Down',
        consent: 'c',
        instructions: 'Play.',
        completion: { code: 'D' },
        items: [{ kind: 'game', id: 'g', game: 'ls20-9607627b' }],
      },
    });
    expect(saved.status).toBeLessThan(300);

    const players: Player[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const s = await post(server.url, '/api/studies/down/sessions', null, { params: {} });
      expect(s.status).toBe(201);
      const { sessionId, token } = s.json as { sessionId: string; token: string };
      const opened = await post(server.url, `/api/sessions/${sessionId}/runs`, token, { item: 'g' });
      expect(opened.status, JSON.stringify(opened.json)).toBe(200);
      const reply = opened.json as unknown as ServerRunReply;
      players.push({ sessionId, token, run: reply.run, seen: [...reply.steps], seq: 0 });
    }
    const actionOf = (i: number, n: number) => ({ step: n, action: MOVES[(i * 5 + n) % MOVES.length] });
    const step = (p: Player, i: number) =>
      post(server.url, `/api/sessions/${p.sessionId}/runs/${p.run}/actions`, p.token, actionOf(i, p.seen.length));
    const events = (p: Player) =>
      post(server.url, `/api/sessions/${p.sessionId}/events`, p.token, {
        events: [{ seq: p.seq, t: p.seq * 10, kind: 'heartbeat', data: {} }],
      });
    /** The page after a `run_lost`: resumes the run with the end of its log. */
    const resume = async (p: Player) => {
      const r = await post(server.url, `/api/sessions/${p.sessionId}/runs`, p.token, {
        item: 'g',
        resume: {
          run: p.run,
          after: p.seen[p.seen.length - 1].step,
          logged: resumeTail(p.seen, RESUME_LOGGED_MAX),
        },
      });
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      // The game goes on from the server's last step, which the reply ends with (earlier than
      // the log's end when the replay of the logged steps stopped).
      const { steps } = r.json as unknown as ServerRunReply;
      const last = steps[steps.length - 1].step;
      p.seen = [...p.seen.filter((s) => s.step < steps[0].step), ...steps];
      expect(p.seen[p.seen.length - 1].step).toBe(last);
    };
    /** Plays and logs until one step and one batch of each player are stored, resuming where asked. */
    const playOn = async () => {
      for (const [i, p] of players.entries()) {
        let s = await step(p, i);
        if (s.status === 404 && s.json.error === 'run_lost') {
          await resume(p);
          s = await step(p, i);
        }
        expect(s.status, JSON.stringify(s.json)).toBe(200);
        p.seen.push(s.json as unknown as ServerStep);
        const e = await events(p);
        expect(e.status, JSON.stringify(e.json)).toBe(200);
        p.seq++;
      }
    };

    await playOn();
    for (const mode of ['immediate', 'fast'] as const) {
      await cluster.halt(mode);
      // Every request below is answered while the database is still down: one that waited for
      // it to come back would keep this loop, and the test, from ever getting there.
      for (const [i, p] of players.entries()) {
        const answers: Answer[] = [];
        for (let k = 0; k < TRIES; k++) answers.push(await step(p, i), await events(p));
        // A step is stored before it is answered, so none is answered while nothing can be stored.
        for (const a of answers) {
          expect(a.status, JSON.stringify(a.json)).toBe(503);
          expect(a.json.error).toBe('database_unavailable');
          expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
        }
      }
      expect(server.proc.exitCode, server.output()).toBeNull();
      await cluster.resume();
      // Retried as the page retries: the first answers may still be 503 while the pool reconnects.
      await expect
        .poll(async () => (await post(server.url, '/api/studies/down/sessions', null, { params: {} })).status, {
          timeout: 120_000,
          interval: 200,
        })
        .toBe(201);
      await playOn();
    }
    expect(server.output()).not.toMatch(/Unhandled|uncaught/i);
  }, 600_000);
});
