/**
 * Server-run ARC-AGI-3 games through the HTTP API, on the official engine (vendored in
 * ../shared/vendor/arc-agi-3) and both databases: a participant's run is opened, played, stored
 * with its frames and verified by its signatures; a retried action is answered once; the run
 * survives a restart of the server; a log that was tampered with is flagged; the researcher
 * lists the games and plays without recording.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Hono } from 'hono';
import { decodeFrames } from '../../core/formats/frames';
import { hashGrid, serverStepEventData, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import { parseStudy } from '../../core/study/schema';
import { summarizeSession } from '../../core/study/summary';
import type { ReplayGame, StoredEvent } from '../../core/study/rules';
import { createApi } from '../app';
import { hashToken } from '../auth';
import { TaskLibrary } from '../collections';
import { gameIds, replayWithEngine } from '../studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { startArc3, type Arc3Started } from './mount';
import { decodeStoredSteps } from './steps';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const ENV = { ...process.env, ARC_STUDIO_PYTHONPATH: path.join(VENDOR, 'python') };
const GAMES = path.join(VENDOR, 'environment_files');
const ADMIN = 'researcher-token-for-arc3-tests';
const LS20 = 'ls20-9607627b';

const STUDY = {
  title: 'ARC-AGI-3 games',
  consent: 'Consent.',
  instructions: 'Play.',
  completion: { code: 'ARC3-DONE' },
  items: [{ kind: 'game', id: 'keys', game: LS20 }],
};

for (const backend of backends) {
  describe(`server-run games on ${backend.name}`, () => {
    let store: Store;
    let arc3: Arc3Started;
    let app: Hono;

    const build = async () => {
      arc3 = await startArc3({ dirs: [GAMES], servers: [], env: ENV, workers: 1 }, store, () => {});
      const replay: ReplayGame = (g, evs) => arc3.service.replay(g, evs) ?? replayWithEngine(g, evs);
      app = createApi({
        library: new TaskLibrary(),
        version: 'test',
        study: {
          store,
          adminTokenHash: hashToken(ADMIN),
          replay,
          games: new Set([...gameIds, ...arc3.service.ids]),
          arc3: { service: arc3.service, engine: arc3.engine },
        },
      });
    };

    beforeAll(async () => {
      store = await backend.open();
      const parsed = parseStudy(STUDY);
      if (!parsed.ok) throw new Error(parsed.problems.join('; '));
      await store.saveStudy('arc3', STUDY, 'file', Date.now());
      await build();
    });
    afterAll(async () => {
      await arc3?.service.stop();
      await store.close();
    });

    const call = async (method: string, url: string, token: string | null, body?: unknown) => {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (token) headers.Authorization = `Bearer ${token}`;
      const res = await app.request(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    const newSession = async () => {
      const r = await call('POST', '/studies/arc3/sessions', null, { params: {} });
      expect(r.status).toBe(201);
      return r.json as { sessionId: string; token: string };
    };

    it("plays a participant's run, stores every step with its frames, and verifies the log by its signatures", async () => {
      const { sessionId, token } = await newSession();
      const opened = await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys' });
      expect(opened.status).toBe(200);
      const reply = opened.json as unknown as ServerRunReply;
      expect(reply.game).toMatchObject({
        id: LS20,
        source: 'arcengine',
        engine: expect.stringMatching(/^arcengine \d/),
      });
      expect(reply.steps).toHaveLength(1);
      expect(reply.steps[0]).toMatchObject({ step: 0, action: 'RESET', state: 'NOT_FINISHED', levels_completed: 0 });
      const first = decodeFrames(reply.steps[0].frames);
      expect(hashGrid(first[first.length - 1])).toBe(reply.steps[0].frameHash);

      const steps: ServerStep[] = [reply.steps[0]];
      const moves = ['ACTION1', 'ACTION3', 'ACTION3', 'ACTION2', 'ACTION4'];
      for (const [i, action] of moves.entries()) {
        const r = await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, {
          step: i + 1,
          action,
        });
        expect(r.status).toBe(200);
        steps.push(r.json as unknown as ServerStep);
      }
      // A retried request (its answer was lost) is answered again, not performed twice.
      const again = await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, {
        step: moves.length,
        action: 'ACTION4',
      });
      expect(again.json).toEqual(steps[steps.length - 1]);
      const skipped = await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, {
        step: moves.length + 3,
        action: 'ACTION4',
      });
      expect(skipped.status).toBe(400);

      // Stored: one row per step, whose frames decode to what was answered.
      const stored = decodeStoredSteps(await store.readGameSteps(reply.run));
      expect(stored.map((s) => s.record.action)).toEqual(['RESET', ...moves]);
      for (const [i, s] of stored.entries()) {
        expect(s.frames).toEqual(decodeFrames(steps[i].frames));
        expect(s.record.frameHash).toBe(steps[i].frameHash);
      }

      // The log the browser writes verifies; a tampered one does not.
      let seq = 0;
      const ev = (kind: string, data: Record<string, unknown>): StoredEvent => ({
        seq: seq++,
        t: seq * 100,
        kind,
        data,
        receivedAt: Date.now(),
      });
      const log = [
        ev('item.start', { item: 'keys', kind: 'game' }),
        ev('game.open', { game: LS20, seed: 0, run: reply.run, source: 'arcengine', engine: reply.game.engine }),
        ...steps.map((s) => ev('game.action', serverStepEventData(s))),
      ];
      const def = parseStudy(STUDY);
      if (!def.ok) throw new Error('study');
      const replay: ReplayGame = (g, evs) => arc3.service.replay(g, evs) ?? replayWithEngine(g, evs);
      const summary = summarizeSession(def.study, [0], log, [], () => [], replay).items[0];
      expect(summary.game).toMatchObject({ verified: true, status: 'verified', version: LS20 });
      // The scorecard's count: the five moves; the opening RESET is not an action.
      expect(summary.actions).toBe(moves.length);
      const forged = log.map((e) =>
        e.kind === 'game.action' && e.data.step === 3 ? { ...e, data: { ...e.data, level: 1 } } : e,
      );
      const bad = summarizeSession(def.study, [0], forged, [], () => [], replay).items[0].game;
      expect(bad?.verified).toBe(false);
      expect(bad?.flags.join(' ')).toMatch(/step 3 is not what the server answered/);
      const dropped = log.filter((e) => !(e.kind === 'game.action' && e.data.step === 2));
      expect(summarizeSession(def.study, [0], dropped, [], () => [], replay).items[0].game?.flags.join(' ')).toMatch(
        /step 3 where step 2 was expected/,
      );
    });

    it('goes on with the same run after the server restarted, and answers the steps the browser missed', async () => {
      const { sessionId, token } = await newSession();
      const reply = (await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys' }))
        .json as unknown as ServerRunReply;
      const a1 = (
        await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, { step: 1, action: 'ACTION1' })
      ).json as unknown as ServerStep;
      const a2 = (
        await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, { step: 2, action: 'ACTION1' })
      ).json as unknown as ServerStep;
      await arc3.service.stop();
      await build();
      // The browser had logged step 1 only: the server answers step 2 again, then plays on.
      const resumed = await call('POST', `/sessions/${sessionId}/runs`, token, {
        item: 'keys',
        resume: { run: reply.run, after: 1 },
      });
      expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
      const steps = (resumed.json as unknown as ServerRunReply).steps;
      expect(steps.map((s) => s.step)).toEqual([2]);
      expect(steps[0]).toMatchObject({ frameHash: a2.frameHash, sig: a2.sig, levels_completed: a2.levels_completed });
      const a3 = await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, {
        step: 3,
        action: 'ACTION2',
      });
      expect(a3.status).toBe(200);
      expect(a1.step).toBe(1);
      // Another session cannot use this run.
      const other = await newSession();
      const stolen = await call('POST', `/sessions/${other.sessionId}/runs/${reply.run}/actions`, other.token, {
        step: 4,
        action: 'ACTION2',
      });
      expect(stolen.status).toBe(404);
      expect(stolen.json.error).toBe('run_lost');
    });

    it('answers a run alike when its requests reach two servers of one database in turn, storing each step once', async () => {
      // A second server: its own engine workers and memory, the same database.
      const other = await startArc3({ dirs: [GAMES], servers: [], env: ENV, workers: 1 }, store, () => {});
      try {
        const otherApp = createApi({
          library: new TaskLibrary(),
          version: 'test',
          study: {
            store,
            adminTokenHash: hashToken(ADMIN),
            replay: replayWithEngine,
            games: new Set([...gameIds, ...other.service.ids]),
            arc3: { service: other.service, engine: other.engine },
          },
        });
        const on = async (which: Hono, step: number, action: string) => {
          const res = await which.request(`/sessions/${sessionId}/runs/${reply.run}/actions`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
            body: JSON.stringify({ step, action }),
          });
          return { status: res.status, json: (await res.json()) as ServerStep };
        };
        const { sessionId, token } = await newSession();
        const reply = (await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys' }))
          .json as unknown as ServerRunReply;
        const moves = ['ACTION1', 'ACTION3', 'ACTION3', 'ACTION2', 'ACTION4', 'ACTION1'];
        // Each server's copy falls behind the other's: 1-2 here, 3 there, 4 here, ...
        const servers = moves.map((_, i) => (i < 2 || i % 2 === 0 ? app : otherApp));
        const answers: ServerStep[] = [];
        for (const [i, action] of moves.entries()) {
          const r = await on(servers[i], i + 1, action);
          expect(r.status, JSON.stringify(r.json)).toBe(200);
          answers.push(r.json);
        }
        // A retry of step 6 (answered there, the answer lost) reaching this server, whose copy is at
        // step 5: answered as stored, not played again.
        const retried = await on(app, 6, 'ACTION1');
        expect(retried.status).toBe(200);
        expect(retried.json).toMatchObject({ step: 6, frameHash: answers[5].frameHash, sig: answers[5].sig });
        const stored = decodeStoredSteps(await store.readGameSteps(reply.run));
        expect(stored.map((s) => [s.record.step, s.record.action])).toEqual([
          [0, 'RESET'],
          ...moves.map((m, i) => [i + 1, m]),
        ]);
        for (const [i, s] of stored.slice(1).entries()) expect(s.record.frameHash).toBe(answers[i].frameHash);

        // The same actions on one server from the start answer the same frames.
        const solo = await newSession();
        const soloRun = (await call('POST', `/sessions/${solo.sessionId}/runs`, solo.token, { item: 'keys' }))
          .json as unknown as ServerRunReply;
        for (const [i, action] of moves.entries()) {
          const r = await call('POST', `/sessions/${solo.sessionId}/runs/${soloRun.run}/actions`, solo.token, {
            step: i + 1,
            action,
          });
          expect((r.json as unknown as ServerStep).frameHash, `step ${i + 1}`).toBe(answers[i].frameHash);
        }
      } finally {
        await other.service.stop();
      }
    });

    it('refuses an action its admission refused while the worker played it: nothing is stored, and the run goes on without it', async () => {
      const play = async (sessionId: string, token: string, run: string, step: number, action: string) =>
        call('POST', `/sessions/${sessionId}/runs/${run}/actions`, token, { step, action });
      const a = await newSession();
      const run = (
        (await call('POST', `/sessions/${a.sessionId}/runs`, a.token, { item: 'keys' }))
          .json as unknown as ServerRunReply
      ).run;
      expect((await play(a.sessionId, a.token, run, 1, 'ACTION1')).status).toBe(200);
      expect((await play(a.sessionId, a.token, run, 2, 'ACTION3')).status).toBe(200);
      // Closed between two actions (another server, or the researcher): the next one is refused.
      await store.setSessionState(a.sessionId, 'withdrawn');
      const refused = await play(a.sessionId, a.token, run, 3, 'ACTION4');
      expect(refused.status).toBe(409);
      expect(refused.json.error).toBe('session_closed');
      expect((await store.readGameSteps(run)).map((s) => s.action)).toEqual(['RESET', 'ACTION1', 'ACTION3']);
      // Once refused, the run's actions wait for their admission: refused again, the worker
      // neither plays them nor rebuilds the run for each (no work to be had by a closed session).
      const source = (
        arc3.service as unknown as { sources: { source: { act: () => unknown; resume: () => unknown } }[] }
      ).sources[0]!.source;
      const acts = vi.spyOn(source, 'act');
      const resumes = vi.spyOn(source, 'resume');
      for (let i = 0; i < 3; i++) expect((await play(a.sessionId, a.token, run, 3, 'ACTION4')).status).toBe(409);
      expect(acts).not.toHaveBeenCalled();
      expect(resumes).not.toHaveBeenCalled();
      acts.mockRestore();
      resumes.mockRestore();
      // Open again, step 3 is another action, played on the run as stored: the refused one left no trace.
      await store.setSessionState(a.sessionId, 'active');
      const after = await play(a.sessionId, a.token, run, 3, 'ACTION3');
      expect(after.status).toBe(200);
      const b = await newSession();
      const other = (
        (await call('POST', `/sessions/${b.sessionId}/runs`, b.token, { item: 'keys' }))
          .json as unknown as ServerRunReply
      ).run;
      for (const [i, action] of ['ACTION1', 'ACTION3'].entries())
        expect((await play(b.sessionId, b.token, other, i + 1, action)).status).toBe(200);
      const wouldBe = await play(b.sessionId, b.token, other, 3, 'ACTION3');
      expect((after.json as unknown as ServerStep).frameHash).toBe((wouldBe.json as unknown as ServerStep).frameHash);
      // Had the refused ACTION4 stayed in the worker's copy, the frame would differ.
      const c = await newSession();
      const third = (
        (await call('POST', `/sessions/${c.sessionId}/runs`, c.token, { item: 'keys' }))
          .json as unknown as ServerRunReply
      ).run;
      for (const [i, action] of ['ACTION1', 'ACTION3', 'ACTION4'].entries())
        expect((await play(c.sessionId, c.token, third, i + 1, action)).status).toBe(200);
      const kept = await play(c.sessionId, c.token, third, 4, 'ACTION3');
      expect((kept.json as unknown as ServerStep).frameHash).not.toBe((after.json as unknown as ServerStep).frameHash);
    });

    it("decides a run's actions without reading the session's row, and still refuses the first one after another server ended the item", async () => {
      const play = async (sessionId: string, token: string, run: string, step: number, action: string) =>
        call('POST', `/sessions/${sessionId}/runs/${run}/actions`, token, { step, action });
      const a = await newSession();
      const run = (
        (await call('POST', `/sessions/${a.sessionId}/runs`, a.token, { item: 'keys' }))
          .json as unknown as ServerRunReply
      ).run;
      const reads = vi.spyOn(store, 'getSessionByTokenHash');
      try {
        for (const [i, action] of ['ACTION1', 'ACTION3', 'ACTION3', 'ACTION2'].entries())
          expect((await play(a.sessionId, a.token, run, i + 1, action)).status).toBe(200);
        // The row read when the run was opened decided all four; each write checked it unchanged.
        expect(reads).not.toHaveBeenCalled();
        // The participant's events (the item ended) stored by another server of the database.
        await store.appendEvents(
          a.sessionId,
          [
            { seq: 0, t: 1, kind: 'item.start', data: { item: 'keys' } },
            { seq: 1, t: 2, kind: 'item.end', data: { item: 'keys' } },
          ],
          { receivedAt: Date.now(), pastSessionLimit: false },
        );
        const refused = await play(a.sessionId, a.token, run, 5, 'ACTION1');
        expect(refused.status).toBe(409);
        expect(refused.json.error).toBe('item_closed');
        // The write found the row changed and the admission was decided again on the current one.
        expect(reads).toHaveBeenCalledTimes(1);
        expect((await store.readGameSteps(run)).map((s) => s.action)).toEqual([
          'RESET',
          'ACTION1',
          'ACTION3',
          'ACTION3',
          'ACTION2',
        ]);
      } finally {
        reads.mockRestore();
      }
    });

    it("drops an action whose step could not be stored from the worker's copy, so its retry is played once", async () => {
      const play = async (sessionId: string, token: string, run: string, step: number, action: string) =>
        call('POST', `/sessions/${sessionId}/runs/${run}/actions`, token, { step, action });
      const open = async (s: { sessionId: string; token: string }) =>
        (
          (await call('POST', `/sessions/${s.sessionId}/runs`, s.token, { item: 'keys' }))
            .json as unknown as ServerRunReply
        ).run;
      const a = await newSession();
      const run = await open(a);
      expect((await play(a.sessionId, a.token, run, 1, 'ACTION1')).status).toBe(200);
      // The database fails this one write (a PostgreSQL restart): the worker had played the action.
      const write = vi.spyOn(store, 'addGameStep').mockRejectedValueOnce(new Error('the database went away'));
      try {
        expect((await play(a.sessionId, a.token, run, 2, 'ACTION3')).status).not.toBe(200);
      } finally {
        write.mockRestore();
      }
      const retried = await play(a.sessionId, a.token, run, 2, 'ACTION3');
      expect(retried.status).toBe(200);
      expect((await store.readGameSteps(run)).map((s) => s.action)).toEqual(['RESET', 'ACTION1', 'ACTION3']);
      // The same two actions on a run of their own: played once, the frames are the same.
      const b = await newSession();
      const other = await open(b);
      expect((await play(b.sessionId, b.token, other, 1, 'ACTION1')).status).toBe(200);
      const once = await play(b.sessionId, b.token, other, 2, 'ACTION3');
      expect((retried.json as unknown as ServerStep).frameHash).toBe((once.json as unknown as ServerStep).frameHash);
    });

    it('refuses what a participant may not ask for', async () => {
      const { sessionId, token } = await newSession();
      expect((await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'nope' })).status).toBe(404);
      expect((await call('POST', `/sessions/${sessionId}/runs`, null, { item: 'keys' })).status).toBe(401);
      const reply = (await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys' }))
        .json as unknown as ServerRunReply;
      for (const body of [
        { step: 1, action: 'ACTION9' },
        { step: 1, action: 'ACTION6' },
        { step: 1, action: 'ACTION1', x: 3, y: 3 },
        { step: 0, action: 'RESET' },
        { step: 1, action: 'ACTION6', x: 64, y: 0 },
      ]) {
        const r = await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, body);
        expect(r.status, JSON.stringify(body)).toBe(400);
      }
      // Researcher routes stay closed to participants.
      expect((await call('GET', '/admin/arc3/games', token)).status).toBe(403);
    });

    it('lists the games for the researcher, who plays without recording', async () => {
      const list = await call('GET', '/admin/arc3/games', ADMIN);
      expect(list.status).toBe(200);
      expect(list.json.engine).toMatchObject({ ok: true, message: expect.stringMatching(/arcengine .* on Python/) });
      const ids = (list.json.games as { id: string; levels: number }[]).map((g) => g.id);
      expect(ids).toEqual(expect.arrayContaining([LS20, 'vc33-5430563c', 'ft09-0d8bbf25']));
      const short = await call('POST', '/admin/arc3/runs', ADMIN, { game: 'vc33' });
      expect(short.status).toBe(200);
      const reply = short.json as unknown as ServerRunReply;
      expect(reply.game.id).toBe('vc33-5430563c');
      const click = await call('POST', `/admin/arc3/runs/${reply.run}/actions`, ADMIN, {
        step: 1,
        action: 'ACTION6',
        x: 10,
        y: 10,
      });
      expect(click.status).toBe(200);
      expect(await store.readGameSteps(reply.run)).toEqual([]);
      expect((await call('POST', '/admin/arc3/runs', ADMIN, { game: 'zz99' })).status).toBe(404);
    });
  });
}
