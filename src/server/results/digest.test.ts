/**
 * Results from stored session digests, on both databases: a second request reads no log and
 * answers the same as results computed from every log; a session that got new events or a new
 * submission has its digest extended by what arrived (only its new events are read, never its
 * log); one whose digest was stored by another analysis version is read again whole (and only
 * that one); an exclusion changes the figures without reading any log.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { computeStudyResults, type ResultsDeps } from '../digests/studyDigests';
import { gameIds, replayWithEngine, definitionOf } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { apiCaller } from '../testing/api';
import { createRun, gameActionData, parseActions, step, versionedGameId, type ActionInput } from '../../core/game';
import { studyResults, type StudyResults } from '../../core/analysis/results';
import { games, solutions } from '../../games';

const ROOT = path.resolve(__dirname, '../..');
const ADMIN = 'researcher-token-for-results-digests-01';
const STUDY = {
  title: 'Digests',
  consent: 'ok',
  completion: { code: 'D' },
  items: [
    { kind: 'task', id: 'mirror', collection: 'samples', task: 'mirror-across-wall' },
    { kind: 'game', id: 'lamps', game: 'glow', seed: 0 },
  ],
};

/** The store, counting the logs read through it, and the new events read ("session:events"). */
function counting(store: Store): { store: Store; reads: string[]; tails: string[]; kept: string[] } {
  const reads: string[] = [];
  const tails: string[] = [];
  /** Stored digests and folds read back: `digests:<study>`, `folds:<sessions>`. */
  const kept: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'readEvents')
        return (id: string) => {
          reads.push(id);
          return target.readEvents(id);
        };
      if (prop === 'readEventTails') {
        return async (...a: Parameters<Store['readEventTails']>) => {
          const r = await target.readEventTails(...a);
          // A tail from before the first event is the whole log, read many sessions a query.
          for (const t of a[0]) {
            if (t.afterSeq < 0) reads.push(t.sessionId);
            else tails.push(`${t.sessionId}:${r.get(t.sessionId)!.length}`);
          }
          return r;
        };
      }
      if (prop === 'readDigests')
        return (studyId: string) => {
          kept.push(`digests:${studyId}`);
          return target.readDigests(studyId);
        };
      if (prop === 'readDigestFolds')
        return (ids: readonly string[]) => {
          if (ids.length > 0) kept.push(`folds:${ids.length}`);
          return target.readDigestFolds(ids);
        };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: wrapped, reads, tails, kept };
}

const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

