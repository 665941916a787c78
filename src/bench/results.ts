/**
 * Results benchmark: a study's results (`GET /api/admin/studies/:id/results`) for 100 and
 * 1,000 sessions of 1,000 events each (100,000 and 1,000,000 events; 10,000 sessions too with
 * `BENCH_RESULTS_10K=1`), on PGlite in a temporary
 * folder: cold (every session's digest computed from its log and stored) and warm (nothing
 * changed since: the digests are read back), in the same run so the ratio is honest; and as the
 * server works: the background digests of ended sessions (on digest threads), then the results.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from '../cli/bench';
import { TaskLibrary } from '../server/collections';
import { computeStudyResults, refreshSettledDigests, type ResultsDeps } from '../server/digests/studyDigests';
import { DigestMaintainer } from '../server/digests/maintainer';
import { DigestPool, digestThreadsFromEnv } from '../server/digests/pool';
import { openStore } from '../server/store/open';
import { replayWithEngine } from '../server/studies';
import { fill } from './export';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export async function* run(): AsyncGenerator<BenchResult> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-bench-results-'));
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  try {
    const store = await openStore({ dataDir: path.join(tmp, 'data') });
    try {
      // 10,000 sessions (10,000,000 events) take long to store: only with BENCH_RESULTS_10K=1.
      for (const sessions of process.env.BENCH_RESULTS_10K === '1' ? [100, 1000, 10_000] : [100, 1000]) {
        const id = `results${sessions}`;
        await fill(store, id, sessions);
        const deps = { store, library, adminTokenHash: '', replay: replayWithEngine };
        for (const pass of ['cold', 'warm']) {
          const t0 = performance.now();
          const r = await computeStudyResults(deps, id, null);
          if ('error' in r) throw new Error(r.error);
          yield { name: `results.pglite.${sessions}_sessions_of_1000_events.${pass}`, value: (performance.now() - t0) / 1000, unit: 's' };
        }
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
          yield { name: `results.pglite.${sessions}_sessions_of_1000_events.background_digests`, value: (performance.now() - t0) / 1000, unit: 's' };
          t0 = performance.now();
          const r = await computeStudyResults(maintained, kept, null);
          if ('error' in r) throw new Error(r.error);
          yield { name: `results.pglite.${sessions}_sessions_of_1000_events.after_background_digests`, value: (performance.now() - t0) / 1000, unit: 's' };
        } finally {
          await maintainer.stop();
          await pool.stop();
        }
      }
    } finally {
      await store.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
