/**
 * Acknowledgements beside heavy work: 8 participants send event batches back to back while a
 * researcher downloads a study of 120,000 events (events.jsonl, then the bundle; exports on
 * worker threads), then while the results of a cold study of 200,000 events are computed (digests
 * on a worker thread). Reports the acknowledgement p99 alone and meanwhile, in the same run, and
 * their difference (the goal: under 100 ms) and ratio; on PGlite in a temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../server/host/root';
import { performance } from 'node:perf_hooks';
import type { Hono } from 'hono';
import type { BenchResult } from './result';
import { createApi } from '../server/app';
import { hashToken } from '../server/people/auth';
import { TaskLibrary } from '../server/collections/collections';
import { DigestPool } from '../server/digests/pool';
import { openStore } from '../server/store/open';
import { gameIds, replayWithEngine } from '../server/study/studies';
import { ackProbe, quantile } from './ackProbe';
import { fill } from './export';

const ADMIN = 'researcher-token-for-the-acks-bench';
const PARTICIPANTS = 8;
/** How long the participants acknowledge alone first: the baseline of this run. */
const QUIET_MS = 1500;

async function* beside(
  name: string,
  app: Hono,
  studyId: string,
  heavy: () => Promise<void>,
): AsyncGenerator<BenchResult> {
  const probe = await ackProbe(app, studyId, PARTICIPANTS);
  const quietUntil = performance.now() + QUIET_MS;
  const quiet = await probe.acks(() => performance.now() > quietUntil);
  let running = true;
  const t0 = performance.now();
  const work = heavy().finally(() => {
    running = false;
  });
  const meanwhile = await probe.acks(() => !running);
  await work;
  const seconds = (performance.now() - t0) / 1000;
  const quietP99 = quantile(quiet, 0.99);
  const p99 = quantile(meanwhile, 0.99);
  yield { name: `acks.${name}.seconds`, value: seconds, unit: 's' };
  yield { name: `acks.${name}.alone.p99`, value: quietP99, unit: 'ms' };
  yield { name: `acks.${name}.meanwhile.p50`, value: quantile(meanwhile, 0.5), unit: 'ms' };
  yield { name: `acks.${name}.meanwhile.p99`, value: p99, unit: 'ms' };
  yield { name: `acks.${name}.meanwhile.p99_over_alone`, value: p99 - quietP99, unit: 'ms' };
  yield { name: `acks.${name}.meanwhile.p99_ratio`, value: p99 / quietP99, unit: 'x' };
  yield { name: `acks.${name}.meanwhile.acknowledged`, value: meanwhile.length, unit: 'batches' };
}

export async function* run(): AsyncGenerator<BenchResult> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-bench-acks-'));
  const library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  const pool = new DigestPool(1);
  try {
    const store = await openStore({ dataDir: path.join(tmp, 'data') });
    try {
      const admin = { Authorization: `Bearer ${ADMIN}` };
      const app = createApi({
        library,
        version: 'bench',
        study: {
          store,
          adminTokenHash: hashToken(ADMIN),
          replay: replayWithEngine,
          games: gameIds,
          exportThreads: true,
          digests: pool,
        },
      });

      await fill(store, 'download', 120);
      const download = async (format: string) => {
        const made = await app.request('/admin/studies/download/exports', {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ format }),
        });
        if (made.status !== 201)
          throw new Error(`making a ${format} download link: ${made.status} ${await made.text()}`);
        const url = ((await made.json()) as { url: string }).url.replace(/^\/api/, '');
        await (await app.request(url)).arrayBuffer();
      };
      yield* beside('export_120000_events_on_threads', app, 'download', async () => {
        await download('jsonl');
        await download('zip');
      });

      await fill(store, 'cold', 200);
      yield* beside('cold_results_200000_events_on_digest_thread', app, 'cold', async () => {
        const r = await app.request('/admin/studies/cold/results', { headers: admin });
        if (r.status !== 200) throw new Error(`the results: ${r.status} ${await r.text()}`);
        await r.json();
      });
    } finally {
      await store.close();
    }
  } finally {
    await pool.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
