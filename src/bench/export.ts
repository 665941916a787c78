/**
 * Export benchmark: 1,000,000 events (1,000 sessions of 1,000 events) in a store, then
 * `events.jsonl` and `attempts.csv` streamed to /dev/null. Reports events per second and the
 * peak memory over the run (resident set and JS heap, less what was in use before it), first
 * on PGlite in a temporary folder, then on PostgreSQL (`TEST_DATABASE_URL`, else a throwaway
 * local cluster; skipped with a note when neither is available).
 *
 * Then the study bundle's smaller files over 1,000 sessions of a study with an arcengine game
 * and a survey (3 stored runs and one survey answer per session): `game-runs.jsonl`,
 * `game-versions.json` and `surveys.json`, each timed on its own, then the two game files as the
 * bundle writes them (the versions counted while the runs are written). `BENCH_EXPORT_PARTS=files`
 * runs only these (`events` only the first part).
 *
 * First, the whole bundle of a study with arcengine runs downloaded from a live server beside
 * participants' acknowledgements (`exportBundle.ts`; `BENCH_EXPORT_PARTS=bundle` alone). Every
 * part runs by default.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BenchResult } from './result';
import { attemptsCsv } from '../server/export/attempts';
import { exportContext, type ExportContext } from '../server/export/context';
import { eventsJsonl } from '../server/export/events';
import { RunVersionTally, gameRunsJsonl, gameVersionsJson } from '../server/export/gameVersions';
import { surveysJson } from '../server/export/surveys';
import { openStore } from '../server/store/open';
import { onPglite, onPostgres } from './databases';
import { run as bundleSuite } from './exportBundle';
import type { EventInput, Store } from '../server/store/types';

const SESSIONS = 1000;
const EVENTS_PER_SESSION = 1000;
/** Sessions whose events go to the store at once (one grouped statement). */
const INSERT_SESSIONS = 25;
const MIB = 1024 * 1024;

const STUDY = {
  title: 'Export benchmark',
  consent: 'Yes.',
  items: [{ kind: 'task', id: 'task', collection: 'samples', task: 'continue-pattern' }],
  completion: { code: 'BENCH' },
};

/** A participant's log: the item, then paint strokes over a 10x10 grid with a few other actions. */
function sessionEvents(k: number): EventInput[] {
  const out: EventInput[] = [
    { seq: 0, t: 0, kind: 'session.start', data: { mode: 'study', wallClock: '2026-01-01T00:00:00.000Z' } },
    { seq: 1, t: 12.5, kind: 'item.start', data: { item: 'task' } },
  ];
  for (let seq = 2; seq < EVENTS_PER_SESSION; seq++) {
    const t = seq * 180.25 + (k % 7);
    out.push(
      seq % 50 === 0
        ? { seq, t, kind: 'color', data: { color: seq % 10 } }
        : {
            seq,
            t,
            kind: 'paint',
            data: { row: seq % 10, col: (seq * 7) % 10, color: seq % 10, stroke: Math.floor(seq / 10) },
          },
    );
  }
  return out;
}

/** Stores study `studyId` (one grid task) with `sessions` participants' logs of 1,000 events each. */
export async function fill(store: Store, studyId = 'bench', sessions = SESSIONS): Promise<void> {
  await store.saveStudy(studyId, STUDY, 'studio', Date.UTC(2026, 0, 1));
  const base = Date.UTC(2026, 0, 1);
  for (let from = 0; from < sessions; from += INSERT_SESSIONS) {
    const ids: string[] = [];
    for (let k = from; k < Math.min(sessions, from + INSERT_SESSIONS); k++) {
      const id = `${studyId}-s${String(k).padStart(5, '0')}`;
      await store.createSession({
        id,
        studyId,
        studyVersion: 1,
        tokenHash: `h${studyId}${k}`,
        params: { PROLIFIC_PID: `p${k}` },
        seed: k,
        order: [0],
        createdAt: base + k,
      });
      ids.push(id);
    }
    await Promise.all(
      ids.map((id, i) =>
        store.appendEvents(id, sessionEvents(from + i), { receivedAt: base + 60_000, pastSessionLimit: false }),
      ),
    );
  }
}

interface Peak {
  rss: number;
  heap: number;
}

/** Streams one export to /dev/null, sampling memory every 20 ms. */
async function measure(
  write: (ctx: ExportContext) => AsyncIterable<string | Uint8Array>,
  ctx: ExportContext,
): Promise<{ seconds: number; peak: Peak }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage();
  const peak: Peak = { rss: 0, heap: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss - before.rss);
    peak.heap = Math.max(peak.heap, m.heapUsed - before.heapUsed);
  };
  const timer = setInterval(sample, 20);
  const t0 = performance.now();
  try {
    await pipeline(Readable.from(write(ctx)), createWriteStream('/dev/null'));
  } finally {
    clearInterval(timer);
  }
  sample();
  return { seconds: (performance.now() - t0) / 1000, peak };
}

