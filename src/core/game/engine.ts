/**
 * The run: one play-through of a game under the official ARC-AGI-3 rules.
 *
 * A `Run` is an immutable value; `step(run, input)` returns the next run and the official
 * response (frames included), `advance(run, input)` returns only the next run and draws nothing,
 * for validation sweeps that take millions of steps.
 *
 * Rules, as in the official engine and scorecard:
 * - The first action must be RESET. RESET is a level reset when any action was taken in the
 *   current level, otherwise a full reset that starts a new run; so two RESETs in a row give a
 *   fresh game. After WIN, RESET always starts a new run.
 * - Any other action after WIN or GAME_OVER is refused (`GameRuleError`, code `GAME_ENDED`).
 * - Every ACTION1-7 counts one, a level RESET counts one, a full reset starts a new run at zero.
 *   Per-level counts split the run's count where `levels_completed` changes. These accounting
 *   rules are written once, in accounting.ts, which log replays and scoring use too.
 * - ACTION7 is undo: it restores the state before the last action that changed something in the
 *   current level (a snapshot), and counts one even when there is nothing to undo.
 */
import { isFullReset, levelCounts } from './accounting';
import type { GameDefinition, RenderInfo, StepContext } from './define';
import { canonicalKey, hashHex } from './hash';
import { mixSeed, nextRng, rngValue } from './rng';
import {
  FRAME_CELLS,
  GameRuleError,
  actionId,
  type ActionId,
  type ActionInput,
  type Frame,
  type FrameResponse,
  type GameState,
} from './types';

interface Snapshot<S> {
  readonly state: S;
  readonly rng: number;
  readonly prev: Snapshot<S> | null;
}

/** One play-through. Immutable: every action yields a new `Run`. */
export interface Run<S = unknown> {
  readonly game: GameDefinition<S, unknown>;
  readonly seed: number;
  readonly state: GameState;
  readonly levelsCompleted: number;
  /** Index of the level on screen (equals `levelsCompleted` except after WIN). */
  readonly level: number;
  /** The state of the level on screen. */
  readonly current: S;
  /** The PRNG state (see rng.ts). */
  readonly rng: number;
  /** Undo snapshots of the current level, newest first. */
  readonly history: Snapshot<S> | null;
  /** Actions taken since the current level was entered or reset: decides RESET's meaning. */
  readonly levelActions: number;
  /** Runs started so far by full resets (0 before the first RESET). */
  readonly runs: number;
  /** Counted actions in this run. */
  readonly actions: number;
  /** `actions` when each level of this run was entered; `levelStarts[0]` is 0. */
  readonly levelStarts: readonly number[];
  /** Whether the last action was a full reset. */
  readonly fullReset: boolean;
}

/**
 * Builds a run with every field in one fixed order: one object shape for all runs keeps the
 * engine's property accesses monomorphic, which matters at millions of steps.
 */
function makeRun<S>(
  r: Run<S>,
  state: GameState,
  levelsCompleted: number,
  level: number,
  current: S,
  rng: number,
  history: Snapshot<S> | null,
  levelActions: number,
  runs: number,
  actions: number,
  levelStarts: readonly number[],
  fullReset: boolean,
): Run<S> {
  return {
    game: r.game,
    seed: r.seed,
    state,
    levelsCompleted,
    level,
    current,
    rng,
    history,
    levelActions,
    runs,
    actions,
    levelStarts,
    fullReset,
  };
}

/** Frames per second at which animation frames are shown when a game does not say. */
export const DEFAULT_FPS = 10;

/** The game's animation speed in frames per second. */
export function gameFps(game: GameDefinition<unknown, unknown>): number {
  return game.fps ?? DEFAULT_FPS;
}

/** Options of `createRun`. */
export interface RunOptions {
  /** Seed of the PRNG (default 0). */
  seed?: number;
  /**
   * A designer's shortcut: start already playing this level (0-based), as if the earlier ones
   * were completed. Without it the run is NOT_PLAYED and waits for RESET, as in the official API.
   */
  level?: number;
}

