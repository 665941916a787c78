/**
 * The remote source against the official toolkit's own REST server (vendored in
 * ../shared/vendor/arc-agi-3, started here on loopback): every answer must be what the arcengine
 * worker pool answers for the same actions on the same game files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RemoteArc3Source } from './remote';
import { Arc3Error, type Arc3Action, type Arc3FrameData } from './worker';
import { Arc3Pool } from './pool';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const GAMES = path.join(VENDOR, 'environment_files');
if (!existsSync(path.join(PYTHONPATH, 'arc_agi')) || !existsSync(GAMES)) {
  throw new Error(
    `the official toolkit and games must be at ${VENDOR} (python/arc_agi, environment_files); these tests run against them`,
  );
}

const LS20 = 'ls20-9607627b';
const FT09 = 'ft09-0d8bbf25';
const VC33 = 'vc33-5430563c';

const SERVE = String.raw`
import logging, sys
logging.disable(logging.CRITICAL)
from arc_agi import Arcade, OperationMode
Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=sys.argv[1]).listen_and_serve(host="127.0.0.1", port=int(sys.argv[2]))
`;

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A fixed pseudo-random sequence (LCG), so the test is the same every run. */
function sequence(n: number, pick: (r: () => number) => Arc3Action): Arc3Action[] {
  let s = 4242;
  const r = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, () => pick(r));
}

// Keys with RESETs: right after the opening (a full reset), mid-level (a level reset), twice in a
// row (the second is full), and keys ls20 does not offer.
const KEYS: Arc3Action[] = [
  { action: 'RESET' },
  ...sequence(25, (r) => ({ action: `ACTION${1 + Math.floor(r() * 4)}` as Arc3Action['action'] })),
  { action: 'RESET' },
  { action: 'RESET' },
  { action: 'ACTION5' },
  { action: 'ACTION6', x: 3, y: 60 },
  ...sequence(30, (r) =>
    r() < 0.05 ? { action: 'RESET' } : { action: `ACTION${1 + Math.floor(r() * 4)}` as Arc3Action['action'] },
  ),
];
// Clicks until GAME_OVER, actions after it (empty frames), then a RESET and a click.
const CLICKS: Arc3Action[] = [
  ...sequence(70, (r) =>
    r() < 0.05 ? { action: 'ACTION1' } : { action: 'ACTION6', x: Math.floor(r() * 64), y: Math.floor(r() * 64) },
  ),
  { action: 'RESET' },
  { action: 'ACTION6', x: 32, y: 32 },
];

const strip = ({ guid: _guid, ...rest }: Arc3FrameData) => rest;

let tmp: string;
let server: ChildProcess | undefined;
let serverLog = '';
let baseUrl: string;
let pool: Arc3Pool;
const sources: RemoteArc3Source[] = [];
function source(extra: Partial<ConstructorParameters<typeof RemoteArc3Source>[0]> = {}): RemoteArc3Source {
  const s = new RemoteArc3Source({ baseUrl, apiKey: '', ...extra });
  sources.push(s);
  return s;
}

/** What the arcengine pool answers for `actions` after opening `gameId`. */
async function viaPool(runId: string, gameId: string, actions: Arc3Action[]): Promise<Omit<Arc3FrameData, 'guid'>[]> {
  const out = [strip((await pool.open(runId, gameId)).frame)];
  for (const a of actions) out.push(strip(await pool.act(runId, a)));
  await pool.close(runId);
  return out;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'arc3-remote-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = spawn('python3', ['-c', SERVE, GAMES, String(port)], {
    cwd: tmp,
    env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (t: Buffer) => (serverLog += t.toString()));
  server.stderr!.on('data', (t: Buffer) => (serverLog += t.toString()));
  pool = new Arc3Pool({ gameDirs: [GAMES], pythonPath: PYTHONPATH, size: 1 });
  // Up once its health check answers; a server that stopped says so with its log.
  await vi.waitFor(
    async () => {
      if (server!.exitCode !== null)
        throw new Error(`the toolkit server stopped (exit code ${server!.exitCode}): ${serverLog}`);
      if (
        !(await fetch(`${baseUrl}/api/healthcheck`).then(
          (r) => r.ok,
          () => false,
        ))
      )
        throw new Error(`the toolkit server does not answer its health check yet: ${serverLog}`);
    },
    { timeout: 180_000, interval: 100 },
  );
});

