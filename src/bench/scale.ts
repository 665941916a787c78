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
 * - authentication on and off (`authCompared`): the researcher's reads beside the participants
 *   and one study route's rate, with the bootstrap token and with a person's personal token and
 *   browser session, and the ratios.
 *
 * The study the researcher reads holds `SCALE_HEAVY_SESSIONS` sessions of 1,000 events (default
 * 200: 200,000 events). Participant steps go up to `SCALE_MAX_PARTICIPANTS` (default 5,000).
 *
 * On PGlite (whose queries run on the thread that acknowledges events) also one long session:
 * `SCALE_LONG_EVENTS` events (default 200,000) and a game run of `SCALE_LONG_STEPS` stored steps
 * (default 8,000), read back by a researcher again and again, one kind of read at a time (its
 * events, its summary, its game runs, the export of its study), each beside the 1,000
 * participants: the acknowledgement p99 beside each read, and how long one read took.
 * `SCALE_DATABASES=pglite` runs the PGlite case only; `SCALE_PARTICIPANTS` sets how many
 * participants send beside the reads (default 1,000). `SCALE_LONG_ONLY=1` measures the
 * participants alone and beside the long session's reads only (no researcher's study, no growing
 * steps: a quicker look), and `SCALE_LONG_READS` names the reads to make (default
 * `events,summary,runs,export`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './result';
import { encodeFrames } from '../core/formats/frames';
import { hashHex } from '../core/game/hash';
import { openStore } from '../server/store/open';
import type { EventInput, Store } from '../server/store/types';
import { startPgCluster, type PgCluster } from '../server/store/pgCluster';
import { fill } from './export';
import { createSessions, paced, startServe, stop, type Session } from './ingest';
import { postgresDatabase } from './databases';
import { benchPerson, getRates } from './people';

const ADMIN = 'bench-researcher-token-0123456789';
const PACED_SECONDS = 8;
const HEAVY = Number(process.env.SCALE_HEAVY_SESSIONS || 200);
const MAX_PARTICIPANTS = Number(process.env.SCALE_MAX_PARTICIPANTS || 5000);
/** Participants sending beside the researcher's reads (`SCALE_PARTICIPANTS`, default 1,000). */
const PARTICIPANTS = Number(process.env.SCALE_PARTICIPANTS || 1000);
const LONG_EVENTS = Number(process.env.SCALE_LONG_EVENTS || 200_000);
const LONG_STEPS = Number(process.env.SCALE_LONG_STEPS || 8_000);
const LONG_SESSION = 'long-s00000';
/** Only the long session's reads (`SCALE_LONG_ONLY=1`): a quicker look at one finding. */
const LONG_ONLY = process.env.SCALE_LONG_ONLY === '1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The credential of a request: the bootstrap researcher token's, or a person's (`people.ts`). */
type Auth = Readonly<Record<string, string>>;
const BOOTSTRAP: Auth = { Authorization: `Bearer ${ADMIN}` };

/** A GET read to its end (the body thrown away); a 503 is asked again after its Retry-After, as the studio does. */
async function get(url: string, auth: Auth): Promise<void> {
  for (;;) {
    const status = await new Promise<{ code: number; retry: number }>((resolve, reject) => {
      http
        .get(url, { headers: auth }, (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve({ code: res.statusCode ?? 0, retry: Number(res.headers['retry-after'] ?? 1) }));
        })
        .on('error', reject);
    });
    if (status.code === 200) return;
    if (status.code !== 503) throw new Error(`GET ${url}: ${status.code}`);
    await sleep(status.retry * 1000);
  }
}

async function postJson(url: string, body: unknown, auth: Auth): Promise<unknown> {
  for (;;) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...auth },
      body: JSON.stringify(body),
    });
    if (res.status === 503) {
      await sleep(1000 * Number(res.headers.get('Retry-After') ?? 1));
      continue;
    }
    if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  }
}

/** The researcher's heavy reads, one after another until `until()` says stop; how many of each were done. */
async function researcher(
  url: string,
  until: () => boolean,
  auth: Auth = BOOTSTRAP,
): Promise<{ results: number; exports: number; replays: number }> {
  const done = { results: 0, exports: 0, replays: 0 };
  const largest = 'heavy-s00000';
  const loops = [
    async () => {
      await get(`${url}/api/admin/studies/heavy/results`, auth);
      done.results++;
    },
    async () => {
      const t = (await postJson(`${url}/api/admin/studies/heavy/exports`, { format: 'jsonl' }, auth)) as {
        url: string;
      };
      await get(`${url}${t.url}`, auth);
      done.exports++;
    },
    async () => {
      await get(`${url}/api/admin/sessions/${largest}/events`, auth);
      done.replays++;
    },
  ];
  await Promise.all(
    loops.map(async (f) => {
      while (!until()) await f();
    }),
  );
  return done;
}

