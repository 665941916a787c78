import { describe, expect, it } from 'vitest';
import {
  actionCounts, advance, createRun, parseActions, randomPolicy, renderRun, solveLevel, step, type ActionInput,
} from '../core/game';
import { games, solutions } from './index';

const RANDOM_STEPS = 50_000;

for (const [id, game] of Object.entries(games)) {
  describe(`game ${id}`, () => {
    const sols = solutions[id];

    it('has a 4-character id, at least 6 levels and a recorded solution for each', () => {
      expect(game.id).toBe(id);
      expect(id).toMatch(/^[a-z]{4}$/);
      expect(game.levels.length).toBeGreaterThanOrEqual(6);
      expect(sols).toHaveLength(game.levels.length);
    });

    it('golden replay: every recorded solution wins its level, and all of them win the game', () => {
      game.levels.forEach((_, level) => {
        let run = createRun(game, { level });
        const inputs = parseActions(sols[level]);
        inputs.forEach((input, i) => {
          run = advance(run, input);
          if (i < inputs.length - 1) expect(run.levelsCompleted, `level ${level + 1} won early`).toBe(level);
        });
        expect(run.levelsCompleted, `level ${level + 1}`).toBe(level + 1);
      });
      let run = createRun(game);
      let frames = 0;
      for (const input of parseActions(['RESET', ...sols].join(','))) {
        const r = step(run, input as ActionInput);
        run = r.run;
        frames += r.response.frame.length;
        for (const f of r.response.frame) expect(f.every((v) => v < 16)).toBe(true);
      }
      expect(run.state).toBe('WIN');
      expect(actionCounts(run)).toEqual(sols.map((s) => s.split(',').length));
      expect(frames).toBeGreaterThan(run.actions);
    });

    it('recorded solutions are minimal: breadth-first search finds none shorter (the READMEs quote these counts)', () => {
      game.levels.forEach((_, level) => {
        expect(solveLevel(game, level)?.length, `level ${level + 1}`).toBe(sols[level].split(',').length);
      });
    });

    it('draws every level start in range and differently', () => {
      const hashes = new Set(game.levels.map((_, level) => renderRun(createRun(game, { level })).join('')));
      expect(hashes.size).toBe(game.levels.length);
    });

    it(`random policy: ${RANDOM_STEPS} seeded random steps win no level after the tutorial`, () => {
      for (let level = 1; level < game.levels.length; level++) {
        const r = randomPolicy(game, level, RANDOM_STEPS, 1234 + level);
        expect(r.wonAt, `level ${level + 1} won by chance at step ${r.wonAt}`).toBe(-1);
      }
      // The same policy does win the tutorial, so it is a real test of chance.
      expect(randomPolicy(game, 0, RANDOM_STEPS, 1234).wonAt).toBeGreaterThan(0);
    });
  });
}
