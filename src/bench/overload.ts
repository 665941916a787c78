/**
 * Overload benchmark: the real `arc-studio serve` on PGlite over loopback, offered three times
 * what it can store, as deployed (new connections accepted up to 64 per turn of the event loop,
 * participants' writes shed early while the event loop is late) and with one connection accepted
 * per turn (`ARC_STUDIO_ACCEPT_PER_TURN=1`, Node's own behaviour), in one run so the ratios are
 * honest on a shared machine.
 *
 * - capacity: 400 clients send batches of 20 events back to back (enough to keep the server's
 *   group commits full): the events stored per second (C), and the batches per second that makes;
 * - 3x: batches arrive at three times that rate whatever the server answers (open loop, as a
 *   Prolific batch arriving does), each from an idle participant of a pool of 2,000; a refused
 *   batch is sent again by its participant later, as the study page does. Reported: the events
 *   stored per second and its ratio to C, the acknowledgement p50/p99 of the batches stored, the
 *   refusals, and the batches that waited past 10 s (given up).
 *
 * Where each batch's time went (`…3x.stored.STEP-pNN`, `…3x.refused.STEP-pNN`), from the
 * generator's own clock and the server's `Server-Timing` header (`ARC_STUDIO_SERVER_TIMING=1`;
 * both clocks are the machine's, read as ms since the epoch): `late` (the generator began the
 * batch after it was due: the generator measuring itself), `toSocket` (until the request was
 * handed to a socket), `beforeServer` (until the server's handler saw its headers), of which, for
 * a request that opened a connection, `acceptQueue` (from the client's connect to the server's
 * accept: the kernel's accept queue) and `acceptToHeaders`; then `body` and `answer` on the
 * server, `back` (until the generator read the answer) and `read`. `generator.event-loop-*` is
 * the generator's own event-loop delay: when it is small, the waits are the server's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { BenchResult } from './result';
import { percentile } from './measure';
import { createSessions, post, startServe, stop, type Session } from './ingest';
import { newTiming, type RequestTiming } from './http';

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

type Outcome = 'stored' | 'refused' | 'timeout' | 'other';

/** Sends one batch of `s` and moves its seq on when it is stored; what happened. */
async function send(
  url: string,
  s: Session,
  timing?: RequestTiming,
): Promise<{ outcome: Outcome; serverTiming?: string }> {
  const r = await post(`${url}/api/sessions/${s.sessionId}/events`, { events: events(s) }, s.token, timing);
  if (r.status === 200 && (r.json as { ackedThrough: number }).ackedThrough === s.seq + BATCH - 1) {
    s.seq += BATCH;
    return { outcome: 'stored', serverTiming: r.serverTiming };
  }
  return {
    outcome: r.status === 503 ? 'refused' : r.status === 0 ? 'timeout' : 'other',
    serverTiming: r.serverTiming,
  };
}

/**
 * Where one batch's time went, ms: `late` (the generator began it after the time it was due),
 * `toSocket` (from then until the whole request was handed to a socket, a new connection
 * included), `beforeServer` (until the server's request handler saw its headers: the socket and
 * the server's busy thread), `body` and `answer` (the server's reading of the body, and its work
 * until the answer began, from the headers), `back` (from then until the generator read the
 * answer's headers: the generator's busy thread), `read` (the answer's body).
 */
const STEPS = [
  'late',
  'toSocket',
  'beforeServer',
  'acceptQueue',
  'acceptToHeaders',
  'body',
  'answer',
  'back',
  'read',
] as const;
type Steps = Record<(typeof STEPS)[number], number>;