function initLevel<S>(game: GameDefinition<S, unknown>, seed: number, level: number): { current: S; rng: number } {
  let rng = mixSeed(seed, level);
  const current = game.init(game.levels[level], {
    level,
    random() {
      rng = nextRng(rng);
      return rngValue(rng);
    },
  });
  return { current, rng };
}

/**
 * A new run of `game`, NOT_PLAYED until the first RESET (unless `options.level` is given).
 * `options` may be just the seed.
 * @example let run = createRun(games.push, 7); run = advance(run, { action: 'RESET' });
 */
export function createRun<S>(game: GameDefinition<S, unknown>, options: RunOptions | number = {}): Run<S> {
  if (typeof options === 'number') options = { seed: options };
  const seed = (options.seed ?? 0) | 0;
  const level = options.level ?? 0;
  if (!(Number.isInteger(level) && level >= 0 && level < game.levels.length)) {
    throw new RangeError(`level ${level} does not exist in "${game.id}": it has levels 0-${game.levels.length - 1}.`);
  }
  const { current, rng } = initLevel(game, seed, level);
  const started = options.level !== undefined;
  return {
    game,
    seed,
    state: started ? 'NOT_FINISHED' : 'NOT_PLAYED',
    levelsCompleted: level,
    level,
    current,
    rng,
    history: null,
    levelActions: 0,
    runs: started ? 1 : 0,
    actions: 0,
    levelStarts: Array.from({ length: level + 1 }, () => 0),
    fullReset: false,
  };
}

const undoOffer = new WeakMap<readonly ActionId[], readonly ActionId[]>();

/** The action ids the run accepts now (RESET is always accepted and never listed). */
export function availableActions<S>(run: Run<S>): readonly ActionId[] {
  if (run.state !== 'NOT_FINISHED') return [];
  const game = run.game;
  const base = game.availableActions ? game.availableActions(run.current) : game.actions;
  if (game.undo === false) return base;
  let withUndo = undoOffer.get(base);
  if (!withUndo) {
    withUndo = Object.freeze([...base.filter((a) => a !== 7), 7 as ActionId]);
    undoOffer.set(base, withUndo);
  }
  return withUndo;
}

class Ctx<S> implements StepContext<S> {
  constructor(
    readonly level: number,
    public rng: number,
    readonly frames: S[] | null,
  ) {}
  random(): number {
    this.rng = nextRng(this.rng);
    return rngValue(this.rng);
  }
  animate(state: S): void {
    if (this.frames) this.frames.push(state);
  }
}

function reset<S>(run: Run<S>): Run<S> {
  const game = run.game;
  if (!isFullReset(run.state, run.levelActions)) {
    const { current, rng } = initLevel(game, run.seed, run.level);
    return makeRun(
      run,
      'NOT_FINISHED',
      run.levelsCompleted,
      run.level,
      current,
      rng,
      null,
      0,
      run.runs,
      run.actions + 1,
      run.levelStarts,
      false,
    );
  }
  const { current, rng } = initLevel(game, run.seed, 0);
  return makeRun(run, 'NOT_FINISHED', 0, 0, current, rng, null, 0, run.runs + 1, 0, [0], true);
}

