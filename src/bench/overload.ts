/**
 * Overload benchmark: the real `arc-studio serve` on PGlite over loopback, offered three times
 * what it can store, with participants' writes shed early while the event loop is late (the
 * default `ARC_STUDIO_SHED_LAG_MS`) and without (shed only with everything else, past
 * `ARC_STUDIO_MAX_LAG_MS`, as before), in one run so the ratios are honest on a shared machine.
 *
 * - capacity: 400 clients send batches of 20 events back to back (enough to keep the server's
 *   group commits full): the events stored per second (C), and the batches per second that makes;
 * - 3x: batches arrive at three times that rate whatever the server answers (open loop, as a
 *   Prolific batch arriving does), each from an idle participant of a pool of 2,000; a refused
 *   batch is sent again by its participant later, as the study page does. Reported: the events
 *   stored per second and its ratio to C, the acknowledgement p50/p99 of the batches stored, the
 *   refusals, and the batches that waited past 10 s (given up).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from '../cli/bench';
import { percentile } from './measure';
import { createSessions, post, startServe, stop, type Session } from './ingest';

const BATCH = 20;
const CLIENTS = 400;
const CAPACITY_SECONDS = 5;
const OVERLOAD_SECONDS = 8;
const POOL = 2000;
const FACTOR = 3;

const events = (s: Session) =>
  Array.from({ length: BATCH }, (_, i) => ({
    seq: s.seq + i,
    t: performance.now(),
    kind: 'paint',
    data: { row: 3, col: 4, color: 2, stroke: s.seq + i },
  }));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends one batch of `s` and moves its seq on when it is stored; what happened. */
async function send(url: string, s: Session): Promise<'stored' | 'refused' | 'timeout' | 'other'> {
  const r = await post(`${url}/api/sessions/${s.sessionId}/events`, { events: events(s) }, s.token);
  if (r.status === 200 && (r.json as { ackedThrough: number }).ackedThrough === s.seq + BATCH - 1) {
    s.seq += BATCH;
    return 'stored';
  }
  return r.status === 503 ? 'refused' : r.status === 0 ? 'timeout' : 'other';
}

async function capacity(url: string, sessions: Session[]): Promise<number> {
  let stored = 0;
  const start = performance.now();
  const end = start + CAPACITY_SECONDS * 1000;
  await Promise.all(
    sessions.slice(0, CLIENTS).map(async (s) => {
      while (performance.now() < end) if ((await send(url, s)) === 'stored') stored += BATCH;
    }),
  );
  return stored / ((performance.now() - start) / 1000);
}

/** What the server says of its load (`/api/health`), read every 250 ms until `until()`: the worst of each figure. */
async function watchHealth(url: string, until: () => boolean) {
  const worst = {
    inFlight: 0,
    eventLoopLagMs: 0,
    queueWaitMs: 0,
    oldestWriteMs: 0,
    overloadedReads: 0,
    reads: 0,
  };
  while (!until()) {
    const h = await fetch(`${url}/api/health`)
      .then(
        (r) =>
          r.json() as Promise<{
            load?: {
              inFlight: number;
              eventLoopLagMs: number;
              queueWaitMs: number | null;
              oldestWriteMs?: number;
              overloaded: boolean;
            };
          }>,
      )
      .catch(() => null);
    if (h?.load) {
      worst.reads++;
      worst.inFlight = Math.max(worst.inFlight, h.load.inFlight);
      worst.eventLoopLagMs = Math.max(worst.eventLoopLagMs, h.load.eventLoopLagMs);
      worst.queueWaitMs = Math.max(worst.queueWaitMs, h.load.queueWaitMs ?? 0);
      worst.oldestWriteMs = Math.max(worst.oldestWriteMs, h.load.oldestWriteMs ?? 0);
      if (h.load.overloaded) worst.overloadedReads++;
    }
    await sleep(250);
  }
  return worst;
}

