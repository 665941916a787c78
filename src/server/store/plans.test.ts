/**
 * The statements a participant's request makes never read a whole table. PGlite never gathers
 * statistics (it has no autovacuum), so its planner judges a table by its size on disk: beside one
 * long session, a statement written for an index range per session can be planned as a scan of
 * every stored event, run again in every group commit (the events' group commit was, and cost
 * 30 ms instead of 3 beside a 200,000-event session, on the thread that acknowledges
 * participants' events). Here every statement of the participants' writes, the digests' tail
 * reads and a researcher's reads of a live study is planned (`EXPLAIN`, the plan only) on a
 * never-analyzed PGlite holding a long session, a long game run and 5,000 other sessions, and no
 * plan may scan `sessions`, `events` or `game_steps` whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, expect, it } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from '../study/studies';
import { openStore } from './open';
import { seedDataDir } from './testing';
import type { EventInput, GameStepRecord, Store } from './types';

const ROOT = path.resolve(__dirname, '../../..');
const LONG_EVENTS = 40_000;
const LONG_STEPS = 300;
const PARTICIPANTS = 12;
const OTHER_SESSIONS = 5_000;
const RESEARCHER = 'plans-researcher-token';

const dirs: string[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Plan {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly Plans?: readonly Plan[];
}

/** The scans of whole tables in a plan, as `Seq Scan on <table>`. */
const seqScans = (plan: Plan): string[] => [
  ...(plan['Node Type'] === 'Seq Scan' ? [`Seq Scan on ${plan['Relation Name']}`] : []),
  ...(plan.Plans ?? []).flatMap(seqScans),
];

const step = (runId: string, n: number): GameStepRecord => ({
  runId,
  step: n,
  action: n === 0 ? 'RESET' : 'ACTION1',
  x: null,
  y: null,
  state: 'NOT_FINISHED',
  levelsCompleted: 0,
  winLevels: 3,
  available: [1, 2, 3, 4],
  fullReset: n === 0,
  frameHash: `h${n}`,
  frames: 'x'.repeat(2_000),
  keyframe: n % 50 === 0,
  at: 1_000 + n,
});

/**
 * A never-analyzed PGlite (a copy of the migrated template) whose statements are recorded while
 * `recording` is on, each with the parameters of its first use; `scans` plans each of them.
 */
