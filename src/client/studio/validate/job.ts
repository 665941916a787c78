/**
 * What the Validate panel's worker does, as a plain function so that it runs (and is tested) in
 * Node too: the random-policy regimes of core/game/validate.ts on one level or all, then the
 * level's state graph of core/game/graph.ts, laid out by the graph library for drawing when it
 * is small enough.
 */
import { exploreLevel } from '../../../core/game/graph';
import { summarizeGraph, type GraphDrawing } from '../../../core/game/graphView';
import { planValidation, runValidationTask, summarizeValidation, type TaskResult } from '../../../core/game/validate';
import { games } from '../../../games';
import type { ValidateReply, ValidateRequest } from './protocol';

export { DRAW_MAX_EDGES, DRAW_MAX_STATES, PANEL_KS, PROBABILITY_WORK } from '../../../core/game/graphView';

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
  if (!game)
    throw new Error(
      `there is no built-in game "${request.gameId}" in this build: reload the page to get the current one.`,
    );
  let lastProgress = -Infinity;
  const progress = (phase: 'validate' | 'graph', done: number, total: number, force = false) => {
    const t = host.now();
    if (!force && t - lastProgress < PROGRESS_MS) return;
    lastProgress = t;
    host.post({ type: 'progress', phase, done, total });
  };

  if (request.regimes.length) {
    const plan = planValidation(game, {
      seed: request.seed,
      steps: request.steps,
      clicks: request.clicks,
      regimes: request.regimes,
      level: request.level ?? undefined,
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
    host.post({
      type: 'validated',
      report: summarizeValidation(game, plan, results),
      seconds: (host.now() - t0) / 1000,
    });
  }

  if (request.graph && request.level !== null) {
    const { maxStates, maxSeconds } = request.graph;
    const t0 = host.now();
    progress('graph', 0, maxStates, true);
    const g = exploreLevel(game, request.level, {
      maxStates,
      clicks: request.clicks,
      seed: request.seed,
      onProgress: (n) => progress('graph', n, maxStates),
      shouldStop: () => host.now() - t0 > maxSeconds * 1000,
    });
    const { summary, shape } = summarizeGraph(g, {
      recorded: request.recorded,
      maxStates,
      maxSeconds,
      seconds: (host.now() - t0) / 1000,
    });
    let drawing: GraphDrawing | null = null;
    if (shape) {
      host.post({ type: 'progress', phase: 'layout', done: 0, total: g.states });
      drawing = { ...shape, positions: await host.layout(shape) };
    }
    host.post({ type: 'graph', summary, drawing });
  }
}

export { graphShape } from '../../../core/game/graphView';