/**
 * Study `long` (one grid task and one game item) with one session of `events` events (paint
 * strokes over the task's grid) and one game run of `steps` steps of 64x64 frames.
 */
async function fillLong(store: Store, events: number, steps: number): Promise<void> {
  const base = Date.UTC(2026, 0, 1);
  await store.saveStudy(
    'long',
    {
      title: 'One long session',
      consent: 'Yes.',
      completion: { code: 'LONG' },
      items: [
        { kind: 'task', id: 'task', collection: 'samples', task: 'continue-pattern' },
        { kind: 'game', id: 'game', game: 'push' },
      ],
    },
    'studio',
    base,
  );
  await store.createSession({
    id: LONG_SESSION,
    studyId: 'long',
    studyVersion: 1,
    tokenHash: 'hlong',
    params: { PROLIFIC_PID: 'plong' },
    seed: 1,
    order: [0, 1],
    createdAt: base,
  });
  const PAGE = 5_000;
  for (let from = 0; from < events; from += PAGE) {
    const batch: EventInput[] = [];
    for (let seq = from; seq < Math.min(events, from + PAGE); seq++) {
      const t = seq * 180.25;
      batch.push(
        seq === 0
          ? { seq, t: 0, kind: 'session.start', data: { mode: 'study', wallClock: '2026-01-01T00:00:00.000Z' } }
          : seq === 1
            ? { seq, t, kind: 'item.start', data: { item: 'task' } }
            : {
                seq,
                t,
                kind: 'paint',
                data: { row: seq % 10, col: (seq * 7) % 10, color: seq % 10, stroke: Math.floor(seq / 10) },
              },
      );
    }
    await store.appendEvents(LONG_SESSION, batch, { receivedAt: base + 60_000, pastSessionLimit: false });
  }
  const runId = 'long-run-0';
  await store.addGameRun({
    runId,
    sessionId: LONG_SESSION,
    item: 'game',
    gameId: 'ls20-bench',
    source: 'arcengine',
    engine: 'bench',
    seed: 0,
    openedAt: base,
  });
  for (let from = 0; from < steps; from += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, steps - from) }, (_, k) => {
        const step = from + k;
        const frame = Array.from({ length: 64 }, (_, y) => Array.from({ length: 64 }, (_, x) => (x * y + step) % 16));
        return store.addGameStep({
          runId,
          step,
          action: step === 0 ? 'RESET' : `ACTION${1 + (step % 4)}`,
          x: null,
          y: null,
          state: 'NOT_FINISHED',
          levelsCompleted: 0,
          winLevels: 7,
          available: [1, 2, 3, 4],
          fullReset: step === 0,
          frameHash: hashHex(frame),
          frames: encodeFrames([frame], null),
          keyframe: true,
          at: base + step,
        });
      }),
    );
  }
}

/** The researcher's reads of the long session, by name: each reads it whole, to its last byte. */
const LONG_READS: Record<string, (url: string) => Promise<void>> = {
  events: (url) => get(`${url}/api/admin/sessions/${LONG_SESSION}/events`, BOOTSTRAP),
  summary: (url) => get(`${url}/api/admin/sessions/${LONG_SESSION}`, BOOTSTRAP),
  runs: (url) => get(`${url}/api/admin/sessions/${LONG_SESSION}/runs`, BOOTSTRAP),
  export: async (url) => {
    const t = (await postJson(`${url}/api/admin/studies/long/exports`, { format: 'jsonl' }, BOOTSTRAP)) as {
      url: string;
    };
    await get(`${url}${t.url}`, BOOTSTRAP);
  },
};

/**
 * Each read of the long session (`SCALE_LONG_READS`, default all of `LONG_READS`) made over and
 * over beside the participants: their acknowledgement p99 and unacknowledged batches meanwhile,
 * and how long one read took.
 */
