/**
 * The vocabulary of ARC-AGI-3-style games, named as in the official ARC-AGI-3 API so the REST
 * protocol can be served later without translation (`levels_completed`, `available_actions`, ...).
 */

/** Side of a frame in cells. */
export const FRAME_SIZE = 64;
/** Cells in a frame (64 x 64). */
export const FRAME_CELLS = FRAME_SIZE * FRAME_SIZE;

/**
 * One 64x64 frame: a `Uint8Array(4096)`, row-major, the cell at column `x`, row `y` (both 0-63
 * from the top left) at index `y * 64 + x`. Values are palette indices 0-15.
 */
export type Frame = Uint8Array;

/** The official ARC-AGI-3 palette, by value 0-15. */
export const PALETTE: readonly string[] = Object.freeze([
  '#FFFFFF',
  '#CCCCCC',
  '#999999',
  '#666666',
  '#333333',
  '#000000',
  '#E53AA3',
  '#FF7BCC',
  '#F93C31',
  '#1E93FF',
  '#88D8F1',
  '#FFDC00',
  '#FF851B',
  '#921231',
  '#4FCC30',
  '#A356D6',
]);

/** Named palette indices, for readable game code. */
export const Colour = Object.freeze({
  white: 0,
  lightGrey: 1,
  grey: 2,
  darkGrey: 3,
  charcoal: 4,
  black: 5,
  magenta: 6,
  pink: 7,
  red: 8,
  blue: 9,
  lightBlue: 10,
  yellow: 11,
  orange: 12,
  maroon: 13,
  green: 14,
  purple: 15,
} as const);

/**
 * The actions of the official API. `RESET` (re)starts; `ACTION1`-`ACTION4` are up, down, left,
 * right; `ACTION5` is the action key; `ACTION6` is a click at `{x, y}`; `ACTION7` is undo.
 */
export type GameAction = 'RESET' | 'ACTION1' | 'ACTION2' | 'ACTION3' | 'ACTION4' | 'ACTION5' | 'ACTION6' | 'ACTION7';

/** All actions, indexed by their official numeric id (RESET = 0, ACTION1 = 1, ...). */
export const GAME_ACTIONS: readonly GameAction[] = Object.freeze([
  'RESET',
  'ACTION1',
  'ACTION2',
  'ACTION3',
  'ACTION4',
  'ACTION5',
  'ACTION6',
  'ACTION7',
] as const);

/** The numeric id of a non-RESET action, as listed in `available_actions` (1-7). */
export type ActionId = 1 | 2 | 3 | 4 | 5 | 6 | 7;

/** Numeric id of an action: RESET 0, ACTION1 1, ..., ACTION7 7. */
export function actionId(action: GameAction): number {
  return GAME_ACTIONS.indexOf(action);
}

/**
 * One action as sent by a player or an agent. `x` (column) and `y` (row), 0-63 from the top
 * left, are present for `ACTION6` only.
 */
export interface ActionInput {
  readonly action: GameAction;
  readonly x?: number;
  readonly y?: number;
}

/** The official game states. */
export type GameState = 'NOT_PLAYED' | 'NOT_FINISHED' | 'WIN' | 'GAME_OVER';

/**
 * What every action returns, field for field as the official API names it.
 * `frame` holds 1..N frames: an animation whose last frame is the settled one.
 */
export interface FrameResponse {
  readonly frame: readonly Frame[];
  readonly state: GameState;
  readonly levels_completed: number;
  readonly win_levels: number;
  /** Ids (1-7) of the actions the game accepts now; RESET is always accepted and never listed. */
  readonly available_actions: readonly ActionId[];
  /** True when this action was a RESET that started a new run (not a level reset). */
  readonly full_reset: boolean;
}

/** Why the engine refused an action. */
export type GameRuleCode = 'NOT_STARTED' | 'GAME_ENDED' | 'ACTION_NOT_AVAILABLE' | 'INVALID_ACTION';

/**
 * An action the rules refuse. The run is unchanged and the action is not counted.
 * Match on `code`, e.g. `GAME_ENDED` for an action other than RESET after WIN or GAME_OVER.
 */
export class GameRuleError extends Error {
  override readonly name = 'GameRuleError';
  constructor(
    readonly code: GameRuleCode,
    message: string,
  ) {
    super(message);
  }
}
