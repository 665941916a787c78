/**
 * arcengine games through ARC Studio's worker, beside the official toolkit in process, measured
 * in the same run on the same games with the same policy: seeded random available actions
 * (clicks at random cells), RESET after GAME_OVER or WIN. `worker.actions_per_s` counts full round
 * trips (JSON request, the engine's step, every rendered frame back as JSON); `toolkit.actions_per_s`
 * is `Arcade(operation_mode=OFFLINE).make(...).step(...)` in one Python process, frames left as
 * numpy arrays. `worker.p99_ms` is one action's round trip. `players_at_5_actions_per_s_...` is how
 * many players acting five times a second one worker serves with p99 under 100 ms.
 *
 * Needs Python with arcengine: `ARC_STUDIO_PYTHONPATH` (or an installed `arc-agi`) and the games in
 * `ARC_STUDIO_ARC3_GAMES`; both default to the official files in ../shared/vendor/arc-agi-3 when
 * that folder exists. Without them the suite says what is missing and yields nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchResult } from '../cli/bench';
import { percentile } from './measure';
import { Arc3Worker, probe, type Arc3Action, type Arc3FrameData } from '../server/arc3/worker';

const GAMES = ['ls20', 'ft09', 'vc33'];
const BUDGET_MS = 2000;
const VENDOR = path.resolve('../shared/vendor/arc-agi-3');

/** A small seeded generator shared in spirit with the Python side (each side draws its own sequence). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function pick(fd: Arc3FrameData, r: () => number): Arc3Action {
  if (fd.state === 'GAME_OVER' || fd.state === 'WIN' || fd.available_actions.length === 0) return { action: 'RESET' };
  const a = fd.available_actions[Math.floor(r() * fd.available_actions.length)];
  return a === 6 ? { action: 'ACTION6', x: Math.floor(r() * 64), y: Math.floor(r() * 64) } : { action: `ACTION${a}` as Arc3Action['action'] };
}

const TOOLKIT = String.raw`
import json, logging, random, sys, time
from arc_agi import Arcade, OperationMode
from arcengine import GameAction, GameState
games_dir, game_id, budget = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000
quiet = logging.getLogger("bench"); quiet.setLevel(logging.CRITICAL)
env = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=games_dir, logger=quiet).make(game_id)
fd = env.observation_space
rng = random.Random(42)
n = 0
t0 = time.perf_counter()
while time.perf_counter() - t0 < budget:
    if fd.state in (GameState.GAME_OVER, GameState.WIN) or not fd.available_actions:
        fd = env.step(GameAction.RESET)
    else:
        a = rng.choice(fd.available_actions)
        data = {"x": rng.randrange(64), "y": rng.randrange(64)} if a == 6 else None
        fd = env.step(GameAction.from_id(a), data=data)
    n += 1
print("BENCH " + json.dumps(n / (time.perf_counter() - t0)))
`;

export async function* run(): AsyncIterable<BenchResult> {
  const vendored = existsSync(path.join(VENDOR, 'python', 'arcengine'));
  const pythonPath = process.env.ARC_STUDIO_PYTHONPATH ?? (vendored ? path.join(VENDOR, 'python') : undefined);
  const gamesDir = process.env.ARC_STUDIO_ARC3_GAMES?.split(path.delimiter)[0] ?? (vendored ? path.join(VENDOR, 'environment_files') : undefined);
  const found = await probe({ pythonPath });
  if (!found.ok || !gamesDir) {
    console.error(`bench arc3: skipped: ${found.ok ? 'no games folder (set ARC_STUDIO_ARC3_GAMES)' : found.message}`);
    return;
  }
  const worker = new Arc3Worker({ gameDirs: [gamesDir], pythonPath });
  try {
    const ids = (await worker.list()).map((g) => g.game_id);
    for (const game of GAMES) {
      const gameId = ids.find((id) => id.split('-')[0] === game);
      if (!gameId) continue;
      const r = lcg(42);
      let fd = await worker.open(game, gameId);
      const times: number[] = [];
      const t0 = performance.now();
      while (performance.now() - t0 < BUDGET_MS) {
        const t = performance.now();
        fd = await worker.act(game, pick(fd, r));
        times.push(performance.now() - t);
      }
      const elapsed = performance.now() - t0;
      await worker.close(game);
      yield { name: `arc3.${game}.worker.actions_per_s`, value: times.length / (elapsed / 1000), unit: 'actions/s' };
      yield { name: `arc3.${game}.worker.p99_ms`, value: percentile(times, 99), unit: 'ms' };
      const out = execFileSync(found.executable, ['-c', TOOLKIT, gamesDir, gameId, String(BUDGET_MS)], {
        env: { ...process.env, PYTHONPATH: [pythonPath, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter) },
        encoding: 'utf8',
      });
      const line = out.split('\n').find((l) => l.startsWith('BENCH '));
      if (line) yield { name: `arc3.${game}.toolkit_in_process.actions_per_s`, value: Number(line.slice(6)), unit: 'actions/s' };
    }
    const ls20 = ids.find((id) => id.startsWith('ls20-'));
    if (ls20) yield* concurrentPlayers(worker, ls20);
  } finally {
    await worker.stop();
  }
}

/**
 * Players served by one worker: K simulated players on ls20, each acting every PACE_MS (faster
 * than people play), for a few seconds; the largest K (of those tried) whose p99 action round trip
 * stays under 100 ms, and the p99 at that K.
 */
const PACE_MS = 200;
async function* concurrentPlayers(worker: Arc3Worker, gameId: string): AsyncIterable<BenchResult> {
  let best = 0, bestP99 = 0;
  for (const k of [10, 25, 50, 100, 200]) {
    const times: number[] = [];
    const opened = await Promise.all(Array.from({ length: k }, (_, i) => worker.open(`player-${k}-${i}`, gameId)));
    const player = async (i: number) => {
      const run = `player-${k}-${i}`;
      const r = lcg(i);
      let fd = opened[i];
      await new Promise((res) => setTimeout(res, r() * PACE_MS));
      const end = performance.now() + 2000;
      while (performance.now() < end) {
        const t = performance.now();
        fd = await worker.act(run, pick(fd, r));
        const took = performance.now() - t;
        times.push(took);
        await new Promise((res) => setTimeout(res, Math.max(0, PACE_MS - took)));
      }
      await worker.close(run);
    };
    await Promise.all(Array.from({ length: k }, (_, i) => player(i)));
    const p99 = percentile(times, 99);
    if (p99 >= 100) break;
    best = k;
    bestP99 = p99;
  }
  yield { name: `arc3.ls20.worker.players_at_${1000 / PACE_MS}_actions_per_s_p99_under_100ms`, value: best, unit: 'players' };
  yield { name: 'arc3.ls20.worker.players.p99_ms', value: bestP99, unit: 'ms' };
}
