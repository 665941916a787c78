/**
 * Cold session digests on worker threads: the results are the same as when every log is
 * digested on the main thread, the digests were computed and added up by worker threads, and while a results
 * request on a cold study of 8,000 events runs, participants' event batches go on being
 * acknowledged (the main thread only reads the logs and hands them over). How much the request
 * delays them is a figure of `npm run bench -- acks`.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { definitionOf, gameIds, replayWithEngine } from '../study/studies';
import { digestSession } from '../../core/analysis/results';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { fill } from '../../bench/export';
import { DigestPool } from './pool';
import { ackProbe } from '../../bench/ackProbe';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-digest-pool-tests';
const stores: Store[] = [];
const pools: DigestPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.stop()));
  await Promise.all(stores.map((s) => s.close()));
});

/** The cold study's sessions (1,000 events each) and the participants acknowledging meanwhile. */
const COLD_SESSIONS = 8;
const PARTICIPANTS = 8;

describe.each(backends)('digests on worker threads, $name', (backend) => {
  it('give the same results as the main thread, and participants are acknowledged while a cold study is digested', async () => {
    const store = await backend.open();
    stores.push(store);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await fill(store, 'cold', COLD_SESSIONS);
    const pool = new DigestPool(1);
    pools.push(pool);
    const app: Hono = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, digests: pool },
    });

    const probe = await ackProbe(app, 'cold', PARTICIPANTS);
    const own = probe.sessionIds;
    const acks = probe.acks;

    let running = true;
    const results = Promise.resolve(
      app.request('/admin/studies/cold/results', { headers: { Authorization: `Bearer ${ADMIN}` } }),
    ).then(async (r) => {
      running = false;
      await r.json();
      return { status: r.status };
    });
    const meanwhile = await acks(() => !running);
    const { status } = await results;
    expect(status).toBe(200);
    // Batches sent and acknowledged while the results were still being computed.
    expect(meanwhile.length).toBeGreaterThan(0);

    // Computed by the worker threads (never the main thread, id 0), one digest per session.
    const byThread = [...pool.done.entries()];
    expect(byThread.every(([id]) => id !== 0)).toBe(true);
    expect(byThread.reduce((n, [, k]) => n + k, 0)).toBe(COLD_SESSIONS + PARTICIPANTS);
    // The digests were added up into the results there too.
    expect(pool.resultsAdded).toBe(1);
    // The same figures as digests made on the main thread from the same logs.
    // Each stored digest is the one the main thread computes from the same log.
    const def = definitionOf((await store.getStudy('cold'))!);
    const kept = await store.readDigests('cold');
    const testCount = (c: string, t: string) => (c === 'samples' && t === 'continue-pattern' ? 1 : null);
    for (const session of (await store.listSessions('cold')).filter((x) => !own.has(x.id))) {
      const onMain = digestSession(
        def,
        session,
        await store.readEvents(session.id),
        await store.listSubmissions(session.id),
        testCount,
        replayWithEngine,
      );
      expect(kept.get(session.id)?.digest, session.id).toEqual(JSON.parse(JSON.stringify(onMain)));
    }
  }, 240_000);
});