/** Checks an action against the rules; throws `GameRuleError` when it must be refused. */
function check<S>(run: Run<S>, input: ActionInput): void {
  const id = actionId(input.action);
  if (id < 0)
    throw new GameRuleError(
      'INVALID_ACTION',
      `"${String(input.action)}" is not an action: use RESET or ACTION1-ACTION7.`,
    );
  if (run.state === 'NOT_PLAYED')
    throw new GameRuleError('NOT_STARTED', `${input.action} before the game started: send RESET first.`);
  if (run.state === 'WIN' || run.state === 'GAME_OVER') {
    throw new GameRuleError(
      'GAME_ENDED',
      `${input.action} after ${run.state}: the game has ended; send RESET to play again.`,
    );
  }
  if (!availableActions(run).includes(id as ActionId)) {
    throw new GameRuleError(
      'ACTION_NOT_AVAILABLE',
      `${input.action} is not available now in "${run.game.id}"; available: ${
        availableActions(run)
          .map((a) => `ACTION${a}`)
          .join(', ') || 'none'
      }.`,
    );
  }
  if (input.action === 'ACTION6') {
    const { x, y } = input;
    if (!(Number.isInteger(x) && Number.isInteger(y) && x! >= 0 && x! < 64 && y! >= 0 && y! < 64)) {
      throw new GameRuleError(
        'INVALID_ACTION',
        `ACTION6 needs whole-number coordinates x and y in 0-63, got x=${String(x)}, y=${String(y)}.`,
      );
    }
  }
}

interface Animation<S> {
  readonly level: number;
  readonly states: S[];
}

function apply<S>(run: Run<S>, input: ActionInput, anim: Animation<S> | null): Run<S> {
  if (input.action === 'RESET') return reset(run);
  check(run, input);
  const game = run.game;
  const actions = run.actions + 1;
  const levelActions = run.levelActions + 1;
  if (input.action === 'ACTION7') {
    const h = run.history;
    if (!h)
      return makeRun(
        run,
        run.state,
        run.levelsCompleted,
        run.level,
        run.current,
        run.rng,
        null,
        levelActions,
        run.runs,
        actions,
        run.levelStarts,
        false,
      );
    return makeRun(
      run,
      run.state,
      run.levelsCompleted,
      run.level,
      h.state,
      h.rng,
      h.prev,
      levelActions,
      run.runs,
      actions,
      run.levelStarts,
      false,
    );
  }
  const ctx = new Ctx<S>(run.level, run.rng, anim ? anim.states : null);
  const next = game.step(run.current, input, ctx);
  if (next === run.current && ctx.rng === run.rng) {
    return makeRun(
      run,
      run.state,
      run.levelsCompleted,
      run.level,
      run.current,
      run.rng,
      run.history,
      levelActions,
      run.runs,
      actions,
      run.levelStarts,
      false,
    );
  }
  const outcome = game.outcome(next);
  if (outcome === 'won') {
    const levelsCompleted = run.levelsCompleted + 1;
    if (anim) anim.states.push(next);
    if (levelsCompleted >= game.levels.length) {
      return makeRun(
        run,
        'WIN',
        levelsCompleted,
        run.level,
        next,
        ctx.rng,
        null,
        levelActions,
        run.runs,
        actions,
        run.levelStarts,
        false,
      );
    }
    const level = run.level + 1;
    const { current, rng } = initLevel(game, run.seed, level);
    return makeRun(
      run,
      'NOT_FINISHED',
      levelsCompleted,
      level,
      current,
      rng,
      null,
      0,
      run.runs,
      actions,
      [...run.levelStarts, actions],
      false,
    );
  }
  const history = game.undo === false ? null : { state: run.current, rng: run.rng, prev: run.history };
  const state = outcome === 'lost' ? 'GAME_OVER' : 'NOT_FINISHED';
  return makeRun(
    run,
    state,
    run.levelsCompleted,
    run.level,
    next,
    ctx.rng,
    history,
    levelActions,
    run.runs,
    actions,
    run.levelStarts,
    false,
  );
}

/**
 * Applies one action without drawing: the fast path for solvers, random policies and sweeps.
 * @throws GameRuleError when the rules refuse the action (the run is then unchanged).
 */
export function advance<S>(run: Run<S>, input: ActionInput): Run<S> {
  return apply(run, input, null);
}

/** Draws the level state `state` of `run.game` at level `level` into a new frame. */
export function renderState<S>(game: GameDefinition<S, unknown>, state: S, level: number): Frame {
  const frame = new Uint8Array(FRAME_CELLS);
  const info: RenderInfo = { level, levels: game.levels.length };
  game.render(state, frame, info);
  return frame;
}

