/**
 * The fixture game e2e/fixtures/arc3-games/tg01 (an original arcengine game) played through the
 * official toolkit vendored in ../shared/vendor/arc-agi-3: its recorded solution must still win
 * both levels, and wrong play must not.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeFrames, encodeFrames } from '../../core/formats/frames';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const PYTHONPATH = path.join(VENDOR, 'python');
const FIXTURE_GAMES = path.join(ROOT, 'e2e/fixtures/arc3-games');
const GAME_ID = 'tg01-5e1f0a27';

if (!existsSync(path.join(PYTHONPATH, 'arcengine')) || !existsSync(path.join(PYTHONPATH, 'arc_agi'))) {
  throw new Error(
    `the official engine and toolkit must be at ${PYTHONPATH} (arcengine, arc_agi); this test runs the fixture game on them`,
  );
}

/** Step the game through the toolkit in process; one summary per answer (RESET first). */
const PLAY = String.raw`
import hashlib, json, logging, sys
from arc_agi import Arcade, OperationMode
from arcengine import GameAction
games_dir, game_id, actions = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
quiet = logging.getLogger("fixture"); quiet.setLevel(logging.CRITICAL)
env = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=games_dir, logger=quiet).make(game_id)
if env is None:
    raise SystemExit(f"the toolkit did not load {game_id} from {games_dir}")
def summary(fd):
    frames = [f.tolist() if hasattr(f, "tolist") else f for f in fd.frame]
    last = hashlib.sha256(json.dumps(frames[-1]).encode()).hexdigest()[:16] if frames else None
    return {"state": fd.state.name, "levels_completed": fd.levels_completed, "win_levels": fd.win_levels,
            "frames": len(frames), "available_actions": list(fd.available_actions), "game_id": fd.game_id,
            "last_frame_sha": last, "frame": frames,
            "cells": [[frames[-1][y][x] for x in range(4, 64, 8)] for y in range(4, 64, 8)] if frames else None}
out = [summary(env.step(GameAction.RESET))]
for a in actions:
    data = {"x": a["x"], "y": a["y"]} if a["action"] == "ACTION6" else None
    out.append(summary(env.step(GameAction[a["action"]], data=data)))
print("RESULT " + json.dumps(out))
`;

interface Summary {
  state: string;
  levels_completed: number;
  win_levels: number;
  frames: number;
  available_actions: number[];
  game_id: string;
  last_frame_sha: string | null;
  cells: number[][] | null;
  frame: number[][][];
}
type Action = { action: 'ACTION1' | 'ACTION2' | 'ACTION3' | 'ACTION4' } | { action: 'ACTION6'; x: number; y: number };

function play(actions: Action[]): Summary[] {
  const out = execFileSync('python3', ['-c', PLAY, FIXTURE_GAMES, GAME_ID, JSON.stringify(actions)], {
    env: { ...process.env, PYTHONPATH },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The toolkit logs to stdout too: the answers are on the line marked RESULT.
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  if (line === undefined) throw new Error(`the toolkit printed no answers for ${GAME_ID}:\n${out}`);
  return JSON.parse(line.slice('RESULT '.length)) as Summary[];
}

const keys = (codes: string): Action[] => [...codes].map((c) => ({ action: `ACTION${c}` }) as Action);
/** The centre of the switch cell (1, 6) of level 2 on the 64x64 display: 8 pixels per cell. */
const CLICK_SWITCH: Action = { action: 'ACTION6', x: 1 * 8 + 4, y: 6 * 8 + 4 };
const LEVEL1 = keys('2244444222');
const LEVEL2 = [CLICK_SWITCH, ...keys('224444224')];

describe(`fixture game ${GAME_ID} on the official toolkit`, () => {
  it('wins both levels with the recorded solution (keys on level 1, a click then keys on level 2)', () => {
    const answers = play([...LEVEL1, ...LEVEL2]);
    const first = answers[0]!;
    expect(first).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 0, win_levels: 2, game_id: GAME_ID });
    expect(first.available_actions).toEqual([1, 2, 3, 4, 6]);
    // Level 1's first frame: walls 5, walker 9 at (1,1), traps 2, exit 3.
    expect(first.cells).toEqual([
      [5, 5, 5, 5, 5, 5, 5, 5],
      [5, 9, 0, 0, 2, 0, 0, 5],
      [5, 0, 5, 5, 5, 5, 0, 5],
      [5, 0, 0, 0, 0, 0, 0, 5],
      [5, 0, 5, 5, 5, 5, 0, 5],
      [5, 0, 0, 0, 0, 0, 0, 5],
      [5, 2, 0, 0, 0, 0, 3, 5],
      [5, 5, 5, 5, 5, 5, 5, 5],
    ]);
    const afterLevel1 = answers[LEVEL1.length]!;
    expect(afterLevel1).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 1, frames: 2 });
    expect(afterLevel1.cells![3]![4]).toBe(12); // level 2's gate, closed
    const click = answers[LEVEL1.length + 1]!;
    expect(click.frames).toBe(2); // the gate fades over two animation frames
    expect(click.cells![3]![4]).toBe(0);
    const last = answers.at(-1)!;
    expect(last).toMatchObject({ state: 'WIN', levels_completed: 2, win_levels: 2 });
    // Pins the final frame (walker on level 2's exit) for this version of the game.
    expect(last.last_frame_sha).toBe('3ee2f78b233a9a82');
    // Every answer before the last is still in play.
    expect(answers.slice(0, -1).every((a) => a.state === 'NOT_FINISHED')).toBe(true);
  });

  it('stores every answer of the solution exactly and small with the frame codec', () => {
    const answers = play([...LEVEL1, ...LEVEL2]);
    let previous: number[][] | null = null;
    let stored = 0;
    for (const answer of answers) {
      const text = encodeFrames(answer.frame, previous);
      expect(decodeFrames(text, previous)).toEqual(answer.frame);
      stored += text.length;
      previous = answer.frame.at(-1) ?? previous;
    }
    // 21 answers (RESET and 20 actions) of 64x64 frames, about 8 KB each as JSON.
    expect(stored).toBeLessThan(2500);
  });

  it('keeps the gate shut without the click: the same walk ends in front of it, not on the exit', () => {
    const answers = play([...LEVEL1, ...keys('224444224')]);
    const last = answers.at(-1)!;
    expect(last).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 1 });
    expect(last.cells![3]![4]).toBe(12);
  });

  it('ignores a click beside the switch', () => {
    const answers = play([...LEVEL1, { action: 'ACTION6', x: 2 * 8 + 4, y: 6 * 8 + 4 }, ...keys('224444224')]);
    expect(answers[LEVEL1.length + 1]!.frames).toBe(1);
    expect(answers.at(-1)).toMatchObject({ state: 'NOT_FINISHED', levels_completed: 1 });
  });

  it('ends the game on a trap, and only RESET goes on from there', () => {
    const answers = play([...keys('444'), ...keys('2'), { action: 'ACTION1' }]);
    expect(answers[3]).toMatchObject({ state: 'GAME_OVER', levels_completed: 0 });
    // After GAME_OVER a non-RESET action returns no frame.
    expect(answers[4]).toMatchObject({ state: 'GAME_OVER', frames: 0 });
  });
});
