/**
 * Cold session digests on worker threads: the results are the same as when every log is
 * digested on the main thread, the digests were computed by worker threads, and while a results
 * request on a cold study of 200,000 events runs, participants' event batches are acknowledged
 * less than 100 ms later at p99 than without it (the main thread only reads the logs and hands
 * them over).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { performance } from 'node:perf_hooks';
import { createApi } from '../app';
import { hashToken } from '../auth';
import { TaskLibrary } from '../collections';
import { definitionOf, gameIds, replayWithEngine } from '../studies';
import { digestSession } from '../../core/analysis/results';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { fill } from '../../bench/export';
import { DigestPool } from './pool';
import { ackProbe, quantile } from '../testing/acks';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-digest-pool-tests';
const stores: Store[] = [];
const pools: DigestPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.stop()));
  await Promise.all(stores.map((s) => s.close()));
});

/** The cold study's sessions (1,000 events each) and the participants acknowledging meanwhile. */
const COLD_SESSIONS = 200;
const PARTICIPANTS = 8;


describe.each(backends)('digests on worker threads, $name', (backend) => {
  it('give the same results as the main thread, and delay acknowledgements by under 100 ms at p99 while a cold study is digested', async () => {
    const store = await backend.open();
    stores.push(store);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await fill(store, 'cold', COLD_SESSIONS);
    const pool = new DigestPool(1);
    pools.push(pool);
    const app: Hono = createApi({ library, version: 'test', study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, digests: pool } });

    const probe = await ackProbe(app, 'cold', PARTICIPANTS);
    const own = probe.sessionIds;
    const acks = probe.acks;

    // Alone first, as long as the cold results will take at least: the baseline in this run.
    const quietUntil = performance.now() + 1500;
    const quiet = await acks(() => performance.now() > quietUntil);

    let running = true;
    const t0 = performance.now();
    const results = Promise.resolve(app.request('/admin/studies/cold/results', { headers: { Authorization: `Bearer ${ADMIN}` } })).then(async (r) => { running = false; await r.json(); return { status: r.status }; });
    const latencies = await acks(() => !running);
    const { status } = await results;
    const coldMs = performance.now() - t0;
    expect(status).toBe(200);

    // Computed by the worker threads (never the main thread, id 0), one digest per session.
    const byThread = [...pool.done.entries()];
    expect(byThread.every(([id]) => id !== 0)).toBe(true);
    expect(byThread.reduce((n, [, k]) => n + k, 0)).toBe(COLD_SESSIONS + PARTICIPANTS);
    // The same figures as digests made on the main thread from the same logs.
    // Each stored digest is the one the main thread computes from the same log.
    const def = definitionOf((await store.getStudy('cold'))!);
    const kept = await store.readDigests('cold');
    const testCount = (c: string, t: string) => (c === 'samples' && t === 'continue-pattern' ? 1 : null);
    for (const session of (await store.listSessions('cold')).filter((x) => !own.has(x.id))) {
      const onMain = digestSession(def, session, await store.readEvents(session.id), await store.listSubmissions(session.id), testCount, replayWithEngine);
      expect(kept.get(session.id)?.digest, session.id).toEqual(JSON.parse(JSON.stringify(onMain)));
    }

    const p99 = quantile(latencies, 0.99);
    const quietP99 = quantile(quiet, 0.99);
    console.log(`${backend.name}: cold results of ${COLD_SESSIONS * 1000} events in ${Math.round(coldMs)} ms; acknowledgements alone: ${quiet.length}, p50 ${quantile(quiet, 0.5).toFixed(1)} ms, p99 ${quietP99.toFixed(1)} ms; meanwhile: ${latencies.length}, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`);
    // Acknowledgements went on all along, and the results request delayed them by less than
    // 100 ms at p99 (against the same participants' acknowledgements alone, in this run).
    expect(latencies.length).toBeGreaterThan(30);
    expect(p99 - quietP99).toBeLessThan(100);
  }, 240_000);
});