const RUNS_PER_SESSION = 3;
const LS20 = 'ls20-9607627b';
const FILES_STUDY = {
  title: 'Export benchmark: games and a survey',
  consent: 'Yes.',
  items: [
    { kind: 'game', id: 'keys', game: LS20 },
    {
      kind: 'survey',
      id: 'about',
      title: 'About you',
      questions: [
        { id: 'hand', prompt: 'Which hand?', type: 'choice', options: ['Left', 'Right'] },
        { id: 'ease', prompt: 'How hard?', type: 'scale', min: 1, max: 5 },
        { id: 'notes', prompt: 'Anything else?', type: 'longtext' },
      ],
    },
  ],
  completion: { code: 'BENCH' },
};

/** Stores study `files` with `SESSIONS` sessions: three stored runs of ls20 each (two code versions) and a survey answer. */
async function fillFiles(store: Store): Promise<void> {
  const base = Date.UTC(2026, 0, 1);
  await store.saveStudy('files', FILES_STUDY, 'studio', base);
  for (let from = 0; from < SESSIONS; from += INSERT_SESSIONS) {
    const work: Promise<unknown>[] = [];
    for (let k = from; k < Math.min(SESSIONS, from + INSERT_SESSIONS); k++) {
      const id = `files-s${String(k).padStart(5, '0')}`;
      const codeHash = k < SESSIONS / 2 ? 'aaaaaaaaaaaa' : 'bbbbbbbbbbbb';
      await store.createSession(
        {
          id,
          studyId: 'files',
          studyVersion: 1,
          tokenHash: `hf${k}`,
          params: { PROLIFIC_PID: `p${k}` },
          seed: k,
          order: [0, 1],
          createdAt: base + k,
        },
        [{ gameId: LS20, version: `${LS20}@${codeHash}`, codeHash }],
      );
      for (let r = 0; r < RUNS_PER_SESSION; r++)
        work.push(
          store.addGameRun({
            runId: randomUUID(),
            sessionId: id,
            item: 'keys',
            gameId: LS20,
            source: 'arcengine',
            engine: 'arcengine 0.9.3',
            seed: r,
            openedAt: base + k * 1000 + r,
            codeHash,
          }),
        );
      work.push(
        store.addResponse({
          sessionId: id,
          key: `survey-${k}`,
          item: 'about',
          kind: 'survey',
          part: '',
          value: { hand: k % 3 ? 'Left' : 'Right', ease: (k % 5) + 1, notes: `Answer ${k}.` },
          at: base + k * 1000 + 500,
        }),
      );
    }
    await Promise.all(work);
  }
}

async function* filesSuite(db: string, store: Store): AsyncGenerator<BenchResult> {
  await fillFiles(store);
  const ctx = await exportContext({ store, studyId: 'files', library: null, replay: null, now: Date.UTC(2026, 0, 2) });
  for (const [name, write] of [
    ['game-runs-jsonl', gameRunsJsonl],
    ['game-versions-json', gameVersionsJson],
    ['surveys-json', surveysJson],
    // As the bundle writes the two game files: the versions counted while the runs are written.
    [
      'game-runs-then-versions',
      async function* (c: ExportContext) {
        const tally = new RunVersionTally();
        yield* gameRunsJsonl(c, tally);
        yield* gameVersionsJson(c, tally);
      },
    ],
  ] as const) {
    const r = await measure(write, ctx);
    yield { name: `export.${name}.${db}.seconds (1,000 sessions, 3 runs each)`, value: r.seconds, unit: 's' };
    yield { name: `export.${name}.${db}.peak-heap-over-baseline`, value: r.peak.heap / MIB, unit: 'MiB' };
  }
}

/** Which parts run: `BENCH_EXPORT_PARTS` (`bundle`, `events`, `files`, comma separated), else all. */
function parts(): { bundle: boolean; events: boolean; files: boolean } {
  const list = (process.env.BENCH_EXPORT_PARTS || 'bundle,events,files').split(',').map((p) => p.trim());
  return { bundle: list.includes('bundle'), events: list.includes('events'), files: list.includes('files') };
}

async function* suite(db: string, store: Store): AsyncGenerator<BenchResult> {
  const which = parts();
  if (which.files) yield* filesSuite(db, store);
  if (!which.events) return;
  await fill(store);
  const ctx = await exportContext({ store, studyId: 'bench', library: null, replay: null, now: Date.UTC(2026, 0, 2) });
  const total = SESSIONS * EVENTS_PER_SESSION;
  for (const [name, write] of [
    ['events-jsonl', eventsJsonl],
    ['attempts-csv', attemptsCsv],
  ] as const) {
    const r = await measure(write, ctx);
    yield { name: `export.${name}.${db}.throughput (1M events)`, value: total / r.seconds, unit: 'events/s' };
    yield { name: `export.${name}.${db}.peak-rss-over-baseline`, value: r.peak.rss / MIB, unit: 'MiB' };
    yield { name: `export.${name}.${db}.peak-heap-over-baseline`, value: r.peak.heap / MIB, unit: 'MiB' };
  }
}

export async function* run(): AsyncGenerator<BenchResult> {
  const which = parts();
  if (which.bundle) yield* bundleSuite();
  if (!which.events && !which.files) return;
  yield* onPglite('export', async function* (dataDir) {
    const store = await openStore({ dataDir });
    try {
      yield* suite('pglite', store);
    } finally {
      await store.close();
    }
  });
  yield* onPostgres('export', async function* (url, schema) {
    const store = await openStore({ databaseUrl: url, schema, poolSize: 4 });
    try {
      yield* suite('postgres', store);
    } finally {
      await store.close();
    }
  });
}
