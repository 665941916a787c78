/**
 * Export benchmark: 1,000,000 events (1,000 sessions of 1,000 events) in a store, then
 * `events.jsonl` and `attempts.csv` streamed to /dev/null. Reports events per second and the
 * peak memory over the run (resident set and JS heap, less what was in use before it), first
 * on PGlite in a temporary folder, then on PostgreSQL (`TEST_DATABASE_URL`, else a throwaway
 * local cluster; skipped with a note when neither is available).
 */
import { createWriteStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BenchResult } from '../cli/bench';
import { attemptsCsv } from '../server/export/attempts';
import { exportContext, type ExportContext } from '../server/export/context';
import { eventsJsonl } from '../server/export/events';
import { openStore } from '../server/store/open';
import { onPglite, onPostgres } from './databases';
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

async function* suite(db: string, store: Store): AsyncGenerator<BenchResult> {
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
