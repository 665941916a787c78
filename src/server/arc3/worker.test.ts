/**
 * The arcengine worker against the official engine and toolkit vendored in
 * ../shared/vendor/arc-agi-3 (CI has it): every answer must be what the toolkit's own in-process
 * `Arcade(operation_mode=OFFLINE).make(...).step(...)` returns for the same actions.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends } from '../store/testing';
import { startArc3 } from './mount';
import { Arc3Error, Arc3Worker, resolveGameId, type Arc3Action, type Arc3FrameData } from './worker';
import { probe } from './probe';
import { Arc3Pool } from './pool';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const GAMES = path.join(VENDOR, 'environment_files');
if (!existsSync(path.join(PYTHONPATH, 'arcengine')) || !existsSync(GAMES)) {
  throw new Error(
    `the official engine and games must be at ${VENDOR} (python/arcengine, environment_files); these tests run against them`,
  );
}

const LS20 = 'ls20-9607627b';
const VC33 = 'vc33-5430563c';

/** The official toolkit, in process: make(game_id) then step() each action; the fields of every answer. */
const REFERENCE = String.raw`
import json, logging, sys
from arc_agi import Arcade, OperationMode
from arcengine import GameAction
games_dir, game_id, actions = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
quiet = logging.getLogger("reference"); quiet.setLevel(logging.CRITICAL)
env = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=games_dir, logger=quiet).make(game_id)
def fields(fd):
    return {"frame": [f.tolist() if hasattr(f, "tolist") else f for f in fd.frame], "state": fd.state.name,
            "levels_completed": fd.levels_completed, "win_levels": fd.win_levels,
            "available_actions": list(fd.available_actions), "full_reset": fd.full_reset, "game_id": fd.game_id}
out = [fields(env.observation_space)]
for a in actions:
    data = {"x": a["x"], "y": a["y"]} if a["action"] == "ACTION6" else None
    out.append(fields(env.step(GameAction[a["action"]], data=data)))
sys.stderr.flush()
print("REFERENCE " + json.dumps(out))
`;

const references = new Map<string, Omit<Arc3FrameData, 'guid'>[]>();
function reference(gameId: string, actions: Arc3Action[]): Omit<Arc3FrameData, 'guid'>[] {
  const key = gameId + JSON.stringify(actions);
  if (!references.has(key)) references.set(key, runReference(gameId, actions));
  return references.get(key)!;
}
function runReference(gameId: string, actions: Arc3Action[]): Omit<Arc3FrameData, 'guid'>[] {
  const out = execFileSync('python3', ['-c', REFERENCE, GAMES, gameId, JSON.stringify(actions)], {
    env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
    maxBuffer: 512 * 1024 * 1024,
    encoding: 'utf8',
  });
  const line = out.split('\n').find((l) => l.startsWith('REFERENCE '));
  if (!line) throw new Error(`the toolkit printed no reference: ${out.slice(0, 500)}`);
  return JSON.parse(line.slice('REFERENCE '.length));
}

/** A fixed pseudo-random sequence (LCG), so the test is the same every run. */
function sequence(n: number, pick: (r: () => number) => Arc3Action): Arc3Action[] {
  let s = 12345;
  const r = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, () => pick(r));
}

const strip = ({ guid: _guid, ...rest }: Arc3FrameData) => rest;

// Keys, including ACTION5-7 which ls20 does not offer, and RESETs along the way.
const KEYS = sequence(100, (r) => {
  const v = r();
  if (v < 0.02) return { action: 'RESET' };
  if (v < 0.07) return { action: 'ACTION6', x: Math.floor(r() * 64), y: Math.floor(r() * 64) };
  return { action: `ACTION${1 + Math.floor(r() * 4)}` as Arc3Action['action'] };
});
// Clicks over the whole board, and a key vc33 does not offer.
// After the random part: actions past the end of the game, then a RESET.
const CLICKS = [
  ...sequence(60, (r) =>
    r() < 0.05 ? { action: 'ACTION1' } : { action: 'ACTION6', x: Math.floor(r() * 64), y: Math.floor(r() * 64) },
  ),
  ...sequence(3, (r) => ({ action: 'ACTION6', x: Math.floor(r() * 64), y: Math.floor(r() * 64) })),
  { action: 'RESET' },
  { action: 'ACTION6', x: 32, y: 32 },
] satisfies Arc3Action[];

