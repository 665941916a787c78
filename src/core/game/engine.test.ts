import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../log/events';
import {
  ActionParseError,
  GameRuleError,
  actionCounts,
  advance,
  availableActions,
  countActions,
  createRun,
  defineGame,
  formatActions,
  gameActionData,
  hashFrame,
  hashState,
  parseAction,
  parseActions,
  replayGameEvents,
  scorecard,
  step,
  type ActionInput,
  type ActionId,
  type Run,
  PALETTE,
  fillRect,
  solveLevel,
  randomPolicy,
} from './index';

/**
 * A corridor: the agent starts at 0 and wins at `length`. ACTION4 steps right, ACTION3 left
 * (only offered away from the wall), ACTION1 steps into a pit (GAME_OVER), ACTION5 rolls a die
 * from the seeded PRNG and records it.
 */
interface Corridor {
  readonly pos: number;
  readonly length: number;
  readonly fell: boolean;
  readonly rolls: readonly number[];
}
const corridor = (undo = true) =>
  defineGame<Corridor, { length: number }>({
    id: 'corr',
    title: 'Corridor',
    levels: [{ length: 2 }, { length: 3 }, { length: 2 }],
    actions: [1, 3, 4, 5],
    undo,
    init: (l) => ({ pos: 0, length: l.length, fell: false, rolls: [] }),
    step(s, input, ctx) {
      switch (input.action) {
        case 'ACTION4':
          ctx.animate({ ...s, pos: s.pos + 0.5 });
          return { ...s, pos: s.pos + 1 };
        case 'ACTION3':
          return { ...s, pos: s.pos - 1 };
        case 'ACTION1':
          return { ...s, fell: true };
        case 'ACTION5':
          return { ...s, rolls: [...s.rolls, Math.floor(ctx.random() * 6)] };
        default:
          return s;
      }
    },
    outcome: (s) => (s.fell ? 'lost' : s.pos >= s.length ? 'won' : 'playing'),
    availableActions: (s): readonly ActionId[] => (s.pos > 0 ? [1, 3, 4, 5] : [1, 4, 5]),
    render(s, frame, info) {
      fillRect(frame, Math.floor(s.pos * 8), info.level * 8, 4, 4, 9);
    },
  });

const A = (s: string): ActionInput => parseAction(s);
function play<S>(run: Run<S>, actions: string): Run<S> {
  for (const a of parseActions(actions)) run = advance(run, a);
  return run;
}

describe('actions', () => {
  it('parses and formats action strings', () => {
    expect(parseActions('RESET, ACTION1,ACTION6:12:30,ACTION7')).toEqual([
      { action: 'RESET' },
      { action: 'ACTION1' },
      { action: 'ACTION6', x: 12, y: 30 },
      { action: 'ACTION7' },
    ]);
    expect(formatActions(parseActions('RESET,ACTION6:0:63'))).toBe('RESET,ACTION6:0:63');
  });
  it('refuses bad action strings with a message naming the problem', () => {
    expect(() => parseAction('ACTION9')).toThrow(/"ACTION9" is not an action; accepted/);
    expect(() => parseAction('JUMP')).toThrow(ActionParseError);
    expect(() => parseAction('ACTION6:99:1')).toThrow(/column x "99" must be a whole number from 0 to 63/);
    expect(() => parseAction('ACTION6:1')).toThrow(/needs a column and a row/);
    expect(() => parseAction('ACTION1:2:3')).toThrow(/only ACTION6 takes coordinates/);
    expect(() => parseActions('RESET,ACTION6:-1:2')).toThrow(/action 2:/);
  });
});

describe('RESET', () => {
  it('starts NOT_PLAYED and refuses anything but RESET first', () => {
    const run = createRun(corridor());
    expect(run.state).toBe('NOT_PLAYED');
    expect(() => advance(run, A('ACTION4'))).toThrow(
      expect.objectContaining({ name: 'GameRuleError', code: 'NOT_STARTED' }),
    );
    const { response } = step(run, A('RESET'));
    expect(response).toMatchObject({
      state: 'NOT_FINISHED',
      levels_completed: 0,
      win_levels: 3,
      full_reset: true,
      available_actions: [1, 4, 5, 7],
    });
  });

  it('resets the level when an action was taken in it, and the whole game on a second RESET', () => {
    let run = play(createRun(corridor()), 'RESET,ACTION4,ACTION4,ACTION4'); // level 1 won, one step into level 2
    expect(run.levelsCompleted).toBe(1);
    expect(run.current.pos).toBe(1);
    const level = step(run, A('RESET'));
    expect(level.response.full_reset).toBe(false);
    expect(level.response.levels_completed).toBe(1);
    expect(level.run.current.pos).toBe(0);
    const full = step(level.run, A('RESET'));
    expect(full.response.full_reset).toBe(true);
    expect(full.response.levels_completed).toBe(0);
    expect(full.run.runs).toBe(2);
    run = full.run;
    expect(hashState(run)).toBe(hashState(advance(createRun(corridor()), A('RESET'))));
  });

  it('is a full reset at the start of a level reached by winning the previous one', () => {
    const run = play(createRun(corridor()), 'RESET,ACTION4,ACTION4');
    expect(run.levelsCompleted).toBe(1);
    const r = step(run, A('RESET'));
    expect(r.response.full_reset).toBe(true);
    expect(r.response.levels_completed).toBe(0);
  });
});

