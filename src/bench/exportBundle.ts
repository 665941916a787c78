/**
 * The study bundle of an arcengine study, as a researcher downloads it from a live server: a real
 * `arc-studio serve` (PGlite) with the official ls20, 178 participants who each played a run of
 * `BENCH_EXPORT_STEPS` actions (250 by default: a bundle of about 9 MiB, the size of the one that
 * took 36-56 s when exports of arcengine studies ran on the main thread) through the participant
 * routes and logged them as the study page does, then the bundle (`format: "zip"`) downloaded
 * over HTTP, first alone, then while 8 other participants send event batches back to back.
 * Prints the bundle's time, size and the server's CPU time for each download (CPU time moves
 * little on a busy machine, wall time a lot), how many times faster than those 36 s it was (per
 * byte, so that a smaller bundle compares too), and the acknowledgements' p50/p99 alone and
 * beside the download (the goal: p99 under 100 ms), with the batches refused (503) meanwhile.
 * `npm run bench -- export` runs it before the export suite's other parts
 * (`BENCH_EXPORT_PARTS=bundle` alone).
 *
 * `BENCH_EXPORT_KEEP=<folder>` keeps the server's data there: the first run fills it, the next
 * ones only download (to compare two builds on the same study). `BENCH_EXPORT_SAVE=<file>` writes
 * the bundle downloaded alone there (to compare two builds' files with `unzip` and `sha256sum`).
 *
 * Needs the official engine and games, found as the `arc3` suite finds them (it says what is
 * missing and yields nothing without them).
 */
import http from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from './result';
import { serverStepEventData, type ServerStep } from '../core/game/serverGame';
import type { Arc3Action } from '../server/arc3/worker';
import { locate } from './arc3';
import { admin, lcg, makeStudy, participant, pickStep, serverCpu } from './arc3Client';
import { requestJson } from './http';
import { startServe, stop } from './ingest';
import { percentile } from './measure';

const LS20 = 'ls20-9607627b';
const SESSIONS = 178;
const PROBES = 8;
/** Participants playing at once while the study is filled. */
const PLAYING = 4;
const QUIET_MS = 1500;
const PAUSE_MS = 50;

/**
 * The bundle of the issue that moved exports off the main thread: 36-56 s for 10 MB of 178
 * sessions. Its fastest figure, as seconds per byte, is what the speed-up is measured against.
 */
const EARLIER_SECONDS = 36;
const EARLIER_BYTES = 10e6;