/** The settled frame of a run. */
export function renderRun<S>(run: Run<S>): Frame {
  return renderState(run.game, run.current, run.level);
}

/** The official response describing `run` as it stands, with the given frames. */
export function respond<S>(run: Run<S>, frame: readonly Frame[] = [renderRun(run)]): FrameResponse {
  return {
    frame,
    state: run.state,
    levels_completed: run.levelsCompleted,
    win_levels: run.game.levels.length,
    available_actions: availableActions(run),
    full_reset: run.fullReset,
  };
}

/**
 * Applies one action and returns the next run with the official response: the animation frames
 * the game asked for, then the settled frame. When a level is won, its winning state is shown
 * before the next level's start.
 * @throws GameRuleError when the rules refuse the action (the run is then unchanged).
 * @example
 * let run = createRun(games.push);
 * ({ run } = step(run, { action: 'RESET' }));
 * const { run: next, response } = step(run, { action: 'ACTION4' });
 */
export function step<S>(run: Run<S>, input: ActionInput): { run: Run<S>; response: FrameResponse } {
  const anim: Animation<S> = { level: run.level, states: [] };
  const next = apply(run, input, anim);
  const frames = anim.states.map((s) => renderState(run.game, s, anim.level));
  frames.push(renderRun(next));
  return { run: next, response: respond(next, frames) };
}

/**
 * Per-level action counts of the current run, as the official scorecard splits them: entry `k`
 * counts the actions from entering level `k` up to and including the one that completed it (or
 * up to now for the level being played).
 */
export function actionCounts(run: Run<unknown>): number[] {
  return levelCounts(run.levelStarts, run.actions);
}

/** The scorecard of the current run, with official field names. */
export interface Scorecard {
  readonly game: string;
  readonly state: GameState;
  readonly levels_completed: number;
  readonly win_levels: number;
  /** Counted actions in this run. */
  readonly actions: number;
  /** Per-level counts, see `actionCounts`. */
  readonly level_actions: number[];
  /** Runs started so far (full resets). */
  readonly runs: number;
}

export function scorecard(run: Run<unknown>): Scorecard {
  return {
    game: run.game.id,
    state: run.state,
    levels_completed: run.levelsCompleted,
    win_levels: run.game.levels.length,
    actions: run.actions,
    level_actions: actionCounts(run),
    runs: run.runs,
  };
}

/**
 * The exact identity of where a run stands within its game: the official state, the level, the
 * PRNG and the game state (through the game's `key` when it has one), as a `canonicalKey`.
 * Counters and undo history are left out, so two paths that reach the same position have equal
 * keys; different positions never do. The node identity of the solver and state-graph explorers.
 */
export function stateKey(run: Run<unknown>): string {
  const game = run.game;
  // One fixed-width character for the official state, then self-delimiting parts.
  return (
    STATE_CODE[run.state] +
    canonicalKey(run.level) +
    canonicalKey(run.rng) +
    canonicalKey(game.key ? game.key(run.current) : run.current)
  );
}

const STATE_CODE: Readonly<Record<GameState, string>> = {
  NOT_PLAYED: 'p',
  NOT_FINISHED: 'f',
  WIN: 'w',
  GAME_OVER: 'o',
};

/**
 * A short hash (8 hex digits) of where a run stands, for display (the playtest page shows it):
 * the game, the level, the game state, the PRNG and the official state, as `stateKey` takes them.
 * WARNING: 32 bits collide among a large level's states (two of push level 6 are pinned in
 * hash.test.ts); use `stateKey` wherever states must be told apart.
 */
export function hashState(run: Run<unknown>): string {
  const game = run.game;
  return hashHex([game.id, run.state, run.level, run.rng, game.key ? game.key(run.current) : run.current]);
}