describe('WIN and GAME_OVER', () => {
  it('refuses actions after GAME_OVER with GAME_ENDED until a RESET restarts the level', () => {
    const run = play(createRun(corridor()), 'RESET,ACTION4,ACTION4,ACTION4,ACTION1');
    expect(run.state).toBe('GAME_OVER');
    expect(availableActions(run)).toEqual([]);
    let err: unknown;
    try {
      advance(run, A('ACTION4'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GameRuleError);
    expect(err).toMatchObject({ code: 'GAME_ENDED', message: expect.stringMatching(/send RESET/) });
    const again = advance(run, A('RESET'));
    expect(again).toMatchObject({ state: 'NOT_FINISHED', levelsCompleted: 1, fullReset: false });
    expect(again.current.pos).toBe(0);
  });

  it('wins after the last level, refuses further actions, and a RESET then starts a new run', () => {
    const run = play(createRun(corridor()), 'RESET,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4');
    expect(run.state).toBe('WIN');
    expect(run.levelsCompleted).toBe(3);
    expect(() => advance(run, A('ACTION7'))).toThrow(expect.objectContaining({ code: 'GAME_ENDED' }));
    const fresh = advance(run, A('RESET'));
    expect(fresh).toMatchObject({ state: 'NOT_FINISHED', levelsCompleted: 0, fullReset: true, actions: 0 });
  });

  it('refuses actions the game does not offer now, and malformed clicks', () => {
    const run = play(createRun(corridor()), 'RESET');
    expect(() => advance(run, A('ACTION3'))).toThrow(expect.objectContaining({ code: 'ACTION_NOT_AVAILABLE' }));
    expect(() => advance(run, A('ACTION6:1:1'))).toThrow(expect.objectContaining({ code: 'ACTION_NOT_AVAILABLE' }));
    const moved = advance(run, A('ACTION4'));
    expect(availableActions(moved)).toEqual([1, 3, 4, 5, 7]);
    expect(advance(moved, A('ACTION3')).current.pos).toBe(0);
  });
});

describe('undo', () => {
  it('restores snapshots within the level, PRNG included, and counts one', () => {
    let run = play(createRun(corridor(), { seed: 7 }), 'RESET,ACTION5,ACTION5');
    const rolled = run.current.rolls;
    run = play(run, 'ACTION7');
    expect(run.current.rolls).toEqual(rolled.slice(0, 1));
    run = play(run, 'ACTION5');
    expect(run.current.rolls).toEqual(rolled); // the same die roll again: the PRNG was restored
    run = play(run, 'ACTION7,ACTION7,ACTION7'); // the last undo has nothing left and changes nothing
    expect(run.current.rolls).toEqual([]);
    expect(run.actions).toBe(7);
  });

  it('does not reach back into a completed level', () => {
    const run = play(createRun(corridor()), 'RESET,ACTION4,ACTION4,ACTION7');
    expect(run.levelsCompleted).toBe(1);
    expect(run.current.pos).toBe(0);
  });

  it('is not offered when a game opts out', () => {
    const run = play(createRun(corridor(false)), 'RESET,ACTION4');
    expect(availableActions(run)).toEqual([1, 3, 4, 5]);
    expect(() => advance(run, A('ACTION7'))).toThrow(expect.objectContaining({ code: 'ACTION_NOT_AVAILABLE' }));
    expect(run.history).toBeNull();
  });
});

describe('accounting', () => {
  const actions =
    'RESET,ACTION4,ACTION3,ACTION4,ACTION4,' + // level 1 in 4
    'ACTION4,RESET,ACTION5,ACTION7,ACTION4,ACTION4,ACTION4,' + // level 2: 1 + level RESET + 5 = 7
    'ACTION1,RESET,ACTION4'; // level 3: GAME_OVER, level RESET, 1 step so far = 3
  it('counts every ACTION1-7 and level RESET, split where levels_completed changes', () => {
    const run = play(createRun(corridor()), actions);
    expect(actionCounts(run)).toEqual([4, 7, 3]);
    expect(scorecard(run)).toMatchObject({ actions: 14, level_actions: [4, 7, 3], levels_completed: 2, runs: 1 });
  });
  it('starts a new uncounted run on a full reset', () => {
    const run = play(createRun(corridor()), actions + ',RESET,RESET,ACTION4');
    expect(scorecard(run)).toMatchObject({ actions: 1, level_actions: [1], runs: 2 });
  });
  it('gives the same counts from the logged actions alone', () => {
    for (const list of [
      actions,
      actions + ',RESET,RESET,ACTION4',
      'RESET,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4,ACTION4,RESET,ACTION4',
    ]) {
      let run = createRun(corridor());
      const entries = parseActions(list).map((a) => {
        const r = step(run, a);
        run = r.run;
        return gameActionData('corr', a, r.response);
      });
      expect(countActions(entries)).toEqual({ runs: run.runs, actions: run.actions, level_actions: actionCounts(run) });
    }
  });
});

describe('determinism, hashes, frames and replay', () => {
  it('replays identically from a seed and differs across seeds', () => {
    const list = 'RESET,ACTION5,ACTION5,ACTION5,ACTION4';
    expect(hashState(play(createRun(corridor(), { seed: 3 }), list))).toBe(
      hashState(play(createRun(corridor(), { seed: 3 }), list)),
    );
    expect(play(createRun(corridor(), { seed: 3 }), list).current.rolls).not.toEqual(
      play(createRun(corridor(), { seed: 4 }), list).current.rolls,
    );
  });
  it('hashState identifies positions, not paths', () => {
    const a = play(createRun(corridor()), 'RESET,ACTION4,ACTION3');
    const b = play(createRun(corridor()), 'RESET');
    expect(hashState(a)).toBe(hashState(b));
    expect(hashState(play(createRun(corridor()), 'RESET,ACTION4'))).not.toBe(hashState(b));
    expect(hashState(b)).toMatch(/^[0-9a-f]{8}$/);
  });
  it('returns animation frames then the settled frame, and the winning state before the next level', () => {
    const run = play(createRun(corridor()), 'RESET,ACTION4');
    const r = step(run, A('ACTION4'));
    expect(r.response.frame).toHaveLength(3); // the half step, the winning state, level 2's start
    for (const f of r.response.frame) expect(f).toBeInstanceOf(Uint8Array);
    expect(r.response.frame[2][8 * 64]).toBe(9);
    expect(hashFrame(new Uint8Array(4096))).toMatch(/^[0-9a-f]{8}$/);
    expect(PALETTE).toHaveLength(16);
    expect(PALETTE[9]).toBe('#1E93FF');
  });
  it('rebuilds every frame from the log and flags a tampered one', () => {
    const game = corridor();
    let run = createRun(game, { seed: 5 });
    const events: LogEvent[] = [{ seq: 0, t: 0, kind: 'game.open', data: { game: 'corr', seed: 5 } }];
    for (const a of parseActions('RESET,ACTION4,ACTION5,ACTION4,ACTION4')) {
      const r = step(run, a);
      run = r.run;
      events.push({
        seq: events.length,
        t: events.length * 100,
        kind: 'game.action',
        data: { ...gameActionData('corr', a, r.response) },
      });
    }
    const replay = replayGameEvents(game, events);
    expect(replay.problems).toEqual([]);
    expect(replay.steps).toHaveLength(5);
    expect(hashState(replay.run!)).toBe(hashState(run));
    const tampered = events.map((e) => (e.seq === 3 ? { ...e, data: { ...e.data, level: 2 } } : e));
    expect(replayGameEvents(game, tampered).problems).toEqual([{ seq: 3, message: 'logged level 2, replay gives 0' }]);
  });
  it('finds the fewest actions and reports chance wins', () => {
    expect(formatActions(solveLevel(corridor(), 1)!)).toBe('ACTION4,ACTION4,ACTION4');
    expect(randomPolicy(corridor(), 0, 1000, 1).wonAt).toBeGreaterThan(0);
  });
});

describe('log payloads', () => {
  it('validates game.action payloads and reports malformed ones in a replay', async () => {
    const { GameActionSchema, GameOpenSchema } = await import('./index');
    expect(GameOpenSchema.safeParse({ game: 'corr', seed: 3 }).success).toBe(true);
    const ok = {
      game: 'corr',
      action: 'ACTION6',
      x: 12,
      y: 30,
      level: 0,
      state: 'NOT_FINISHED',
      frameHash: '0123abcd',
    };
    expect(GameActionSchema.safeParse(ok).success).toBe(true);
    expect(GameActionSchema.safeParse({ ...ok, x: undefined }).success).toBe(false);
    expect(GameActionSchema.safeParse({ ...ok, action: 'ACTION1' }).success).toBe(false);
    expect(GameActionSchema.safeParse({ ...ok, x: 64 }).success).toBe(false);
    const events: LogEvent[] = [
      { seq: 0, t: 0, kind: 'game.open', data: { game: 'corr', seed: 0 } },
      {
        seq: 1,
        t: 5,
        kind: 'game.action',
        data: { game: 'corr', action: 'JUMP', level: 0, state: 'NOT_FINISHED', frameHash: '00000000' },
      },
    ];
    expect(replayGameEvents(corridor(), events).problems).toEqual([
      { seq: 1, message: expect.stringMatching(/^malformed game.action: action/) },
    ]);
  });
  it('takes the seed alone as createRun options', () => {
    expect(createRun(corridor(), 9).seed).toBe(9);
  });
});
