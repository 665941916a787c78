/**
 * What the studio shows of an explored state graph, for built-in games (the Validate panel's Web
 * Worker) and arcengine games (the server's graph route) alike: the summary beside the drawing,
 * and the drawing's nodes and edges before the layout gives them places.
 */
import {
  WIN_NODE,
  analyzeGraph,
  winProbabilities,
  type GraphAnalysis,
  type LevelGraph,
  type WinProbability,
} from './graph';

/** The largest state graph drawn: beyond it the panel shows the summary only. */
export const DRAW_MAX_STATES = 3_000;
/** The most edges drawn (a level's states can each have many distinct moves). */
export const DRAW_MAX_EDGES = 20_000;
/** The K of P(win within K) in the panel (as many as `PROBABILITY_WORK` allows). */
export const PANEL_KS = [10, 100, 1_000, 10_000, 100_000];
/** Edge visits the probabilities may take in the studio (the CLI allows 300 million). */
export const PROBABILITY_WORK = 5e7;

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

/** A drawing before its layout. */
export type GraphShape = Omit<GraphDrawing, 'positions'>;

/** Moves between different states that the drawing would show (RESET edges left out). */
function drawnEdges(g: LevelGraph): number {
  let n = 0;
  for (let e = 0; e < g.offsets[g.expanded]; e++) if (g.action[e] !== 0) n++;
  return n;
}

/**
 * The summary of an explored graph and its shape for drawing (null when too large to draw).
 * `budget` is what the exploration was allowed, `seconds` what it took.
 */
export function summarizeGraph(
  g: LevelGraph,
  o: { recorded: number | null; maxStates: number; maxSeconds: number; seconds: number },
): { summary: GraphSummary; shape: GraphShape | null } {
  const analysis = analyzeGraph(g);
  const probabilities = g.complete ? winProbabilities(g, PANEL_KS, PROBABILITY_WORK) : null;
  const edges = drawnEdges(g);
  const drawable = g.states <= DRAW_MAX_STATES && edges <= DRAW_MAX_EDGES;
  const notDrawn = drawable
    ? null
    : g.states > DRAW_MAX_STATES
      ? `${g.states.toLocaleString('en-US')} states: the drawing shows levels of up to ${DRAW_MAX_STATES.toLocaleString('en-US')} states; the summary covers them all.`
      : `${edges.toLocaleString('en-US')} moves between states: the drawing shows up to ${DRAW_MAX_EDGES.toLocaleString('en-US')}; the summary covers them all.`;
  const summary: GraphSummary = {
    level: g.level,
    analysis,
    expanded: g.expanded,
    recorded: o.recorded,
    probabilities,
    clicks: g.clicks,
    maxStates: o.maxStates,
    maxSeconds: o.maxSeconds,
    seconds: o.seconds,
    notDrawn,
  };
  return { summary, shape: drawable ? graphShape(g) : null };
}

/** The nodes (states, then WIN) and edges of the drawing, without positions. */
export function graphShape(g: LevelGraph): GraphShape {
  const win = g.states;
  const kinds: NodeKind[] = [];
  const edges: number[] = [];
  for (let i = 0; i < g.states; i++) {
    let kind: NodeKind = i === 0 ? 'start' : g.gameOver[i] ? 'gameover' : i >= g.expanded ? 'frontier' : 'normal';
    if (i < g.expanded) {
      for (let e = g.offsets[i]; e < g.offsets[i + 1]; e++) {
        if (g.action[e] === 0) continue;
        const to = g.to[e] === WIN_NODE ? win : g.to[e];
        edges.push(i, to);
        if (to === win && kind === 'normal') kind = 'winning';
      }
    }
    kinds.push(kind);
  }
  kinds.push('win');
  const depth = Array.from(g.depth);
  // WIN sits one move below the shallowest winning state (-1 when nothing wins).
  let winDepth = Infinity;
  for (let i = 0; i < edges.length; i += 2)
    if (edges[i + 1] === win) winDepth = Math.min(winDepth, depth[edges[i]] + 1);
  depth.push(Number.isFinite(winDepth) ? winDepth : -1);
  return { states: g.states, kinds, depth, edges };
}
