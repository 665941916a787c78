import { describe, expect, it } from 'vitest';
import { games, solutions } from '../../games';
import { isCounted, isFullReset, levelCounts, splitRuns, type AccountedStep } from './accounting';
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
    else if (r < 0.5)
      input = sol[Math.min(sol.length - 1, run.actions)] ?? { action: 'RESET' }; // walk towards wins
    else {
      const offered = availableActions(run);
      const a = offered[rng.int(offered.length)];
      input =
        a === 6
          ? { action: 'ACTION6', x: rng.int(64), y: rng.int(64) }
          : { action: `ACTION${a}` as ActionInput['action'] };
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

  it('counts nothing for an action after GAME_OVER or WIN, as the official scorecard (worked by hand)', () => {
    expect(isCounted('ACTION1', 'GAME_OVER')).toBe(false);
    expect(isCounted('ACTION6', 'WIN')).toBe(false);
    expect(isCounted('RESET', 'GAME_OVER')).toBe(true);
    expect(isCounted('ACTION1', 'NOT_FINISHED')).toBe(true);
    // A recording's frames say it: an empty one is not counted, frames are.
    expect(isCounted('ACTION1', 'NOT_FINISHED', true)).toBe(false);
    expect(isCounted('ACTION1', 'GAME_OVER', false)).toBe(true);
    const s = (
      action: AccountedStep['action'],
      levelsCompleted: number,
      state: AccountedStep['state'],
    ): AccountedStep => ({ action, levelsCompleted, state });
    const [first, second, third] = splitRuns([
      s('RESET', 0, 'NOT_FINISHED'),
      s('ACTION1', 1, 'NOT_FINISHED'),
      s('ACTION1', 1, 'NOT_FINISHED'),
      s('ACTION2', 1, 'GAME_OVER'),
      // Three after GAME_OVER: nothing; the RESET resets level 2 (2 actions in it) and counts there.
      s('ACTION1', 1, 'GAME_OVER'),
      s('ACTION1', 1, 'GAME_OVER'),
      s('ACTION3', 1, 'GAME_OVER'),
      s('RESET', 1, 'NOT_FINISHED'),
      s('ACTION4', 2, 'WIN'),
      s('ACTION1', 2, 'WIN'),
      s('ACTION1', 2, 'WIN'),
      // After WIN a RESET starts a new run.
      s('RESET', 0, 'NOT_FINISHED'),
      s('ACTION1', 0, 'NOT_FINISHED'),
      s('RESET', 0, 'NOT_FINISHED'),
      s('RESET', 0, 'NOT_FINISHED'),
    ]);
    expect(first).toMatchObject({
      actions: 5,
      levelActions: [1, 4],
      levelsCompleted: 2,
      state: 'WIN',
      uncounted: [4, 5, 6, 9, 10],
    });
    // The level RESET right after (one action in level 1) counts; the next RESET starts a third run.
    expect(second).toMatchObject({ actions: 2, levelActions: [2], uncounted: [] });
    expect(third).toMatchObject({ actions: 0, levelActions: [0] });
  });

  for (const id of Object.keys(games)) {
    it(`${id}: splitRuns and countActions give the engine's counts on seeded random play with RESETs`, () => {
      let levels = 0,
        runs = 0;
      for (let seed = 1; seed <= 5; seed++) {
        const { run, ended, logged, steps } = play(id, randomInputs(id, seed, 400));
        const split = splitRuns(steps);
        expect(
          split.map((r) => r.levelActions),
          `seed ${seed}`,
        ).toEqual(ended.map(actionCounts));
        expect(split.map((r) => r.actions)).toEqual(ended.map((r) => r.actions));
        expect(split.map((r) => r.levelsCompleted)).toEqual(ended.map((r) => r.levelsCompleted));
        // What decides whether a RESET now would be a full reset (the player's confirmation).
        const last = split[split.length - 1];
        expect(isFullReset(last.state, last.sinceLevelStart), `seed ${seed}`).toBe(
          isFullReset(run.state, run.levelActions),
        );
        expect(countActions(logged)).toEqual({
          runs: run.runs,
          actions: run.actions,
          level_actions: actionCounts(run),
        });
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
