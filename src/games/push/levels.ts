import type { PushLevel } from './game';

/** The levels of Push, tutorial first. README.md says what each one teaches. */
export const levels: readonly PushLevel[] = [
  // 1. Tutorial: walk, push the block onto the target.
  {
    energy: 12,
    map: `
      ########
      #@.b..o#
      ########`,
  },
  // 2. Pull: a block in a corner cannot be pushed out, only pulled.
  {
    energy: 24,
    map: `
      ########
      #b.....#
      #......#
      #.@...o#
      #......#
      ########`,
  },
  // 3. Ice: a pushed block slides until something stops it, and so does the agent.
  {
    energy: 22,
    map: `
      ##########
      #@.......#
      #.~~~~~~.#
      #.~%~~%~.#
      #.~~~~~~.#
      #.~~~~~~o#
      #o.......#
      ##########`,
  },
  // 4. Ice stops: a block sliding on ice needs something to stop it where it should be.
  {
    energy: 24,
    map: `
      ##########
      #..@.....#
      #.b~~~~~.#
      #..~~~~~.#
      #.b~~o~~.#
      #..~~~~~.#
      #....o...#
      ##########`,
  },
  // 5. Pull on ice: pulling never slides, so it places a block where pushing cannot.
  {
    energy: 16,
    map: `
      #########
      #b~~~~~.#
      #~~~~~~.#
      #~~o~~~.#
      #~~~~~~@#
      #########`,
  },
  // 6. Everything: two blocks, ice, corners and a tight budget.
  {
    energy: 34,
    map: `
      ##########
      #b.....~o#
      #..##..~.#
      #..~~~~~.#
      #@.#..#..#
      #b.....o.#
      ##########`,
  },
];
