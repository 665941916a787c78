/**
 * No step a participant saw is lost when the server dies: the real `arc-studio serve` plays
 * ls20 on the official engine for a few participants at once, is killed with SIGKILL while
 * their steps are in flight (answered, being stored, or still in the worker), restarted on the
 * same data, and every step any participant was answered is in the stored log, identical. A step
 * whose answer never came is sent again, as the study page does, and the run goes on from there:
 * answered from the log when it was stored before the kill, played again otherwise.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerRunReply, ServerStep } from '../../core/game/serverGame';
import { freePort } from '../store/pgCluster';
import { seedDataDir } from '../store/testing';
import { kill9, serveDatabases, serveFolders, startServe, type ServeProcess } from '../testing/serve';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const ADMIN = 'arc3-crash-test-researcher-token-0123456789';
const GAME = 'ls20-9607627b';
const PLAYERS = 4;
/** The kill comes once this many steps were answered in all. */
const ANSWERED_BEFORE_KILL = 40;
const MOVES = ['ACTION1', 'ACTION2', 'ACTION3', 'ACTION4'] as const;

const targets = serveDatabases('arc3crash');

interface Player {
  sessionId: string;
  token: string;
  run: string;
  seen: ServerStep[];
}

const post = async (
  url: string,
  route: string,
  token: string | null,
  body: unknown,
): Promise<{ status: number; json: unknown }> => {
  const res = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
};

/** The action a player sends as step `n` (the same when the step is sent again). */
const actionOf = (player: number, n: number) => ({ step: n, action: MOVES[(player * 7 + n * 3) % MOVES.length] });

describe.each(targets)('serve playing arcengine games, killed with SIGKILL on $name', (target) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('keeps every step a participant was answered, and each run goes on from it after a restart', async () => {
    const { dist, dataDir, remove } = serveFolders('arc-studio-arc3-crash-');
    cleanups.push(remove);
    const db = await target.database();
    cleanups.push(db.drop);
    const port = await freePort();
    if (!db.url) seedDataDir(dataDir);
    const options = {
      dataDir,
      dist,
      port,
      adminToken: ADMIN,
      databaseUrl: db.url,
      env: { ARC_STUDIO_PYTHONPATH: path.join(VENDOR, 'python'), PYTHONDONTWRITEBYTECODE: '1' },
      args: ['--arc3-games', path.join(VENDOR, 'environment_files')],
    };
    let server: ServeProcess = await startServe(options);
    cleanups.push(() => kill9(server));

    const study = await post(server.url, '/api/admin/studies/crash', ADMIN, {
      definition: {
        title: 'Crash',
        consent: 'c',
        instructions: 'Play.',
        completion: { code: 'C' },
        items: [{ kind: 'game', id: 'g', game: GAME }],
      },
    });
    expect(study.status, JSON.stringify(study.json)).toBeLessThan(300);
    const players: Player[] = [];
    for (let i = 0; i < PLAYERS; i++) {
      const s = await post(server.url, '/api/studies/crash/sessions', null, { params: { PROLIFIC_PID: `crash-${i}` } });
      expect(s.status).toBe(201);
      const { sessionId, token } = s.json as { sessionId: string; token: string };
      const opened = await post(server.url, `/api/sessions/${sessionId}/runs`, token, { item: 'g' });
      expect(opened.status, JSON.stringify(opened.json)).toBe(200);
      const reply = opened.json as ServerRunReply;
      players.push({ sessionId, token, run: reply.run, seen: [...reply.steps] });
    }

    // Every player steps back to back; the kill comes in the middle of their steps.
    let answered = 0;
    let killed = false;
    let kill: () => void = () => {};
    const enough = new Promise<void>((r) => {
      kill = r;
    });
    const playing = players.map(async (p, i) => {
      while (!killed) {
        const n = p.seen.length;
        const r = await post(
          server.url,
          `/api/sessions/${p.sessionId}/runs/${p.run}/actions`,
          p.token,
          actionOf(i, n),
        ).catch(() => null);
        if (!r || r.status !== 200) return;
        p.seen.push(r.json as ServerStep);
        if (++answered >= ANSWERED_BEFORE_KILL) kill();
      }
    });
    await enough;
    killed = true;
    await kill9(server);
    await Promise.all(playing);
    expect(answered).toBeGreaterThanOrEqual(ANSWERED_BEFORE_KILL);

    server = await startServe(options);
    for (const [i, p] of players.entries()) {
      // The whole stored log, as a resume from before step 0 reads it.
      const log = await post(server.url, `/api/sessions/${p.sessionId}/runs`, p.token, {
        item: 'g',
        resume: { run: p.run, after: -1 },
      });
      expect(log.status).toBe(200);
      const stored = (log.json as ServerRunReply).steps;
      expect(stored.length, `player ${i}: a step the participant saw is missing from the log`).toBeGreaterThanOrEqual(
        p.seen.length,
      );
      expect(stored.slice(0, p.seen.length)).toEqual(p.seen);
      // The step in flight at the kill is sent again: the log's answer if it was stored, played now if not.
      const again = await post(
        server.url,
        `/api/sessions/${p.sessionId}/runs/${p.run}/actions`,
        p.token,
        actionOf(i, p.seen.length),
      );
      expect(again.status).toBe(200);
      const step = again.json as ServerStep;
      if (stored.length > p.seen.length) expect(step).toEqual(stored[p.seen.length]);
      expect(step).toMatchObject({ step: p.seen.length, action: actionOf(i, p.seen.length).action });
      const next = await post(
        server.url,
        `/api/sessions/${p.sessionId}/runs/${p.run}/actions`,
        p.token,
        actionOf(i, p.seen.length + 1),
      );
      expect(next.status).toBe(200);
      expect(next.json).toMatchObject({ step: p.seen.length + 1 });
    }
    // Two starts of the server with its Python workers, on a busy machine.
  }, 240_000);
});
