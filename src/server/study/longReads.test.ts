/**
 * A researcher's reads of a session longer than one page (its events, its summary, its game
 * runs) answer exactly what one whole read of the same rows gives, on both databases, a log with
 * a gap included; and on PGlite, whose tables are never analyzed (it has no autovacuum), each
 * page costs the database one page of rows, never the rest of the session's log: the plan of
 * every page query is read with `EXPLAIN ANALYZE`. A participant's batch sent while a run's steps
 * are read is answered before the read's next page (the other reads: `load.participantsFirst.test.ts`);
 * what the acknowledgements wait meanwhile is a figure of `npm run bench -- scale`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeFrames } from '../../core/formats/frames';
import { hashHex } from '../../core/game/hash';
import { summarizeSession } from '../../core/study/summary';
import { parseStudy } from '../../core/study/schema';
import { createApi } from '../app';
import { adminRunsRoutes } from '../arc3/adminRuns';
import { decodeStoredSteps } from '../arc3/steps';
import { STEP_PAGE } from '../arc3/storedRuns';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { DigestPool } from '../digests/pool';
import { gameIds, replayWithEngine } from './studies';
import { openStore } from '../store/open';
import { backends, seedDataDir } from '../store/testing';
import type { EventInput, GameStepRecord, Store } from '../store/types';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-long-read-tests';
const SESSION = 'long-reads-session';
/** Three pages of the events route and a part, with seq `GAP` missing (the events past it are held). */
const EVENTS = 7_500;
const GAP = 4_321;
/** Steps of the game run: more than four pages of the runs route. */
const STEPS = 456;
const RUN = 'long-reads-run';
/** The step at which the run completes its first level: past the first pages of its steps. */
const LEVEL_UP = 321;

const STUDY = {
  title: 'Long reads',
  consent: 'Yes.',
  completion: { code: 'LONG' },
  items: [
    { kind: 'task', id: 'warm-up', collection: 'samples', task: 'continue-pattern', practice: true },
    { kind: 'task', id: 'task', collection: 'samples', task: 'mirror-across-wall' },
    { kind: 'game', id: 'game', game: 'push' },
  ],
};

const event = (seq: number): EventInput =>
  seq === 0
    ? { seq, t: 0, kind: 'session.start', data: { mode: 'study', wallClock: '2026-01-01T00:00:00.000Z' } }
    : seq === 1
      ? { seq, t: 10, kind: 'item.start', data: { item: 'warm-up' } }
      : seq === 2_000
        ? { seq, t: seq * 10, kind: 'item.start', data: { item: 'task' } }
        : { seq, t: seq * 10, kind: 'paint', data: { row: seq % 3, col: (seq * 7) % 3, color: seq % 10, stroke: seq } };

/** A step of a 64x64 game whose frame changes every step; every 50th is a keyframe. */
function step(n: number, last: number[][] | null): { record: GameStepRecord; frame: number[][] } {
  const frame = Array.from({ length: 64 }, (_, y) => Array.from({ length: 64 }, (_, x) => (x * y + n) % 16));
  const keyframe = n % 50 === 0;
  return {
    frame,
    record: {
      runId: RUN,
      step: n,
      action: n === 0 ? 'RESET' : `ACTION${1 + (n % 4)}`,
      x: null,
      y: null,
      state: 'NOT_FINISHED',
      levelsCompleted: n < LEVEL_UP ? 0 : 1,
      winLevels: 3,
      available: [1, 2, 3, 4],
      fullReset: n === 0,
      frameHash: hashHex(frame),
      frames: encodeFrames([frame], keyframe ? null : last),
      keyframe,
      at: 1_000 + n,
    },
  };
}

/** A study `long` whose one session holds `EVENTS` events but `GAP`, and a run of `STEPS` steps. */
async function fill(store: Store): Promise<void> {
  await store.saveStudy('long', STUDY, 'studio', 1);
  await store.createSession({
    id: SESSION,
    studyId: 'long',
    studyVersion: 1,
    tokenHash: 'hlong',
    params: {},
    seed: 1,
    order: [0, 1, 2],
    createdAt: 1,
  });
  const seqs = Array.from({ length: EVENTS }, (_, seq) => seq).filter((seq) => seq !== GAP);
  for (let from = 0; from < seqs.length; from += 2_500)
    await store.appendEvents(SESSION, seqs.slice(from, from + 2_500).map(event), {
      receivedAt: 2,
      pastSessionLimit: false,
    });
  await store.addGameRun({
    runId: RUN,
    sessionId: SESSION,
    item: 'game',
    gameId: 'ls20-longread',
    source: 'arcengine',
    engine: 'test',
    seed: 0,
    openedAt: 3,
  });
  let last: number[][] | null = null;
  for (let n = 0; n < STEPS; n++) {
    const s = step(n, last);
    last = s.frame;
    expect(await store.addGameStep(s.record)).toBe(true);
  }
}

