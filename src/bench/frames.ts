/**
 * The stored size of an action's frames (src/core/formats/frames.ts) on real arcengine games:
 * seeded random available actions (RESET after GAME_OVER or WIN) through the official toolkit in
 * process, each response encoded against the previous action's last frame, as the log stores it.
 *
 * - `frames.<game>.step_bytes.p50`: the base64 text of a typical action (median over the run);
 * - `frames.<game>.level_start_bytes.p50`: a response encoded with no reference (a RESET or a
 *   new level, decodable on its own);
 * - `frames.<game>.json_bytes.p50`: the same responses as the API's JSON `frame` field, for scale;
 * - `frames.<game>.bytes_per_300_actions`: what a level of several hundred actions costs;
 * - `frames.encode_us` / `frames.decode_us`: per action, over all games.
 *
 * Needs Python with arcengine (`ARC_STUDIO_PYTHONPATH`, default ../shared/vendor/arc-agi-3/python)
 * and the games (`ARC_STUDIO_ARC3_GAMES`, default the vendored ones and the tg01 fixture); without
 * them the suite says what is missing and yields nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BenchResult } from './result';
import { decodeFrames, encodeFrames } from '../core/formats/frames';
import { percentile, timeMicros } from './measure';

const ACTIONS = 300;
const VENDOR = path.resolve('../shared/vendor/arc-agi-3');
const GAMES: { id: string; dir: string }[] = [
  { id: 'ls20-9607627b', dir: path.join(VENDOR, 'environment_files') },
  { id: 'ft09-0d8bbf25', dir: path.join(VENDOR, 'environment_files') },
  { id: 'vc33-5430563c', dir: path.join(VENDOR, 'environment_files') },
  { id: 'tg01-5e1f0a27', dir: path.resolve('e2e/fixtures/arc3-games') },
];

const PLAY = String.raw`
import json, logging, random, sys
from arc_agi import Arcade, OperationMode
from arcengine import GameAction, GameState
games_dir, game_id, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
quiet = logging.getLogger("bench"); quiet.setLevel(logging.CRITICAL)
env = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=games_dir, logger=quiet).make(game_id)
rng = random.Random(1)
out = []
fd = env.step(GameAction.RESET)
for i in range(n):
    frames = [f.tolist() if hasattr(f, "tolist") else f for f in fd.frame]
    out.append({"frames": frames, "level": fd.levels_completed, "reset": fd.full_reset or fd.action_input.id == GameAction.RESET})
    if fd.state in (GameState.GAME_OVER, GameState.WIN):
        fd = env.step(GameAction.RESET)
        continue
    a = rng.choice(list(fd.available_actions))
    data = {"x": rng.randrange(64), "y": rng.randrange(64)} if a == 6 else None
    fd = env.step(GameAction.from_id(a), data=data)
print("RESULT " + json.dumps(out))
`;

interface Response {
  frames: number[][][];
  level: number;
  reset: boolean;
}

export function* run(): Iterable<BenchResult> {
  const pythonPath = process.env.ARC_STUDIO_PYTHONPATH ?? path.join(VENDOR, 'python');
  if (!existsSync(path.join(pythonPath, 'arcengine'))) {
    console.error(
      `frames: skipped, arcengine is not at ${pythonPath} (set ARC_STUDIO_PYTHONPATH to a folder holding arcengine and arc_agi)`,
    );
    return;
  }
  const encodeTimes: number[] = [];
  const decodeTimes: number[] = [];
  for (const game of GAMES) {
    if (!existsSync(game.dir)) {
      console.error(`frames: skipped ${game.id}, no games folder at ${game.dir}`);
      continue;
    }
    const stdout = execFileSync('python3', ['-c', PLAY, game.dir, game.id, String(ACTIONS)], {
      env: { ...process.env, PYTHONPATH: pythonPath },
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (line === undefined) throw new Error(`frames: the toolkit printed no frames for ${game.id}`);
    const responses = JSON.parse(line.slice('RESULT '.length)) as Response[];
    const steps: number[] = [];
    const starts: number[] = [];
    const json: number[] = [];
    let total = 0;
    let previous: number[][] | null = null;
    let level = 0;
    for (const r of responses) {
      const standalone = r.reset || r.level !== level;
      const reference = standalone ? null : previous;
      const text = encodeFrames(r.frames, reference);
      if (JSON.stringify(decodeFrames(text, reference)) !== JSON.stringify(r.frames)) {
        throw new Error(`frames: ${game.id} response ${json.length} does not decode to what was encoded`);
      }
      (standalone ? starts : steps).push(text.length);
      json.push(JSON.stringify(r.frames).length);
      total += text.length;
      if (r.frames.length > 0) previous = r.frames[r.frames.length - 1];
      level = r.level;
    }
    const sample = responses.filter((r) => r.frames.length > 0).slice(0, 20);
    let prev: number[][] | null = null;
    const encoded = sample.map((r) => {
      const ref = prev;
      prev = r.frames[r.frames.length - 1];
      return { r, ref, text: encodeFrames(r.frames, ref) };
    });
    encodeTimes.push(timeMicros(() => encoded.forEach((e) => encodeFrames(e.r.frames, e.ref)), 200) / encoded.length);
    decodeTimes.push(timeMicros(() => encoded.forEach((e) => decodeFrames(e.text, e.ref)), 200) / encoded.length);
    const short = game.id.slice(0, 4);
    yield { name: `frames.${short}.step_bytes.p50`, value: percentile(steps, 50), unit: 'B' };
    yield { name: `frames.${short}.step_bytes.p95`, value: percentile(steps, 95), unit: 'B' };
    if (starts.length > 0)
      yield { name: `frames.${short}.level_start_bytes.p50`, value: percentile(starts, 50), unit: 'B' };
    yield { name: `frames.${short}.json_bytes.p50`, value: percentile(json, 50), unit: 'B' };
    yield { name: `frames.${short}.bytes_per_${ACTIONS}_actions`, value: total, unit: 'B' };
  }
  if (encodeTimes.length > 0) {
    yield { name: 'frames.encode_us_per_action', value: percentile(encodeTimes, 50), unit: 'us' };
    yield { name: 'frames.decode_us_per_action', value: percentile(decodeTimes, 50), unit: 'us' };
  }
}
