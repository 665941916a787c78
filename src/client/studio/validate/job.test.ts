import { describe, expect, it } from 'vitest';
import { analyzeGraph, exploreLevel } from '../../../core/game/graph';
import { validateGame } from '../../../core/game/validate';
import { games, solutions } from '../../../games';
import { DRAW_MAX_STATES, runJob } from './job';
import { layoutGraph } from './layout';
import type { ValidateReply, ValidateRequest } from './protocol';

async function run(request: Partial<ValidateRequest>): Promise<ValidateReply[]> {
  const replies: ValidateReply[] = [];
  await runJob(
    {
      type: 'run',
      gameId: 'push',
      level: 0,
      regimes: ['short', 'long', 'fuzz'],
      steps: 5_000,
      seed: 3,
      clicks: 'cells',
      graph: null,
      recorded: solutions.push[0].split(',').length,
      ...request,
    },
    {
      post: (r) => replies.push(structuredClone(r)),
      now: () => performance.now(),
      layout: async (shape) => layoutGraph(shape),
    },
  );
  return replies;
}

describe('the Validate panel job', () => {
  it('runs the regimes of core/game/validate with the same report as the command line, then the graph, laid out', async () => {
    const replies = await run({ graph: { maxStates: 20_000, maxSeconds: 30 } });
    expect(replies.at(-1)).toEqual({ type: 'done' });
    const progress = replies.filter((r) => r.type === 'progress');
    expect(progress[0]).toMatchObject({ phase: 'validate', done: 0, total: 15_000 });
    expect(progress.some((p) => p.phase === 'graph')).toBe(true);
    const validated = replies.find((r) => r.type === 'validated')!;
    expect(validated.type === 'validated' && validated.report).toEqual(
      validateGame(games.push, { level: 0, steps: 5_000, seed: 3 }),
    );

    const graph = replies.find((r) => r.type === 'graph')!;
    if (graph.type !== 'graph') throw new Error('no graph');
    const g = exploreLevel(games.push, 0, { seed: 3 });
    expect(graph.summary.analysis).toEqual(analyzeGraph(g));
    // The recorded length is the request's (the researcher's authenticated read), shown beside the shortest.
    expect(graph.summary.recorded).toBe(solutions.push[0].split(',').length);
    expect(graph.summary.recorded).toBeGreaterThanOrEqual(graph.summary.analysis.shortest!.length);
    expect(graph.summary.probabilities!.length).toBeGreaterThan(0);
    const d = graph.drawing!;
    // One node per state plus WIN; every state at a finite position; the start first.
    expect(d.states).toBe(g.states);
    expect(d.kinds).toHaveLength(g.states + 1);
    expect(d.kinds[0]).toBe('start');
    expect(d.kinds.at(-1)).toBe('win');
    expect(d.kinds.filter((k) => k === 'winning').length).toBe(graph.summary.analysis.winningStates);
    expect(d.positions).toHaveLength(2 * (g.states + 1));
    expect(d.positions.every(Number.isFinite)).toBe(true);
    // The breadth-first layout puts each depth on its own row, the start above the rest.
    const y = (i: number) => d.positions[2 * i + 1];
    for (let i = 1; i < g.states; i++) expect(y(i)).toBeGreaterThan(y(0));
    expect(d.edges.length / 2).toBe(graph.summary.analysis.edges - graph.summary.analysis.gameOverStates);
  });

  it('summarizes a graph too large to draw without drawing it, and says why', async () => {
    const replies = await run({ level: 1, regimes: [], graph: { maxStates: DRAW_MAX_STATES + 500, maxSeconds: 30 } });
    const graph = replies.find((r) => r.type === 'graph')!;
    if (graph.type !== 'graph') throw new Error('no graph');
    expect(graph.drawing).toBeNull();
    expect(graph.summary.analysis.complete).toBe(false);
    expect(graph.summary.probabilities).toBeNull();
    expect(graph.summary.notDrawn).toMatch(/up to 3,000 states/);
    expect(replies.some((r) => r.type === 'validated')).toBe(false);
  });

  it('explores no graph for all levels, and answers an unknown game with an error that says what to do', async () => {
    const all = await run({
      level: null,
      regimes: ['short'],
      steps: 1_000,
      graph: { maxStates: 1_000, maxSeconds: 5 },
    });
    const validated = all.find((r) => r.type === 'validated');
    expect(validated?.type === 'validated' && validated.report.levels.length).toBe(games.push.levels.length);
    expect(all.some((r) => r.type === 'graph')).toBe(false);
    const bad = await run({ gameId: 'nope' });
    expect(bad).toEqual([{ type: 'error', message: expect.stringMatching(/no built-in game "nope".*reload/) }]);
  });
});
