/**
 * Overload at the door of the real `serve`: past its requests in progress the server answers 503
 * with `Retry-After` at once (the health check, static files and admitted requests go on), and
 * admits again as soon as load falls; a busy event loop counts as overload too.
 */
import { createServer, request, type ClientRequest } from 'node:http';
import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './serve';
import { isParticipantWrite, LoadGate, loadLimitsFromEnv, QueueWatch, type LoadReport } from './load';
import { seedDataDir } from './store/testing';

const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-load-'));
const dist = path.join(dir, 'dist');
mkdirSync(dist, { recursive: true });
writeFileSync(path.join(dist, 'index.html'), '<!doctype html><html><body></body></html>');

const MAX = 3;
const saved = { dist: process.env.ARC_STUDIO_DIST, max: process.env.ARC_STUDIO_MAX_IN_FLIGHT };
let server: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  process.env.ARC_STUDIO_DIST = dist;
  process.env.ARC_STUDIO_MAX_IN_FLIGHT = String(MAX);
  seedDataDir(path.join(dir, 'data'));
  server = await startServer({
    port: 0,
    host: '127.0.0.1',
    dataDir: path.join(dir, 'data'),
    tasks: [],
    databaseUrl: '',
    log: () => {},
  });
});

afterAll(async () => {
  await server?.close();
  for (const [k, v] of [
    ['ARC_STUDIO_DIST', saved.dist],
    ['ARC_STUDIO_MAX_IN_FLIGHT', saved.max],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

const health = async () => ((await (await fetch(`${server.url}/api/health`)).json()) as { load: LoadReport }).load;

/** A request that stays in progress: its body is announced and never finished. */
function held(): Promise<ClientRequest> {
  const url = new URL(server.url);
  const req = request({
    host: url.hostname,
    port: url.port,
    path: '/api/studies/sample/sessions',
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Length': 1000 },
  });
  req.on('error', () => {});
  req.write('{"params":');
  return new Promise((resolve) => req.once('socket', (s) => s.once('connect', () => resolve(req))));
}

describe('overload', () => {
  it('is a 503 with Retry-After at the door while the requests in progress are held, and passes as load falls', async () => {
    const open = await Promise.all(Array.from({ length: MAX }, held));
    await expect.poll(async () => (await health()).inFlight).toBe(MAX);
    expect(await health()).toMatchObject({ inFlight: MAX, maxInFlight: MAX, overloaded: true });
    // The held requests are participant writes (new sessions): the oldest is reported waiting.
    await expect.poll(async () => (await health()).oldestWriteMs).toBeGreaterThan(0);

    const refused = await fetch(`${server.url}/api/studies/sample/sessions`, {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(refused.status).toBe(503);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(4);
    const body = (await refused.json()) as { error: string; message: string; retryAfter: number };
    expect(body).toMatchObject({ error: 'overloaded', retryAfter: wait });
    expect(body.message).toContain(`again in ${wait} s`);
    expect(refused.headers.get('x-frame-options')).toBe('DENY');
    // Answered at the door, not after the requests in progress: those are still held open.
    expect(await health()).toMatchObject({ inFlight: MAX });
    // The app's page is never refused.
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect((await health()).refused).toBeGreaterThanOrEqual(1);

    for (const r of open) r.destroy();
    await expect.poll(async () => (await health()).inFlight, { timeout: 180_000 }).toBe(0);
    expect((await health()).oldestWriteMs).toBe(0);
    const admitted = await fetch(`${server.url}/api/studies/sample/sessions`, {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(admitted.status).not.toBe(503);
  });

  it('counts a busy event loop as overload', async () => {
    const gate = new LoadGate({ maxInFlight: 100, maxLagMs: 50, maxWaitMs: 60_000, shedLagMs: 60_000 });
    try {
      expect(gate.report().overloaded).toBe(false);
      const until = Date.now() + 300;
      while (Date.now() < until) {
        /* the thread is busy: timers fire late */
      }
      await expect.poll(() => gate.report().eventLoopLagMs, { timeout: 180_000, interval: 5 }).toBeGreaterThan(50);
      expect(gate.report().overloaded).toBe(true);
    } finally {
      gate.stop();
    }
  });

  it('reads its limits from the environment, and names a bad variable', () => {
    expect(loadLimitsFromEnv({})).toEqual({ maxInFlight: 1024, maxLagMs: 1000, maxWaitMs: 500, shedLagMs: 250 });
    expect(
      loadLimitsFromEnv({
        ARC_STUDIO_MAX_IN_FLIGHT: '64',
        ARC_STUDIO_MAX_LAG_MS: '250',
        ARC_STUDIO_MAX_WAIT_MS: '200',
        ARC_STUDIO_SHED_LAG_MS: '100',
      }),
    ).toEqual({ maxInFlight: 64, maxLagMs: 250, maxWaitMs: 200, shedLagMs: 100 });
    // Without its own variable, writes are shed at a quarter of the lag that refuses everything.
    expect(loadLimitsFromEnv({ ARC_STUDIO_MAX_LAG_MS: '60000' }).shedLagMs).toBe(15_000);
    expect(() => loadLimitsFromEnv({ ARC_STUDIO_MAX_LAG_MS: 'soon' })).toThrow(
      /ARC_STUDIO_MAX_LAG_MS=soon is not a positive whole number/,
    );
  });

  it('judges a standing queue by the fastest write of each second: a burst passes, a queue that does not drain refuses until it has', () => {
    const q = new QueueWatch(500, 0);
    // A burst: most writes wait long, one is answered at once.
    for (const [wait, at] of [
      [900, 100],
      [950, 200],
      [20, 300],
      [1200, 400],
    ])
      q.answered(wait, at);
    q.tick(1000);
    expect([q.standing, q.lastFastest()]).toEqual([false, 20]);
    // A standing queue: even the fastest of the second waited past the limit.
    for (const [wait, at] of [
      [700, 1100],
      [650, 1300],
      [800, 1500],
      [720, 1900],
    ])
      q.answered(wait, at);
    q.tick(2000);
    expect([q.standing, q.lastFastest()]).toEqual([true, 650]);
    // Refusing: the writes still queued are answered late, so it goes on refusing while they drain.
    for (const [wait, at] of [
      [1500, 2100],
      [1400, 2200],
      [1300, 2300],
      [1200, 2400],
    ])
      q.answered(wait, at);
    q.tick(3000);
    expect(q.standing).toBe(true);
    // Drained: too few writes in a second to judge, and admitting starts again.
    q.answered(1000, 3100);
    q.tick(4000);
    expect([q.standing, q.lastFastest()]).toEqual([false, null]);
    // An interval is judged only once it is over.
    for (const at of [4100, 4200, 4300, 4400]) q.answered(900, at);
    q.tick(4999);
    expect(q.standing).toBe(false);
    q.tick(5000);
    expect(q.standing).toBe(true);
  });

  it("times a participant write's steps in a Server-Timing header only when asked to", async () => {
    for (const timing of [true, false]) {
      const gate = new LoadGate(loadLimitsFromEnv({}), {}, timing);
      const http = createServer((req, res) => {
        if (!gate.admit(req, res)) return;
        req.resume();
        req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
      });
      http.on('connection', (socket) => gate.accepted(socket));
      try {
        await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
        const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
        const write = await fetch(`${base}/api/sessions/s1/events`, { method: 'POST', body: '{"events":[]}' });
        const read = await fetch(`${base}/api/sessions/s1`);
        expect(read.headers.get('server-timing')).toBeNull();
        if (!timing) {
          expect(write.headers.get('server-timing')).toBeNull();
          continue;
        }
        const header = write.headers.get('server-timing') ?? '';
        const [, arrived, accepted, nth, body, answer] =
          /^arrived;desc="([\d.]+)", accepted;desc="([\d.]+)", nth;desc="(\d+)", body;dur=([\d.]+), answer;dur=([\d.]+)$/.exec(
            header,
          ) ?? [];
        // Times since the epoch on this machine's clock, in order: accepted, headers seen, body read, answered.
        expect(Number(accepted)).toBeLessThanOrEqual(Number(arrived));
        // Ms since the epoch (so a load generator can compare them with its own), not since the process began.
        expect(Number(arrived)).toBeGreaterThan(Date.parse('2024-01-01'));
        expect(nth).toBe('1');
        expect(Number(body)).toBeLessThanOrEqual(Number(answer));
      } finally {
        gate.stop();
        await new Promise<void>((resolve) => http.close(() => resolve()));
      }
    }
  });

  it("watches participants' writes only: reads and downloads take long by nature", () => {
    expect(isParticipantWrite('POST', '/api/sessions/s1/events')).toBe(true);
    expect(isParticipantWrite('POST', '/api/studies/sample/sessions')).toBe(true);
    expect(isParticipantWrite('POST', '/api/sessions/s1/runs/r1/actions')).toBe(true);
    expect(isParticipantWrite('GET', '/api/sessions/s1')).toBe(false);
    expect(isParticipantWrite('GET', '/api/admin/studies/sample/export?format=zip')).toBe(false);
    expect(isParticipantWrite('POST', '/api/admin/studies')).toBe(false);
  });
});

/**
 * A new connection to the server, open; `send(raw)` writes a whole HTTP/1.1 request on it at
 * once, and `response()` is the response's status, headers (lower case) and body.
 */
async function rawConnection(url: string) {
  const u = new URL(url);
  const socket = connect(Number(u.port), u.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  socket.on('data', (b: Buffer) => chunks.push(b));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    send: (raw: string) => socket.write(raw),
    async response() {
      await ended;
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, body = ''] = text.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), head: head.toLowerCase(), body };
    },
  };
}

describe("shedding participants' writes while the event loop is late", () => {
  const shedDir = mkdtempSync(path.join(tmpdir(), 'arc-studio-shed-'));
  const savedShed = process.env.ARC_STUDIO_SHED_LAG_MS;
  let shedServer: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    process.env.ARC_STUDIO_DIST = dist;
    // Far above what a busy test machine's scheduling adds, far below the thread held below.
    process.env.ARC_STUDIO_SHED_LAG_MS = '1000';
    seedDataDir(path.join(shedDir, 'data'));
    shedServer = await startServer({
      port: 0,
      host: '127.0.0.1',
      dataDir: path.join(shedDir, 'data'),
      tasks: [],
      databaseUrl: '',
      log: () => {},
    });
  });

  afterAll(async () => {
    await shedServer?.close();
    if (savedShed === undefined) delete process.env.ARC_STUDIO_SHED_LAG_MS;
    else process.env.ARC_STUDIO_SHED_LAG_MS = savedShed;
    rmSync(shedDir, { recursive: true, force: true });
  });

  it('refuses a write that waited in its socket behind a busy thread, before reading it; reads go on, and later writes are stored', async () => {
    const url = shedServer.url;
    const before = ((await (await fetch(`${url}/api/health`)).json()) as { load: LoadReport }).load;
    const body = '{"params":{"PROLIFIC_PID":"shed-1"}}';
    const [write, read] = [await rawConnection(url), await rawConnection(url)];
    // Both requests are sent, and the server's thread is held (as by a long synchronous piece of
    // work) before it can read them: they wait in their sockets.
    write.send(
      `POST /api/studies/sample/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    read.send(`GET /api/studies/sample HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    const until = Date.now() + 2_500;
    while (Date.now() < until) {
      /* busy */
    }
    const refused = await write.response();
    expect(refused.status).toBe(503);
    expect(refused.head).toMatch(/\r\nretry-after: [1-4]\r\n/);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'overloaded' });
    // The study page is a read: answered.
    expect((await read.response()).status).toBe(200);
    const after = ((await (await fetch(`${url}/api/health`)).json()) as { load: LoadReport }).load;
    expect(after.shed).toBe(before.shed + 1);
    expect(after.inFlight).toBe(0);

    // Once the thread keeps time again, the same write is stored.
    await expect
      .poll(
        async () =>
          (
            await fetch(`${url}/api/studies/sample/sessions`, {
              method: 'POST',
              body,
              headers: { 'Content-Type': 'application/json' },
            })
          ).status,
        { timeout: 180_000, interval: 200 },
      )
      .toBe(201);
  });
});
