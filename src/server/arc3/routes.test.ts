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
import {
  hashGrid,
  resumeTail,
  serverStepEventData,
  type ServerRunReply,
  type ServerStep,
} from '../../core/game/serverGame';
import { RESUME_LOGGED_MAX } from '../../core/protocol/requests';
import { parseStudy } from '../../core/study/schema';
import { summarizeSession } from '../../core/study/summary';
import type { ReplayGame, StoredEvent } from '../../core/study/rules';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from '../study/studies';
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

    /** Another server of the database: its own engine workers and memory, the same database (or a wrapper of it). */
    const secondServer = async (on: Store = store) => {
      const started = await startArc3({ dirs: [GAMES], servers: [], env: ENV, workers: 1 }, on, () => {});
      const otherApp = createApi({
        library: new TaskLibrary(),
        version: 'test',
        study: {
          store: on,
          adminTokenHash: hashToken(ADMIN),
          replay: replayWithEngine,
          games: new Set([...gameIds, ...started.service.ids]),
          arc3: { service: started.service, engine: started.engine },
        },
      });
      return { app: otherApp, service: started.service };
    };
    /** A page's call on `which`: a run the server has only up to an earlier step is resumed with the log, as the page does. */
    const pageAct = async (
      which: Hono,
      s: { sessionId: string; token: string },
      run: string,
      seen: ServerStep[],
      action: string,
    ) => {
      const send = () =>
        which.request(`/sessions/${s.sessionId}/runs/${run}/actions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.token}` },
          body: JSON.stringify({ step: seen.length, action }),
        });
      let res = await send();
      if (res.status === 404) {
        const after = seen[seen.length - 1].step;
        const resumed = await which.request(`/sessions/${s.sessionId}/runs`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.token}` },
          body: JSON.stringify({
            item: 'keys',
            resume: { run, after, logged: resumeTail(seen, RESUME_LOGGED_MAX) },
          }),
        });
        expect(resumed.status).toBe(200);
        expect(((await resumed.json()) as ServerRunReply).replay?.stopped).toBeUndefined();
        res = await send();
      }
      return { status: res.status, json: (await res.json()) as ServerStep };
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
      // A step past the next: the server cannot tell it from steps it answered and did not store.
      const skipped = await call('POST', `/sessions/${sessionId}/runs/${reply.run}/actions`, token, {
        step: moves.length + 3,
        action: 'ACTION4',
      });
      expect(skipped.status).toBe(404);
      expect(skipped.json).toMatchObject({ error: 'run_lost', message: expect.stringMatching(/resume it/) });

      // Stored: one row per step, whose frames decode to what was answered.
      await arc3.service.stepsStored();
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
      const other = await secondServer();
      const otherApp = other.app;
      try {
        const session = await newSession();
        const { sessionId, token } = session;
        const reply = (await call('POST', `/sessions/${sessionId}/runs`, token, { item: 'keys' }))
          .json as unknown as ServerRunReply;
        const moves = ['ACTION1', 'ACTION3', 'ACTION3', 'ACTION2', 'ACTION4', 'ACTION1'];
        // Each server's copy falls behind the other's: 1-2 here, 3 there, 4 here, ... (a step the
        // other answered and has not stored yet is brought back from the page's log).
        const servers = moves.map((_, i) => (i < 2 || i % 2 === 0 ? app : otherApp));
        const seen: ServerStep[] = [...reply.steps];
        for (const [i, action] of moves.entries()) {
          const r = await pageAct(servers[i], session, reply.run, seen, action);
          expect(r.status, JSON.stringify(r.json)).toBe(200);
          seen.push(r.json);
        }
        const answers = seen.slice(1);
        // A retry of step 6 (answered there, the answer lost) reaching this server, whose copy is at
        // step 5: answered alike.
        const retried = await pageAct(app, session, reply.run, seen.slice(0, 6), 'ACTION1');
        expect(retried.status).toBe(200);
        expect(retried.json).toMatchObject({ step: 6, frameHash: answers[5].frameHash, sig: answers[5].sig });
        await arc3.service.stepsStored();
        await other.service.stepsStored();
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

    it("stores no action its admission refused on the session's current row, and the run goes on without it", async () => {
      const play = async (sessionId: string, token: string, run: string, step: number, action: string) =>
        call('POST', `/sessions/${sessionId}/runs/${run}/actions`, token, { step, action });
      const a = await newSession();
      const run = (
        (await call('POST', `/sessions/${a.sessionId}/runs`, a.token, { item: 'keys' }))
          .json as unknown as ServerRunReply
      ).run;
      expect((await play(a.sessionId, a.token, run, 1, 'ACTION1')).status).toBe(200);
      expect((await play(a.sessionId, a.token, run, 2, 'ACTION3')).status).toBe(200);
      // Closed between two actions (another server, or the researcher): the next one, admitted on
      // the row this server had, is stored before it is answered; its write finds the row changed,
      // the admission decided again says no, and it is neither stored nor answered.
      await store.setSessionState(a.sessionId, 'withdrawn');
      const closed = await play(a.sessionId, a.token, run, 3, 'ACTION4');
      expect(closed.status).toBe(409);
      expect(closed.json.error).toBe('session_closed');
      expect((await store.readGameSteps(run)).map((s) => s.action)).toEqual(['RESET', 'ACTION1', 'ACTION3']);
      // The actions after it are refused, and the worker neither plays them nor rebuilds the run
      // for each (no work to be had by a closed session).
      const source = (
        arc3.service as unknown as { sources: { source: { act: () => unknown; resume: () => unknown } }[] }
      ).sources[0]!.source;
      const acts = vi.spyOn(source, 'act');
      const resumes = vi.spyOn(source, 'resume');
      for (let i = 0; i < 3; i++) {
        const refused = await play(a.sessionId, a.token, run, 3, 'ACTION4');
        expect(refused.status).toBe(409);
        expect(refused.json.error).toBe('session_closed');
      }
      expect(acts).not.toHaveBeenCalled();
      expect(resumes).not.toHaveBeenCalled();
      acts.mockRestore();
      resumes.mockRestore();
      // Open again, step 3 is another action, played on the run as stored: the unstored one left no trace.
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
        // Each is stored before it is answered.
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
        // Admitted on the row this server had, step 5's write found the row changed, and the
        // admission decided again on the current one said no: neither stored nor answered.
        const ended = await play(a.sessionId, a.token, run, 5, 'ACTION1');
        expect(ended.status).toBe(409);
        expect(ended.json.error).toBe('item_closed');
        expect(reads).toHaveBeenCalledTimes(1);
        // Sent again, it is refused on the row as it is now.
        const refused = await play(a.sessionId, a.token, run, 5, 'ACTION1');
        expect(refused.status).toBe(409);
        expect(refused.json.error).toBe('item_closed');
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

    it('answers a step only once it is stored: a failed write answers nothing, and the step sent again is stored', async () => {
      const open = async (x: { sessionId: string; token: string }) =>
        (await call('POST', `/sessions/${x.sessionId}/runs`, x.token, { item: 'keys' }))
          .json as unknown as ServerRunReply;
      const a = await newSession();
      const opened = await open(a);
      const seen: ServerStep[] = [...opened.steps];
      const act = async (action: string) => {
        const r = await pageAct(app, a, opened.run, seen, action);
        expect(r.status, JSON.stringify(r.json)).toBe(200);
        // Answered: stored already.
        expect((await store.readGameSteps(opened.run)).map((s) => s.step)).toContain(r.json.step);
        seen.push(r.json);
      };
      await act('ACTION1');
      // Step 2's write fails (a PostgreSQL restart): the step is not answered.
      const write = vi.spyOn(store, 'addGameStep').mockRejectedValueOnce(new Error('the database went away'));
      try {
        const failed = await call('POST', `/sessions/${a.sessionId}/runs/${opened.run}/actions`, a.token, {
          step: 2,
          action: 'ACTION3',
        });
        expect(failed.status).toBeGreaterThanOrEqual(500);
      } finally {
        write.mockRestore();
      }
      expect((await store.readGameSteps(opened.run)).map((s) => s.step)).toEqual([0, 1]);
      // The page sends it again, and goes on.
      await act('ACTION3');
      await act('ACTION2');
      const stored = decodeStoredSteps(await store.readGameSteps(opened.run));
      expect(stored.map((s) => [s.record.step, s.record.action])).toEqual([
        [0, 'RESET'],
        [1, 'ACTION1'],
        [2, 'ACTION3'],
        [3, 'ACTION2'],
      ]);
      for (const [i, x] of stored.entries()) expect(x.record.frameHash).toBe(seen[i].frameHash);
      // The same actions on a run of their own, with no failure: the same frames.
      const b = await newSession();
      const solo = await open(b);
      for (const [i, action] of ['ACTION1', 'ACTION3', 'ACTION2'].entries()) {
        const r = await call('POST', `/sessions/${b.sessionId}/runs/${solo.run}/actions`, b.token, {
          step: i + 1,
          action,
        });
        expect((r.json as unknown as ServerStep).frameHash, `step ${i + 1}`).toBe(seen[i + 1].frameHash);
      }
    });

    it('keeps one step when another server stored it first, and answers the stored one from both', async () => {
      // The second server's writes wait for this test's word, so the first server stores the step first.
      let release: () => void = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      let held: () => void = () => {};
      const holding = new Promise<void>((r) => {
        held = r;
      });
      const gated = Object.create(store, {
        addGameStep: {
          value: async (...args: Parameters<Store['addGameStep']>) => {
            if (args[0].step > 0) {
              held();
              await gate;
            }
            return store.addGameStep(...args);
          },
        },
      }) as Store;
      const other = await secondServer(gated);
      try {
        const a = await newSession();
        const opened = (await call('POST', `/sessions/${a.sessionId}/runs`, a.token, { item: 'keys' }))
          .json as unknown as ServerRunReply;
        const on = async (which: Hono, step: number, action: string) => {
          const res = await which.request(`/sessions/${a.sessionId}/runs/${opened.run}/actions`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${a.token}` },
            body: JSON.stringify({ step, action }),
          });
          return { status: res.status, json: (await res.json()) as ServerStep };
        };
        // The second server plays step 1 and its write is held...
        const there = on(other.app, 1, 'ACTION1');
        await holding;
        // ...and this one answers step 1 (another action) and stores it.
        const here = await on(app, 1, 'ACTION3');
        expect(here.status).toBe(200);
        release();
        // The second server finds the step taken: it answers the stored step, not its own.
        const late = await there;
        expect(late.status, JSON.stringify(late.json)).toBe(200);
        expect(late.json).toMatchObject({ step: 1, action: 'ACTION3', frameHash: here.json.frameHash });
        expect((await store.readGameSteps(opened.run)).map((s) => [s.step, s.action])).toEqual([
          [0, 'RESET'],
          [1, 'ACTION3'],
        ]);
        const next = await on(other.app, 2, 'ACTION2');
        expect(next.status, JSON.stringify(next.json)).toBe(200);
        const mine = await on(app, 2, 'ACTION2');
        expect(next.json).toMatchObject({ step: 2, frameHash: mine.json.frameHash, sig: mine.json.sig });
        expect((await store.readGameSteps(opened.run)).map((s) => [s.step, s.action])).toEqual([
          [0, 'RESET'],
          [1, 'ACTION3'],
          [2, 'ACTION2'],
        ]);
        // Every stored step decodes: none was encoded against a frame that is not the stored one.
        expect(decodeStoredSteps(await store.readGameSteps(opened.run))).toHaveLength(3);
      } finally {
        release();
        await other.service.stop();
      }
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