/** Actions per participant's run (`BENCH_EXPORT_STEPS`). */
function stepsPerRun(): number {
  const n = Number(process.env.BENCH_EXPORT_STEPS ?? 250);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_EXPORT_STEPS=${process.env.BENCH_EXPORT_STEPS} must be a whole number from 1.`);
  return n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function postEvents(url: string, sessionId: string, token: string, events: unknown[]): Promise<number> {
  const r = await requestJson(
    `${url}/api/sessions/${sessionId}/events`,
    'POST',
    JSON.stringify({ events }),
    token,
    60_000,
  );
  return r.status;
}

/** One action, sent again after the Retry-After of a 503 (a server at capacity), as the study page does. */
async function act(
  url: string,
  p: { sessionId: string; token: string; run: string },
  n: number,
  action: Arc3Action,
): Promise<ServerStep> {
  for (;;) {
    const r = await requestJson(
      `${url}/api/sessions/${p.sessionId}/runs/${p.run}/actions`,
      'POST',
      JSON.stringify({ step: n, ...action }),
      p.token,
      60_000,
    );
    if (r.status === 200) return r.json as ServerStep;
    if (r.status !== 503)
      throw new Error(`Step ${n} (${action.action}) was answered ${r.status}: ${JSON.stringify(r.json)}`);
    await sleep(1000 * ((r.json as { retryAfter?: number }).retryAfter ?? 1));
  }
}

/** One participant: a session, a run of `steps` actions by the seeded policy, the log sent as the page sends it. */
async function playOne(url: string, k: number, steps: number): Promise<void> {
  const p = await participant(url, LS20, `bundle-${k}`);
  const r = lcg(1000 + k);
  const shown: { last?: number[][] } = {};
  let current: ServerStep = p.step;
  const played: ServerStep[] = [current];
  for (let n = 1; n <= steps; n++) {
    current = await act(url, p, n, pickStep(current, shown, r));
    played.push(current);
  }
  let seq = 0;
  const ev = (kind: string, data: Record<string, unknown>) => ({ seq: seq++, t: seq * 350, kind, data });
  const events = [
    ev('session.start', { mode: 'study', wallClock: new Date().toISOString() }),
    ev('item.start', { item: 'game', kind: 'game' }),
    ev('game.open', { game: LS20, seed: 0, run: p.run, source: 'arcengine' }),
    ...played.map((s) => ev('game.action', serverStepEventData(s))),
  ];
  for (let i = 0; i < events.length;) {
    const status = await postEvents(url, p.sessionId, p.token, events.slice(i, i + 200));
    if (status === 503) await sleep(1000);
    else if (status !== 200) throw new Error(`storing the log of participant ${k} was answered ${status}`);
    else i += 200;
  }
}

/** Participants sending two events, waiting for the answer, pausing 50 ms, until `until()`. */
async function probe(url: string) {
  const ps = await Promise.all(
    Array.from({ length: PROBES }, async (_, k) => {
      const p = await participant(url, LS20, `probe-${k}`);
      return { ...p, seq: 0 };
    }),
  );
  return async (until: () => boolean) => {
    const ms: number[] = [];
    let refused = 0;
    await Promise.all(
      ps.map(async (p) => {
        while (!until()) {
          const events = [0, 1].map(() => ({
            seq: p.seq,
            t: p.seq++ * 10,
            kind: 'paint',
            data: { row: 0, col: p.seq % 3, color: 1, stroke: p.seq },
          }));
          const t0 = performance.now();
          const status = await postEvents(url, p.sessionId, p.token, events);
          const took = performance.now() - t0;
          if (status === 503) {
            refused++;
            p.seq -= 2;
          } else if (status !== 200) throw new Error(`an event batch was answered ${status}`);
          if (until()) break;
          if (status === 200) ms.push(took);
          await sleep(PAUSE_MS);
        }
      }),
    );
    return { ms, refused };
  };
}

/** Downloads the bundle through its one-time link; its size in bytes. With `save`, its bytes are written there. */
async function downloadBundle(url: string, save?: string): Promise<number> {
  const made = await admin<{ url: string }>(url, 'POST', `/api/admin/studies/bench-ls20/exports`, { format: 'zip' });
  return new Promise((resolve, reject) => {
    http
      .get(`${url}${made.url}`, (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => reject(new Error(`the download was answered ${res.statusCode}: ${body}`)));
          return;
        }
        let bytes = 0;
        const kept: Buffer[] = [];
        res.on('data', (d: Buffer) => {
          bytes += d.length;
          if (save) kept.push(d);
        });
        res.on('end', () => {
          if (!res.complete) return reject(new Error('the download was cut off'));
          if (save) writeFileSync(save, Buffer.concat(kept));
          resolve(bytes);
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export async function* run(): AsyncGenerator<BenchResult> {
  const where = await locate();
  if ('missing' in where) {
    console.error(`bench export (bundle): skipped: ${where.missing}`);
    return;
  }
  const steps = stepsPerRun();
  yield { name: 'export.bundle.machine.load_1m_per_core', value: loadavg()[0] / cpus().length, unit: 'load' };
  // A kept folder is filled once and downloaded from again on the next runs (to compare builds).
  const kept = process.env.BENCH_EXPORT_KEEP;
  const tmp = kept ? path.resolve(kept) : mkdtempSync(path.join(tmpdir(), 'arc-studio-bench-bundle-'));
  const filled = kept !== undefined && existsSync(path.join(tmp, 'filled'));
  mkdirSync(path.join(tmp, 'dist'), { recursive: true });
  writeFileSync(path.join(tmp, 'dist', 'index.html'), '<!doctype html><title>bench</title>');
  const server = await startServe(
    tmp,
    {
      DATABASE_URL: '',
      PYTHONDONTWRITEBYTECODE: '1',
      ...(where.pythonPath ? { ARC_STUDIO_PYTHONPATH: where.pythonPath } : {}),
    },
    ['--no-samples', '--arc3-games', where.gamesDir],
  );
  try {
    const url = server.url;
    if (!filled) {
      await makeStudy(url, LS20);
      let next = 0;
      await Promise.all(
        Array.from({ length: PLAYING }, async () => {
          while (next < SESSIONS) await playOne(url, next++, steps);
        }),
      );
      if (kept) writeFileSync(path.join(tmp, 'filled'), String(steps));
    }
    const label = `${SESSIONS} sessions, ${steps} ls20 actions each`;
    const cpu0 = serverCpu(server.proc.pid!);
    const a0 = performance.now();
    const size = await downloadBundle(url, process.env.BENCH_EXPORT_SAVE);
    const alone = (performance.now() - a0) / 1000;
    const cpu1 = serverCpu(server.proc.pid!);
    yield { name: 'export.bundle.size', value: size / (1024 * 1024), unit: 'MiB' };
    yield { name: `export.bundle.alone.seconds (${label})`, value: alone, unit: 's' };
    yield { name: 'export.bundle.alone.rate', value: size / (1024 * 1024) / alone, unit: 'MiB/s' };
    yield {
      name: `export.bundle.alone.times_faster_than_${EARLIER_SECONDS}s_for_10MB`,
      value: EARLIER_SECONDS / EARLIER_BYTES / (alone / size),
      unit: 'x',
    };
    if (cpu0 && cpu1)
      yield { name: 'export.bundle.alone.server_cpu', value: (cpu1.node - cpu0.node) / 1000, unit: 's' };
    const acks = await probe(url);
    const quietUntil = performance.now() + QUIET_MS;
    const quiet = await acks(() => performance.now() > quietUntil);
    let downloading = true;
    const cpu2 = serverCpu(server.proc.pid!);
    const t0 = performance.now();
    const download = downloadBundle(url).finally(() => {
      downloading = false;
    });
    const meanwhile = await acks(() => !downloading);
    await download;
    const seconds = (performance.now() - t0) / 1000;
    const cpu3 = serverCpu(server.proc.pid!);
    yield { name: `export.bundle.meanwhile.seconds (${label})`, value: seconds, unit: 's' };
    yield {
      name: `export.bundle.meanwhile.times_faster_than_${EARLIER_SECONDS}s_for_10MB`,
      value: EARLIER_SECONDS / EARLIER_BYTES / (seconds / size),
      unit: 'x',
    };
    // The participants' batches are in it too.
    if (cpu2 && cpu3)
      yield { name: 'export.bundle.meanwhile.server_cpu', value: (cpu3.node - cpu2.node) / 1000, unit: 's' };
    yield { name: 'export.bundle.acks.alone.p99', value: percentile(quiet.ms, 99), unit: 'ms' };
    yield { name: 'export.bundle.acks.meanwhile.p50', value: percentile(meanwhile.ms, 50), unit: 'ms' };
    yield { name: 'export.bundle.acks.meanwhile.p99', value: percentile(meanwhile.ms, 99), unit: 'ms' };
    yield { name: 'export.bundle.acks.meanwhile.acknowledged', value: meanwhile.ms.length, unit: 'batches' };
    yield { name: 'export.bundle.acks.meanwhile.refused_503', value: meanwhile.refused, unit: 'batches' };
    yield { name: 'export.bundle.machine.load_1m_per_core.after', value: loadavg()[0] / cpus().length, unit: 'load' };
  } finally {
    await stop(server.proc);
    if (!kept) rmSync(tmp, { recursive: true, force: true });
  }
}