async function overload(url: string, sessions: Session[], batchesPerSecond: number) {
  let over = false;
  const health = watchHealth(url, () => over);
  const idle = sessions.slice(CLIENTS);
  const latencies: number[] = [];
  const counts = { stored: 0, refused: 0, timeout: 0, other: 0, unsent: 0 };
  const inflight: Promise<void>[] = [];
  const start = performance.now();
  const end = start + OVERLOAD_SECONDS * 1000;
  for (let k = 0; ; k++) {
    const at = start + (k * 1000) / batchesPerSecond;
    if (at >= end) break;
    const wait = at - performance.now();
    if (wait > 1) await sleep(wait);
    const s = idle.shift();
    if (!s) {
      counts.unsent++;
      continue;
    }
    inflight.push(
      (async () => {
        const t0 = performance.now();
        const r = await send(url, s);
        counts[r]++;
        if (r === 'stored') latencies.push(performance.now() - t0);
        idle.push(s);
      })(),
    );
  }
  await Promise.all(inflight);
  const seconds = (performance.now() - start) / 1000;
  over = true;
  return {
    rate: (counts.stored * BATCH) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...counts,
    health: await health,
  };
}

async function* round(label: string, env: NodeJS.ProcessEnv): AsyncIterable<BenchResult> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-overload-'));
  mkdirSync(path.join(tmp, 'dist'));
  writeFileSync(path.join(tmp, 'dist', 'index.html'), '<!doctype html><title>bench</title>');
  const server = await startServe(tmp, { DATABASE_URL: '', ...env });
  try {
    const sessions = await createSessions(server.url, CLIENTS + POOL, `overload-${label}`);
    const c = await capacity(server.url, sessions);
    yield { name: `overload.${label}.capacity`, value: c, unit: 'events/s' };
    const shed = async () =>
      ((await (await fetch(`${server.url}/api/health`)).json()) as { load: { shed: number } }).load.shed;
    const shedBefore = await shed();
    const o = await overload(server.url, sessions, (FACTOR * c) / BATCH);
    const shedDuring = (await shed()) - shedBefore;
    yield { name: `overload.${label}.3x.stored`, value: o.rate, unit: 'events/s' };
    yield { name: `overload.${label}.3x.stored-to-capacity`, value: o.rate / c, unit: 'ratio' };
    yield { name: `overload.${label}.3x.ack-p50`, value: o.p50, unit: 'ms' };
    yield { name: `overload.${label}.3x.ack-p99`, value: o.p99, unit: 'ms' };
    yield { name: `overload.${label}.3x.refused`, value: o.refused, unit: 'batches' };
    yield {
      name: `overload.${label}.3x.server.shed-early`,
      value: shedDuring,
      unit: 'writes (of the refused)',
    };
    yield { name: `overload.${label}.3x.given-up-after-10s`, value: o.timeout, unit: 'batches' };
    yield { name: `overload.${label}.3x.not-sent-no-idle-participant`, value: o.unsent, unit: 'batches' };
    // Where the batches wait: a client's wait far past the server's oldest admitted write is spent
    // before admission (the accept backlog, a busy event loop, the load generator), not inside.
    yield {
      name: `overload.${label}.3x.server.oldest-write-waiting`,
      value: o.health.oldestWriteMs,
      unit: 'ms (worst seen)',
    };
    yield {
      name: `overload.${label}.3x.server.fastest-write-of-a-second`,
      value: o.health.queueWaitMs,
      unit: 'ms (worst seen)',
    };
    yield {
      name: `overload.${label}.3x.server.event-loop-lag`,
      value: o.health.eventLoopLagMs,
      unit: 'ms (worst seen)',
    };
    yield { name: `overload.${label}.3x.server.in-flight`, value: o.health.inFlight, unit: 'requests (most seen)' };
    yield {
      name: `overload.${label}.3x.server.overloaded`,
      value: o.health.overloadedReads,
      unit: `of ${o.health.reads} health reads`,
    };
  } finally {
    await stop(server.proc);
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function* run(): AsyncIterable<BenchResult> {
  // The limits of a real deployment (the default queue wait and event-loop delays), with and
  // without shedding participants' writes early.
  const limits = { ARC_STUDIO_MAX_WAIT_MS: '500', ARC_STUDIO_MAX_LAG_MS: '1000' };
  yield* round('shed-early', { ...limits, ARC_STUDIO_SHED_LAG_MS: '250' });
  yield* round('no-early-shedding', { ...limits, ARC_STUDIO_SHED_LAG_MS: '3600000' });
}