async function* longReads(url: string, sessions: Session[], name: string): AsyncIterable<BenchResult> {
  const wanted = (process.env.SCALE_LONG_READS || Object.keys(LONG_READS).join(',')).split(',');
  for (const read of wanted) {
    const once = LONG_READS[read];
    if (!once)
      throw new Error(`SCALE_LONG_READS names "${read}"; the reads are ${Object.keys(LONG_READS).join(', ')}.`);
    let over = false;
    let reads = 0;
    let readMs = 0;
    const reader = (async () => {
      while (!over) {
        const t0 = performance.now();
        await once(url);
        readMs += performance.now() - t0;
        reads++;
      }
    })();
    const r = await paced(url, sessions, PACED_SECONDS);
    over = true;
    await reader;
    await settle(url);
    const label = `scale.${name}.${PARTICIPANTS}-participants+${LONG_EVENTS}-event-session-${read}`;
    yield { name: `${label}.ack-p99`, value: r.p99, unit: 'ms' };
    yield { name: `${label}.unacknowledged`, value: r.errors, unit: 'batches' };
    yield { name: `${label}.one-read`, value: reads ? readMs / reads / 1000 : Infinity, unit: `s (mean of ${reads})` };
  }
}

/** The light study route whose rate is measured per credential, from `AUTH_CLIENTS` connections for `AUTH_SECONDS`, the credentials taking turns. */
const AUTH_ROUTE = '/api/admin/studies/heavy';
const AUTH_CLIENTS = 8;
const AUTH_SECONDS = 12;

/**
 * Authentication on and off, on the same server in the same run: the researcher's reads beside
 * the participants made with the bootstrap token (off: one hash comparison, nothing read), then
 * with a researcher member's personal token and with their browser session (on: the credential
 * and the membership checked in the database behind a 2-second cache), each with its ratio to
 * the bootstrap token's; then one light study route's rate per credential, in turns. The
 * participants' own routes identify no person, so what changes is the researcher's side only.
 */
async function* authCompared(url: string, sessions: Session[], name: string): AsyncIterable<BenchResult> {
  const rae = await benchPerson(url, ADMIN, `rae-${name}@lab.org`, 'researcher', { id: 'heavy', role: 'researcher' });
  const credentials: Record<string, Auth> = {
    'researcher-token': BOOTSTRAP,
    'personal-token': { Authorization: `Bearer ${rae.token}` },
    'session-cookie': { Cookie: rae.cookie, 'X-CSRF-Token': rae.csrf },
  };
  const label = `${PARTICIPANTS}-participants+results+export+replay`;
  const off = { p99: 0, reads: 0 };
  for (const [credential, auth] of Object.entries(credentials)) {
    let stopped = false;
    const reading = researcher(url, () => stopped, auth);
    const r = await paced(url, sessions, PACED_SECONDS);
    stopped = true;
    const done = await reading;
    await settle(url);
    const reads = done.results + done.exports + done.replays;
    if (credential === 'researcher-token') Object.assign(off, { p99: r.p99, reads });
    const at = `scale.${name}.auth.${credential}`;
    yield { name: `${at}.${label}.ack-p99`, value: r.p99, unit: 'ms' };
    yield { name: `${at}.researcher-reads-meanwhile`, value: reads, unit: 'requests' };
    if (credential === 'researcher-token') continue;
    yield { name: `${at}.${label}.ack-p99-ratio`, value: r.p99 / off.p99, unit: 'x (to the researcher token)' };
    yield { name: `${at}.researcher-reads-ratio`, value: reads / off.reads, unit: 'x (to the researcher token)' };
  }
  const rates = await getRates(url, AUTH_ROUTE, credentials, AUTH_CLIENTS, AUTH_SECONDS);
  for (const [credential, rate] of Object.entries(rates)) {
    const at = `scale.${name}.auth.${credential}.study-route-${AUTH_CLIENTS}-clients`;
    yield { name: `${at}.requests_per_s`, value: rate, unit: 'requests/s' };
    if (credential !== 'researcher-token')
      yield { name: `${at}.ratio`, value: rate / rates['researcher-token'], unit: 'x (to the researcher token)' };
  }
}

/** Waits (up to a minute) until `/api/health` reports the server out of overload. */
async function settle(url: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    const health = await fetch(`${url}/api/health`)
      .then((r) => r.json() as Promise<{ load?: { overloaded?: boolean; inFlight?: number } }>)
      .catch(() => null);
    if (health?.load && !health.load.overloaded && (health.load.inFlight ?? 0) <= 1) return;
    await sleep(500);
  }
}

