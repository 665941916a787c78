/**
 * Small games with answers worked out by hand, for the tests of validate.ts and graph.ts.
 * None of them is registered as a game of the studio.
 */
import { defineGame, type GameDefinition } from './define';

/**
 * A walk on cells 0..length: ACTION3 steps left, ACTION4 right; reaching `length` wins. With
 * `pit`, a step left from cell 0 falls in and the level is lost (GAME_OVER); without it, the
 * step does nothing. No undo.
 *
 * For `length` 2 without a pit, a policy choosing left or right with probability 1/2 each has not
 * won after k actions with probability F(k+2) / 2^k (F the Fibonacci numbers, F(1) = F(2) = 1):
 * being at 0 or 1 follows a' = a/2 + b/2, b' = a/2, and the walk wins with b/2 each action.
 * So P(win within 2) = 1/4, within 3 = 3/8, within 4 = 1/2, within 10 = 1 - 144/1024.
 */
export const walk = defineGame<{ at: number; fell: boolean; pit: boolean }, { length: number; pit: boolean }>({
  id: 'walk',
  title: 'Walk',
  levels: [
    { length: 2, pit: false },
    { length: 2, pit: false },
    { length: 2, pit: true },
  ],
  actions: [3, 4],
  undo: false,
  init: (level) => ({ at: 0, fell: false, pit: level.pit }),
  step(s, input) {
    if (input.action === 'ACTION4') return { ...s, at: s.at + 1 };
    if (s.at > 0) return { ...s, at: s.at - 1 };
    return s.pit ? { ...s, fell: true } : s;
  },
  outcome: (s) => (s.fell ? 'lost' : s.at >= 2 ? 'won' : 'playing'),
  render(s, frame) {
    frame[s.at] = 9;
  },
});

/**
 * A combination lock: the level is won by pressing ACTION1-4 in the order of its code (16
 * presses); any wrong press starts the code again. A random policy over the four keys and undo
 * needs about 4^16 (4 billion) presses on average: chance does not win it in a million steps.
 * The tutorial's code is one press long, so chance wins it at once.
 */
export const lock = defineGame<{ pressed: number; code: readonly number[] }, readonly number[]>({
  id: 'lock',
  title: 'Lock',
  levels: [[4], [1, 2, 3, 4, 4, 3, 2, 1, 1, 3, 2, 4, 4, 2, 3, 1]],
  actions: [1, 2, 3, 4],
  init: (code) => ({ pressed: 0, code }),
  step(s, input) {
    const right = input.action === `ACTION${s.code[s.pressed]}`;
    if (!right && s.pressed === 0) return s;
    return { pressed: right ? s.pressed + 1 : 0, code: s.code };
  },
  outcome: (s) => (s.pressed >= s.code.length ? 'won' : 'playing'),
  render(s, frame) {
    for (let i = 0; i < s.pressed; i++) frame[i] = 14;
  },
  key: (s) => s.pressed,
});

/**
 * One button of 2x2 cells at (10, 10)-(11, 11), its one declared target (10, 10): a click on it
 * wins. A click at a random cell wins with probability 4/4096, so P(win within k) =
 * 1 - (1023/1024)^k; a click at a random declared target always wins.
 */
export function button(targets: boolean): GameDefinition<number, number> {
  return defineGame<number, number>({
    id: 'bttn',
    title: 'Button',
    levels: [0],
    actions: [6],
    undo: false,
    init: () => 0,
    step: (s, input) => (input.x! >> 1 === 5 && input.y! >> 1 === 5 ? 1 : s),
    outcome: (s) => (s === 1 ? 'won' : 'playing'),
    render(_s, frame) {
      frame[10 * 64 + 10] = 8;
    },
    ...(targets ? { clickTargets: () => [[10, 10]] as const } : {}),
  });
}

/**
 * A counter with bugs for the fuzz: ACTION1 counts up (to 5, then it stays), ACTION2 counts down
 * but throws at a count of 3 or more; from a count of 4 the frame holds the value
 * 20, outside the palette; ACTION3 changes the state in place (a forbidden mutation) from a count
 * of 2; level 2 starts already won.
 */
export const buggy = defineGame<{ n: number }, number>({
  id: 'bugs',
  title: 'Bugs',
  levels: [0, 9],
  actions: [1, 2, 3],
  init: (start) => ({ n: start }),
  step(s, input) {
    if (input.action === 'ACTION1') return s.n >= 5 ? s : { n: s.n + 1 };
    if (input.action === 'ACTION2') {
      if (s.n >= 3) throw new Error('count too high to go down');
      return s.n > 0 ? { n: s.n - 1 } : s;
    }
    if (s.n >= 2) {
      (s as { n: number }).n = 0;
      return { n: 0 };
    }
    return s;
  },
  outcome: (s) => (s.n === 9 ? 'won' : 'playing'),
  render(s, frame) {
    frame[0] = s.n >= 4 ? 20 : s.n;
  },
});
