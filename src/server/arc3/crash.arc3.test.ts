/**
 * No step a participant saw is lost when the server dies: the real `arc-studio serve` plays
 * ls20 on the official engine for a few participants at once, is killed with SIGKILL while
 * their steps are in flight (answered and not yet stored, being stored, or still in the worker),
 * restarted on the same data, and each participant's page resumes its run with the end of its
 * log, as the study page does: afterwards every step any participant was answered is in the
 * stored log, identical. A step whose answer never came is sent again, and the run goes on from
 * there: answered from the log when it was stored before the kill, played again otherwise.
 */
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServerGameController, sessionRunApi } from '../../client/game/serverController';
import type { LogEvent } from '../../core/log/events';
import { resumeTail, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import { RESUME_LOGGED_MAX } from '../../core/protocol/requests';
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
/** How long the page's steps may take to come back on a busy machine (never a wait of its own). */
const WAIT = { timeout: 180_000, interval: 50 };
/** The engine for the servers under test: one Python worker each, as the runs here need no more (each start imports the engine once). */
const ENGINE_ENV = {
  ARC_STUDIO_PYTHONPATH: path.join(VENDOR, 'python'),
  PYTHONDONTWRITEBYTECODE: '1',
  ARC_STUDIO_ARC3_WORKERS: '1',
};

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

/** The whole stored log of a player's run, as a resume from before step 0 reads it. */
const storedLog = async (url: string, p: Player): Promise<ServerStep[]> => {
  const log = await post(url, `/api/sessions/${p.sessionId}/runs`, p.token, {
    item: 'g',
    resume: { run: p.run, after: -1 },
  });
  expect(log.status, JSON.stringify(log.json)).toBe(200);
  return [...(log.json as ServerRunReply).steps];
};

/** The page's resume after a restart: the end of its log goes back, and the steps the server lacks are stored. */
const resumeWithLog = async (url: string, p: Player): Promise<ServerRunReply> => {
  const last = p.seen[p.seen.length - 1].step;
  const r = await post(url, `/api/sessions/${p.sessionId}/runs`, p.token, {
    item: 'g',
    resume: { run: p.run, after: last, logged: resumeTail(p.seen, RESUME_LOGGED_MAX) },
  });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  const reply = r.json as ServerRunReply;
  expect(reply.replay?.stopped).toBeUndefined();
  return reply;
};

/** Saves the study the tests play: one game item, the vendored ls20. */
async function saveStudy(url: string): Promise<void> {
  const study = await post(url, '/api/admin/studies/crash', ADMIN, {
    definition: {
      title: 'Crash',
      consent: 'c',
      instructions: 'Play.',
      completion: { code: 'C' },
      items: [{ kind: 'game', id: 'g', game: GAME }],
    },
  });
  expect(study.status, JSON.stringify(study.json)).toBeLessThan(300);
}

describe.each(targets)('serve playing arcengine games, killed with SIGKILL on $name', (target) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /**
   * A data folder (and database) of the test's own, and `start()` for a `serve` on it playing the
   * vendored games (`unstored`: answering steps and storing none past the opening, the moment
   * between answer and commit made certain); each server started is killed after the test.
   */
  async function serveFolder(prefix: string) {
    const { dist, dataDir, remove } = serveFolders(prefix);
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
      args: ['--arc3-games', path.join(VENDOR, 'environment_files')],
    };
    return {
      async start({ unstored = false } = {}): Promise<ServeProcess> {
        const env = unstored ? { ...ENGINE_ENV, ARC_STUDIO_TEST_UNSTORED_STEPS: '1' } : ENGINE_ENV;
        const server = await startServe({ ...options, env });
        cleanups.push(() => kill9(server));
        return server;
      },
    };
  }

  it('keeps every step a participant was answered, and each run goes on from it after a restart', async () => {
    const folder = await serveFolder('arc-studio-arc3-crash-');
    let server = await folder.start();

    await saveStudy(server.url);
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

    server = await folder.start();
    for (const [i, p] of players.entries()) {
      await resumeWithLog(server.url, p);
      const stored = await storedLog(server.url, p);
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

  it("brings back from the participants' logs the steps answered but not stored when the server was killed", async () => {
    const folder = await serveFolder('arc-studio-arc3-unstored-');
    // The moment between answer and commit, made certain: this start answers steps and stores none past the opening.
    let server = await folder.start({ unstored: true });
    await saveStudy(server.url);
    const players: Player[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await post(server.url, '/api/studies/crash/sessions', null, {
        params: { PROLIFIC_PID: `unstored-${i}` },
      });
      expect(s.status).toBe(201);
      const { sessionId, token } = s.json as { sessionId: string; token: string };
      const opened = await post(server.url, `/api/sessions/${sessionId}/runs`, token, { item: 'g' });
      expect(opened.status, JSON.stringify(opened.json)).toBe(200);
      const p: Player = { sessionId, token, run: (opened.json as ServerRunReply).run, seen: [] };
      p.seen.push(...(opened.json as ServerRunReply).steps);
      for (let n = 1; n <= 12; n++) {
        const r = await post(server.url, `/api/sessions/${sessionId}/runs/${p.run}/actions`, token, actionOf(i, n));
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        p.seen.push(r.json as ServerStep);
      }
      players.push(p);
    }
    await kill9(server);

    server = await folder.start();
    for (const [i, p] of players.entries()) {
      // Answered, and not in the store: the steps a crash between the two would lose.
      const before = await storedLog(server.url, p);
      expect(before.map((s) => s.step)).toEqual([0]);
      // The next action reaches a server that has the run up to step 0: it asks for the page's log.
      const ahead = await post(
        server.url,
        `/api/sessions/${p.sessionId}/runs/${p.run}/actions`,
        p.token,
        actionOf(i, 13),
      );
      expect(ahead.status).toBe(404);
      expect(ahead.json).toMatchObject({
        error: 'run_lost',
        message: expect.stringMatching(/up to 0 only; resume it/),
      });
      const resumed = await resumeWithLog(server.url, p);
      expect(resumed.replay).toEqual({ stored: 12 });
      expect(resumed.steps).toEqual([p.seen[12]]);
      // Every step the participant saw is stored, with the frames and signature they saw.
      expect(await storedLog(server.url, p)).toEqual(p.seen);
      const next = await post(
        server.url,
        `/api/sessions/${p.sessionId}/runs/${p.run}/actions`,
        p.token,
        actionOf(i, 13),
      );
      expect(next.status, JSON.stringify(next.json)).toBe(200);
      expect(next.json).toMatchObject({ step: 13 });
    }
    // A log whose frame is not the one the game plays again stops the replay there, keeping what was stored.
    const p = players[0];
    const extra = [14, 15].map((n) => ({ ...actionOf(0, n), frameHash: '0badf00d' }));
    const last13 = (await storedLog(server.url, p))[13];
    const tail = [...resumeTail([...p.seen, last13], RESUME_LOGGED_MAX), ...extra];
    const stopped = await post(server.url, `/api/sessions/${p.sessionId}/runs`, p.token, {
      item: 'g',
      resume: { run: p.run, after: 15, logged: tail },
    });
    expect(stopped.status, JSON.stringify(stopped.json)).toBe(200);
    expect((stopped.json as ServerRunReply).replay).toEqual({
      stored: 0,
      stopped: { step: 14, message: expect.stringMatching(/^Step 14 played again shows another frame/) },
    });
    expect((stopped.json as ServerRunReply).steps.map((s) => s.step)).toEqual([13]);
    expect((await storedLog(server.url, p)).map((s) => s.step)).toEqual(Array.from({ length: 14 }, (_, i) => i));
  }, 240_000);

  // The page's own resuming, once: the databases' part is the same as in the tests above.
  if (target.name === 'pglite')
    it("the study page's own controller brings its unstored steps back, going on after the restart and after a reload", async () => {
      const folder = await serveFolder('arc-studio-arc3-page-');
      let server = await folder.start({ unstored: true });
      // The page's calls name paths on its own origin: here, the server's address.
      const pageFetch = globalThis.fetch;
      globalThis.fetch = (input, init) => pageFetch(new URL(String(input), server.url), init);
      cleanups.push(() => {
        globalThis.fetch = pageFetch;
      });
      await saveStudy(server.url);
      const s = await post(server.url, '/api/studies/crash/sessions', null, { params: { PROLIFIC_PID: 'page' } });
      const { sessionId, token } = s.json as { sessionId: string; token: string };
      // The page's log, as its outbox keeps it.
      const log: LogEvent[] = [];
      const sink = {
        append: (kind: string, data: Record<string, unknown>) => {
          const e = { seq: log.length, t: log.length, kind, data };
          log.push(e);
          return e;
        },
      };
      const actions = () => log.filter((e) => e.kind === 'game.action');
      const info = { id: GAME, title: 'ls20', fps: 1000, levels: 7 };
      const page = new ServerGameController(info, sessionRunApi(sessionId, token, 'g'), sink);
      cleanups.push(() => page.dispose());
      page.start();
      await vi.waitFor(() => expect(actions()).toHaveLength(1), WAIT);
      for (let n = 1; n <= 6; n++) page.act({ action: actionOf(0, n).action });
      await vi.waitFor(() => expect(actions()).toHaveLength(7), WAIT);
      const p: Player = { sessionId, token, run: page.runId!, seen: [] };
      await kill9(server);

      server = await folder.start();
      expect((await storedLog(server.url, p)).map((x) => x.step)).toEqual([0]);
      // The same page acts on: the server has the run up to step 0, the page resumes it with its log.
      page.act({ action: actionOf(0, 7).action });
      await vi.waitFor(() => expect(actions()).toHaveLength(8), WAIT);
      expect(page.error).toBeNull();
      const stored = await storedLog(server.url, p);
      expect(stored.map((x) => x.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(stored.map((x) => x.frameHash)).toEqual(actions().map((e) => e.data.frameHash));
      expect(stored.map((x) => x.sig)).toEqual(actions().map((e) => e.data.sig));

      // Killed again with two more steps unstored; the page is reloaded and resumes from its log.
      await kill9(server);
      server = await folder.start({ unstored: true });
      for (let n = 8; n <= 9; n++) page.act({ action: actionOf(0, n).action });
      await vi.waitFor(() => expect(actions()).toHaveLength(10), WAIT);
      page.dispose();
      await kill9(server);
      server = await folder.start();
      expect((await storedLog(server.url, p)).map((x) => x.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      const reloaded = new ServerGameController(info, sessionRunApi(sessionId, token, 'g'), sink, [...log]);
      cleanups.push(() => reloaded.dispose());
      reloaded.start();
      await vi.waitFor(
        async () =>
          expect((await storedLog(server.url, p)).map((x) => x.frameHash)).toEqual(
            actions().map((e) => e.data.frameHash),
          ),
        WAIT,
      );
      expect(reloaded.hud.getState().frameHash).toBe(actions()[9].data.frameHash);
      // The reload logged nothing again.
      expect(actions()).toHaveLength(10);
      reloaded.act({ action: actionOf(0, 10).action });
      await vi.waitFor(() => expect(actions()).toHaveLength(11), WAIT);
      expect(actions()[10].data.step).toBe(10);
    }, 240_000);
});
