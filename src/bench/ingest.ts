/**
 * Ingestion benchmark: the real `arc-studio serve` over loopback, on PGlite and on PostgreSQL.
 *
 * - paced: 1,000 simulated participants each send 2 events a second (one batch of 2 per second,
 *   as an outbox flushing every second would), with random phases, each over its own kept-alive
 *   connection as a browser would; reports the acknowledgement latency (p50, p99; the first batch
 *   of each participant, which opens its connection, apart) and the events stored per second.
 * - batched: 50 clients send batches of 100 events back to back; reports events per second.
 *
 * Bounded: about 15 s per database when the server keeps up (a request unanswered for 10 s is
 * given up and counted as unacknowledged), 127.0.0.1 only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { NODE_FLAGS } from '../server/host/nodeFlags';
import type { BenchResult } from './result';
import { percentile } from './measure';
import { freePort, startPgCluster } from '../server/store/pgCluster';
import { ROOT } from '../server/host/root';
import { requestJson, type RequestTiming } from './http';

const PARTICIPANTS = 1000;
const PACED_SECONDS = 8;
const BATCH_CLIENTS = 50;
const BATCH_SIZE = 100;
const BATCH_SECONDS = 5;

export interface Session {
  sessionId: string;
  token: string;
  seq: number;
}

let retries = 0;
/** A request not answered within this is given up (and counted), so the run stays bounded. */
const REQUEST_TIMEOUT_MS = 10_000;
export async function request(
  url: string,
  payload: string,
  token?: string,
  timing?: RequestTiming,
): Promise<{ status: number; json: unknown; serverTiming?: string }> {
  const { status, json, headers } = await requestJson(url, 'POST', payload, token, REQUEST_TIMEOUT_MS, timing);
  const serverTiming = headers['server-timing'];
  return { status, json, ...(typeof serverTiming === 'string' ? { serverTiming } : {}) };
}

/** POSTs JSON; a connection error is retried (as an outbox would; batches are idempotent) and counted. */
export const post = async (
  url: string,
  body: unknown,
  token?: string,
  timing?: RequestTiming,
): Promise<{ status: number; json: unknown; serverTiming?: string }> => {
  const payload = JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    try {
      return await request(url, payload, token, timing);
    } catch (e) {
      if ((e as Error).name === 'TimeoutError') return { status: 0, json: null };
      if (attempt >= 3) throw new Error(`POST ${url} failed: ${(e as Error).message}`);
      retries++;
    }
  }
};

/**
 * The batched phase measures the store, not the per-session rate limiter: a few clients send
 * far faster than any participant, so the limits are raised out of the way (the validation of
 * every event at the door still runs).
 */
const UNLIMITED = {
  ARC_STUDIO_MAX_SESSION_EVENTS: '100000000',
  ARC_STUDIO_MAX_SESSION_MB: '100000',
  ARC_STUDIO_SESSION_EVENTS_PER_SECOND: '100000000',
  ARC_STUDIO_SESSION_BURST_EVENTS: '100000000',
  ARC_STUDIO_SESSION_KB_PER_SECOND: '100000000',
  ARC_STUDIO_SESSION_BURST_MB: '100000',
  // Every simulated participant comes from this machine's one address.
  ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000000',
  ARC_STUDIO_STUDY_SESSIONS_PER_MINUTE: '100000000',
};