let tmp: string;
const workers: Arc3Worker[] = [];
function worker(gameDirs = [GAMES], extra: Partial<ConstructorParameters<typeof Arc3Worker>[0]> = {}): Arc3Worker {
  const w = new Arc3Worker({ gameDirs, pythonPath: PYTHONPATH, ...extra });
  workers.push(w);
  return w;
}

/**
 * A folder holding `vc33-gated`: vc33 whose step for a click at (x, y) waits while the file
 * `<gates>/<x>-<y>` exists, so a test decides when each held action ends.
 */
function gatedGame(name: string, gates: string): string {
  const dir = path.join(tmp, name);
  const gameDir = path.join(dir, 'vc33', 'gated');
  mkdirSync(gameDir, { recursive: true });
  const good = readFileSync(path.join(GAMES, 'vc33', '5430563c', 'vc33.py'), 'utf8');
  writeFileSync(
    path.join(gameDir, 'vc33.py'),
    `${good}\nimport os as _os, time as _time\n_step = Vc33.step\ndef _gated(self):\n    gate = _os.path.join(${JSON.stringify(gates)}, f"{self.action.data.get('x')}-{self.action.data.get('y')}")\n    while _os.path.exists(gate):\n        _time.sleep(0.01)\n    _step(self)\nVc33.step = _gated\n`,
  );
  writeFileSync(path.join(gameDir, 'metadata.json'), JSON.stringify({ game_id: 'vc33-gated' }));
  return dir;
}

/**
 * A folder holding `vc33-held`: vc33 whose every step first sleeps `seconds` (a slow game, as the
 * pool sees it) and then waits while the file `hold` exists, so a test decides when its steps can
 * end instead of racing a sleep against the machine's speed.
 */
function heldGame(name: string, seconds: number, hold: string): string {
  const dir = path.join(tmp, name);
  const gameDir = path.join(dir, 'vc33', 'held');
  mkdirSync(gameDir, { recursive: true });
  const good = readFileSync(path.join(GAMES, 'vc33', '5430563c', 'vc33.py'), 'utf8');
  writeFileSync(
    path.join(gameDir, 'vc33.py'),
    `${good}\nimport os as _os, time as _time\n_step = Vc33.step\ndef _held(self):\n    _time.sleep(${seconds})\n    while _os.path.exists(${JSON.stringify(hold)}):\n        _time.sleep(0.01)\n    _step(self)\nVc33.step = _held\n`,
  );
  writeFileSync(path.join(gameDir, 'metadata.json'), JSON.stringify({ game_id: 'vc33-held' }));
  return dir;
}

let sharedWorker: Arc3Worker | undefined;
const shared = () => (sharedWorker ??= worker());

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'arc3-worker-'));
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  rmSync(tmp, { recursive: true, force: true });
});