function steps(due: number, t: RequestTiming, serverTiming: string | undefined): Steps | null {
  const arrived = /arrived;desc="([\d.]+)"/.exec(serverTiming ?? '');
  const body = /body;dur=(-?[\d.]+)/.exec(serverTiming ?? '');
  const answer = /answer;dur=([\d.]+)/.exec(serverTiming ?? '');
  const accepted = /accepted;desc="([\d.]+)"/.exec(serverTiming ?? '');
  const nth = /nth;desc="(\d+)"/.exec(serverTiming ?? '');
  if (!arrived || !body || !answer) return null;
  // The server's clock in ms since the epoch, turned into this process's performance.now().
  const seen = Number(arrived[1]) - performance.timeOrigin;
  const acceptedAt = accepted && nth?.[1] === '1' ? Number(accepted[1]) - performance.timeOrigin : NaN;
  return {
    late: t.start - due,
    toSocket: t.written - t.start,
    beforeServer: seen - t.written,
    acceptQueue: acceptedAt - t.connected,
    acceptToHeaders: seen - acceptedAt,
    body: Number(body[1]),
    answer: Number(answer[1]),
    back: t.response - (seen + Number(answer[1])),
    read: t.end - t.response,
  };
}

async function capacity(url: string, sessions: Session[]): Promise<number> {
  let stored = 0;
  const start = performance.now();
  const end = start + CAPACITY_SECONDS * 1000;
  await Promise.all(
    sessions.slice(0, CLIENTS).map(async (s) => {
      while (performance.now() < end) if ((await send(url, s)).outcome === 'stored') stored += BATCH;
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
  const fromDue: number[] = [];
  const storedSteps: Steps[] = [];
  const refusedSteps: Steps[] = [];
  let newConnections = 0;
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
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
        const timing = newTiming();
        const r = await send(url, s, timing);
        counts[r.outcome]++;
        if (timing.newConnection) newConnections++;
        const st = steps(at, timing, r.serverTiming);
        if (r.outcome === 'stored') {
          latencies.push(performance.now() - t0);
          fromDue.push(performance.now() - at);
          if (st) storedSteps.push(st);
        } else if (r.outcome === 'refused' && st) refusedSteps.push(st);
        idle.push(s);
      })(),
    );
  }
  await Promise.all(inflight);
  loop.disable();
  const seconds = (performance.now() - start) / 1000;
  over = true;
  return {
    rate: (counts.stored * BATCH) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    fromDueP99: percentile(fromDue, 99),
    storedSteps,
    refusedSteps,
    newConnections,
    generatorLoopP99: loop.percentile(99) / 1e6,
    generatorLoopMax: loop.max / 1e6,
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
    yield { name: `overload.${label}.3x.ack-p99-from-due`, value: o.fromDueP99, unit: 'ms' };
    for (const [what, list] of [
      ['stored', o.storedSteps],
      ['refused', o.refusedSteps],
    ] as const)
      for (const step of STEPS) {
        const values = list.map((x) => x[step]).filter((v) => !Number.isNaN(v));
        if (values.length)
          for (const p of [50, 99])
            yield { name: `overload.${label}.3x.${what}.${step}-p${p}`, value: percentile(values, p), unit: 'ms' };
      }
    yield { name: `overload.${label}.3x.new-connections`, value: o.newConnections, unit: 'requests' };
    yield { name: `overload.${label}.3x.generator.event-loop-p99`, value: o.generatorLoopP99, unit: 'ms' };
    yield { name: `overload.${label}.3x.generator.event-loop-max`, value: o.generatorLoopMax, unit: 'ms' };
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
  // The limits of a real deployment (the default queue wait and event-loop delays), with new
  // connections accepted several per turn (the default) and one per turn.
  const limits = { ARC_STUDIO_MAX_WAIT_MS: '500', ARC_STUDIO_MAX_LAG_MS: '1000', ARC_STUDIO_SERVER_TIMING: '1' };
  yield* round('deployed', { ...limits, ARC_STUDIO_SHED_LAG_MS: '250' });
  yield* round('one-accept-per-turn', { ...limits, ARC_STUDIO_SHED_LAG_MS: '250', ARC_STUDIO_ACCEPT_PER_TURN: '1' });
}
