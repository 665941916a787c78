/**
 * The authoring API: what a game module declares. A game is data (its levels) plus four pure
 * functions: `init` builds a level's state, `step` answers one action, `outcome` says whether
 * the level is won or lost, `render` draws a state into a frame. The engine adds everything
 * else: RESET, undo, levels, accounting, animation frames, hashing and replay.
 *
 * WARNING: game states are immutable. `step` must return a new object when anything changes and
 * the very same object when nothing does (the engine keeps old states as undo snapshots and
 * uses identity to skip snapshots of actions that changed nothing).
 */
import type { ActionId, ActionInput, Frame } from './types';

/** Whether a level is still being played, won, or lost (lost means GAME_OVER). */
export type Outcome = 'playing' | 'won' | 'lost';

/** What `init` may use. */
export interface LevelContext {
  /** Index of the level being built, 0-based. */
  readonly level: number;
  /** A float in [0, 1) from the run's seeded PRNG. */
  random(): number;
}

/** What `step` may use. */
export interface StepContext<S> {
  /** Index of the level being played, 0-based. */
  readonly level: number;
  /** A float in [0, 1) from the run's seeded PRNG (restored by undo and RESET). */
  random(): number;
  /**
   * Shows `state` as one animation frame before the settled one (e.g. each cell of a slide).
   * Costs nothing when no frames are wanted (validation sweeps, benchmarks of `advance`).
   */
  animate(state: S): void;
}

/** What `render` may use. */
export interface RenderInfo {
  /** Index of the level drawn, 0-based. */
  readonly level: number;
  /** Number of levels in the game. */
  readonly levels: number;
}

/**
 * A game. `S` is a level's state (plain data and typed arrays, immutable), `L` a level's data.
 * @example see docs/authoring-games.md for a complete minimal game.
 */
export interface GameDefinition<S = unknown, L = unknown> {
  /** Four lowercase characters, unique among games, e.g. `push`. */
  readonly id: string;
  readonly title: string;
  /** One line on what the player does, for lists. */
  readonly summary?: string;
  /** The levels as data; level 1 (index 0) is the tutorial. */
  readonly levels: readonly L[];
  /**
   * The actions offered (ids 1-6); ACTION7 (undo) is added by the engine unless `undo` is false.
   * `availableActions` may narrow or change this per state.
   */
  readonly actions: readonly ActionId[];
  /** Set to false to opt out of the engine's undo (ACTION7 is then never available). */
  readonly undo?: boolean;
  /** Frames per second at which players show animation frames (default 10). */
  readonly fps?: number;
  /**
   * Bump this when a change to `step`, `outcome` or `render` changes how the game plays while its
   * levels and other data stay the same: it is part of the game's version (see version.ts), which
   * every log records. Default 0.
   */
  readonly revision?: number;
  /** Builds the start state of a level. */
  init(level: L, ctx: LevelContext): S;
  /** Answers one action (never RESET or ACTION7: the engine handles those). */
  step(state: S, input: ActionInput, ctx: StepContext<S>): S;
  /** Whether `state` wins or loses its level. */
  outcome(state: S): Outcome;
  /** Draws `state` into `frame`, which arrives filled with 0 (white). */
  render(state: S, frame: Frame, info: RenderInfo): void;
  /** The actions offered in `state`, when they change from frame to frame (ids 1-6). */
  availableActions?(state: S): readonly ActionId[];
  /**
   * Cells worth clicking in `state` (one per clickable thing), for solvers and explorers; a
   * click elsewhere must change nothing.
   */
  clickTargets?(state: S): readonly (readonly [number, number])[];
  /**
   * The part of a state that identifies it, for `stateKey` (the solver's exact identity) and
   * `hashState` (default: the whole state). Leave out what never changes within a level (walls,
   * targets), and prefer positions to whole boards: the solver keeps one key per state it visits.
   */
  key?(state: S): unknown;
}

/** Declares a game with its types inferred; returns it unchanged. */
export function defineGame<S, L>(game: GameDefinition<S, L>): GameDefinition<S, L> {
  if (!/^[a-z0-9]{4}$/.test(game.id))
    throw new Error(`game id "${game.id}" must be 4 lowercase letters or digits, e.g. "push".`);
  if (game.levels.length === 0) throw new Error(`game "${game.id}" has no levels: add at least one.`);
  if (game.actions.some((a) => !(a >= 1 && a <= 6)))
    throw new Error(`game "${game.id}": actions must be ids 1-6 (ACTION7, undo, is added by the engine).`);
  return game;
}
