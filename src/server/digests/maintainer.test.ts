/**
 * The background digests: a sweep digests every settled session (and only those) with progress
 * reported on the results' progress route; a results request arriving meanwhile waits for it and
 * digests nothing twice; a digest of another analysis version is computed again; a session that
 * ends through the API is digested shortly after, so the next results request only reads digests.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { fill } from '../../bench/export';
import type { ResultsDeps } from './studyDigests';
import { DigestMaintainer } from './maintainer';
import { DigestPool } from './pool';
import { digestCache } from './cache';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-maintainer-tests';
const stores: Store[] = [];
const stoppers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stoppers) await stop();
  await Promise.all(stores.map((s) => s.close()));
});

const digested = (pool: DigestPool) => [...pool.done.values()].reduce((a, b) => a + b, 0);

async function setup(backend: (typeof backends)[number]) {
  const store = await backend.open();
  stores.push(store);
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  const pool = new DigestPool(1);
  const maintainer = new DigestMaintainer(
    () => deps,
    () => {},
    { endedDelayMs: 50 },
  );
  const deps: ResultsDeps = {
    store,
    library,
    adminTokenHash: hashToken(ADMIN),
    replay: replayWithEngine,
    digests: pool,
    maintainer,
  };
  stoppers.push(
    () => maintainer.stop(),
    () => pool.stop(),
  );
  const app = createApi({
    library,
    version: 'test',
    study: {
      store,
      adminTokenHash: deps.adminTokenHash,
      replay: replayWithEngine,
      games: gameIds,
      digests: pool,
      maintainer,
    },
  });
  const admin = (url: string) => Promise.resolve(app.request(url, { headers: { Authorization: `Bearer ${ADMIN}` } }));
  return { store, pool, maintainer, app, admin };
}

describe.each(backends)('background digests, $name', (backend) => {
  it('a sweep digests the settled sessions with progress shown, and a results request meanwhile repeats none of it', async () => {
    const { store, pool, maintainer, admin } = await setup(backend);
    await fill(store, 'big', 30);
    // A session still under way (an event a moment ago) is left to the results request.
    await store.createSession({
      id: 'live',
      studyId: 'big',
      studyVersion: 1,
      tokenHash: 'hlive',
      params: {},
      seed: 1,
      order: [0],
      createdAt: Date.now(),
    });
    await store.appendEvents('live', [{ seq: 0, t: 0, kind: 'session.start', data: {} }], {
      receivedAt: Date.now(),
      pastSessionLimit: false,
    });

    expect(await (await admin('/admin/studies/big/results/progress')).json()).toEqual({ running: false });
    // The sweep is held when it comes to store its digests (the real store, made to wait), so the
    // progress route is read part-way and the results request certainly arrives during the sweep.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let reached!: () => void;
    const partWay = new Promise<void>((r) => {
      reached = r;
    });
    const save = store.saveDigests.bind(store);
    store.saveDigests = async (...args) => {
      reached();
      await held;
      await save(...args);
    };
    const sweep = maintainer.sweep();
    let results: Promise<Response>;
    try {
      await Promise.race([partWay, sweep]);
      await expect
        .poll(async () => (await admin('/admin/studies/big/results/progress')).json(), { timeout: 180_000 })
        .toMatchObject({ running: true, reason: 'update', total: 30 });
      // Asked while the sweep runs: answered after it, with only the live session digested anew.
      results = admin('/admin/studies/big/results');
    } finally {
      release();
    }
    expect((await results).status).toBe(200);
    const body = (await (await results).json()) as { participants: unknown[] };
    await sweep;
    store.saveDigests = save;

    expect(body.participants).toHaveLength(31);
    expect(digested(pool)).toBe(31);
    const digests = await store.readDigests('big');
    expect(digests.size).toBe(31);

    // Nothing changed: neither a sweep nor a request digests anything again.
    await maintainer.sweep();
    expect((await admin('/admin/studies/big/results')).status).toBe(200);
    expect(digested(pool)).toBe(31);

    // A digest of another analysis version (its key differs, as a server started on newer code
    // finds it: nothing of it in memory) is computed again by the next sweep.
    const first = digests.get('big-s00003')!;
    await store.saveDigest('big-s00003', `0|${first.key}`, { stale: true }, Date.now());
    digestCache(store).dropStudy('big');
    await maintainer.sweep();
    expect(digested(pool)).toBe(32);
    expect((await store.readDigests('big')).get('big-s00003')).toEqual(first);
    expect(await (await admin('/admin/studies/nope/results/progress')).json()).toMatchObject({ error: 'not_found' });
  }, 240_000);

  it('a session that ends through the API is digested shortly after, so the next results request only reads digests', async () => {
    const { store, pool, app, admin } = await setup(backend);
    await fill(store, 'ends', 2);
    const created = await app.request('/studies/ends/sessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    const { sessionId, token } = (await created.json()) as { sessionId: string; token: string };
    const auth = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
    const events = [
      { seq: 0, t: 0, kind: 'session.start', data: {} },
      { seq: 1, t: 5, kind: 'item.start', data: { item: 'task' } },
      { seq: 2, t: 900, kind: 'paint', data: { row: 0, col: 0, color: 3, stroke: 1 } },
      { seq: 3, t: 950, kind: 'item.end', data: { item: 'task' } },
    ];
    expect(
      (
        await app.request(`/sessions/${sessionId}/events`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ events }),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await app.request(`/sessions/${sessionId}/finish`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ lastSeq: 3 }),
        })
      ).status,
    ).toBe(200);

    // The finished session and the two quiet ones, digested without anyone asking.
    await expect
      .poll(async () => [...(await store.readDigests('ends')).keys()].sort(), { timeout: 180_000 })
      .toEqual(['ends-s00000', 'ends-s00001', sessionId].sort());
    const before = digested(pool);
    expect(before).toBe(3);
    const results = (await (await admin('/admin/studies/ends/results')).json()) as {
      participants: { sessionId: string; actions: number }[];
    };
    expect(digested(pool)).toBe(before);
    expect(results.participants.find((p) => p.sessionId === sessionId)?.actions).toBe(1);
  });
});
