/**
 * Whether an ARC-AGI-3 game gives the same frames for the same actions: the actions are played on
 * a fresh run, then again on a second fresh run with the same seed (and level), and every frame
 * of every step is compared. `games validate` plays a random sequence of offered actions
 * (`checkDeterminism`); a designer's playtest page plays the actions of the open playtest
 * (`playTwice`, `POST /api/admin/arc3/runs/:run/determinism`).
 *
 * A game that draws from anything its seed does not fix (numpy's or Python's global random
 * generator, the clock) gives different frames, and then a recorded session of it cannot be
 * verified exactly.
 */
import { Rng } from '../../core/game';
import { compareFrames, type DeterminismReport } from '../../core/game/determinism';
import type { Arc3Action, Arc3FrameData } from './worker';

/** What plays the runs: a worker pool (`Arc3Pool`) or a mounted source (`Arc3Source`). */
export interface FramePlayer {
  open(runId: string, gameId: string, seed?: number, level?: number): Promise<{ frame: Arc3FrameData }>;
  act(runId: string, action: Arc3Action): Promise<Arc3FrameData>;
  close(runId: string): Promise<void>;
}

/** Actions of `games validate`'s check: one random play of the first levels, played twice. */
export const DETERMINISM_STEPS = 200;

/** The most actions a playtest's check plays twice (each is a call into Python, twice). */
export const PLAYTEST_DETERMINISM_MAX_ACTIONS = 2_000;

/** An action as the reports write it: `ACTION1`, `ACTION6:12:40`. */
export function actionText(a: Arc3Action | undefined): string {
  return !a ? 'RESET (opening)' : a.action === 'ACTION6' ? `ACTION6:${a.x}:${a.y}` : a.action;
}

/**
 * Plays `actions` on a second fresh run `runId` and compares each step's frames with `played`
 * (the first play's frames: the opening RESET's, then one list per action).
 */
async function playAgain(
  player: FramePlayer,
  runId: string,
  gameId: string,
  o: { seed: number; level?: number },
  actions: readonly Arc3Action[],
  played: readonly number[][][][],
): Promise<DeterminismReport> {
  try {
    const again = (await player.open(runId, gameId, o.seed, o.level)).frame;
    for (let i = 0; i <= actions.length; i++) {
      const frames = i === 0 ? again.frame : (await player.act(runId, actions[i - 1])).frame;
      const diff = compareFrames(played[i], frames);
      if (diff) {
        const { index, ...rest } = diff;
        return {
          deterministic: false,
          steps: i,
          divergence: { step: i, action: actionText(actions[i - 1]), ...rest },
          grids: { first: played[i][index] ?? null, second: frames[index] ?? null },
        };
      }
    }
    return { deterministic: true, steps: actions.length };
  } finally {
    await player.close(runId).catch(() => undefined);
  }
}

/**
 * Plays one random sequence of offered actions (seeded by `seed`) on a fresh run, then the same
 * actions on a second fresh run with the same game seed, and compares every frame of every step.
 */
export async function checkDeterminism(
  player: FramePlayer,
  gameId: string,
  o: { seed: number; steps?: number },
): Promise<DeterminismReport> {
  const steps = o.steps ?? DETERMINISM_STEPS;
  const rng = new Rng(o.seed ^ 0x5eed);
  const actions: Arc3Action[] = [];
  const played: number[][][][] = [];
  const first = `determinism-a-${o.seed}`;
  try {
    let fd = (await player.open(first, gameId, o.seed)).frame;
    played.push(fd.frame);
    for (let i = 0; i < steps; i++) {
      let action: Arc3Action;
      if (fd.state === 'GAME_OVER' || fd.state === 'WIN') action = { action: 'RESET' };
      else {
        const a = fd.available_actions[rng.int(fd.available_actions.length)];
        action =
          a === 6
            ? { action: 'ACTION6', x: rng.int(64), y: rng.int(64) }
            : { action: `ACTION${a}` as Arc3Action['action'] };
      }
      actions.push(action);
      fd = await player.act(first, action);
      played.push(fd.frame);
    }
  } finally {
    await player.close(first).catch(() => undefined);
  }
  return playAgain(player, `determinism-b-${o.seed}`, gameId, { seed: o.seed }, actions, played);
}

/**
 * Plays the given actions (a playtest's, from its level's opening RESET) twice, each time on a
 * fresh run with the same seed and level, and compares every frame of every step. `runKey` names
 * the two runs (`<runKey>-a`, `<runKey>-b`).
 */
export async function playTwice(
  player: FramePlayer,
  gameId: string,
  o: { seed: number; level: number; actions: readonly Arc3Action[]; runKey: string },
): Promise<DeterminismReport> {
  if (o.actions.length > PLAYTEST_DETERMINISM_MAX_ACTIONS) {
    throw new RangeError(
      `the playtest has ${o.actions.length} actions; at most ${PLAYTEST_DETERMINISM_MAX_ACTIONS} are played twice. Restart the level and play fewer actions`,
    );
  }
  const first = `${o.runKey}-a`;
  const played: number[][][][] = [];
  try {
    played.push((await player.open(first, gameId, o.seed, o.level)).frame.frame);
    for (const action of o.actions) played.push((await player.act(first, action)).frame);
  } finally {
    await player.close(first).catch(() => undefined);
  }
  return playAgain(player, `${o.runKey}-b`, gameId, o, o.actions, played);
}