async function watchedPglite() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-plans-'));
  dirs.push(dir);
  seedDataDir(dir);
  const db = new PGlite(path.join(dir, 'db'));
  await db.waitReady;
  const w = { recording: false, statements: new Map<string, unknown[] | undefined>() };
  const watched = new Proxy(db, {
    get(target, key) {
      if (key === 'query')
        return (sql: string, params?: unknown[]) => {
          if (w.recording && /^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b/i.test(sql) && !w.statements.has(sql))
            w.statements.set(sql, params);
          return target.query(sql, params);
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const store = await openStore({ pglite: watched });
  stores.push(store);
  await store.saveStudy('plans', STUDY, 'studio', 0);
  // A campaign's worth of other sessions.
  await db.query(
    `INSERT INTO sessions (id, study_id, study_version, token_hash, params, seed, item_order, state, created_at, flags)
     SELECT 'other-' || n, 'plans', 1, 'hash-other-' || n, jsonb_build_object('PROLIFIC_PID', 'p' || n), 1, '[0, 1]', 'finished', now(), '[]'
     FROM generate_series(1, ${OTHER_SESSIONS}) AS n`,
  );
  /** Every recorded statement that scans a whole sessions or log table, with the start of its SQL. */
  const scans = async () => {
    const out: string[] = [];
    for (const [sql, params] of w.statements) {
      const r = await db.query<{ 'QUERY PLAN': { Plan: Plan }[] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
      for (const scan of seqScans(r.rows[0]['QUERY PLAN'][0].Plan))
        if (/ on (events|game_steps|sessions)$/.test(scan))
          out.push(`${scan}: ${sql.replace(/\s+/g, ' ').slice(0, 120)}`);
    }
    return out;
  };
  return { db, store, w, scans };
}

const STUDY = {
  title: 'Plans',
  consent: 'Yes.',
  completion: { code: 'PLANS' },
  items: [
    { kind: 'task', id: 'task', collection: 'samples', task: 'continue-pattern' },
    { kind: 'game', id: 'game', game: 'push' },
  ],
};

it("no statement of a participant's write or a digest's tail read scans a log table, beside a long session on a never-analyzed PGlite", async () => {
  const { store, w, scans } = await watchedPglite();
  const session = (id: string) =>
    store.createSession({
      id,
      studyId: 'plans',
      studyVersion: 1,
      tokenHash: `hash-${id}`,
      params: {},
      seed: 1,
      order: [0, 1],
      createdAt: 0,
    });
  await session('long');
  for (let from = 0; from < LONG_EVENTS; from += 5_000) {
    const batch: EventInput[] = Array.from({ length: 5_000 }, (_, k) => ({
      seq: from + k,
      t: from + k,
      kind: 'paint',
      data: { row: 1, col: 2, color: 3, stroke: from + k },
    }));
    await store.appendEvents('long', batch, { receivedAt: 1, pastSessionLimit: false });
  }
  const run = { item: 'game', gameId: 'ls20-test', source: 'arcengine', engine: 'test', seed: 0, openedAt: 0 } as const;
  await store.addGameRun({ ...run, runId: 'long-run', sessionId: 'long' });
  for (let n = 0; n < LONG_STEPS; n += 50)
    await Promise.all(Array.from({ length: 50 }, (_, k) => store.addGameStep(step('long-run', n + k))));
  for (let i = 0; i < PARTICIPANTS; i++) {
    await session(`p${i}`);
    await store.addGameRun({ ...run, runId: `run-${i}`, sessionId: `p${i}` });
  }

  // What participants' requests make, several at once (group commits of many and of one).
  w.recording = true;
  for (let round = 0; round < 3; round++) {
    await Promise.all(
      Array.from({ length: PARTICIPANTS }, (_, i) =>
        store.appendEvents(
          `p${i}`,
          [0, 1].map((k) => ({ seq: round * 2 + k, t: k, kind: 'note', data: { round } })),
          { receivedAt: 2, pastSessionLimit: false },
        ),
      ),
    );
    // A batch past a gap: held, and joined to the run once the gap fills.
    await store.appendEvents('p0', [{ seq: 100 + round, t: 0, kind: 'note', data: {} }], {
      receivedAt: 2,
      pastSessionLimit: false,
    });
  }
  const p0 = (await store.getSession('p0'))!;
  const stamp = { id: p0.id, state: p0.state, eventCount: p0.eventCount, ackedThrough: p0.ackedThrough };
  await store.addGameStep(step('run-0', 0), { session: stamp });
  await Promise.all(Array.from({ length: PARTICIPANTS }, (_, i) => store.addGameStep(step(`run-${i}`, 1))));
  await store.readEventTails([
    { sessionId: 'long', afterSeq: LONG_EVENTS - 10, throughSeq: LONG_EVENTS - 1 },
    { sessionId: 'p1', afterSeq: 0, throughSeq: 5 },
  ]);
  for await (const page of store.streamEvents('long', { afterSeq: 1_000, batchSize: 500 })) {
    expect(page).toHaveLength(500);
    break;
  }
  expect(await store.readGameSteps('long-run', { from: 100, limit: 20 })).toHaveLength(20);
  w.recording = false;

  expect(w.statements.size).toBeGreaterThan(5);
  expect(await scans()).toEqual([]);
});

it("no statement of a participant's session through the routes, nor of a researcher's reads of it, scans the sessions or a log table, beside a campaign's sessions", async () => {
  const { store, w, scans } = await watchedPglite();
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  const app = createApi({
    library,
    version: 'test',
    study: { store, adminTokenHash: hashToken(RESEARCHER), replay: replayWithEngine, games: gameIds },
  });
  const call = async (url: string, body: unknown, token?: string) => {
    const res = await app.request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  w.recording = true;
  const created = await call('/studies/plans/sessions', { params: { PROLIFIC_PID: 'p42' } });
  expect(created.status).toBe(201);
  const { sessionId, token } = created.json as { sessionId: string; token: string };
  const events = `/sessions/${sessionId}/events`;
  const start = [
    { seq: 0, t: 0, kind: 'session.start', data: { mode: 'study', wallClock: '2026-01-01T00:00:00.000Z' } },
    { seq: 1, t: 5, kind: 'item.start', data: { item: 'task' } },
  ];
  expect((await call(events, { events: start }, token)).status).toBe(200);
  // A batch past a gap, then the one that fills it.
  expect(
    (await call(events, { events: [{ seq: 3, t: 9, kind: 'resize', data: { rows: 3, cols: 3 } }] }, token)).status,
  ).toBe(200);
  const filled = await call(events, { events: [{ seq: 2, t: 8, kind: 'resize', data: { rows: 2, cols: 2 } }] }, token);
  expect(filled.json.ackedThrough).toBe(3);
  const grid = [
    [0, 0],
    [0, 0],
  ];
  const submitted = await call(
    `/sessions/${sessionId}/submissions`,
    { key: 'k1', item: 'task', testIndex: 0, grid, lastSeq: 3 },
    token,
  );
  expect(submitted.status).toBe(200);
  const finished = await call(`/sessions/${sessionId}/finish`, { lastSeq: 3 }, token);
  expect(finished.status).toBeLessThan(500);
  // Then a researcher's reads of the study and of the session, as the studio makes them.
  const auth = { headers: { Authorization: `Bearer ${RESEARCHER}` } };
  for (const url of [
    '/admin/studies',
    '/admin/studies/plans',
    '/admin/studies/plans/results',
    '/admin/studies/plans/usage',
    '/admin/studies/plans/audit',
    `/admin/sessions/${sessionId}`,
    `/admin/sessions/${sessionId}/events`,
  ])
    expect((await app.request(url, auth)).status, url).toBe(200);
  w.recording = false;

  expect(w.statements.size).toBeGreaterThan(5);
  expect(await scans()).toEqual([]);
});
