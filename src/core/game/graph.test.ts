import { describe, expect, it } from 'vitest';
import { games, solutions } from '../../games';
import { analyzeGraph, exploreLevel, winProbabilities, WIN_NODE } from './graph';
import { solveLevel } from './explore';
import { parseActions } from './actions';
import { advance, createRun } from './engine';
import { button, lock, walk } from './validateFixtures';

/** F(k+2) / 2^k: the walk's chance of not having won after k actions (see validateFixtures.ts). */
function walkSurvival(k: number): number {
  let a = 1,
    b = 1;
  for (let i = 0; i < k; i++) [a, b] = [b, a + b];
  return b / 2 ** k;
}

describe('exploreLevel and analyzeGraph', () => {
  it('the walk: two states, the win, a cycle, and the exact chances worked out by hand', () => {
    const g = exploreLevel(walk, 1);
    expect(g).toMatchObject({ states: 2, expanded: 2, complete: true, clicks: 'none' });
    expect(Array.from(g.to)).toEqual([1, 0, WIN_NODE]);
    expect(Array.from(g.selfLoop)).toEqual([0.5, 0]);
    const a = analyzeGraph(g);
    expect(a).toMatchObject({
      states: 2,
      edges: 3,
      depth: 1,
      merges: 0,
      cycles: { components: 1, states: 2 },
      deadEnds: 0,
      stuck: 0,
      gameOverStates: 0,
      winningMoves: 1,
      winningStates: 1,
      shortest: { length: 2, actions: 'ACTION4,ACTION4' },
    });
    const ps = winProbabilities(g, [2, 3, 4, 10, 50]);
    expect(ps.map((p) => p.k)).toEqual([2, 3, 4, 10, 50]);
    expect(ps[0].p).toBe(1 / 4);
    expect(ps[1].p).toBe(3 / 8);
    expect(ps[2].p).toBe(1 / 2);
    expect(ps[3].p).toBe(1 - 144 / 1024);
    expect(ps[4].p).toBeCloseTo(1 - walkSurvival(50), 14);
  });

  it('the walk with a pit: GAME_OVER is answered by a RESET that costs one action', () => {
    const g = exploreLevel(walk, 2);
    const a = analyzeGraph(g);
    expect(a).toMatchObject({ states: 3, gameOverStates: 1, deadEnds: 0, cycles: { components: 1, states: 2 } });
    // Within 4: RR (1/4), then L RESET R R (1/8) and R L R R (1/16).
    expect(winProbabilities(g, [2, 3, 4]).map((p) => p.p)).toEqual([1 / 4, 1 / 4, 1 / 4 + 1 / 8 + 1 / 16]);
  });

  it('the button: clicks at every cell give 1 - (1023/1024)^k, at its declared target 1', () => {
    for (const targets of [true, false]) {
      const g = exploreLevel(button(targets), 0);
      expect(g.clicks).toBe('cells');
      expect(analyzeGraph(g).shortest).toEqual({ length: 1, actions: 'ACTION6:10:10' });
      for (const { k, p } of winProbabilities(g, [1, 10, 1000])) expect(p).toBeCloseTo(1 - (1023 / 1024) ** k, 12);
    }
    const g = exploreLevel(button(true), 0, { clicks: 'targets' });
    expect(g.clicks).toBe('targets');
    expect(winProbabilities(g, [1]).map((p) => p.p)).toEqual([1]);
  });

  it('the lock: 17 states in a line, each wrong press back to the start; chance is about 4^-16 per try', () => {
    const g = exploreLevel(lock, 1);
    const a = analyzeGraph(g);
    expect(a).toMatchObject({ states: 16, depth: 15, deadEnds: 0, shortest: { length: 16 } });
    expect(a.shortest!.actions).toBe(
      'ACTION1,ACTION2,ACTION3,ACTION4,ACTION4,ACTION3,ACTION2,ACTION1,ACTION1,ACTION3,ACTION2,ACTION4,ACTION4,ACTION2,ACTION3,ACTION1',
    );
    const [p16, p1000] = winProbabilities(g, [16, 1000]);
    // Undo is left out, so the policy presses one of 4 keys: exactly 4^-16 within 16 actions.
    expect(p16.p).toBeCloseTo(4 ** -16, 25);
    expect(p1000.p).toBeGreaterThan(p16.p);
    expect(p1000.p).toBeLessThan(1000 * 4 ** -16);
  });

  it('stops at the budget, says so, and refuses exact chances of a partial graph', () => {
    const g = exploreLevel(games.push, 5, { maxStates: 500 });
    expect(g.complete).toBe(false);
    expect(g.states).toBeGreaterThanOrEqual(500);
    expect(() => winProbabilities(g, [10])).toThrow('was not fully explored');
    let asked = 0;
    const stopped = exploreLevel(games.push, 5, { shouldStop: () => ++asked >= 2 });
    expect(stopped.complete).toBe(false);
    expect(stopped.expanded).toBe(2048);
  });

  it('stops computing chances when the next K would cost too much', () => {
    const g = exploreLevel(walk, 1);
    expect(winProbabilities(g, [10, 100, 1_000_000], 10_000).map((p) => p.k)).toEqual([10, 100]);
  });
});

describe('the built-in games', () => {
  it.each([
    ['push', 0],
    ['glow', 0],
    ['flux', 0],
    ['flux', 1],
  ] as const)('%s level %i: the shortest solution has the recorded length', (id, level) => {
    const g = exploreLevel(games[id], level, { maxStates: 200_000 });
    expect(g.complete).toBe(true);
    const a = analyzeGraph(g);
    expect(a.shortest!.length).toBe(solutions[id][level].split(',').length);
    expect(a.shortest!.length).toBe(solveLevel(games[id], level)!.length);
    // The path found replays to a win.
    let run = createRun(games[id], { level });
    for (const input of parseActions(a.shortest!.actions)) run = advance(run, input);
    expect(run.levelsCompleted).toBe(level + 1);
    const [p] = winProbabilities(g, [a.shortest!.length - 1]);
    expect(p.p).toBe(0);
  });
});
