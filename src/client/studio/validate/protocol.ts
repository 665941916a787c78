/**
 * The messages between the playtest page's Validate panel and its Web Worker. The page sends one
 * `ValidateRequest`; the worker answers with progress, the validation report, the level's state
 * graph and `done` (or `error`). Cancelling terminates the worker: there is no cancel message,
 * because a worker busy in a task's loop would not read it.
 */
import type { GraphAnalysis, WinProbability } from '../../../core/game/graph';
import type { ClickPolicy, Regime, ValidationReport } from '../../../core/game/validate';

/** What to run. */
export interface ValidateRequest {
  readonly type: 'run';
  /** A built-in game's id (`games` of src/games). */
  readonly gameId: string;
  /** Level index (0-based), or null for every level (then no state graph is explored). */
  readonly level: number | null;
  readonly regimes: readonly Regime[];
  /** Steps of the long regime and of the fuzz; the short regime takes min(50,000, steps). */
  readonly steps: number;
  readonly seed: number;
  readonly clicks: ClickPolicy;
  /**
   * Length of the level's recorded solution (from the researcher's authenticated request, never
   * from the public bundle), or null when the game has none for it.
   */
  readonly recorded: number | null;
  /** The state graph's budget, or null to skip the graph. */
  readonly graph: { readonly maxStates: number; readonly maxSeconds: number } | null;
}

/** The phases a run goes through, in order. */
export type Phase = 'validate' | 'graph' | 'layout';

/** What the worker sends back. */
export type ValidateReply =
  | { readonly type: 'progress'; readonly phase: Phase; readonly done: number; readonly total: number }
  | { readonly type: 'validated'; readonly report: ValidationReport; readonly seconds: number }
  | { readonly type: 'graph'; readonly summary: GraphSummary; readonly drawing: GraphDrawing | null }
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly message: string };

/** What the panel shows of a level's state graph. */
export interface GraphSummary {
  readonly level: number;
  readonly analysis: GraphAnalysis;
  /** States whose actions were all tried. */
  readonly expanded: number;
  /** Length of the level's recorded solution, or null when the game has none for it. */
  readonly recorded: number | null;
  /** P(win within K) for the K the budget allowed; null when the graph was not fully explored. */
  readonly probabilities: readonly WinProbability[] | null;
  readonly clicks: 'targets' | 'cells' | 'none';
  readonly maxStates: number;
  readonly maxSeconds: number;
  readonly seconds: number;
  /** Why there is no drawing (too many states or edges), or null when there is one. */
  readonly notDrawn: string | null;
}

/** What a drawn node is. `frontier`: found but not expanded (the budget ran out). */
export type NodeKind = 'start' | 'normal' | 'winning' | 'gameover' | 'frontier' | 'win';

/**
 * A laid-out state graph: node `i < states` is state `i` (0 the start), node `states` is the
 * absorbing WIN. Edges are pairs of node indices (RESET edges after GAME_OVER left out).
 */
export interface GraphDrawing {
  readonly states: number;
  readonly kinds: readonly NodeKind[];
  readonly depth: readonly number[];
  /** x0, y0, x1, y1, ... from the library's layout. */
  readonly positions: readonly number[];
  /** from0, to0, from1, to1, ... */
  readonly edges: readonly number[];
}
