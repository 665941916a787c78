/**
 * `POST /api/admin/arc3/games/:id/graph` on the fixture tg01 (e2e/fixtures/arc3-games): a
 * researcher gets the summary and the drawing's shape of a level's state graph, explored through
 * the server's own game worker; the budget is checked at the door and reported when hit. The
 * game list says which actions each game offers, as its engine reports them (the official ls20
 * keys only, vc33 clicks only).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Hono } from 'hono';
import type { GraphShape, GraphSummary } from '../../core/game/graphView';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { FIXTURE_GAMES, OFFICIAL_GAMES, arc3Api } from '../testing/arc3';
import type { Arc3Started } from './mount';

const ADMIN = 'researcher-token-for-graph-tests';

describe('the state graph route of server-run games', () => {
  let store: Store;
  let arc3: Arc3Started;
  let app: Hono;

  beforeAll(async () => {
    store = await backends[0].open();
    ({ app, arc3 } = await arc3Api(store, { admin: ADMIN, dirs: [FIXTURE_GAMES, OFFICIAL_GAMES] }));
  });
  afterAll(async () => {
    await arc3?.service.stop();
    await store.close();
  });

  const post = (id: string, body: unknown, token = ADMIN) =>
    app.request(`/admin/arc3/games/${id}/graph`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('lists the actions each game offers, as its engine reports them', async () => {
    const res = await app.request('/admin/arc3/games', { headers: { authorization: `Bearer ${ADMIN}` } });
    const { games } = (await res.json()) as { games: { id: string; actions?: number[] }[] };
    const actions = Object.fromEntries(games.map((g) => [g.id.split('-')[0], g.actions]));
    expect(actions).toMatchObject({ ls20: [1, 2, 3, 4], vc33: [6], ft09: [6] });
    expect(actions.tg01).toEqual(expect.arrayContaining([1, 2, 3, 4, 6]));
  });

  it('answers the summary and the shape of a fully explored level', async () => {
    const res = await post('tg01', { level: 0 });
    expect(res.status).toBe(200);
    const { summary, shape } = (await res.json()) as { summary: GraphSummary; shape: GraphShape };
    expect(summary).toMatchObject({
      level: 0,
      recorded: null,
      clicks: 'targets',
      maxStates: 2_000,
      maxSeconds: 30,
      notDrawn: null,
    });
    expect(summary.analysis).toMatchObject({ states: 27, complete: true, gameOverStates: 2, shortest: { length: 10 } });
    expect(summary.probabilities?.[0]).toMatchObject({ k: 10 });
    // 27 states and WIN; the start first, two GAME_OVER states, the states one move from the exit.
    expect(shape.kinds).toHaveLength(28);
    expect(shape.kinds[0]).toBe('start');
    expect(shape.kinds.at(-1)).toBe('win');
    expect(shape.kinds.filter((k) => k === 'gameover')).toHaveLength(2);
    expect(shape.kinds.filter((k) => k === 'winning')).toHaveLength(2);
  });

  it('cancels an exploration under way: it stops on the server and answers that it was cancelled', async () => {
    const exploration = `cancel-${Date.now().toString(36)}`;
    const cancel = (name: string) =>
      app.request(`/admin/arc3/graphs/${name}/cancel`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}` },
      });
    // ls20's first level has far more states than explored before the cancel arrives.
    const running = post('ls20', { level: 0, maxStates: 5_000, maxSeconds: 60, exploration });
    await vi.waitFor(
      async () => {
        const r = await cancel(exploration);
        expect(r.status).toBe(200);
        expect(await r.json()).toEqual({ cancelled: true });
      },
      { timeout: 180_000, interval: 50 },
    );
    const res = await running;
    expect(res.status).toBe(409);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('cancelled');
    expect(body.message).toMatch(/^The exploration of level 1 was cancelled after [\d,]+ of [\d,]+ states found \(/);
    expect(Number(/after ([\d,]+) of/.exec(body.message)![1].replace(/,/g, ''))).toBeLessThan(5_000);
    // Ended: nothing left to cancel; a name that could not be one is refused.
    const again = await cancel(exploration);
    expect(again.status).toBe(404);
    expect((await again.json()).message).toContain('has ended');
    expect((await cancel('bad!name')).status).toBe(400);
    // The same name may be used again once the first has ended.
    const next = await post('tg01', { level: 0, exploration });
    expect(next.status).toBe(200);
  });

  it('reports the budget when it stops, refuses a budget over the limit, an unknown level and a missing token', async () => {
    const res = await post('tg01', { level: 1, maxStates: 5 });
    expect(res.status).toBe(200);
    const { summary } = (await res.json()) as { summary: GraphSummary };
    expect(summary.analysis.complete).toBe(false);
    expect(summary.maxStates).toBe(5);
    expect(summary.probabilities).toBeNull();
    const over = await post('tg01', { level: 0, maxStates: 5_001 });
    expect(over.status).toBe(400);
    expect((await over.json()).message).toContain('maxStates');
    const level = await post('tg01', { level: 7 });
    expect(level.status).toBe(400);
    const unknown = await post('zz99', { level: 0 });
    expect(unknown.status).toBe(404);
    expect((await post('tg01', { level: 0 }, 'wrong')).status).toBe(403);
  });
});
