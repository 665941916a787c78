/**
 * arcengine games through ARC Studio's worker, beside the official toolkit in process, measured
 * in the same run on the same games with the same kind of policy: a seeded random choice among
 * the response's `available_actions`, ACTION6 clicking a random cell whose colour is not the
 * frame's background (its most common colour), RESET after GAME_OVER or WIN. Only the steps are
 * timed, never the policy, on both sides.
 *
 * Per game (ls20 keys, ft09 and vc33 clicks):
 * - `worker.actions_per_s`, `worker.p50_ms`, `worker.p99_ms`: one `Arc3Worker`, one run, actions
 *   back to back; each is a full round trip (JSON request, the engine's step, every rendered frame
 *   back and decoded into grids).
 * - `toolkit.actions_per_s`: `Arcade(operation_mode=OFFLINE, environments_dir=...).make(id)` then
 *   `env.step(...)` in one Python process, timed inside Python, frames left as numpy arrays.
 * - `worker_vs_toolkit`: the first over the second (1 = no cost for the worker's round trip).
 *
 * Players (ls20): K runs on one worker, each acting every 200 ms (5 actions/s, faster than people
 * play), for a few seconds, K stepped up 10, 25, 50, 75, 100, ... until the p99 action round trip
 * reaches 100 ms; each step's p50/p99 and the actions/s served, then `players_p99_under_100ms`, the
 * largest K that stayed under.
 *
 * `machine.load_1m_per_core` is the machine's one-minute load average per core when the suite
 * starts: other work moves these figures, the players' p99 most.
 *
 * Needs Python with arcengine and arc_agi (`ARC_STUDIO_PYTHONPATH`, or `pip install arc-agi`) and
 * the games (`ARC_STUDIO_ARC3_GAMES`); both default to the official files vendored in
 * ../shared/vendor/arc-agi-3 beside the checkout. Without them the suite says where it looked and
 * what to set, and yields nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from '../cli/bench';
import { percentile } from './measure';
import { Arc3Worker, probe, type Arc3Action, type Arc3FrameData } from '../server/arc3/worker';

const GAMES = ['ls20', 'ft09', 'vc33'];
/** Wall time each side plays each game. */
const BUDGET_MS = 2000;
/** How long each players step lasts. */
const PLAYERS_MS = 3000;
const PACE_MS = 200;
const PLAYER_STEPS = [10, 25, 50, 75, 100, 125, 150, 200, 300, 400];
const VENDOR = fileURLToPath(new URL('../../../shared/vendor/arc-agi-3', import.meta.url));

/** A small seeded generator (the Python side uses `random.Random(42)`: the same policy, its own draws). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** A random cell whose colour is not the grid's most common one; any cell when there is none. */
function clickTarget(grid: number[][] | undefined, r: () => number): { x: number; y: number } {
  if (!grid?.length) return { x: Math.floor(r() * 64), y: Math.floor(r() * 64) };
  const counts = new Array<number>(256).fill(0);
  for (const row of grid) for (const c of row) counts[c]++;
  const bg = counts.indexOf(Math.max(...counts));
  const cells: number[] = [];
  const w = grid[0].length;
  grid.forEach((row, y) => row.forEach((c, x) => {
    if (c !== bg) cells.push(y * w + x);
  }));
  if (!cells.length) return { x: Math.floor(r() * w), y: Math.floor(r() * grid.length) };
  const i = cells[Math.floor(r() * cells.length)];
  return { x: i % w, y: Math.floor(i / w) };
}

function pick(fd: Arc3FrameData, r: () => number): Arc3Action {
  if (fd.state === 'GAME_OVER' || fd.state === 'WIN' || fd.available_actions.length === 0) return { action: 'RESET' };
  const a = fd.available_actions[Math.floor(r() * fd.available_actions.length)];
  return a === 6 ? { action: 'ACTION6', ...clickTarget(fd.frame.at(-1), r) } : { action: `ACTION${a}` as Arc3Action['action'] };
}

