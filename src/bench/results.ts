/**
 * Results benchmark: a study's results (`GET /api/admin/studies/:id/results`) for 100 and
 * 1,000 sessions of 1,000 events each (100,000 and 1,000,000 events; 10,000 sessions too with
 * `BENCH_RESULTS_10K=1`), on PGlite in a temporary folder, then on PostgreSQL (`TEST_DATABASE_URL`,
 * else a throwaway cluster), each in the same run so the ratios are honest:
 *
 * - cold: every session's digest computed from its log and stored;
 * - warm: nothing changed since: the digests are read back;
 * - live: participants keep sending events (5 more to every session, round after round) while the
 *   results are asked for again after each round, so every session has new events at every
 *   refresh: the slowest and the median refresh, and the append latency (p99) of the
 *   participants' batches alone and during the refreshes;
 * - as the server works: the background digests of ended sessions (on digest threads), then the results.
 */
import path from 'node:path';
import { ROOT } from '../server/host/root';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from './result';
import { TaskLibrary } from '../server/collections/collections';
import { computeStudyResults, refreshSettledDigests, type ResultsDeps } from '../server/digests/studyDigests';
import { DigestMaintainer } from '../server/digests/maintainer';
import { DigestPool, digestThreadsFromEnv } from '../server/digests/pool';
import { openStore } from '../server/store/open';
import { replayWithEngine } from '../server/study/studies';
import type { EventInput, Store } from '../server/store/types';
import { onPglite, onPostgres } from './databases';
import { fill } from './export';
import { percentile } from './measure';

/** Results asked for during the live part, each after every session got new events. */
const LIVE_REFRESHES = 5;
/** Events each session gets per round of the live part, in one batch. */
const LIVE_EVENTS = 5;
/** Batches appended at once by the simulated participants. */
const LIVE_PARALLEL = 25;

/**
 * Participants sending `LIVE_EVENTS` more events to every session, round after round, until
 * stopped; each batch's append time is kept under the current `phase`.
 */
function participants(store: Store, studyId: string, sessions: number) {
  const next = new Array<number>(sessions).fill(1000);
  const times = new Map<string, number[]>();
  let phase = 'alone';
  let rounds = 0;
  let stopped = false;
  const waiters: (() => void)[] = [];
  const done = (async () => {
    while (!stopped) {
      for (let from = 0; from < sessions && !stopped; from += LIVE_PARALLEL) {
        await Promise.all(
          Array.from({ length: Math.min(LIVE_PARALLEL, sessions - from) }, async (_, j) => {
            const k = from + j;
            const events: EventInput[] = Array.from({ length: LIVE_EVENTS }, (_, e) => {
              const seq = next[k] + e;
              return {
                seq,
                t: seq * 180.25,
                kind: 'paint',
                data: { row: seq % 10, col: (seq * 7) % 10, color: seq % 10, stroke: Math.floor(seq / 10) },
              };
            });
            next[k] += LIVE_EVENTS;
            const t0 = performance.now();
            await store.appendEvents(`${studyId}-s${String(k).padStart(5, '0')}`, events, {
              receivedAt: Date.now(),
              pastSessionLimit: false,
            });
            const list = times.get(phase) ?? [];
            list.push(performance.now() - t0);
            times.set(phase, list);
          }),
        );
      }
      rounds++;
      for (const w of waiters.splice(0)) w();
    }
  })();
  return {
    times,
    done,
    setPhase(p: string) {
      phase = p;
    },
    /** Resolves once a whole round has been sent after this call. */
    async nextRound() {
      const target = rounds + 2;
      while (rounds < target) await new Promise<void>((r) => waiters.push(r));
    },
    async stop() {
      stopped = true;
      await done;
    },
  };
}

async function* suite(db: string, store: Store, library: TaskLibrary): AsyncGenerator<BenchResult> {
  // 10,000 sessions (10,000,000 events) take long to store: only with BENCH_RESULTS_10K=1.
  // BENCH_RESULTS_SIZES=1000 (a comma-separated list) runs those sizes only.
  const sizes = process.env.BENCH_RESULTS_SIZES
    ? process.env.BENCH_RESULTS_SIZES.split(',').map(Number)
    : process.env.BENCH_RESULTS_10K === '1'
      ? [100, 1000, 10_000]
      : [100, 1000];
  for (const sessions of sizes) {
    if (!Number.isInteger(sessions) || sessions < 1)
      throw new Error(
        `BENCH_RESULTS_SIZES=${process.env.BENCH_RESULTS_SIZES} is not a list of session counts; give e.g. BENCH_RESULTS_SIZES=100,1000.`,
      );
    const id = `results${sessions}`;
    const name = `results.${db}.${sessions}_sessions_of_1000_events`;
    await fill(store, id, sessions);
    const deps = { store, library, adminTokenHash: '', replay: replayWithEngine };
    const results = async () => {
      const t0 = performance.now();
      const r = await computeStudyResults(deps, id, null);
      if ('error' in r) throw new Error(r.error);
      return (performance.now() - t0) / 1000;
    };
    yield { name: `${name}.cold`, value: await results(), unit: 's' };
    yield { name: `${name}.warm`, value: await results(), unit: 's' };

    // Live: events keep arriving; after each round every session has new events to fold in.
    const live = participants(store, id, sessions);
    try {
      await live.nextRound();
      live.setPhase('refreshing');
      const refreshes: number[] = [];
      for (let r = 0; r < LIVE_REFRESHES; r++) {
        await live.nextRound();
        refreshes.push(await results());
      }
      yield {
        name: `${name}.live_refresh_slowest (every session has new events)`,
        value: Math.max(...refreshes),
        unit: 's',
      };
      yield { name: `${name}.live_refresh_median`, value: percentile(refreshes, 50), unit: 's' };
    } finally {
      await live.stop();
    }
    yield { name: `${name}.live_append_p99.alone`, value: percentile(live.times.get('alone') ?? [0], 99), unit: 'ms' };
    yield {
      name: `${name}.live_append_p99.during_refreshes`,
      value: percentile(live.times.get('refreshing') ?? [0], 99),
      unit: 'ms',
    };

    // As the server runs: the sessions ended, the background digested them (on digest threads),
    // and the researcher then asks for the results.
    const kept = `${id}-maintained`;
    await fill(store, kept, sessions);
    const pool = new DigestPool(digestThreadsFromEnv(process.env));
    const maintainer = new DigestMaintainer(() => maintained);
    const maintained: ResultsDeps = { ...deps, digests: pool, maintainer };
    try {
      let t0 = performance.now();
      await maintainer.run(kept, 'update', (progress) => refreshSettledDigests(maintained, kept, progress));
      yield { name: `${name}.background_digests`, value: (performance.now() - t0) / 1000, unit: 's' };
      t0 = performance.now();
      const r = await computeStudyResults(maintained, kept, null);
      if ('error' in r) throw new Error(r.error);
      yield { name: `${name}.after_background_digests`, value: (performance.now() - t0) / 1000, unit: 's' };
    } finally {
      await maintainer.stop();
      await pool.stop();
    }
  }
}

export async function* run(): AsyncGenerator<BenchResult> {
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  yield* onPglite('results', async function* (dataDir) {
    const store = await openStore({ dataDir });
    try {
      yield* suite('pglite', store, library);
    } finally {
      await store.close();
    }
  });
  yield* onPostgres('results', async function* (url, schema) {
    const store = await openStore({ databaseUrl: url, schema, poolSize: 4 });
    try {
      yield* suite('postgres', store, library);
    } finally {
      await store.close();
    }
  });
}
