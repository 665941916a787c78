import { describe, expect, it } from 'vitest';
import { games, solutions } from '../../games';
import { isFullReset, levelCounts, splitRuns, type AccountedStep } from './accounting';
import { countActions, gameActionData } from './replay';
import { actionCounts, availableActions, createRun, step, type Run } from './engine';
import { Rng } from './rng';
import { parseActions } from './actions';
import type { ActionInput } from './types';

/** Plays `inputs`, returning the engine's run before each full reset and at the end, and the logged steps. */
function play(id: string, inputs: readonly ActionInput[]) {
  let run: Run<unknown> = createRun(games[id]);
  const ended: Run<unknown>[] = [];
  const logged: ReturnType<typeof gameActionData>[] = [];
  for (const input of inputs) {
    const prev = run;
    const r = step(run, input);
    run = r.run;
    if (run.fullReset && prev.runs > 0) ended.push(prev);
    logged.push(gameActionData(id, input, r.response));
  }
  ended.push(run);
  const steps: AccountedStep[] = logged.map((d) => ({ action: d.action, levelsCompleted: d.level, state: d.state }));
  return { run, ended, logged, steps };
}

/** Random play with RESETs thrown in (a level RESET or, right after one, a full reset), from a seed. */
function randomInputs(id: string, seed: number, n: number): ActionInput[] {
  const rng = new Rng(seed);
  const sol = parseActions(solutions[id].join(','));
  let run: Run<unknown> = createRun(games[id]);
  const inputs: ActionInput[] = [{ action: 'RESET' }];
  run = step(run, inputs[0]).run;
  for (let i = 0; i < n; i++) {
    let input: ActionInput;
    const r = rng.next();
    if (run.state !== 'NOT_FINISHED' || r < 0.05) input = { action: 'RESET' };
    else if (r < 0.5) input = sol[Math.min(sol.length - 1, run.actions)] ?? { action: 'RESET' }; // walk towards wins
    else {
      const offered = availableActions(run);
      const a = offered[rng.int(offered.length)];
      input = a === 6 ? { action: 'ACTION6', x: rng.int(64), y: rng.int(64) } : { action: `ACTION${a}` as ActionInput['action'] };
    }
    try {
      run = step(run, input).run;
      inputs.push(input);
    } catch {
      // a solution step the current state does not offer: skip it
    }
  }
  return inputs;
}

describe('one accounting for the engine and for logs', () => {
  it('states the RESET rule and the per-level split once', () => {
    expect(isFullReset('NOT_PLAYED', 3)).toBe(true);
    expect(isFullReset('WIN', 3)).toBe(true);
    expect(isFullReset('NOT_FINISHED', 0)).toBe(true);
    expect(isFullReset('NOT_FINISHED', 1)).toBe(false);
    expect(isFullReset('GAME_OVER', 2)).toBe(false);
    expect(levelCounts([0, 4, 11], 14)).toEqual([4, 7, 3]);
  });

  for (const id of Object.keys(games)) {
    it(`${id}: splitRuns and countActions give the engine's counts on seeded random play with RESETs`, () => {
      let levels = 0, runs = 0;
      for (let seed = 1; seed <= 5; seed++) {
        const { run, ended, logged, steps } = play(id, randomInputs(id, seed, 400));
        const split = splitRuns(steps);
        expect(split.map((r) => r.levelActions), `seed ${seed}`).toEqual(ended.map(actionCounts));
        expect(split.map((r) => r.actions)).toEqual(ended.map((r) => r.actions));
        expect(split.map((r) => r.levelsCompleted)).toEqual(ended.map((r) => r.levelsCompleted));
        // What decides whether a RESET now would be a full reset (the player's confirmation).
        const last = split[split.length - 1];
        expect(isFullReset(last.state, last.sinceLevelStart), `seed ${seed}`).toBe(isFullReset(run.state, run.levelActions));
        expect(countActions(logged)).toEqual({ runs: run.runs, actions: run.actions, level_actions: actionCounts(run) });
        levels += Math.max(...split.map((r) => r.levelsCompleted));
        runs += split.length;
      }
      // The play is varied enough to test something: levels were completed, full resets made.
      expect(levels).toBeGreaterThan(0);
      expect(runs).toBeGreaterThan(5);
    });
  }

  it('counts a won game as the engine does: one entry per level, none for "the level after the last"', () => {
    const id = 'push';
    const { run, logged } = play(id, parseActions(['RESET', ...solutions[id]].join(',')));
    expect(run.state).toBe('WIN');
    expect(countActions(logged).level_actions).toEqual(actionCounts(run));
    expect(actionCounts(run)).toHaveLength(games[id].levels.length);
  });
});