describe('the arcengine worker', () => {
  it('reports the Python and arcengine versions it runs', async () => {
    const p = await probe({ pythonPath: PYTHONPATH });
    expect(p).toMatchObject({ ok: true, arcengine: '0.9.3' });
    expect(p.message).toMatch(/^arcengine 0\.9\.3 on Python 3\.\d+/);
  });

  it('lists the games of a folder with their metadata and level counts', async () => {
    const games = await shared().list();
    expect(games.map((g) => g.game_id)).toEqual(['ft09-0d8bbf25', LS20, VC33]);
    const ls20 = games.find((g) => g.game_id === LS20)!;
    expect(ls20).toMatchObject({
      game: 'ls20',
      version: '9607627b',
      title: 'LS20',
      tags: ['keyboard'],
      default_fps: 30,
      class_name: 'Ls20',
    });
    expect(ls20.baseline_actions).toHaveLength(ls20.level_count!);
    expect(ls20.level_count).toBe(7);
  });

  it.each([
    ['ls20 with keys (covering actions that render several frames)', LS20, KEYS],
    ['vc33 with clicks (covering GAME_OVER, actions after it, and a RESET)', VC33, CLICKS],
  ])('answers %s exactly as the toolkit in process does', async (_, gameId, actions) => {
    const expected = reference(gameId, actions);
    const w = shared();
    const got = [strip(await w.open('r1', gameId))];
    for (const a of actions) got.push(strip(await w.act('r1', a)));
    expect(got).toEqual(expected);
    // The sequence must exercise the game: frames change, and some action renders more than one frame.
    const firsts = new Set(got.filter((g) => g.frame.length).map((g) => JSON.stringify(g.frame.at(-1))));
    expect(firsts.size).toBeGreaterThan(5);
    if (gameId === LS20) expect(got.some((g) => g.frame.length > 1)).toBe(true);
    else {
      const over = got.findIndex((g) => g.state === 'GAME_OVER');
      expect(over).toBeGreaterThan(0);
      expect(got[over + 1]).toMatchObject({ frame: [], state: 'GAME_OVER' });
      expect(got.at(-1)!.state).toBe('NOT_FINISHED');
    }
  });

  it('goes on from the same state after the worker is killed mid-run', async () => {
    const expected = reference(LS20, KEYS);
    const w = worker();
    await w.open('k1', LS20);
    for (const a of KEYS.slice(0, 30)) await w.act('k1', a);
    const pid = w.pid!;
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => w.pid).toBeNull();
    const rest: unknown[] = [];
    for (const a of KEYS.slice(30, 60)) rest.push(strip(await w.act('k1', a)));
    expect(w.pid).not.toBe(pid);
    expect(w.starts).toBe(2);
    expect(rest).toEqual(expected.slice(31, 61));
  });

  it('fails an action in flight when the worker dies, then restores the run', async () => {
    const w = worker();
    await w.open('k2', VC33);
    const first = await w.act('k2', CLICKS[0]);
    const inFlight = w.act('k2', CLICKS[1]);
    process.kill(w.pid!, 'SIGKILL');
    await expect(inFlight).rejects.toMatchObject({ code: 'worker_died' });
    // The lost action was not applied: doing it again gives what it gives after the first click.
    const again = await w.act('k2', CLICKS[1]);
    expect(strip(again)).toEqual(reference(VC33, CLICKS)[2]);
    expect(first.game_id).toBe(VC33);
  });

  it('answers a syntax error in a game file clearly, stays alive, and reloads the fixed file', async () => {
    const dir = path.join(tmp, 'games');
    const gameDir = path.join(dir, 'vc33', 'local');
    mkdirSync(gameDir, { recursive: true });
    cpSync(path.join(GAMES, 'vc33', '5430563c', 'vc33.py'), path.join(gameDir, 'vc33.py'));
    writeFileSync(path.join(gameDir, 'metadata.json'), JSON.stringify({ game_id: 'vc33-local', title: 'VC33 local' }));
    const file = path.join(gameDir, 'vc33.py');
    const good = readFileSync(file, 'utf8');
    writeFileSync(file, good + '\ndef broken(:\n');
    const w = worker([dir]);
    const pid = (await w.hello()).pid;
    const err = await w.open('s1', 'vc33-local').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Arc3Error);
    expect(err).toMatchObject({ code: 'load_error' });
    expect((err as Arc3Error).message).toContain('SyntaxError');
    expect((err as Arc3Error).message).toContain(file);
    expect((await w.list())[0]).toMatchObject({
      game_id: 'vc33-local',
      level_count: null,
      error: { code: 'load_error' },
    });

    writeFileSync(file, good);
    await w.reload('vc33-local');
    expect((await w.open('s1', 'vc33-local')).state).toBe('NOT_FINISHED');

    // A game that raises while acting: the message and traceback come back, the run and worker stay.
    writeFileSync(
      file,
      good +
        '\n_step = Vc33.step\ndef _raising(self):\n    if self.action.id.value == 1:\n        raise RuntimeError("boom in step")\n    _step(self)\nVc33.step = _raising\n',
    );
    await w.reload('vc33-local');
    await w.open('s2', 'vc33-local');
    const raised = await w.act('s2', { action: 'ACTION1' }).catch((e: unknown) => e);
    expect(raised).toMatchObject({ code: 'game_error' });
    expect((raised as Arc3Error).message).toContain('RuntimeError: boom in step');
    expect((raised as Arc3Error).traceback).toContain('_raising');
    // The run is rebuilt from its actions before it goes on: the same answer as a run that never raised.
    const after = await w.act('s2', CLICKS[0]);
    expect({ ...strip(after), game_id: VC33 }).toEqual(reference(VC33, CLICKS)[1]);
    expect((await w.hello()).pid).toBe(pid);
  });

  it('answers the actions of several runs written at once, each run in its order, as the toolkit does', async () => {
    const w = shared();
    await w.open('p1', LS20);
    await w.open('p2', VC33);
    // Every action of both runs asked at once: the worker has them queued, not one at a time.
    const keys = KEYS.slice(0, 40).map((a) => w.act('p1', a));
    const clicks = CLICKS.slice(0, 40).map((a) => w.act('p2', a));
    expect(w.queued).toBeGreaterThan(1);
    expect((await Promise.all(keys)).map(strip)).toEqual(reference(LS20, KEYS).slice(1, 41));
    expect((await Promise.all(clicks)).map(strip)).toEqual(reference(VC33, CLICKS).slice(1, 41));
    expect(w.queued).toBe(0);
  });

  it('times each queued action from when the worker is on it: a queue longer than the timeout is answered', async () => {
    const gates = path.join(tmp, 'gates');
    mkdirSync(gates);
    const gate = (a: Arc3Action) => path.join(gates, `${a.x}-${a.y}`);
    const w = worker([gatedGame('gated', gates)], { timeoutMs: 1000 });
    for (const run of ['q1', 'q2', 'q3']) await w.open(run, 'vc33-gated');
    // The first two clicks are held until the test lets them go; the worker's timeouts run on
    // the test's clock, which stands still unless moved.
    const [held1, held2, quick] = CLICKS.slice(0, 3);
    writeFileSync(gate(held1), '');
    writeFileSync(gate(held2), '');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // One action per run, all asked at once: the worker has them queued in this order.
      const asked = [w.act('q1', held1), w.act('q2', held2), w.act('q3', quick)];
      // Most of a timeout on the first, then most of one on the second: the third has waited
      // longer than a timeout when the worker comes to it.
      await vi.advanceTimersByTimeAsync(700);
      rmSync(gate(held1));
      await asked[0];
      await vi.advanceTimersByTimeAsync(700);
      rmSync(gate(held2));
      const answers = (await Promise.all(asked)).map((fd) => ({ ...strip(fd), game_id: VC33 }));
      expect(answers[0]).toEqual(reference(VC33, CLICKS)[1]);
      for (const a of answers) expect(a).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 0 });
      expect(w.starts).toBe(1);
      // A held click that does run past the timeout is still cut off.
      writeFileSync(gate(held1), '');
      const stuck = w.act('q1', held1);
      await vi.advanceTimersByTimeAsync(1000);
      await expect(stuck).rejects.toMatchObject({ code: 'timeout' });
    } finally {
      vi.useRealTimers();
      rmSync(gates, { recursive: true, force: true });
    }
  });

  it('kills a game stuck in a loop after the timeout, and goes on from the same state', async () => {
    const dir = path.join(tmp, 'loop');
    const gameDir = path.join(dir, 'vc33', 'loop');
    mkdirSync(gameDir, { recursive: true });
    const good = readFileSync(path.join(GAMES, 'vc33', '5430563c', 'vc33.py'), 'utf8');
    writeFileSync(
      path.join(gameDir, 'vc33.py'),
      good +
        '\n_step = Vc33.step\ndef _looping(self):\n    while self.action.id.value == 2:\n        pass\n    _step(self)\nVc33.step = _looping\n',
    );
    writeFileSync(path.join(gameDir, 'metadata.json'), JSON.stringify({ game_id: 'vc33-loop' }));
    const w = worker([dir], { timeoutMs: 6000 });
    await w.open('t1', 'vc33-loop');
    await w.act('t1', CLICKS[0]);
    const pid = w.pid;
    // The timeout runs on the test's clock, moved past it at once: the loop never ends, so it
    // runs into it however long the test waited.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const looping = w.act('t1', { action: 'ACTION2' });
      await vi.advanceTimersByTimeAsync(6000);
      await expect(looping).rejects.toMatchObject({ code: 'timeout' });
    } finally {
      vi.useRealTimers();
    }
    const next = await w.act('t1', CLICKS[1]);
    expect(w.pid).not.toBe(pid);
    expect({ ...strip(next), game_id: VC33 }).toEqual(reference(VC33, CLICKS)[2]);
  });

  it('says clearly when Python is missing', async () => {
    const p = await probe({ python: path.join(tmp, 'no-such-python3') });
    expect(p.ok).toBe(false);
    expect(p.message).toContain('Python was not found at');
    expect(p.message).toContain('pip install arc-agi');
    expect(p.message).toContain('ARC_STUDIO_PYTHON');
  });

  it('says clearly when arcengine is missing', async () => {
    const p = await probe({ pythonPath: tmp, env: { ...process.env, PYTHONPATH: '' } });
    expect(p).toMatchObject({ ok: false, arcengine: null });
    expect(p.message).toContain('pip install arc-agi');
    expect(p.message).toContain('ARC_STUDIO_PYTHONPATH');
  });

  it('pins runs to workers in a pool and resolves short game ids', async () => {
    const pool = new Arc3Pool({ gameDirs: [GAMES], pythonPath: PYTHONPATH, size: 2 });
    workers.push(...pool.workers);
    const a = await pool.open('p1', 'ls20');
    const b = await pool.open('p2', VC33);
    expect(a.gameId).toBe(LS20);
    expect(b.gameId).toBe(VC33);
    expect(pool.workers.map((w) => w.runCount)).toEqual([1, 1]);
    expect((await pool.act('p2', { action: 'ACTION6', x: 10, y: 10 })).game_id).toBe(VC33);
    await expect(pool.open('p3', 'ls2')).rejects.toMatchObject({ code: 'unknown_game' });
  });

  it("starts a server's workers as one Python process each: the first worker is the one that answered the probe", async () => {
    // A python that notes each start before it runs.
    const starts = path.join(tmp, 'python-starts.log');
    const python = path.join(tmp, 'counting-python');
    writeFileSync(python, `#!/bin/sh\necho "$$" >> ${JSON.stringify(starts)}\nexec python3 "$@"\n`);
    chmodSync(python, 0o755);
    const store = await backends[0].open();
    const env = { ...process.env, ARC_STUDIO_PYTHONPATH: PYTHONPATH, ARC_STUDIO_PYTHON: python };
    const arc3 = await startArc3({ dirs: [GAMES], servers: [], env, workers: 2 }, store, () => {});
    try {
      expect(arc3.engine).toMatchObject({ ok: true, message: expect.stringContaining('arcengine') });
      // The probe, then the first scan on that same worker, which starts the second one.
      expect(readFileSync(starts, 'utf8').trim().split('\n')).toHaveLength(2);
      expect([...arc3.service.ids]).toContain(LS20);
    } finally {
      await arc3.service.stop();
      await store.close();
    }
  });

  it('opens new runs away from a worker kept busy by a slow game, whose queue then delays none of their actions', async () => {
    const hold = path.join(tmp, 'hold-pool');
    // The held steps wait as long as the test needs: no step timeout runs out meanwhile.
    const pool = new Arc3Pool({
      gameDirs: [GAMES, heldGame('held-pool', 0.3, hold)],
      pythonPath: PYTHONPATH,
      size: 2,
      timeoutMs: 300_000,
    });
    workers.push(...pool.workers);
    await pool.list();
    await pool.open('s1', 'vc33-held');
    const slow = pool.workers.find((w) => w.runCount === 1)!;
    for (const a of CLICKS.slice(0, 8)) await pool.act('s1', a);
    // Three runs of a quick game: by runs alone the third would go to the slow game's worker.
    for (const id of ['f1', 'f2', 'f3']) await pool.open(id, VC33);
    expect(slow.runCount).toBe(1);
    // The slow run's next steps (held: its worker stays busy on the first) and the quick run's
    // actions, all asked at once.
    writeFileSync(hold, '');
    const order: string[] = [];
    const done = (name: string) => (fd: Arc3FrameData) => {
      order.push(name);
      return fd;
    };
    const slowSteps = CLICKS.slice(8, 12).map((a) => pool.act('s1', a).then(done('slow')));
    const quick = CLICKS.slice(0, 8).map((a) => pool.act('f3', a).then(done('quick')));
    expect((await Promise.all(quick)).map((fd) => strip(fd))).toEqual(reference(VC33, CLICKS).slice(1, 9));
    // Every quick action was answered while the slow run's steps were still waiting.
    expect(order).toEqual(Array(8).fill('quick'));
    rmSync(hold);
    const slowAnswers = await Promise.all(slowSteps);
    expect(slowAnswers.map((fd) => ({ ...strip(fd), game_id: VC33 }))).toEqual(reference(VC33, CLICKS).slice(9, 13));
    expect(order).toEqual([...Array(8).fill('quick'), ...Array(4).fill('slow')]);
  });

  it('rebuilds a run opened at a later level at that level after the worker is killed', async () => {
    const moves = KEYS.filter((k) => k.action !== 'RESET').slice(0, 12);
    const fresh = worker();
    const expected = [strip(await fresh.open('l1', LS20, 0, 2))];
    for (const a of moves) expected.push(strip(await fresh.act('l1', a)));
    expect(expected[0].levels_completed).toBe(2);

    const w = worker();
    const got = [strip(await w.open('l2', LS20, 0, 2))];
    for (const a of moves.slice(0, 6)) got.push(strip(await w.act('l2', a)));
    process.kill(w.pid!, 'SIGKILL');
    await expect.poll(() => w.pid).toBeNull();
    for (const a of moves.slice(6)) got.push(strip(await w.act('l2', a)));
    expect(w.starts).toBe(2);
    expect(got).toEqual(expected);
  });

  it('opens a run on a worker with nothing queued while another worker is busy, and finds a game added after the last scan', async () => {
    const dir = path.join(tmp, 'pool-games');
    cpSync(path.join(GAMES, 'ls20'), path.join(dir, 'ls20'), { recursive: true });
    const pool = new Arc3Pool({ gameDirs: [dir], pythonPath: PYTHONPATH, size: 2 });
    workers.push(...pool.workers);
    expect((await pool.list()).map((g) => g.game_id)).toEqual([LS20]);
    await pool.open('b1', LS20);
    const busy = pool.workers.find((w) => w.runCount === 1)!;
    // A long replay holds that worker's queue; the next run goes to the other one.
    const replaying = pool.resume('b1', LS20, 0, KEYS);
    expect(busy.queued).toBe(1);
    await pool.open('b2', LS20);
    expect(pool.workers.map((w) => w.runCount).sort()).toEqual([1, 1]);
    expect(busy.runCount).toBe(1);
    await replaying;
    // A game copied into the folder afterwards: its id is not among those scanned, so the folder is scanned again.
    cpSync(path.join(GAMES, 'vc33'), path.join(dir, 'vc33'), { recursive: true });
    expect((await pool.open('b3', 'vc33')).gameId).toBe(VC33);
  });
});

describe('resolveGameId', () => {
  const ids = ['ls20-9607627b', 'ls20-aaaaaaaa', 'vc33-5430563c'];
  it('takes full ids as they are and a short id with one version', () => {
    expect(resolveGameId('ls20-aaaaaaaa', ids)).toBe('ls20-aaaaaaaa');
    expect(resolveGameId('vc33', ids)).toBe('vc33-5430563c');
  });
  it('refuses a short id with several versions, listing them, and unknown ids', () => {
    expect(() => resolveGameId('ls20', ids)).toThrow('ls20 has several versions (ls20-9607627b, ls20-aaaaaaaa)');
    expect(() => resolveGameId('ls20-bbbbbbbb', ids)).toThrow(/no game ls20-bbbbbbbb; games: ls20-9607627b/);
    expect(() => resolveGameId('ft09', ids)).toThrow(/no game ft09/);
  });
});
