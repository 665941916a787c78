/**
 * Whether an ARC-AGI-3 game gives the same frames for the same actions: the actions are played on
 * a fresh run, then again on a second fresh run with the same seed (and level) in the same
 * engine process, then again in fresh engine processes each with its own `PYTHONHASHSEED`
 * (`FRESH_HASH_SEEDS`), and every frame of every step is compared with the first play's. `games
 * validate` plays a random sequence of offered actions (`checkDeterminism`); a designer's
 * playtest page plays the actions of the open playtest (`playTwice`, `POST
 * /api/admin/arc3/runs/:run/determinism`).
 *
 * A game that draws from anything its seed does not fix (numpy's or Python's global random
 * generator, the clock) gives different frames within one process. A game that orders things by
 * `id()` or by the hash of a string (iterating a set of names, `sorted(key=hash)`) gives the same
 * frames on every run of one process and different ones in another, as a restarted server or a
 * researcher's check would play it: only the fresh processes catch it. Either way a recorded
 * session of it cannot be verified exactly.
 */
import { Rng } from '../../core/game';
import { compareFrames, type DeterminismReport } from '../../core/game/determinism';
import type { Arc3Action, Arc3FrameData } from './worker';

/** What plays the runs: a worker pool (`Arc3Pool`) or a mounted source (`Arc3Source`). */
export interface FramePlayer {
  open(
    runId: string,
    gameId: string,
    seed?: number,
    level?: number,
  ): Promise<{ frame: Arc3FrameData; gameId?: string }>;
  act(runId: string, action: Arc3Action): Promise<Arc3FrameData>;
  close(runId: string): Promise<void>;
  /**
   * A new engine process with `env` over the player's environment (an `Arc3Pool`'s); absent for a
   * source that cannot start one (a remote server), whose check stays within its process.
   */
  freshProcess?(env: Readonly<Record<string, string>>): FreshProcess;
}

/** An engine process started for one check, which the check stops. */
export interface FreshProcess {
  open(runId: string, gameId: string, seed?: number, level?: number): Promise<Arc3FrameData>;
  act(runId: string, action: Arc3Action): Promise<Arc3FrameData>;
  close(runId: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The `PYTHONHASHSEED` of each fresh process: two, and different from each other, so that a
 * game ordering by hashes differs from the first play (whose process has a seed of its own) in
 * at least one of them whatever that seed is.
 */
export const FRESH_HASH_SEEDS = ['1', '2'] as const;

/** Actions of `games validate`'s check: one random play of the first levels, played twice. */
export const DETERMINISM_STEPS = 200;

/** The most actions a playtest's check plays twice (each is a call into Python, twice). */
export const PLAYTEST_DETERMINISM_MAX_ACTIONS = 2_000;

/** An action as the reports write it: `ACTION1`, `ACTION6:12:40`. */
export function actionText(a: Arc3Action | undefined): string {
  return !a ? 'RESET (opening)' : a.action === 'ACTION6' ? `ACTION6:${a.x}:${a.y}` : a.action;
}

/** Where a play was made, for the report: the first play's process, or a fresh one's hash seed. */
type Where = { readonly process: 'same' } | { readonly process: 'fresh'; readonly hashSeed: string };

/**
 * Plays `actions` on a fresh run `runId` of `player` and compares each step's frames with
 * `played` (the first play's frames: the opening RESET's, then one list per action).
 */
async function playAgain(
  player: Pick<FramePlayer, 'act' | 'close'> & {
    open(runId: string, gameId: string, seed?: number, level?: number): Promise<{ frame: Arc3FrameData }>;
  },
  runId: string,
  gameId: string,
  o: { seed: number; level?: number },
  actions: readonly Arc3Action[],
  played: readonly number[][][][],
  where: Where,
): Promise<DeterminismReport | null> {
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
          divergence: { step: i, action: actionText(actions[i - 1]), ...rest, ...where },
          grids: { first: played[i][index] ?? null, second: frames[index] ?? null },
        };
      }
    }
    return null;
  } finally {
    await player.close(runId).catch(() => undefined);
  }
}

/**
 * The plays after the first: in the same process, then in each fresh process the player can
 * start (`FRESH_HASH_SEEDS`); the first that differs is the report.
 */
async function playAgainEverywhere(
  player: FramePlayer,
  runKey: string,
  gameId: string,
  o: { seed: number; level?: number },
  actions: readonly Arc3Action[],
  played: readonly number[][][][],
): Promise<DeterminismReport> {
  const same = await playAgain(player, `${runKey}-b`, gameId, o, actions, played, { process: 'same' });
  if (same) return same;
  if (!player.freshProcess) return { deterministic: true, steps: actions.length, processes: 0 };
  for (const hashSeed of FRESH_HASH_SEEDS) {
    const fresh = player.freshProcess({ PYTHONHASHSEED: hashSeed });
    try {
      const found = await playAgain(
        {
          open: async (...args) => ({ frame: await fresh.open(...args) }),
          act: (runId, action) => fresh.act(runId, action),
          close: (runId) => fresh.close(runId),
        },
        `${runKey}-hash${hashSeed}`,
        gameId,
        o,
        actions,
        played,
        { process: 'fresh', hashSeed },
      );
      if (found) return found;
    } finally {
      await fresh.stop().catch(() => undefined);
    }
  }
  return { deterministic: true, steps: actions.length, processes: FRESH_HASH_SEEDS.length };
}

/**
 * Plays one random sequence of offered actions (seeded by `seed`) on a fresh run, then the same
 * actions on a second fresh run with the same game seed, in the same process and in fresh ones,
 * and compares every frame of every step.
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
  // The fresh processes open the full id the first play resolved (a worker does not resolve short ids).
  let full = gameId;
  try {
    const opened = await player.open(first, gameId, o.seed);
    full = opened.gameId ?? gameId;
    let fd = opened.frame;
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
  return playAgainEverywhere(player, `determinism-${o.seed}`, full, { seed: o.seed }, actions, played);
}

/**
 * Plays the given actions (a playtest's, from its level's opening RESET) on a fresh run, then
 * again on fresh runs with the same seed and level, in the same process and in fresh ones, and
 * compares every frame of every step. `runKey` names the runs (`<runKey>-a`, `<runKey>-b`,
 * `<runKey>-hash<N>`).
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
  let full = gameId;
  try {
    const opened = await player.open(first, gameId, o.seed, o.level);
    full = opened.gameId ?? gameId;
    played.push(opened.frame.frame);
    for (const action of o.actions) played.push((await player.act(first, action)).frame);
  } finally {
    await player.close(first).catch(() => undefined);
  }
  return playAgainEverywhere(player, o.runKey, full, o, o.actions, played);
}
