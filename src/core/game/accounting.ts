/**
 * The official ARC-AGI-3 scorecard's action accounting, written once. The engine counts its runs
 * with these rules (`engine.ts`), and `splitRuns` applies them to any logged sequence of steps: a
 * participant's `game.action` events (`countActions`, baselines, study results) or the lines of
 * a recording (core/formats/recording.ts, scoring).
 *
 * - Every ACTION1-7 counts one; a level RESET counts one; a full reset starts a new run at zero.
 * - An ACTION1-7 after GAME_OVER or WIN counts nothing and changes nothing (`isCounted`): the
 *   official engine answers it with an empty frame, and the toolkit updates the scorecard only
 *   for answers with a frame. Only a RESET goes on from there.
 * - A RESET is a full reset before anything was played, after WIN, or when no action was taken
 *   in the current level since it was entered or reset (`isFullReset`); otherwise it resets the
 *   level. A recording may state it instead (`full_reset`).
 * - A level's count runs from entering the level up to and including the action that completed
 *   it; a level RESET counts in the level it resets (`levelCounts`). After WIN no level is being
 *   played, so no count is kept for "the level after the last".
 */
import type { GameAction, GameState } from './types';

/**
 * Whether a RESET made now starts a new run, given the official state before it and the actions
 * taken in the current level since it was entered or reset.
 * @example isFullReset('NOT_FINISHED', 0) // true: two RESETs in a row give a fresh game
 */
export function isFullReset(state: GameState, levelActions: number): boolean {
  return state === 'NOT_PLAYED' || state === 'WIN' || levelActions === 0;
}

/**
 * Whether the official scorecard counts a step at all: a RESET always; any other action unless
 * the engine answered it with an empty frame, which it does after GAME_OVER or WIN. When the
 * answer is not known (`emptyFrame` absent), the state before the step decides.
 * @example isCounted('ACTION1', 'GAME_OVER') // false: not counted, not in any level
 * @example isCounted('ACTION1', 'GAME_OVER', false) // true: a recording line with frames says it was played
 */
export function isCounted(action: GameAction, stateBefore: GameState, emptyFrame?: boolean): boolean {
  if (action === 'RESET') return true;
  if (emptyFrame !== undefined) return !emptyFrame;
  return stateBefore !== 'GAME_OVER' && stateBefore !== 'WIN';
}

/**
 * Per-level counts of a run: `starts[k]` is the run's count when level k was entered, `actions`
 * its count now. Entry k counts from entering level k up to the next level's start (or now).
 * @example levelCounts([0, 4, 11], 14) // [4, 7, 3]
 */
export function levelCounts(starts: readonly number[], actions: number): number[] {
  return starts.map((s, k) => (k + 1 < starts.length ? starts[k + 1] : actions) - s);
}

/** One accepted action and what the game answered. */
export interface AccountedStep {
  readonly action: GameAction;
  /** `levels_completed` after the action. */
  readonly levelsCompleted: number;
  /** The official state after the action. */
  readonly state: GameState;
  /** For RESET: whether it started a new run, when the source says (recordings do). */
  readonly fullReset?: boolean;
  /** Whether the answer had no frame, when the source says (`isCounted`). */
  readonly emptyFrame?: boolean;
}

/** One run: the steps from a full reset up to the next one. */
export interface RunCount {
  /** Index of the run's first step (normally its full RESET). */
  readonly first: number;
  /** Index after the run's last step. */
  readonly end: number;
  /** Counted actions in the run. */
  readonly actions: number;
  /** Indexes of the run's steps that count nothing (`isCounted`), e.g. actions after GAME_OVER. */
  readonly uncounted: readonly number[];
  /**
   * Per level entered (index 0 is level 1): actions from entering it up to and including the one
   * that completed it, or up to the end of the run for the level being played when it ended.
   */
  readonly levelActions: number[];
  readonly levelsCompleted: number;
  /** The official state at the end of the run. */
  readonly state: GameState;
  /**
   * Actions since the level being played began or was last reset: with `state`, what decides
   * whether a RESET now would be a full reset (`isFullReset`).
   */
  readonly sinceLevelStart: number;
}

interface OpenRun {
  first: number;
  actions: number;
  uncounted: number[];
  starts: number[];
  level: number;
  state: GameState;
  sinceLevelStart: number;
}

function close(r: OpenRun, end: number): RunCount {
  const counts = levelCounts(r.starts, r.actions);
  // After WIN no level is being played: the start pushed for "the level after the last" goes.
  const levelActions = r.state === 'WIN' ? counts.slice(0, r.level) : counts;
  return {
    first: r.first,
    end,
    actions: r.actions,
    uncounted: r.uncounted,
    levelActions,
    levelsCompleted: r.level,
    state: r.state,
    sinceLevelStart: r.sinceLevelStart,
  };
}

/**
 * Splits steps into runs and counts each run's actions per level. A RESET is a full reset when
 * the step says so (`fullReset`); when it does not say, `isFullReset` decides.
 * @example
 * splitRuns([
 *   { action: 'RESET', levelsCompleted: 0, state: 'NOT_FINISHED', fullReset: true },
 *   { action: 'ACTION4', levelsCompleted: 1, state: 'NOT_FINISHED' },
 *   { action: 'ACTION1', levelsCompleted: 1, state: 'NOT_FINISHED' },
 * ]) // [{ first: 0, end: 3, actions: 2, uncounted: [], levelActions: [1, 1], levelsCompleted: 1, ... }]
 */
export function splitRuns(steps: readonly AccountedStep[]): RunCount[] {
  const runs: RunCount[] = [];
  let run: OpenRun | null = null;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (s.action === 'RESET') {
      if (!run || (s.fullReset ?? isFullReset(run.state, run.sinceLevelStart))) {
        if (run) runs.push(close(run, i));
        run = { first: i, actions: 0, uncounted: [], starts: [0], level: 0, state: s.state, sinceLevelStart: 0 };
      } else {
        run.actions++;
        run.state = s.state;
        run.sinceLevelStart = 0;
      }
      continue;
    }
    // A recording cut before its RESET still counts: its first action opens a run.
    if (!run)
      run = { first: i, actions: 0, uncounted: [], starts: [0], level: 0, state: 'NOT_FINISHED', sinceLevelStart: 0 };
    if (!isCounted(s.action, run.state, s.emptyFrame)) {
      run.uncounted.push(i);
      continue;
    }
    run.actions++;
    run.sinceLevelStart++;
    for (let k = run.level; k < s.levelsCompleted; k++) run.starts.push(run.actions);
    if (s.levelsCompleted > run.level) {
      run.level = s.levelsCompleted;
      if (s.state !== 'WIN') run.sinceLevelStart = 0;
    }
    run.state = s.state;
  }
  if (run) runs.push(close(run, steps.length));
  return runs;
}
