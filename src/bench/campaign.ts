/**
 * Campaign benchmark, on PGlite in a temporary folder and on PostgreSQL (`TEST_DATABASE_URL`,
 * else a throwaway cluster; two server instances on one database there, as behind a load
 * balancer):
 *
 * - session starts per second with assignment: 1,000 `POST /api/studies/:id/sessions` at once on
 *   a study whose pool holds 500 candidates (3 drawn each), every draw claimed in the database;
 * - the campaign view (`GET /api/admin/studies/:id/campaign`) at 500 candidates x 2,000 sessions
 *   (each session's three candidates started, the first solved, the session finished): cold
 *   (every session's digest computed from its log, on the digest threads as `serve` does) and
 *   warm (the digests read back: what the first view costs on a server whose digest maintainer
 *   kept them as the sessions ended).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../server/host/root';
import { performance } from 'node:perf_hooks';
import type { Hono } from 'hono';
import type { BenchResult } from './result';
import { parseTaskText, type ArcTask } from '../core/formats/arcTask';
import type { StudyDefinitionInput } from '../core/study/schema';
import { createApi } from '../server/app';
import { hashToken } from '../server/people/auth';
import { TaskLibrary } from '../server/collections/collections';
import { onPglite, onPostgres } from './databases';
import { openStore } from '../server/store/open';
import type { Store } from '../server/store/types';
import { gameIds, replayWithEngine } from '../server/study/studies';
import { DigestPool, digestThreadsFromEnv } from '../server/digests/pool';

const SAMPLES = path.join(ROOT, 'data/tasks/samples');
const ADMIN = 'bench-campaign-researcher-token-0123456789';
const CANDIDATES = 500;
const STARTS = 1000;
const SESSIONS = 2000;
const NAMES = [
  'color-by-orientation',
  'downscale-blocks',
  'mirror-across-wall',
  'most-common-color',
  'crop-largest-object',
  'sort-bars-by-height',
];

const tasks = new Map(
  NAMES.map((n) => [
    n,
    (parseTaskText(readFileSync(path.join(SAMPLES, `${n}.json`), 'utf8')) as { ok: true; task: ArcTask }).task,
  ]),
);

function study(): StudyDefinitionInput {
  return {
    title: 'Campaign bench',
    consent: 'Consent.',
    completion: { code: 'BENCH' },
    payment: { currency: 'GBP', fee: 5, bonus: { perSolve: 1 } },
    items: [
      {
        kind: 'pool',
        id: 'grids',
        draw: 3,
        target: { solves: 2 },
        candidates: Array.from({ length: CANDIDATES }, (_, k) => ({
          kind: 'task' as const,
          id: `c${k}`,
          collection: 'samples',
          task: NAMES[k % NAMES.length],
        })),
      },
    ],
  };
}

async function request(
  app: Hono,
  method: string,
  url: string,
  token: string | null,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await app.request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function* suite(backend: string, stores: readonly Store[], library: TaskLibrary): AsyncGenerator<BenchResult> {
  let clock = Date.UTC(2026, 0, 1);
  // Cold digests on worker threads, as `serve` computes them.
  const digests = new DigestPool(digestThreadsFromEnv(process.env));
  try {
    yield* measure(
      backend,
      stores.map((store) =>
        createApi({
          library,
          version: 'bench',
          study: {
            store,
            adminTokenHash: hashToken(ADMIN),
            replay: replayWithEngine,
            games: gameIds,
            digests,
            now: () => clock,
          },
        }),
      ),
      () => {
        clock += 60_000;
      },
    );
  } finally {
    await digests.stop();
  }
}

/** The figures, on servers `apps` of one database; `later` moves their clock on a minute. */
async function* measure(backend: string, apps: readonly Hono[], later: () => void): AsyncGenerator<BenchResult> {
  await request(apps[0], 'POST', '/admin/studies/campaign', ADMIN, { definition: study() });
  const start = (k: number) =>
    request(apps[k % apps.length], 'POST', '/studies/campaign/sessions', null, {
      params: { PROLIFIC_PID: `p${k}` },
    }).then((r) => r.body as { sessionId: string; token: string });

  const t0 = performance.now();
  const first = await Promise.all(Array.from({ length: STARTS }, (_, k) => start(k)));
  const seconds = (performance.now() - t0) / 1000;
  yield {
    name: `campaign.${backend}.starts_with_assignment.${STARTS}_concurrent`,
    value: STARTS / seconds,
    unit: 'starts/s',
  };

  // Up to 2,000 sessions, each playing its three candidates (the first solved) and finishing.
  const rest = await Promise.all(Array.from({ length: SESSIONS - STARTS }, (_, k) => start(STARTS + k)));
  const all = [...first, ...rest];
  let next = 0;
  const lane = async () => {
    while (next < all.length) {
      const s = all[next++];
      const app = apps[next % apps.length];
      const view = (await request(app, 'GET', `/sessions/${s.sessionId}`, s.token)).body as {
        items: { id: string; testIndices: number[] }[];
      };
      let seq = 0;
      const events = view.items.flatMap((item) => [
        { seq: seq++, t: seq * 100, kind: 'item.start', data: { item: item.id, kind: 'task' } },
        ...Array.from({ length: 8 }, (_, i) => ({
          seq: seq++,
          t: seq * 100,
          kind: 'paint',
          data: { row: 0, col: 0, color: 1 + i, stroke: i },
        })),
        { seq: seq++, t: seq * 100, kind: 'item.end', data: { item: item.id } },
      ]);
      await request(app, 'POST', `/sessions/${s.sessionId}/events`, s.token, { events: events.slice(0, 9) });
      const item = view.items[0];
      if (item) {
        const task = tasks.get(NAMES[Number(item.id.slice(1)) % NAMES.length])!;
        for (const t of item.testIndices)
          await request(app, 'POST', `/sessions/${s.sessionId}/submissions`, s.token, {
            key: `k${t}`,
            item: item.id,
            testIndex: t,
            grid: task.test[t].output,
          });
      }
      await request(app, 'POST', `/sessions/${s.sessionId}/events`, s.token, { events: events.slice(9) });
      await request(app, 'POST', `/sessions/${s.sessionId}/finish`, s.token, { lastSeq: seq - 1 });
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  later();

  for (const pass of ['cold', 'warm']) {
    const t1 = performance.now();
    await request(apps[0], 'GET', '/admin/studies/campaign/campaign', ADMIN);
    yield {
      name: `campaign.${backend}.view.${CANDIDATES}_candidates_x_${SESSIONS}_sessions.${pass}`,
      value: (performance.now() - t1) / 1000,
      unit: 's',
    };
  }
}

export async function* run(): AsyncGenerator<BenchResult> {
  const library = new TaskLibrary();
  await library.mount(SAMPLES);
  yield* onPglite('campaign', async function* (dataDir) {
    const store = await openStore({ dataDir });
    try {
      yield* suite('pglite', [store], library);
    } finally {
      await store.close();
    }
  });
  yield* onPostgres('campaign', async function* (url, schema) {
    // Two server instances on one database.
    const stores = await Promise.all([0, 1].map(() => openStore({ databaseUrl: url, schema, poolSize: 10 })));
    try {
      yield* suite('postgres', stores, library);
    } finally {
      for (const s of stores) await s.close();
    }
  });
}