const TOOLKIT = String.raw`
import json, logging, random, sys, time
import numpy as np
from arc_agi import Arcade, OperationMode
from arcengine import GameAction, GameState
games_dir, game_id, budget = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000
quiet = logging.getLogger("bench"); quiet.setLevel(logging.CRITICAL)
env = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=games_dir, logger=quiet).make(game_id)
if env is None:
    sys.exit("the toolkit could not make " + game_id + " from " + games_dir)
fd = env.observation_space
rng = random.Random(42)

def click(frames):
    if not frames:
        return {"x": rng.randrange(64), "y": rng.randrange(64)}
    g = np.asarray(frames[-1])
    bg = np.bincount(g.ravel()).argmax()
    ys, xs = np.nonzero(g != bg)
    if len(ys) == 0:
        return {"x": rng.randrange(g.shape[1]), "y": rng.randrange(g.shape[0])}
    i = rng.randrange(len(ys))
    return {"x": int(xs[i]), "y": int(ys[i])}

n, stepping = 0, 0.0
t0 = time.perf_counter()
while time.perf_counter() - t0 < budget:
    if fd.state in (GameState.GAME_OVER, GameState.WIN) or not fd.available_actions:
        action, data = GameAction.RESET, None
    else:
        a = rng.choice(fd.available_actions)
        action, data = GameAction.from_id(a), (click(fd.frame) if a == 6 else None)
    t = time.perf_counter()
    fd = env.step(action, data=data)
    stepping += time.perf_counter() - t
    n += 1
print("BENCH " + json.dumps({"actions": n, "seconds": stepping}))
`;

/** Where the engine and games are, or what is missing and how to point the suite at them. */
async function locate(): Promise<{ python: string; pythonPath?: string; gamesDir: string } | { missing: string }> {
  const vendored = existsSync(path.join(VENDOR, 'python', 'arcengine'));
  const pythonPath = process.env.ARC_STUDIO_PYTHONPATH ?? (vendored ? path.join(VENDOR, 'python') : undefined);
  const gamesDir = process.env.ARC_STUDIO_ARC3_GAMES?.split(path.delimiter)[0] ?? path.join(VENDOR, 'environment_files');
  const how = `Point the suite at the engine with ARC_STUDIO_PYTHONPATH (a folder holding arcengine and arc_agi; or \`pip install arc-agi\`) and at the games with ARC_STUDIO_ARC3_GAMES (a folder in the toolkit's layout, <game>/<version>/<game>.py + metadata.json).`;
  const found = await probe({ pythonPath });
  if (!found.ok) {
    const where = process.env.ARC_STUDIO_PYTHONPATH
      ? `ARC_STUDIO_PYTHONPATH=${process.env.ARC_STUDIO_PYTHONPATH}`
      : `${path.join(VENDOR, 'python')}${vendored ? '' : ' (missing)'} and the installed packages`;
    return { missing: `${found.message} Looked for arcengine in ${where}. ${how}` };
  }
  if (!existsSync(gamesDir)) {
    const where = process.env.ARC_STUDIO_ARC3_GAMES ? `ARC_STUDIO_ARC3_GAMES=${gamesDir}` : gamesDir;
    return { missing: `no games folder at ${where}. ${how}` };
  }
  return { python: found.executable, pythonPath, gamesDir };
}

export async function* run(): AsyncIterable<BenchResult> {
  const where = await locate();
  if ('missing' in where) {
    console.error(`bench arc3: skipped: ${where.missing}`);
    return;
  }
  const { python, pythonPath, gamesDir } = where;
  // Other work on the machine moves these figures, the players' p99 most: say how busy it was.
  yield { name: 'arc3.machine.load_1m_per_core', value: loadavg()[0] / cpus().length, unit: 'load' };
  const worker = new Arc3Worker({ gameDirs: [gamesDir], pythonPath });
  try {
    const ids = (await worker.list()).map((g) => g.game_id);
    for (const game of GAMES) {
      const gameId = ids.find((id) => id.split('-')[0] === game);
      if (!gameId) {
        console.error(`bench arc3: skipped ${game}: not among the games in ${gamesDir} (${ids.join(', ') || 'none'})`);
        continue;
      }
      const w = await playWorker(worker, gameId);
      yield { name: `arc3.${game}.worker.actions_per_s`, value: w.actionsPerS, unit: 'actions/s' };
      yield { name: `arc3.${game}.worker.p50_ms`, value: w.p50, unit: 'ms' };
      yield { name: `arc3.${game}.worker.p99_ms`, value: w.p99, unit: 'ms' };
      const toolkit = playToolkit(python, pythonPath, gamesDir, gameId);
      if (toolkit === null) continue;
      yield { name: `arc3.${game}.toolkit.actions_per_s`, value: toolkit, unit: 'actions/s' };
      yield { name: `arc3.${game}.worker_vs_toolkit`, value: w.actionsPerS / toolkit, unit: 'x' };
    }
    const ls20 = ids.find((id) => id.split('-')[0] === 'ls20');
    if (ls20) yield* concurrentPlayers(worker, ls20);
  } finally {
    await worker.stop();
  }
}