const stores: Store[] = [];
const pools: DigestPool[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.stop()));
  await Promise.all(stores.map((s) => s.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The routes under test over one store: the study API and the researcher's runs router. */
async function routes(store: Store) {
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  const pool = new DigestPool(1);
  pools.push(pool);
  const api = createApi({
    library,
    version: 'test',
    study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, digests: pool },
  });
  // The runs router as the server mounts it (arc3/routes.ts), without an engine to check runs on.
  const runs = new Hono().route('/admin', adminRunsRoutes({ store, digests: pool, replayer: null }));
  const get = async (app: { request: Hono['request'] }, url: string) => {
    const res = await app.request(url, { headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
    return JSON.parse(await res.text()) as unknown;
  };
  return { library, pool, api, get: (url: string) => get(api, url), getRuns: (url: string) => get(runs, url) };
}

describe.each(backends)('reads of a session longer than a page on $name', (backend) => {
  it('its events, summary and runs equal what one whole read of its rows gives', async () => {
    const store = await backend.open();
    stores.push(store);
    await fill(store);
    const { library, pool, get, getRuns } = await routes(store);
    const whole = await store.readEvents(SESSION);
    expect(whole).toHaveLength(EVENTS - 1);

    // Events: every stored event once, in seq order, the practice item's flagged.
    const events = (await get(`/admin/sessions/${SESSION}/events`)) as {
      sessionId: string;
      ackedThrough: number;
      events: Record<string, unknown>[];
    };
    expect(events.sessionId).toBe(SESSION);
    expect(events.ackedThrough).toBe(GAP - 1);
    expect(events.events).toEqual(whole.map((e) => (e.seq >= 1 && e.seq < 2_000 ? { ...e, practice: true } : e)));

    // Summary: as the whole log summarized on this thread.
    const detail = (await get(`/admin/sessions/${SESSION}`)) as { summary: unknown; session: { eventCount: number } };
    expect(detail.session.eventCount).toBe(EVENTS - 1);
    const study = parseStudy(STUDY);
    if (!study.ok) throw new Error(study.problems.join('; '));
    const tests = new Map<string, number[]>();
    for (const item of study.study.items)
      if (item.kind === 'task') {
        const found = await library.task(item.collection, item.task);
        if (!found.ok) throw new Error(`no task ${item.task}`);
        tests.set(
          item.id,
          Array.from({ length: found.task.test.length }, (_, i) => i),
        );
      }
    const expected = summarizeSession(study.study, [0, 1, 2], whole, [], (id) => tests.get(id) ?? [], replayWithEngine);
    expect(detail.summary).toEqual(JSON.parse(JSON.stringify(expected)));

    // Runs: every step once, in order, each step's frames standing alone, made on the digest thread.
    const runs = (await getRuns(`/admin/sessions/${SESSION}/runs`)) as {
      runs: { runId: string; steps: { step: number; frames: string; frameHash: string }[] }[];
    };
    expect(runs.runs.map((r) => r.runId)).toEqual([RUN]);
    const decoded = decodeStoredSteps(await store.readGameSteps(RUN));
    expect(runs.runs[0].steps).toEqual(
      decoded.map(({ record: { runId: _r, keyframe: _k, ...rest }, frames }) => ({
        ...rest,
        frames: encodeFrames(frames, null),
      })),
    );
    expect(pool.stepPages).toBe(Math.ceil(STEPS / STEP_PAGE));

    // The heatmap's first frame of level 2: the frame of the step that completed level 1.
    expect(await getRuns('/admin/studies/long/games/ls20-longread/levels/1/frame')).toEqual({
      runId: RUN,
      step: LEVEL_UP,
      frames: encodeFrames([step(LEVEL_UP, null).frame], null),
    });
  });
});

describe("a run's steps read on PGlite", () => {
  it("a participant's batch sent during the read is answered before the read asks for its next page", async () => {
    const store = await backends.find((b) => b.name === 'pglite')!.open();
    stores.push(store);
    await fill(store);
    const { api, getRuns } = await routes(store);
    const created = await api.request('/studies/long/sessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    expect(created.status).toBe(201);
    const participant = (await created.json()) as { sessionId: string; token: string };

    // What happened, in order: each page of steps the store gave, and the batch's answer.
    const log: string[] = [];
    let firstPage: () => void = () => {};
    const pageRead = new Promise<void>((r) => (firstPage = r));
    const readGameSteps = store.readGameSteps.bind(store);
    store.readGameSteps = async (runId, opts) => {
      const steps = await readGameSteps(runId, opts);
      if (runId === RUN && steps.length) {
        log.push(`page ${steps[0].step}-${steps[steps.length - 1].step}`);
        firstPage();
      }
      return steps;
    };
    const batch = pageRead.then(async () => {
      log.push('batch sent');
      const res = await api.request(`/sessions/${participant.sessionId}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${participant.token}` },
        body: JSON.stringify({ events: [{ seq: 0, t: 0, kind: 'session.start', data: {} }] }),
      });
      expect(res.status).toBe(200);
      log.push('batch answered');
    });
    const [runs] = await Promise.all([
      getRuns(`/admin/sessions/${SESSION}/runs`).then((body) => {
        log.push('read done');
        return body as { runs: { steps: unknown[] }[] };
      }),
      batch,
    ]);
    expect(runs.runs[0].steps).toHaveLength(STEPS);
    const sent = log.indexOf('batch sent');
    expect(log.slice(0, sent)).toEqual(['page 0-99']);
    expect(log.slice(sent + 1, sent + 2)).toEqual(['batch answered']);
    expect(log.filter((l) => l.startsWith('page'))).toHaveLength(Math.ceil(STEPS / STEP_PAGE));
    expect(log.at(-1)).toBe('read done');
  });
});

/**
 * A PGlite store whose every page query (events after a seq, steps from a step) is also run under
 * `EXPLAIN ANALYZE`, recording the most rows any node of its plan handled.
 */
async function explainedPglite(): Promise<{ store: Store; rowsPerPage: number[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-long-reads-'));
  dirs.push(dir);
  seedDataDir(dir);
  const db = new PGlite(path.join(dir, 'db'));
  await db.waitReady;
  const rowsPerPage: number[] = [];
  let explaining = false;
  const most = (node: Record<string, unknown>): number =>
    Math.max(
      Number(node['Actual Rows'] ?? 0),
      ...((node.Plans as Record<string, unknown>[] | undefined) ?? []).map(most),
    );
  const watched = new Proxy(db, {
    get(target, key) {
      if (key === 'query')
        return async (sql: string, params?: unknown[]) => {
          if (!explaining && /^SELECT [\s\S]* FROM (events|game_steps) WHERE [\s\S]* (seq|step) >/.test(sql)) {
            explaining = true;
            try {
              const plan = await target.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(
                `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
                params,
              );
              rowsPerPage.push(most(plan.rows[0]['QUERY PLAN'][0].Plan));
            } finally {
              explaining = false;
            }
          }
          return target.query(sql, params);
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const store = await openStore({ pglite: watched });
  stores.push(store);
  return { store, rowsPerPage };
}

/** One never-analyzed PGlite holding the long session, filled once for the page tests below. */
let explained: ReturnType<typeof explainedPglite> | null = null;
const explainedLong = () =>
  (explained ??= explainedPglite().then(async (e) => {
    await fill(e.store);
    return e;
  }));

describe('pages of a long log on PGlite, never analyzed', () => {
  it("each page of a session's events reads one page of rows, and the pages give every event once", async () => {
    const { store, rowsPerPage } = await explainedLong();
    // Another session's log beside it, which no page may read.
    await store.createSession({
      id: 'beside',
      studyId: 'long',
      studyVersion: 1,
      tokenHash: 'hbeside',
      params: {},
      seed: 2,
      order: [0, 1, 2],
      createdAt: 1,
    });
    await store.appendEvents(
      'beside',
      Array.from({ length: 3_000 }, (_, seq) => event(seq)),
      { receivedAt: 2, pastSessionLimit: false },
    );
    rowsPerPage.length = 0;
    const seqs: number[] = [];
    for await (const page of store.streamEvents(SESSION, { batchSize: 1_000 })) {
      expect(page.length).toBeLessThanOrEqual(1_000);
      seqs.push(...page.map((e) => e.seq));
    }
    expect(seqs).toEqual(Array.from({ length: EVENTS }, (_, seq) => seq).filter((seq) => seq !== GAP));
    expect(rowsPerPage.length).toBeGreaterThan(EVENTS / 1_000);
    expect(Math.max(...rowsPerPage)).toBeLessThanOrEqual(1_000);
  });

  it("each page of a run's steps reads one page of rows, and the pages give every step once", async () => {
    const { store, rowsPerPage } = await explainedLong();
    rowsPerPage.length = 0;
    const steps: number[] = [];
    for (let from = 0; ;) {
      const page = await store.readGameSteps(RUN, { from, limit: STEP_PAGE });
      steps.push(...page.map((s) => s.step));
      if (page.length < STEP_PAGE) break;
      from = page[page.length - 1].step + 1;
    }
    expect(steps).toEqual(Array.from({ length: STEPS }, (_, n) => n));
    expect(rowsPerPage.length).toBeGreaterThan(STEPS / STEP_PAGE);
    expect(Math.max(...rowsPerPage)).toBeLessThanOrEqual(STEP_PAGE);
  });
});