export async function startServe(
  tmp: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[] = [],
): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      // e.g. `--cpu-prof --cpu-prof-dir=prof` for a profile of each server a suite starts.
      ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      'bin/arc-studio.mjs',
      'serve',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      path.join(tmp, 'data'),
      ...args,
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ARC_STUDIO_DIST: path.join(tmp, 'dist'),
        ARC_STUDIO_ADMIN_TOKEN: 'bench-researcher-token-0123456789',
        ...UNLIMITED,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  proc.stdout!.on('data', (d) => {
    out += d;
  });
  proc.stderr!.on('data', (d) => {
    out += d;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('ARC Studio is running')) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    proc.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`serve exited (${code}):\n${out}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, proc };
}

export const stop = (proc: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const events = (s: Session, n: number) =>
  Array.from({ length: n }, () => ({
    seq: s.seq++,
    t: performance.now(),
    kind: 'paint',
    data: { row: 3, col: 4, color: 2, stroke: s.seq },
  }));

export async function createSessions(url: string, n: number, prefix = 'bench'): Promise<Session[]> {
  const out: Session[] = [];
  for (let i = 0; i < n; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, async (_, k) => {
        for (;;) {
          const r = await post(`${url}/api/studies/sample/sessions`, {
            params: { PROLIFIC_PID: `${prefix}-${i + k}` },
          });
          // Past capacity (a server still compiling its code hot): wait as the study page does.
          if (r.status !== 503) return r;
          await sleep(1000 * ((r.json as { retryAfter?: number }).retryAfter ?? 1));
        }
      }),
    );
    for (const m of made) {
      if (m.status !== 201) throw new Error(`Creating a session failed: ${JSON.stringify(m.json)}`);
      out.push({ ...(m.json as { sessionId: string; token: string }), seq: 0 });
    }
  }
  return out;
}

export async function paced(url: string, sessions: Session[], seconds = PACED_SECONDS) {
  // Each participant's first batch opens its connection; those are reported apart, so that the
  // steady-state figures are not a measure of 1,000 handshakes in one second.
  const latencies: number[] = [];
  const first: number[] = [];
  let stored = 0;
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    sessions.map(async (s) => {
      await sleep(Math.random() * 1000);
      const startAt = performance.now();
      for (let next = startAt; next < end; next += 1000) {
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
        const t0 = performance.now();
        const r = await post(`${url}/api/sessions/${s.sessionId}/events`, { events: events(s, 2) }, s.token);
        (next === startAt ? first : latencies).push(performance.now() - t0);
        if (r.status === 200 && (r.json as { ackedThrough: number }).ackedThrough === s.seq - 1) stored += 2;
        else {
          errors++;
          // Refused or unanswered: resend these seqs next time, as an outbox would (ingestion is
          // idempotent). Moving on would leave a gap that makes every later batch of the session
          // count as unacknowledged too.
          if (r.status !== 200) s.seq -= 2;
        }
      }
    }),
  );
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    firstP99: percentile(first, 99),
    rate: stored / ((performance.now() - start) / 1000),
    errors,
  };
}

async function batched(url: string, sessions: Session[]) {
  const latencies: number[] = [];
  let stored = 0;
  const start = performance.now();
  const end = start + BATCH_SECONDS * 1000;
  await Promise.all(
    sessions.slice(0, BATCH_CLIENTS).map(async (s) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await post(`${url}/api/sessions/${s.sessionId}/events`, { events: events(s, BATCH_SIZE) }, s.token);
        latencies.push(performance.now() - t0);
        if (r.status === 0) {
          s.seq -= BATCH_SIZE;
          continue;
        }
        if (r.status !== 200 || (r.json as { ackedThrough: number }).ackedThrough !== s.seq - 1)
          throw new Error(`A batch was not acknowledged in full: ${JSON.stringify(r.json)}`);
        stored += BATCH_SIZE;
      }
    }),
  );
  return { rate: stored / ((performance.now() - start) / 1000), p99: percentile(latencies, 99) };
}

export async function* suite(name: string, env: NodeJS.ProcessEnv): AsyncIterable<BenchResult> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-bench-'));
  mkdirSync(path.join(tmp, 'dist'));
  writeFileSync(path.join(tmp, 'dist', 'index.html'), '<!doctype html><title>bench</title>');
  const server = await startServe(tmp, env);
  try {
    const sessions = await createSessions(server.url, PARTICIPANTS);
    retries = 0;
    const p = await paced(server.url, sessions);
    yield { name: `ingest.${name}.paced-1000x2.ack-p50`, value: p.p50, unit: 'ms' };
    yield { name: `ingest.${name}.paced-1000x2.ack-p99`, value: p.p99, unit: 'ms' };
    yield { name: `ingest.${name}.paced-1000x2.first-batch-ack-p99`, value: p.firstP99, unit: 'ms' };
    yield { name: `ingest.${name}.paced-1000x2.throughput`, value: p.rate, unit: 'events/s' };
    yield { name: `ingest.${name}.paced-1000x2.connection-retries`, value: retries, unit: 'requests' };
    yield { name: `ingest.${name}.paced-1000x2.unacknowledged`, value: p.errors, unit: 'batches' };
    const b = await batched(server.url, sessions);
    yield { name: `ingest.${name}.batched-${BATCH_CLIENTS}x${BATCH_SIZE}.throughput`, value: b.rate, unit: 'events/s' };
    yield { name: `ingest.${name}.batched-${BATCH_CLIENTS}x${BATCH_SIZE}.ack-p99`, value: b.p99, unit: 'ms' };
  } finally {
    await stop(server.proc);
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function* run(): AsyncIterable<BenchResult> {
  yield* suite('pglite', { DATABASE_URL: '' });
  // BENCH_DATABASE_URL: an existing PostgreSQL (its public schema gets the tables); else a throwaway cluster.
  const external = process.env.BENCH_DATABASE_URL;
  const cluster = external ? null : await startPgCluster();
  try {
    yield* suite('postgres', { DATABASE_URL: external ?? cluster!.url });
  } finally {
    cluster?.stop();
  }
}
