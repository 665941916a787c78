/**
 * The messages between the playtest page's Validate panel and its Web Worker. The page sends one
 * `ValidateRequest`; the worker answers with progress, the validation report, the level's state
 * graph and `done` (or `error`). Cancelling terminates the worker: there is no cancel message,
 * because a worker busy in a task's loop would not read it.
 */
import type { GraphDrawing, GraphShape, GraphSummary } from '../../../core/game/graphView';
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

/** Lay out a graph explored elsewhere (an arcengine game's comes from the server); answered by `laid-out`. */
export interface LayoutRequest {
  readonly type: 'layout';
  readonly shape: GraphShape;
}

/** The phases a run goes through, in order. */
export type Phase = 'validate' | 'graph' | 'layout';

/** What the worker sends back. */
export type ValidateReply =
  | { readonly type: 'progress'; readonly phase: Phase; readonly done: number; readonly total: number }
  | { readonly type: 'validated'; readonly report: ValidationReport; readonly seconds: number }
  | { readonly type: 'graph'; readonly summary: GraphSummary; readonly drawing: GraphDrawing | null }
  | { readonly type: 'laid-out'; readonly drawing: GraphDrawing }
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly message: string };

export type { GraphDrawing, GraphShape, GraphSummary, NodeKind } from '../../../core/game/graphView';
