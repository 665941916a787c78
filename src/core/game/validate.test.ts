import { describe, expect, it } from 'vitest';
import { games, solutions } from '../../games';
import { createRun, renderRun, step } from './engine';
import { formatAction, parseActions } from './actions';
import { Rng } from './rng';
import {
  CHUNK_STEPS,
  checkFrame,
  checkRun,
  planValidation,
  randomAction,
  runValidationTask,
  summarizeValidation,
  validateGame,
} from './validate';
import { buggy, button, lock, walk } from './validateFixtures';

describe('planValidation', () => {
  it('cuts each regime into fixed-size tasks with distinct derived seeds, the fuzz shared by the levels', () => {
    const plan = planValidation(lock, { seed: 5, steps: 300_000 });
    expect(plan.steps).toEqual({ short: 50_000, long: 300_000, fuzz: 300_000 });
    const long = plan.tasks.filter((t) => t.regime === 'long');
    // 2 levels x (125,000 + 125,000 + 50,000)
    expect(long.map((t) => [t.level, t.chunk, t.steps])).toEqual([
      [0, 0, CHUNK_STEPS],
      [0, 1, CHUNK_STEPS],
      [0, 2, 50_000],
      [1, 0, CHUNK_STEPS],
      [1, 1, CHUNK_STEPS],
      [1, 2, 50_000],
    ]);
    expect(plan.tasks.filter((t) => t.regime === 'fuzz').map((t) => [t.level, t.steps])).toEqual([
      [0, CHUNK_STEPS],
      [0, 25_000],
      [1, CHUNK_STEPS],
      [1, 25_000],
    ]);
    expect(new Set(plan.tasks.map((t) => t.seed)).size).toBe(plan.tasks.length);
    expect(planValidation(lock, { seed: 5, steps: 300_000 })).toEqual(plan);
    expect(planValidation(lock, { seed: 6, steps: 300_000 }).tasks[0].seed).not.toBe(plan.tasks[0].seed);
  });

  it('refuses a level that does not exist, counting levels from 1', () => {
    expect(() => planValidation(lock, { level: 2 })).toThrow('level 3 does not exist in "lock": it has levels 1-2.');
  });
});

describe('randomAction', () => {
  it('clicks at random cells, or at the declared targets with clicks: targets', () => {
    const rng = new Rng(1);
    const run = createRun(button(true), { level: 0 });
    const cells = Array.from({ length: 200 }, () => randomAction(run, rng, 'cells'));
    expect(new Set(cells.map((c) => `${c.x},${c.y}`)).size).toBeGreaterThan(150);
    expect(Array.from({ length: 20 }, () => randomAction(run, rng, 'targets'))).toEqual(
      Array(20).fill({ action: 'ACTION6', x: 10, y: 10 }),
    );
  });
});