afterAll(async () => {
  await Promise.all(sources.map((s) => s.stop()));
  await pool?.stop();
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe('the remote ARC-AGI-3 source, against the toolkit REST server', () => {
  it('lists the server games', async () => {
    const s = source();
    const games = await s.list();
    expect(games.map((g) => g.game_id)).toEqual([FT09, LS20, VC33]);
    expect(games.find((g) => g.game_id === LS20)).toMatchObject({
      game: 'ls20',
      version: '9607627b',
      title: 'LS20',
      default_fps: 30,
      baseline_actions: [],
      class_name: '',
      dir: baseUrl,
      level_count: null,
    });
    expect(s.kind).toBe('remote');
    expect(s.label).toBe(baseUrl);
  });

  it('answers ls20 keys exactly as the arcengine worker does, full_reset included', async () => {
    const expected = await viaPool('k', LS20, KEYS);
    const s = source();
    const opened = await s.open('k', LS20);
    expect(opened.gameId).toBe(LS20);
    const got = [strip(opened.frame)];
    for (const a of KEYS) got.push(strip(await s.act('k', a)));
    expect(got).toEqual(expected);
    // The sequence exercises the game: frames change, RESETs are both kinds.
    expect(new Set(got.map((g) => JSON.stringify(g.frame.at(-1)))).size).toBeGreaterThan(5);
    expect(got[0].frame[0]).toHaveLength(64);
    expect(got[0].frame[0][0]).toHaveLength(64);
    const resets = KEYS.map((a, i) => (a.action === 'RESET' ? got[i + 1].full_reset : null)).filter((v) => v !== null);
    expect(resets).toContain(true);
    expect(resets).toContain(false);
    // Once played, the list knows the level count.
    expect((await s.list()).find((g) => g.game_id === LS20)?.level_count).toBe(7);
  });

  it('answers vc33 clicks as the worker does, through GAME_OVER and the empty frames after it', async () => {
    const expected = await viaPool('c', VC33, CLICKS);
    const s = source();
    const got = [strip((await s.open('c', 'vc33')).frame)];
    for (const a of CLICKS) got.push(strip(await s.act('c', a)));
    expect(got).toEqual(expected);
    const over = got.findIndex((g) => g.state === 'GAME_OVER');
    expect(over).toBeGreaterThan(0);
    expect(got[over + 1]).toMatchObject({ frame: [], state: 'GAME_OVER' });
    expect(got.at(-1)!.state).toBe('NOT_FINISHED');
  });

  it('resolves a short id to the one full id and refuses unknown ones', async () => {
    const s = source();
    const opened = await s.open('short', 'ls20');
    expect(opened.gameId).toBe(LS20);
    expect(opened.frame.game_id).toBe(LS20);
    const next = await s.act('short', { action: 'ACTION1' });
    expect(next.guid).toBe(opened.frame.guid);
    for (const id of ['ls2', 'ls20-00000000', 'zz99']) {
      const err = await s.open('nope', id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Arc3Error);
      expect(err).toMatchObject({ code: 'unknown_game' });
      expect((err as Error).message).toContain(`no game ${id}`);
    }
    await expect(s.act('nope', { action: 'ACTION1' })).rejects.toMatchObject({ code: 'unknown_run' });
  });

  it('refuses a click without coordinates before asking the server', async () => {
    const s = source();
    await s.open('b', FT09);
    await expect(s.act('b', { action: 'ACTION6' })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('x and y from 0 to 63'),
    });
    await expect(s.act('b', { action: 'ACTION6', x: 64, y: 0 })).rejects.toMatchObject({ code: 'bad_request' });
    expect((await s.act('b', { action: 'ACTION6', x: 10, y: 10 })).game_id).toBe(FT09);
  });

  it("never holds one run's action behind another's: a run whose answer is late does not delay the next run", async () => {
    // The real server; only the answers to run "slow"'s actions are held until the other run has played.
    let slowGuid = '';
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const held = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      if (slowGuid && String(init?.body ?? '').includes(slowGuid)) await gate;
      return res;
    };
    const s = source({ fetch: held as typeof fetch });
    slowGuid = (await s.open('slow', LS20)).frame.guid;
    await s.open('quick', LS20);
    let slowDone = false;
    const slow = s.act('slow', { action: 'ACTION1' }).then((fd) => {
      slowDone = true;
      return fd;
    });
    const quick: Arc3FrameData[] = [];
    for (const a of KEYS.slice(0, 5)) quick.push(await s.act('quick', a));
    expect(slowDone).toBe(false);
    expect(quick).toHaveLength(5);
    release();
    expect((await slow).game_id).toBe(LS20);
  });

  it('resumes a run to the same state and goes on from there', async () => {
    const s = source();
    await s.open('a', LS20);
    const frames: Arc3FrameData[] = [];
    for (const a of KEYS.slice(0, 40)) frames.push(await s.act('a', a));
    const resumed = await s.resume('a2', LS20, 0, KEYS.slice(0, 30));
    expect(strip(resumed)).toEqual(strip(frames[29]));
    expect(resumed.guid).not.toBe(frames[29].guid);
    const after: unknown[] = [];
    for (const a of KEYS.slice(30, 40)) after.push(strip(await s.act('a2', a)));
    expect(after).toEqual(frames.slice(30, 40).map(strip));
    // With no actions, the opening frame.
    expect(strip(await s.resume('a3', LS20, 0, []))).toEqual(strip((await s.open('a4', LS20)).frame));
  });

  it('rebuilds a run whose scorecard the server closed, and goes on with the same frames', async () => {
    // The scorecards the source opens, as the server answers them.
    const cards: string[] = [];
    const watch: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      if (String(url).endsWith('/api/scorecard/open'))
        cards.push(((await res.clone().json()) as { card_id: string }).card_id);
      return res;
    };
    const log: string[] = [];
    const s = source({ fetch: watch, log: (line) => log.push(line) });
    await s.open('lost', LS20);
    const reference = await viaPool('lost-ref', LS20, KEYS.slice(0, 40));
    for (const a of KEYS.slice(0, 20)) await s.act('lost', a);
    // The server closes the run's card (as it does with an idle one): later actions say it is not found.
    const closed = await fetch(`${baseUrl}/api/scorecard/close`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ card_id: cards.at(-1) }),
    });
    expect(closed.ok).toBe(true);
    const after: unknown[] = [];
    for (const a of KEYS.slice(20, 40)) after.push(strip(await s.act('lost', a)));
    expect(after).toEqual(reference.slice(21, 41));
    expect(cards).toHaveLength(2);
    // The server's log says what happened: the play was lost, and the run rebuilt on the new card.
    expect(log).toEqual([
      `Run lost of ${LS20}: the ARC-AGI-3 server at ${baseUrl} lost its play (it restarted, or closed the scorecard); rebuilding it on a new scorecard from its 20 actions.`,
      `Run lost of ${LS20} rebuilt on scorecard ${cards[1]}, on the frame it had; it goes on.`,
    ]);
  });

  it('logs one line when the server stops answering and one when it answers again, not one per request', async () => {
    // A relay in front of the toolkit server, closed and opened again on the same port: a real outage.
    const port = await freePort();
    const upstream = Number(new URL(baseUrl).port);
    const open = new Set<Socket>();
    const relay = async () => {
      const r = createServer((client) => {
        const up = connect(upstream, '127.0.0.1');
        open.add(client);
        client.on('close', () => open.delete(client));
        client.on('error', () => up.destroy());
        up.on('error', () => client.destroy());
        client.pipe(up).pipe(client);
      });
      await new Promise<void>((done) => r.listen(port, '127.0.0.1', done));
      return r;
    };
    let up = await relay();
    let clock = 1_000_000;
    const log: string[] = [];
    const s = source({ baseUrl: `http://127.0.0.1:${port}`, log: (line) => log.push(line), now: () => clock });
    try {
      await s.open('outage', LS20);
      await s.act('outage', { action: 'ACTION1' });
      expect(log).toEqual([]);

      await new Promise((done) => up.close(done));
      for (const socket of open) socket.destroy();
      for (let i = 0; i < 3; i++) {
        const err = await s.act('outage', { action: 'ACTION1' }).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'internal', message: expect.stringContaining('cannot reach') });
        clock += 20_000;
      }
      expect(log).toEqual([
        `The ARC-AGI-3 server at http://127.0.0.1:${port} is not answering (ECONNREFUSED): its games cannot be opened or played until it is back (participants are asked to try again). Another line follows when it answers.`,
      ]);

      up = await relay();
      await s.act('outage', { action: 'ACTION1' });
      await s.act('outage', { action: 'ACTION2' });
      expect(log.slice(1)).toEqual([
        `The ARC-AGI-3 server at http://127.0.0.1:${port} answers again, after 60 s without an answer.`,
      ]);
    } finally {
      await new Promise((done) => up.close(done));
      for (const socket of open) socket.destroy();
    }
  });

  it('refuses with upstream_lost, naming the server, when the rebuilt play ends elsewhere', async () => {
    // The server answers the replay's actions with another game's frame: the rebuilt play differs.
    let lost = false;
    let replaying = false;
    const twist: typeof fetch = async (url, init) => {
      const u = String(url);
      if (lost && u.includes('/api/cmd/') && !u.endsWith('/RESET')) {
        lost = false;
        replaying = true;
        return new Response(JSON.stringify({ error: 'SERVER_ERROR', message: 'game ls20-9607627b not found' }), {
          status: 400,
          headers: { 'Content-Type': 'application/json' },
        });
      }
      if (replaying && u.includes('/api/cmd/ACTION')) {
        replaying = false;
        // One replayed action is sent as another one, so the play ends on another frame.
        const body = JSON.parse(String(init!.body)) as Record<string, unknown>;
        return fetch(u.replace(/ACTION\d$/, 'RESET'), { ...init, body: JSON.stringify(body) });
      }
      return fetch(url, init);
    };
    const s = source({ fetch: twist });
    await s.open('twisted', LS20);
    for (const a of KEYS.slice(1, 12)) await s.act('twisted', a);
    lost = true;
    const err = await s.act('twisted', { action: 'ACTION1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Arc3Error);
    expect(err).toMatchObject({ code: 'upstream_lost' });
    expect((err as Error).message).toContain(`the ARC-AGI-3 server at ${baseUrl} lost this run's game`);
    expect((err as Error).message).toContain('another frame than the one the run had');
  });

  it('forgets a closed run: acting on it is unknown_run', async () => {
    const s = source();
    await s.open('z', VC33);
    await s.close('z');
    const err = await s.act('z', { action: 'ACTION1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Arc3Error);
    expect(err).toMatchObject({ code: 'unknown_run', message: 'no open run z; open it first' });
    expect(s.runCount).toBe(0);
  });

  it('says clearly when the server is down: the refused connection, not a timeout', async () => {
    // A timeout no test would wait for: the answer must come from the refused connection.
    const s = source({ baseUrl: `http://127.0.0.1:${await freePort()}`, timeoutMs: 3_600_000 });
    const err = await s.open('d', LS20).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Arc3Error);
    expect(err).toMatchObject({ code: 'internal' });
    expect((err as Error).message).toMatch(
      /cannot reach the ARC-AGI-3 server at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); check that it is running/,
    );
  });

  it('gives up on a server that does not answer after the timeout', async () => {
    const held: Socket[] = [];
    const silent: Server = createServer((sock) => held.push(sock));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const s = source({ baseUrl: `http://127.0.0.1:${(silent.address() as { port: number }).port}`, timeoutMs: 300 });
      const err = await s.list().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'timeout', message: expect.stringContaining('did not answer GET') });
    } finally {
      held.forEach((sock) => sock.destroy());
      await new Promise((r) => silent.close(r));
    }
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => new RemoteArc3Source({ baseUrl: 'ftp://example.org' })).toThrow(/not an http\(s\) URL/);
    expect(() => new RemoteArc3Source({ baseUrl: 'localhost:8001' })).toThrow(Arc3Error);
  });

  it('plays 200 actions of ls20 on the one upstream game it opened', async () => {
    const s = source();
    await s.open('long', LS20);
    const actions = sequence(200, (r) => ({ action: `ACTION${1 + Math.floor(r() * 4)}` as Arc3Action['action'] }));
    for (const a of actions) await s.act('long', a);
    expect(s.runCount).toBe(1);
  });
});
