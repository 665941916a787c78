/**
 * Scale benchmark: the real `arc-studio serve` over loopback, in one run so that the ratios are
 * honest on a shared machine, for one process on PGlite, one on PostgreSQL and `--workers 2` on
 * PostgreSQL:
 *
 * - acknowledgement latency (p50, p99) of 1,000 simulated participants sending 2 events a second,
 *   alone, and while a researcher keeps asking for a cold study's results, downloading its
 *   `events.jsonl` export and reading its largest session back (for replay), over and over;
 * - the number of participants at which the acknowledgement p99 passes 1 s, or more than 1% of
 *   batches are refused with 503 (250, 500, then 500 more each step to 2,000, then 1,000 more).
 *
 * The study the researcher reads holds `SCALE_HEAVY_SESSIONS` sessions of 1,000 events (default
 * 200: 200,000 events). Participant steps go up to `SCALE_MAX_PARTICIPANTS` (default 5,000).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from '../cli/bench';
import { openStore } from '../server/store/open';
import { startPgCluster, type PgCluster } from '../server/store/pgCluster';
import { fill } from './export';
import { createSessions, paced, startServe, stop, type Session } from './ingest';
import { postgresDatabase } from './databases';

const ADMIN = 'bench-researcher-token-0123456789';
const PACED_SECONDS = 8;
const HEAVY = Number(process.env.SCALE_HEAVY_SESSIONS || 200);
const MAX_PARTICIPANTS = Number(process.env.SCALE_MAX_PARTICIPANTS || 5000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A GET read to its end (the body thrown away); a 503 is asked again after its Retry-After, as the studio does. */
async function get(url: string, token: string): Promise<void> {
  for (;;) {
    const status = await new Promise<{ code: number; retry: number }>((resolve, reject) => {
      http.get(url, { headers: { Authorization: `Bearer ${token}` } }, (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve({ code: res.statusCode ?? 0, retry: Number(res.headers['retry-after'] ?? 1) }));
      }).on('error', reject);
    });
    if (status.code === 200) return;
    if (status.code !== 503) throw new Error(`GET ${url}: ${status.code}`);
    await sleep(status.retry * 1000);
  }
}

async function postJson(url: string, body: unknown, token: string): Promise<unknown> {
  for (;;) {
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
    if (res.status === 503) { await sleep(1000 * Number(res.headers.get('Retry-After') ?? 1)); continue; }
    if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  }
}

/** The researcher's heavy reads, one after another until `until()` says stop; how many of each were done. */
async function researcher(url: string, until: () => boolean): Promise<{ results: number; exports: number; replays: number }> {
  const done = { results: 0, exports: 0, replays: 0 };
  const largest = 'heavy-s00000';
  const loops = [
    async () => { await get(`${url}/api/admin/studies/heavy/results`, ADMIN); done.results++; },
    async () => {
      const t = (await postJson(`${url}/api/admin/studies/heavy/exports`, { format: 'jsonl' }, ADMIN)) as { url: string };
      await get(`${url}${t.url}`, ADMIN);
      done.exports++;
    },
    async () => { await get(`${url}/api/admin/sessions/${largest}/events`, ADMIN); done.replays++; },
  ];
  await Promise.all(loops.map(async (f) => { while (!until()) await f(); }));
  return done;
}

/** Waits (up to a minute) until `/api/health` reports the server out of overload. */
async function settle(url: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const health = await fetch(`${url}/api/health`).then((r) => r.json() as Promise<{ load?: { overloaded?: boolean; inFlight?: number } }>).catch(() => null);
    if (health?.load && !health.load.overloaded && (health.load.inFlight ?? 0) <= 1) return;
    await sleep(500);
  }
}