async function playWorker(worker: Arc3Worker, gameId: string): Promise<{ actionsPerS: number; p50: number; p99: number }> {
  const r = lcg(42);
  let fd = await worker.open('bench', gameId);
  const times: number[] = [];
  const end = performance.now() + BUDGET_MS;
  while (performance.now() < end) {
    const action = pick(fd, r);
    const t = performance.now();
    fd = await worker.act('bench', action);
    times.push(performance.now() - t);
  }
  await worker.close('bench');
  const stepping = times.reduce((a, b) => a + b, 0);
  return { actionsPerS: times.length / (stepping / 1000), p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** The toolkit's in-process actions/s, or null (with the reason on stderr) when it could not run. */
function playToolkit(python: string, pythonPath: string | undefined, gamesDir: string, gameId: string): number | null {
  try {
    const out = execFileSync(python, ['-c', TOOLKIT, gamesDir, gameId, String(BUDGET_MS)], {
      env: { ...process.env, PYTHONPATH: [pythonPath, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: BUDGET_MS + 60_000,
    });
    const line = out.split('\n').find((l) => l.startsWith('BENCH '));
    if (!line) throw new Error('it printed no result');
    const { actions, seconds } = JSON.parse(line.slice(6)) as { actions: number; seconds: number };
    return actions / seconds;
  } catch (e) {
    const err = e as Error & { stderr?: string };
    const detail = err.stderr?.trim().split('\n').at(-1) ?? err.message;
    console.error(`bench arc3: no toolkit figure for ${gameId}: ${detail}. The toolkit (arc_agi) must be importable by ${python}: set ARC_STUDIO_PYTHONPATH or \`pip install arc-agi\`.`);
    return null;
  }
}

/** K players on one worker, stepped up until the p99 round trip reaches 100 ms. */
async function* concurrentPlayers(worker: Arc3Worker, gameId: string): AsyncIterable<BenchResult> {
  let best = 0;
  for (const k of PLAYER_STEPS) {
    const runs = Array.from({ length: k }, (_, i) => `player-${k}-${i}`);
    const opened = await Promise.all(runs.map((run) => worker.open(run, gameId)));
    const times: number[] = [];
    const t0 = performance.now();
    const player = async (i: number) => {
      const r = lcg(i + 1);
      let fd = opened[i];
      await sleep(r() * PACE_MS);
      const end = t0 + PLAYERS_MS;
      while (performance.now() < end) {
        const action = pick(fd, r);
        const t = performance.now();
        fd = await worker.act(runs[i], action);
        const took = performance.now() - t;
        times.push(took);
        await sleep(Math.max(0, PACE_MS - took));
      }
    };
    await Promise.all(runs.map((_, i) => player(i)));
    const elapsed = performance.now() - t0;
    await Promise.all(runs.map((run) => worker.close(run)));
    const p99 = percentile(times, 99);
    yield { name: `arc3.ls20.worker.players_${k}.p50_ms`, value: percentile(times, 50), unit: 'ms' };
    yield { name: `arc3.ls20.worker.players_${k}.p99_ms`, value: p99, unit: 'ms' };
    yield { name: `arc3.ls20.worker.players_${k}.actions_per_s`, value: times.length / (elapsed / 1000), unit: 'actions/s' };
    if (p99 >= 100) break;
    best = k;
  }
  yield { name: 'arc3.ls20.worker.players_p99_under_100ms', value: best, unit: 'players' };
}

function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}
