/**
 * What the Validate panel's worker does, as a plain function so that it runs (and is tested) in
 * Node too: the random-policy regimes of core/game/validate.ts on one level or all, then the
 * level's state graph of core/game/graph.ts, laid out by the graph library for drawing when it
 * is small enough.
 */
import { WIN_NODE, analyzeGraph, exploreLevel, winProbabilities, type LevelGraph } from '../../../core/game/graph';
import { planValidation, runValidationTask, summarizeValidation, type TaskResult } from '../../../core/game/validate';
import { games } from '../../../games';
import type { GraphDrawing, GraphSummary, NodeKind, ValidateReply, ValidateRequest } from './protocol';

/** The largest state graph drawn: beyond it the panel shows the summary only. */
export const DRAW_MAX_STATES = 3_000;
/** The most edges drawn (a level's states can each have many distinct moves). */
export const DRAW_MAX_EDGES = 20_000;
/** The K of P(win within K) in the panel (as many as `PROBABILITY_WORK` allows). */
export const PANEL_KS = [10, 100, 1_000, 10_000, 100_000];
/** Edge visits the probabilities may take in the browser (the CLI allows 300 million). */
export const PROBABILITY_WORK = 5e7;

/** What the job needs from its host: a clock, a way to answer, and the layout (the library). */
export interface JobHost {
  readonly post: (reply: ValidateReply) => void;
  readonly now: () => number;
  readonly layout: (drawing: Omit<GraphDrawing, 'positions'>) => Promise<number[]>;
}

/** Progress is sent at most this often (ms). */
const PROGRESS_MS = 100;

/** Runs `request` to its end, answering through `host.post`; errors are answered, not thrown. */
export async function runJob(request: ValidateRequest, host: JobHost): Promise<void> {
  try {
    await run(request, host);
    host.post({ type: 'done' });
  } catch (e) {
    host.post({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
}

async function run(request: ValidateRequest, host: JobHost): Promise<void> {
  const game = games[request.gameId];
  if (!game) throw new Error(`there is no built-in game "${request.gameId}" in this build: reload the page to get the current one.`);
  let lastProgress = -Infinity;
  const progress = (phase: 'validate' | 'graph', done: number, total: number, force = false) => {
    const t = host.now();
    if (!force && t - lastProgress < PROGRESS_MS) return;
    lastProgress = t;
    host.post({ type: 'progress', phase, done, total });
  };

  if (request.regimes.length) {
    const plan = planValidation(game, {
      seed: request.seed, steps: request.steps, clicks: request.clicks, regimes: request.regimes, level: request.level ?? undefined,
    });
    const total = plan.tasks.reduce((s, t) => s + t.steps, 0);
    const t0 = host.now();
    const results: TaskResult[] = [];
    let done = 0;
    progress('validate', 0, total, true);
    for (const task of plan.tasks) {
      results.push(runValidationTask(game, task, (n) => progress('validate', done + n, total)));
      done += task.steps;
      progress('validate', done, total);
    }
    progress('validate', total, total, true);
    host.post({ type: 'validated', report: summarizeValidation(game, plan, results), seconds: (host.now() - t0) / 1000 });
  }

  if (request.graph && request.level !== null) {
    const { maxStates, maxSeconds } = request.graph;
    const t0 = host.now();
    progress('graph', 0, maxStates, true);
    const g = exploreLevel(game, request.level, {
      maxStates, clicks: request.clicks, seed: request.seed,
      onProgress: (n) => progress('graph', n, maxStates),
      shouldStop: () => host.now() - t0 > maxSeconds * 1000,
    });
    const analysis = analyzeGraph(g);
    const probabilities = g.complete ? winProbabilities(g, PANEL_KS, PROBABILITY_WORK) : null;
    const drawable = g.states <= DRAW_MAX_STATES && drawnEdges(g) <= DRAW_MAX_EDGES;
    const notDrawn = drawable ? null
      : g.states > DRAW_MAX_STATES
        ? `${g.states.toLocaleString('en-US')} states: the drawing shows levels of up to ${DRAW_MAX_STATES.toLocaleString('en-US')} states; the summary covers them all.`
        : `${drawnEdges(g).toLocaleString('en-US')} moves between states: the drawing shows up to ${DRAW_MAX_EDGES.toLocaleString('en-US')}; the summary covers them all.`;
    const summary: GraphSummary = {
      level: request.level, analysis, expanded: g.expanded, recorded: request.recorded,
      probabilities, clicks: g.clicks, maxStates, maxSeconds, seconds: (host.now() - t0) / 1000, notDrawn,
    };
    let drawing: GraphDrawing | null = null;
    if (drawable) {
      host.post({ type: 'progress', phase: 'layout', done: 0, total: g.states });
      const shape = graphShape(g);
      drawing = { ...shape, positions: await host.layout(shape) };
    }
    host.post({ type: 'graph', summary, drawing });
  }
}

/** Moves between different states that the drawing would show (RESET edges left out). */
function drawnEdges(g: LevelGraph): number {
  let n = 0;
  for (let e = 0; e < g.offsets[g.expanded]; e++) if (g.action[e] !== 0) n++;
  return n;
}

/** The nodes (states, then WIN) and edges of the drawing, without positions. */
export function graphShape(g: LevelGraph): Omit<GraphDrawing, 'positions'> {
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
  for (let i = 0; i < edges.length; i += 2) if (edges[i + 1] === win) winDepth = Math.min(winDepth, depth[edges[i]] + 1);
  depth.push(Number.isFinite(winDepth) ? winDepth : -1);
  return { states: g.states, kinds, depth, edges };
}