describe.each(backends)('results from digests on $name', (backend) => {
  it('are read back while nothing changed, and computed again for what did', async () => {
    const store = await backend.open();
    stores.push(store);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, '../data/tasks/samples'));
    const clock = Date.UTC(2026, 5, 1);
    const app: Hono = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });
    const call = apiCaller(() => app);
    expect((await call('POST', '/admin/studies/dig', ADMIN, { definition: STUDY })).status).toBe(201);

    const sessions: { id: string; token: string; seq: number }[] = [];
    const later: { t: number; kind: string; data: Record<string, unknown> }[] = [];
    const send = async (
      s: { id: string; token: string; seq: number },
      events: { t: number; kind: string; data: Record<string, unknown> }[],
    ) => {
      const r = await call('POST', `/sessions/${s.id}/events`, s.token, {
        events: events.map((e) => ({ seq: s.seq++, ...e })),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    };
    for (const [i, pid] of ['ann', 'ben', 'cat'].entries()) {
      const r = await call('POST', '/studies/dig/sessions', null, { params: { PROLIFIC_PID: pid } });
      const s = { id: r.body.sessionId as string, token: r.body.token as string, seq: 0 };
      sessions.push(s);
      let run = createRun(games.glow, { seed: 0 });
      const actions = parseActions(`RESET,${solutions.glow[0]}${i === 2 ? `,${solutions.glow[1]}` : ''}`).map(
        (input, k) => {
          const out = step(run, input as ActionInput);
          run = out.run;
          return {
            t: 2_000 + k * 500,
            kind: 'game.action',
            data: gameActionData('glow', input as ActionInput, out.response) as unknown as Record<string, unknown>,
          };
        },
      );
      const game = [
        { t: 1_000, kind: 'item.start', data: { item: 'lamps', kind: 'game' } },
        { t: 1_000, kind: 'game.open', data: { game: 'glow', seed: 0 } },
        ...actions,
      ];
      await send(s, [
        { t: 0, kind: 'item.start', data: { item: 'mirror', kind: 'task' } },
        { t: 300 + i * 100, kind: 'paint', data: { row: 0, col: 0, color: 3, stroke: 1 } },
      ]);
      // Ann's game comes later.
      if (i === 0) later.push(...game);
      else await send(s, game);
    }

    const counted = counting(store);
    const deps: ResultsDeps = {
      store: counted.store,
      library,
      adminTokenHash: hashToken(ADMIN),
      replay: replayWithEngine,
      now: () => clock,
    };
    const compute = async () => (await computeStudyResults(deps, 'dig', null)) as StudyResults;
    /** The results computed from every log, with no digest at all. */
    const fromLogs = async () => {
      const rec = (await store.getStudy('dig'))!;
      const data = await Promise.all(
        (await store.listSessions('dig')).map(async (session) => ({
          session,
          events: await store.readEvents(session.id),
          submissions: await store.listSubmissions(session.id),
        })),
      );
      return studyResults({
        study: { id: 'dig' },
        versions: [{ version: rec.version, definition: definitionOf(rec) }],
        version: null,
        // The server counts the main stage unless asked for another.
        stage: 'main',
        sessions: data,
        testCount: () => 1,
        games: Object.fromEntries(
          Object.values(games).map((g) => [
            g.id,
            { title: g.title, levels: g.levels.length, version: versionedGameId(g) },
          ]),
        ),
        replay: replayWithEngine,
        now: clock,
      });
    };

    const cold = await compute();
    expect(counted.reads.length).toBe(3);
    // The stored digests were read once, and none of them was there yet.
    expect(counted.kept).toEqual(['digests:dig']);
    expect(cold).toEqual(await fromLogs());
    expect(cold.games[0].levels[1].completed).toBe(1);

    counted.reads.length = 0;
    counted.kept.length = 0;
    expect(await compute()).toEqual(cold);
    expect(counted.reads).toEqual([]);
    // Every digest is in memory now: neither the digests nor their folds are read back.
    expect(counted.kept).toEqual([]);

    // A submission without its event (the tab closed before it was logged) is seen too: the
    // digest is finished again from its fold, no event read.
    counted.reads.length = 0;
    const wrong = await call('POST', `/sessions/${sessions[0].id}/submissions`, sessions[0].token, {
      key: 'k1',
      item: 'mirror',
      testIndex: 0,
      grid: [[0]],
    });
    expect(wrong.status, JSON.stringify(wrong.body)).toBe(200);
    const afterSubmission = await compute();
    expect(counted.reads).toEqual([]);
    expect(counted.tails).toEqual([`${sessions[0].id}:0`]);
    expect(afterSubmission).toEqual(await fromLogs());

    // New events on one session: its digest is extended by them, and only them are read.
    counted.reads.length = 0;
    counted.tails.length = 0;
    await send(sessions[0], later);
    const afterEvents = await compute();
    expect(counted.reads).toEqual([]);
    expect(counted.tails).toEqual([`${sessions[0].id}:${later.length}`]);
    expect(afterEvents).toEqual(await fromLogs());
    expect([cold.games[0].participants, afterEvents.games[0].participants]).toEqual([2, 3]);

    expect(counted.kept).toEqual([]);

    // A server started afresh (nothing in memory) reads the stored digests and folds back and
    // gives the same results, extending the folds by what arrived since.
    const fresh = counting(store);
    const freshDeps = { ...deps, store: fresh.store };
    expect(await computeStudyResults(freshDeps, 'dig', null)).toEqual(afterEvents);
    expect([fresh.reads, fresh.kept]).toEqual([[], ['digests:dig']]);
    await send(sessions[1], [{ t: 30_000, kind: 'visibility', data: { state: 'hidden' } }]);
    const oneMore = await computeStudyResults(freshDeps, 'dig', null);
    expect([fresh.reads, fresh.kept, fresh.tails]).toEqual([[], ['digests:dig', 'folds:1'], [`${sessions[1].id}:1`]]);
    // The first server's digest of that session is older than the stored one, and still extends.
    counted.tails.length = 0;
    expect(await compute()).toEqual(oneMore);
    expect([counted.reads, counted.kept, counted.tails]).toEqual([[], [], [`${sessions[1].id}:1`]]);

    // A digest stored under another analysis version (as a server started on newer code finds
    // it: nothing of it in memory) is computed again.
    const restarted = counting(store);
    const stale = (await store.readDigests('dig')).get(sessions[2].id)!;
    await store.saveDigest(
      sessions[2].id,
      `0|${stale.key.split('|').slice(1).join('|')}`,
      { ...(stale.digest as object), actions: 999 },
      clock,
    );
    expect(await computeStudyResults({ ...deps, store: restarted.store }, 'dig', null)).toEqual(oneMore);
    expect(restarted.reads).toEqual([sessions[2].id]);
    counted.reads.length = 0;

    // An exclusion is applied when adding up: no log is read, the figures change.
    counted.reads.length = 0;
    expect((await call('POST', `/admin/sessions/${sessions[2].id}/exclude`, ADMIN, { reason: 'test' })).status).toBe(
      200,
    );
    const excluded = await compute();
    expect(counted.reads).toEqual([]);
    expect(excluded.games[0].levels[1].completed).toBe(0);
    expect(excluded.participants.find((p) => p.sessionId === sessions[2].id)?.excluded).toBe(true);

    // Events keep arriving in parts of any size: each request extends the digests by exactly
    // the new events and answers what the whole logs give.
    const parts = [
      [3, 0],
      [1, 4],
      [0, 2],
      [6, 6],
    ];
    for (const [k, [a, b]] of parts.entries()) {
      counted.reads.length = 0;
      counted.tails.length = 0;
      const more = (n: number, at: number) =>
        Array.from({ length: n }, (_, j) =>
          j % 3 === 0
            ? { t: at + j, kind: 'visibility', data: { state: j % 2 ? 'visible' : 'hidden' } }
            : j % 3 === 1
              ? { t: at + j, kind: 'idle', data: { state: 'idle' } }
              : { t: at + j, kind: 'paint', data: { row: 0, col: j % 3, color: 2, stroke: k } },
        );
      if (a) await send(sessions[1], more(a, 40_000 + k * 1000));
      if (b) await send(sessions[2], more(b, 40_000 + k * 1000));
      const live = await compute();
      expect(counted.reads).toEqual([]);
      expect(counted.tails.sort()).toEqual(
        [...(a ? [`${sessions[1].id}:${a}`] : []), ...(b ? [`${sessions[2].id}:${b}`] : [])].sort(),
      );
      expect(live).toEqual(await fromLogs());
    }

    // Deleting a session deletes its digest with it.
    expect((await call('DELETE', `/admin/sessions/${sessions[0].id}`, ADMIN, { confirm: sessions[0].id })).status).toBe(
      200,
    );
    expect([...(await store.readDigests('dig')).keys()].sort()).toEqual([sessions[1].id, sessions[2].id].sort());
  });
});