async function* scaleCase(name: string, databaseUrl: string | null, args: readonly string[]): AsyncIterable<BenchResult> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-bench-scale-'));
  mkdirSync(path.join(tmp, 'dist'));
  writeFileSync(path.join(tmp, 'dist', 'index.html'), '<!doctype html><title>bench</title>');
  try {
    // The researcher's study, stored before the server starts (PGlite is one process at a time).
    const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir: path.join(tmp, 'data') });
    try { await fill(store, 'heavy', HEAVY); } finally { await store.close(); }
    const server = await startServe(tmp, { DATABASE_URL: databaseUrl ?? '', ARC_STUDIO_ADMIN_TOKEN: ADMIN }, args);
    try {
      let sessions: Session[] = await createSessions(server.url, 1000, `${name}-0`);
      // Warm-up: the server's code is compiled hot during its first seconds, every participant's
      // connection is opened, and the start-up check of the digests is done.
      await paced(server.url, sessions, 4);
      await settle(server.url);
      const alone = await paced(server.url, sessions, PACED_SECONDS);
      yield { name: `scale.${name}.1000-participants.ack-p50`, value: alone.p50, unit: 'ms' };
      yield { name: `scale.${name}.1000-participants.ack-p99`, value: alone.p99, unit: 'ms' };
      yield { name: `scale.${name}.1000-participants.unacknowledged`, value: alone.errors, unit: 'batches' };
      let stopped = false;
      const reads = researcher(server.url, () => stopped);
      const busy = await paced(server.url, sessions, PACED_SECONDS);
      stopped = true;
      const done = await reads;
      // The server may still be working through the researcher's last requests: let it settle.
      await settle(server.url);
      yield { name: `scale.${name}.1000-participants+results+export+replay.ack-p50`, value: busy.p50, unit: 'ms' };
      yield { name: `scale.${name}.1000-participants+results+export+replay.ack-p99`, value: busy.p99, unit: 'ms' };
      yield { name: `scale.${name}.1000-participants+results+export+replay.unacknowledged`, value: busy.errors, unit: 'batches' };
      yield { name: `scale.${name}.results-requests-meanwhile`, value: done.results, unit: 'requests' };
      yield { name: `scale.${name}.exports-meanwhile`, value: done.exports, unit: 'downloads' };
      yield { name: `scale.${name}.session-reads-meanwhile`, value: done.replays, unit: 'requests' };

      // More participants until the p99 passes 1 s.
      let passedAt = 0;
      let lastUnder = 0;
      for (let n = 250; n <= MAX_PARTICIPANTS; n = n < 500 ? 500 : n < 2000 ? n + 500 : n + 1000) {
        if (n > sessions.length) sessions = [...sessions, ...(await createSessions(server.url, n - sessions.length, `${name}-${n}`))];
        const r = await paced(server.url, sessions.slice(0, n), PACED_SECONDS);
        yield { name: `scale.${name}.${n}-participants.ack-p99`, value: r.p99, unit: 'ms' };
        yield { name: `scale.${name}.${n}-participants.unacknowledged`, value: r.errors, unit: 'batches' };
        // Past capacity the server answers 503 at once: many of those count as passing too.
        if (r.p99 > 1000 || r.errors > n * PACED_SECONDS * 0.01) { passedAt = n; break; }
        lastUnder = n;
      }
      yield { name: `scale.${name}.participants-last-under-1s-p99`, value: lastUnder, unit: 'participants' };
      yield { name: `scale.${name}.participants-at-which-ack-p99-passes-1s`, value: passedAt || Infinity, unit: passedAt ? 'participants' : `participants (not reached at ${MAX_PARTICIPANTS})` };
    } finally {
      await stop(server.proc);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function* run(): AsyncIterable<BenchResult> {
  yield* scaleCase('pglite', null, []);
  const external = process.env.BENCH_DATABASE_URL;
  let cluster: PgCluster | null = null;
  const base = external ?? (cluster = await startPgCluster()).url;
  try {
    yield* scaleCase('postgres', await postgresDatabase(base, 'bench_scale_one'), []);
    yield* scaleCase('postgres-workers-2', await postgresDatabase(base, 'bench_scale_two'), ['--workers', '2']);
  } finally {
    cluster?.stop();
  }
}
