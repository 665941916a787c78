/** A level: its map and its energy (key presses allowed). */
export interface PushLevel {
  /**
   * `#` wall, `.` floor, `~` ice, `@` agent, `b` block, `o` target, `*` block on a target,
   * `+` agent on a target, `%` block on ice. Spaces outside the walls are void.
   */
  readonly map: string;
  readonly energy: number;
}

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
  // 5. Pull on ice: pulling never slides, so it places a block where pushing cannot. The target
  // lies deep in the ice and the energy leaves little slack, so chance does not place it.
  {
    energy: 17,
    map: `
      ##########
      #b~~~~~~.#
      #~~~~~~~.#
      #~~~~~~~.#
      #~~~~o~~.#
      #~~~~~~~@#
      ##########`,
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

/**
 * The levels of version push-f39e6e1680aa, kept so that logs recorded on it still verify (see
 * `retiredGames` in ../index.ts). Its level 5 could be won by chance within 1,000,000 random steps.
 * WARNING: it reuses the current levels that did not change, so editing one of those changes this
 * version too (games.test.ts pins its id).
 */
export const levelsF39e6e1680aa: readonly PushLevel[] = [
  ...levels.slice(0, 4),
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
  levels[5],
];