describe('validateGame on fixtures with known answers', () => {
  it('fails a level that chance wins, not the tutorial, and counts its wins', () => {
    const report = validateGame(walk, { steps: 2_000, seed: 3 });
    expect(report.ok).toBe(false);
    const [tutorial, easy, pit] = report.levels;
    expect(tutorial).toMatchObject({ tutorial: true, ok: true });
    expect(tutorial.short!.wins).toBeGreaterThan(100);
    expect(easy.ok).toBe(false);
    // Wins happen within a few steps: the first one at step 2 or soon after.
    expect(easy.short!.firstWin).toBeGreaterThanOrEqual(2);
    expect(easy.short!.firstWin).toBeLessThan(50);
    expect(pit.ok).toBe(false);
    expect(pit.long!.gameOvers).toBeGreaterThan(0);
    expect(report.problemCount).toBe(0);
  });

  it('passes a level that chance cannot win in its budget, and a clean fuzz', () => {
    const report = validateGame(lock, { steps: 200_000, seed: 1 });
    expect(report.levels[1]).toMatchObject({
      ok: true,
      short: { steps: 50_000, wins: 0, firstWin: -1 },
      long: { steps: 200_000, wins: 0 },
    });
    expect(report.levels[0].long!.wins).toBeGreaterThan(10_000);
    expect(report.levels[1].fuzz!.frames).toBeGreaterThan(100_000 / 64);
    expect(report).toMatchObject({ ok: true, problemCount: 0, totalSteps: 2 * 50_000 + 2 * 200_000 + 200_000 });
  });

  it('finds the same wins however the tasks are spread: results depend on the tasks only', () => {
    const plan = planValidation(walk, { steps: 300_000, regimes: ['long'], level: 1 });
    const results = plan.tasks.map((t) => runValidationTask(walk, t));
    const forward = summarizeValidation(walk, plan, results);
    const backward = summarizeValidation(
      walk,
      plan,
      [...plan.tasks].reverse().map((t) => runValidationTask(walk, t)),
    );
    expect(backward).toEqual(forward);
    // The walk wins in 6 actions on average (E0 = 1 + (E0 + E1) / 2, E1 = 1 + E0 / 2), then starts again.
    expect(forward.levels[0].long!.wins / 300_000).toBeGreaterThan(0.155);
    expect(forward.levels[0].long!.wins / 300_000).toBeLessThan(0.178);
  });

  it('the empirical win rate of the 2x2 button matches 4/4096 per click at random cells, 1 at its target', () => {
    const report = validateGame(button(false), { steps: 500_000, regimes: ['long'] });
    const rate = report.levels[0].long!.wins / 500_000;
    expect(rate).toBeGreaterThan((1 / 1024) * 0.85);
    expect(rate).toBeLessThan((1 / 1024) * 1.15);
    expect(
      validateGame(button(true), { steps: 1_000, regimes: ['long'], clicks: 'targets' }).levels[0].long!.wins,
    ).toBe(1_000);
  });

  it('the fuzz reports exceptions, invalid frames, mutated states and a level that starts won', () => {
    const report = validateGame(buggy, { steps: 20_000, seed: 2, regimes: ['fuzz'] });
    expect(report.ok).toBe(false);
    const kinds = new Set(report.problems.map((p) => p.kind));
    expect([...kinds].sort()).toEqual(['exception', 'field', 'frame', 'mutation']);
    const exception = report.problems.find((p) => p.kind === 'exception')!;
    expect(exception).toMatchObject({ level: 0, action: 'ACTION2' });
    expect(exception.message).toContain('Error: count too high to go down');
    expect(report.problems.find((p) => p.kind === 'frame')!.message).toBe(
      'cell (0, 0) has value 20, outside the palette 0-15',
    );
    expect(report.problems.find((p) => p.kind === 'field')).toMatchObject({
      level: 1,
      message: 'the level is being played but its state is won (a level that starts won?)',
    });
    expect(report.levels.map((l) => l.ok)).toEqual([false, false]);
  });

  it('each fuzz problem comes with the actions that meet it again from the level start', () => {
    const report = validateGame(buggy, { steps: 20_000, seed: 2, regimes: ['fuzz'] });
    const found = report.problems.filter((p) => p.reproduce);
    expect(found.length).toBe(report.problems.length);
    for (const p of found) {
      let run = createRun(buggy, { seed: p.reproduce!.seed, level: p.level });
      const inputs = p.reproduce!.actions ? parseActions(p.reproduce!.actions) : [];
      const replay = () => {
        for (const input of inputs) run = step(run, input).run;
      };
      if (p.kind === 'exception') expect(replay).toThrow('count too high to go down');
      else {
        replay();
        if (p.kind === 'frame') expect(checkFrame(renderRun(run))).toBe(p.message);
        if (p.kind === 'field') expect(checkRun(run)).toBe(p.message);
      }
      if (inputs.length) expect(formatAction(inputs.at(-1)!)).toBe(p.action);
    }
  });
});

describe('the policy regimes meet exceptions too', () => {
  it('counts them, keeps the first, starts the level again and fails the level', () => {
    const report = validateGame(buggy, { steps: 5_000, level: 0, regimes: ['long'] });
    const long = report.levels[0].long!;
    expect(long.steps).toBe(5_000);
    expect(long.problemCount).toBeGreaterThan(10);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatchObject({ kind: 'exception', action: 'ACTION2', count: long.problemCount });
    expect(report.levels[0].ok).toBe(false);
  });
});

describe('checkFrame and checkRun', () => {
  it('accepts a 64x64 frame with values 0-15 and names what is wrong otherwise', () => {
    const frame = new Uint8Array(4096).fill(15);
    expect(checkFrame(frame)).toBeNull();
    expect(checkFrame(new Uint8Array(4095))).toBe('frame has 4095 cells, not 64x64 = 4096');
    frame[64 * 3 + 2] = 16;
    expect(checkFrame(frame)).toBe('cell (2, 3) has value 16, outside the palette 0-15');
  });

  it('accepts runs of the built-in games and refuses a level index out of range', () => {
    const run = createRun(games.push, { level: 2 });
    expect(checkRun(run)).toBeNull();
    expect(checkRun({ ...run, level: 9 })).toBe('level index 9 is outside 0-5');
    expect(checkRun({ ...run, levelsCompleted: 7 })).toBe('levels_completed 7 is outside 0-6');
    expect(checkRun({ ...run, state: 'WIN' })).toBe('state WIN with levels_completed 2 of 6');
  });
});

describe('the built-in games, with reduced budgets', () => {
  it.each(Object.keys(games))(
    '%s: the fuzz finds nothing and chance wins no level after the tutorial in 5,000 steps',
    (id) => {
      const game = games[id];
      const report = validateGame(game, { steps: 5_000, seed: 7 });
      expect(report.problems).toEqual([]);
      expect(report.levels.filter((l) => !l.ok).map((l) => l.level)).toEqual([]);
      expect(report.levels).toHaveLength(solutions[id].length);
    },
  );
});