async function* scaleCase(
  name: string,
  databaseUrl: string | null,
  args: readonly string[],
): AsyncIterable<BenchResult> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-bench-scale-'));
  mkdirSync(path.join(tmp, 'dist'));
  writeFileSync(path.join(tmp, 'dist', 'index.html'), '<!doctype html><title>bench</title>');
  try {
    // The researcher's study, stored before the server starts (PGlite is one process at a time).
    const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir: path.join(tmp, 'data') });
    try {
      if (!LONG_ONLY) await fill(store, 'heavy', HEAVY);
      if (!databaseUrl) await fillLong(store, LONG_EVENTS, LONG_STEPS);
    } finally {
      await store.close();
    }
    const server = await startServe(tmp, { DATABASE_URL: databaseUrl ?? '', ARC_STUDIO_ADMIN_TOKEN: ADMIN }, args);
    try {
      let sessions: Session[] = await createSessions(server.url, PARTICIPANTS, `${name}-0`);
      // Warm-up: the server's code is compiled hot during its first seconds, every participant's
      // connection is opened, and the start-up check of the digests is done.
      await paced(server.url, sessions, 4);
      await settle(server.url);
      const alone = await paced(server.url, sessions, PACED_SECONDS);
      yield { name: `scale.${name}.${PARTICIPANTS}-participants.ack-p50`, value: alone.p50, unit: 'ms' };
      yield { name: `scale.${name}.${PARTICIPANTS}-participants.ack-p99`, value: alone.p99, unit: 'ms' };
      yield { name: `scale.${name}.${PARTICIPANTS}-participants.unacknowledged`, value: alone.errors, unit: 'batches' };
      if (LONG_ONLY) {
        if (!databaseUrl) yield* longReads(server.url, sessions, name);
        return;
      }
      let stopped = false;
      const reads = researcher(server.url, () => stopped);
      const busy = await paced(server.url, sessions, PACED_SECONDS);
      stopped = true;
      const done = await reads;
      // The server may still be working through the researcher's last requests: let it settle.
      await settle(server.url);
      yield {
        name: `scale.${name}.${PARTICIPANTS}-participants+results+export+replay.ack-p50`,
        value: busy.p50,
        unit: 'ms',
      };
      yield {
        name: `scale.${name}.${PARTICIPANTS}-participants+results+export+replay.ack-p99`,
        value: busy.p99,
        unit: 'ms',
      };
      yield {
        name: `scale.${name}.${PARTICIPANTS}-participants+results+export+replay.unacknowledged`,
        value: busy.errors,
        unit: 'batches',
      };
      yield { name: `scale.${name}.results-requests-meanwhile`, value: done.results, unit: 'requests' };
      yield { name: `scale.${name}.exports-meanwhile`, value: done.exports, unit: 'downloads' };
      yield { name: `scale.${name}.session-reads-meanwhile`, value: done.replays, unit: 'requests' };

      // Authentication on and off, beside the same participants.
      yield* authCompared(server.url, sessions, name);

      // One long session read back, one kind of read at a time (PGlite: its queries share the thread).
      if (!databaseUrl) yield* longReads(server.url, sessions, name);

      // More participants until the p99 passes 1 s.
      let passedAt = 0;
      let lastUnder = 0;
      for (let n = 250; n <= MAX_PARTICIPANTS; n = n < 500 ? 500 : n < 2000 ? n + 500 : n + 1000) {
        if (n > sessions.length)
          sessions = [...sessions, ...(await createSessions(server.url, n - sessions.length, `${name}-${n}`))];
        const r = await paced(server.url, sessions.slice(0, n), PACED_SECONDS);
        yield { name: `scale.${name}.${n}-participants.ack-p99`, value: r.p99, unit: 'ms' };
        yield { name: `scale.${name}.${n}-participants.unacknowledged`, value: r.errors, unit: 'batches' };
        // Past capacity the server answers 503 at once: many of those count as passing too.
        if (r.p99 > 1000 || r.errors > n * PACED_SECONDS * 0.01) {
          passedAt = n;
          break;
        }
        lastUnder = n;
      }
      yield { name: `scale.${name}.participants-last-under-1s-p99`, value: lastUnder, unit: 'participants' };
      yield {
        name: `scale.${name}.participants-at-which-ack-p99-passes-1s`,
        value: passedAt || Infinity,
        unit: passedAt ? 'participants' : `participants (not reached at ${MAX_PARTICIPANTS})`,
      };
    } finally {
      await stop(server.proc);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function* run(): AsyncIterable<BenchResult> {
  yield* scaleCase('pglite', null, []);
  if (process.env.SCALE_DATABASES === 'pglite') return;
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
