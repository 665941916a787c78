/**
 * A session's log with a gap (events stored past a missing seq), on both databases: its digest
 * is folded from pages of the log as they are read, so the digest thread is handed the fold and
 * never the log, and the results equal those computed from the whole log; no fold is kept, so a
 * later event past the gap is not folded onto the wrong place.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TaskLibrary } from '../collections/collections';
import { computeStudyResults, type ResultsDeps } from './studyDigests';
import { DigestPool, type PoolJob } from './pool';
import { TAIL_BATCH_EVENTS } from './sessions';
import { definitionOf, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { EventInput, Store } from '../store/types';
import { studyResults, type StudyResults } from '../../core/analysis/results';

const ROOT = path.resolve(__dirname, '../../..');
const STUDY = {
  title: 'Gap',
  consent: 'ok',
  completion: { code: 'G' },
  items: [{ kind: 'task', id: 'mirror', collection: 'samples', task: 'mirror-across-wall' }],
};
/** Longer than two pages of the log; seq `GAP` never arrives. */
const EVENTS = 2 * TAIL_BATCH_EVENTS + 1_500;
const GAP = TAIL_BATCH_EVENTS + 700;
const CLOCK = Date.UTC(2026, 5, 1);

const event = (seq: number): EventInput =>
  seq === 0
    ? { seq, t: 0, kind: 'item.start', data: { item: 'mirror', kind: 'task' } }
    : { seq, t: seq * 40, kind: 'paint', data: { row: seq % 3, col: (seq * 7) % 3, color: seq % 10, stroke: seq } };

const pools: DigestPool[] = [];
const stores: Store[] = [];
afterAll(async () => {
  await Promise.all([...pools.map((p) => p.stop()), ...stores.map((s) => s.close())]);
});

describe.each(backends)('a log with a gap on $name', (backend) => {
  it('is digested a page at a time, the thread given the fold only, and adds up as its whole log does', async () => {
    const store = await backend.open();
    stores.push(store);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    await store.saveStudy('gap', STUDY, 'studio', CLOCK - 60_000);
    const session = {
      id: '00000000-0000-4000-8000-000000000001',
      studyId: 'gap',
      studyVersion: 1,
      tokenHash: 'gap',
      params: {},
      seed: 1,
      order: [0],
      createdAt: CLOCK - 50_000,
    };
    await store.createSession(session);
    const seqs = Array.from({ length: EVENTS }, (_, seq) => seq).filter((seq) => seq !== GAP);
    for (let from = 0; from < seqs.length; from += 1_000)
      await store.appendEvents(session.id, seqs.slice(from, from + 1_000).map(event), {
        receivedAt: CLOCK - 40_000,
        pastSessionLimit: false,
      });
    const stored = (await store.getSession(session.id))!;
    expect([stored.ackedThrough, stored.eventCount]).toEqual([GAP - 1, EVENTS - 1]);

    // What the digest thread is handed, and the pages the log is read in.
    const pool = new DigestPool(1);
    pools.push(pool);
    const handed: number[] = [];
    const submit = (pool as unknown as { submit: (job: PoolJob) => Promise<unknown> }).submit.bind(pool);
    (pool as unknown as { submit: (job: PoolJob) => Promise<unknown> }).submit = (job) => {
      // The session's digest jobs; the results' adding-up goes to the thread too, with no events.
      if (job.kind !== 'results' && job.kind !== 'cross') handed.push('events' in job ? job.events.length : 0);
      return submit(job);
    };
    const pages: number[] = [];
    const paged = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'streamEvents')
          return async function* (...a: Parameters<Store['streamEvents']>) {
            for await (const page of target.streamEvents(...a)) {
              pages.push(page.length);
              yield page;
            }
          };
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const deps: ResultsDeps = {
      store: paged,
      library,
      adminTokenHash: '',
      replay: replayWithEngine,
      digests: pool,
      now: () => CLOCK,
    };
    const digested = (await computeStudyResults(deps, 'gap', null)) as StudyResults;

    // Every stored event read once, in pages no longer than a page; the thread got no event.
    expect(pages.reduce((a, b) => a + b, 0)).toBe(EVENTS - 1);
    expect(Math.max(...pages)).toBeLessThanOrEqual(TAIL_BATCH_EVENTS);
    expect(pages.length).toBeGreaterThan(1);
    expect(handed).toEqual([0]);

    const rec = (await store.getStudy('gap'))!;
    const fromLog = studyResults({
      study: { id: 'gap' },
      versions: [{ version: 1, definition: definitionOf(rec) }],
      version: null,
      // The server counts the main stage unless asked for another.
      stage: 'main',
      sessions: [{ session: stored, events: await store.readEvents(session.id), submissions: [] }],
      testCount: () => 1,
      games: {},
      replay: replayWithEngine,
      now: CLOCK,
    });
    expect(digested).toEqual(fromLog);
    expect(digested.participants).toHaveLength(1);

    // Kept as a digest without a fold: the next request reads it back, and nothing extends it.
    expect((await store.readDigestFolds([session.id])).size).toBe(0);
    pages.length = 0;
    expect(await computeStudyResults(deps, 'gap', null)).toEqual(digested);
    expect(pages).toEqual([]);
  });
});
