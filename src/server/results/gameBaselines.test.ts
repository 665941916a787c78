/**
 * `GET /api/admin/games/:gameId/baselines`: a game's human baselines gathered from every study
 * that plays it, as each study's results compute them. Two players solve level 1 of push through
 * the events route (one with two moves more); the level's baselines are their action counts as the
 * engine counts them, level 2 has none, and a study without the game is not listed.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { createRun, gameActionData, parseActions, step, type ActionInput } from '../../core/game';
import { games, solutions } from '../../games';
import type { GameBaselinesView } from '../../core/protocol/api';
import { apiCaller } from '../testing/api';
import { DigestPool } from '../digests/pool';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-game-baselines-01';

const PLAYS = {
  title: 'Boxes',
  consent: 'ok',
  completion: { code: 'C-1' },
  items: [{ kind: 'game', id: 'boxes', game: 'push', seed: 0 }],
};
const OTHER = {
  title: 'Lamps',
  consent: 'ok',
  completion: { code: 'C-2' },
  items: [{ kind: 'game', id: 'lamps', game: 'glow', seed: 0 }],
};

describe('the human baselines of a game across studies', () => {
  let store: Store;
  let app: Hono;
  const call = apiCaller(() => app);
  /**
   * A player of study `id` who solves push's level 1 with its recorded solution (`extra` moves
   * first); the actions it took on the level, the opening RESET left out, up to the completing one.
   */
  const solveLevel1 = async (id: string, pid: string, extra: string): Promise<number> => {
    const r = await call('POST', `/studies/${id}/sessions`, null, { params: { PROLIFIC_PID: pid } });
    expect(r.status).toBe(201);
    const events: { seq: number; t: number; kind: string; data: Record<string, unknown> }[] = [];
    const log = (t: number, kind: string, data: Record<string, unknown> = {}) =>
      events.push({ seq: events.length, t, kind, data });
    log(0, 'item.start', { item: 'boxes', kind: 'game' });
    log(0, 'game.open', { game: 'push', seed: 0 });
    let run = createRun(games.push, { seed: 0 });
    let completedAt = -1;
    parseActions(`RESET,${extra}${solutions.push[0]}`).forEach((input, i) => {
      const st = step(run, input as ActionInput);
      run = st.run;
      if (completedAt < 0 && st.response.levels_completed === 1) completedAt = i;
      log(
        100 + i * 700,
        'game.action',
        gameActionData('push', input as ActionInput, st.response) as unknown as Record<string, unknown>,
      );
    });
    const sent = await call('POST', `/sessions/${r.body.sessionId}/events`, r.body.token, { events });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(completedAt).toBeGreaterThan(0);
    return completedAt;
  };
  const counts: number[] = [];

  beforeAll(async () => {
    store = await backends[0].open();
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
    });
    expect((await call('POST', '/admin/studies/boxes', ADMIN, { definition: PLAYS })).status).toBe(201);
    expect((await call('POST', '/admin/studies/lamps', ADMIN, { definition: OTHER })).status).toBe(201);
    counts.push(await solveLevel1('boxes', 'ann', ''));
    counts.push(await solveLevel1('boxes', 'ben', 'ACTION1,ACTION2,'));
  });
  afterAll(() => store?.close());

  it("lists each study's baselines of the game's levels, and only the studies that play it", async () => {
    const r = await call('GET', '/admin/games/push/baselines', ADMIN);
    expect(r.status).toBe(200);
    const view = r.body as GameBaselinesView;
    expect(view.game).toBe('push');
    expect(view.studies.map((s) => [s.study, s.item, s.current, s.participants])).toEqual([
      ['boxes', 'boxes', true, 2],
    ]);
    const [level1, level2] = view.studies[0].levels;
    expect(level1).toMatchObject({ level: 1, reached: 2, completed: 2 });
    expect(counts[1]).toBe(counts[0] + 2);
    expect(level1.baselines.best.value).toBe(counts[0]);
    expect(level1.baselines['second-best'].value).toBe(counts[1]);
    expect(level2).toMatchObject({ level: 2, completed: 0 });
    expect(level2.baselines.best.value).toBeNull();

    expect((await call('GET', '/admin/games/flux/baselines', ADMIN)).body).toEqual({ game: 'flux', studies: [] });
    expect((await call('GET', '/admin/games/push/baselines', null)).status).toBe(401);
  });

  it("reads the studies' stored digests, digesting on a digest thread only the sessions that changed", async () => {
    const pool = new DigestPool(1);
    const main = app;
    try {
      app = createApi({
        library: new TaskLibrary(),
        version: 'test',
        study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, digests: pool },
      });
      /** Digests computed on the pool's threads so far (whole or extended). */
      const digested = () => [...pool.done.values()].reduce((a, b) => a + b, 0);
      // The study's results bring every session's stored digest up to date.
      expect((await call('GET', '/admin/studies/boxes/results', ADMIN)).status).toBe(200);
      const warm = digested();
      // A third player: the next baselines digest that session alone, on the thread.
      counts.push(await solveLevel1('boxes', 'cat', 'ACTION1,ACTION2,ACTION1,ACTION2,'));
      const first = (await call('GET', '/admin/games/push/baselines', ADMIN)).body as GameBaselinesView;
      expect(digested()).toBe(warm + 1);
      expect(first.studies[0].participants).toBe(3);
      expect(first.studies[0].levels[0].completed).toBe(3);
      // Asked again, and the study's results after it: nothing is digested again.
      const again = (await call('GET', '/admin/games/push/baselines', ADMIN)).body as GameBaselinesView;
      expect(again).toEqual(first);
      const results = (await call('GET', '/admin/studies/boxes/results', ADMIN)).body as {
        games: { game: string; levels: { baselines: unknown }[] }[];
      };
      expect(digested()).toBe(warm + 1);
      // The figures are the study's results' own.
      expect(first.studies[0].levels.map((l) => l.baselines)).toEqual(results.games[0].levels.map((l) => l.baselines));
    } finally {
      app = main;
      await pool.stop();
    }
  });
});
