import type { FluxLevel } from './game';

/**
 * The levels of Flux, tutorial first. README.md says what each one teaches.
 * Maps are String.raw templates so that `\` stays a mirror.
 */
export const levels: readonly FluxLevel[] = [
  // 1. Tutorial: turn the mirror so the beam lights the receiver, then walk out.
  { lives: 3, map: String.raw`
      #########
      #>.../..#
      #....R..#
      #@.....E#
      #########` },
  // 2. Beams are deadly: turn the beam away to cross, then turn it back to open the exit.
  { lives: 3, map: String.raw`
      ###########
      #>....\..E#
      #.........#
      #@........#
      #.........#
      #.....\..R#
      ###########` },
  // 3. Heavy mirrors (purple) turn only beside the agent: turn them in the right order, from the safe side.
  { lives: 3, map: String.raw`
      ##########
      #>...%..E#
      #...#....#
      #@..#....#
      #...#....#
      #...#%..R#
      #........#
      ##########` },
  // 4. Two mirrors in a chain: open a way, cross, then close the chain behind you.
  { lives: 3, map: String.raw`
      ###########
      #>...\....#
      #.........#
      #@........#
      #.........#
      #..../..R.#
      #.......#E#
      ###########` },
  // 5. Two beams, two receivers, both lit at once: the heavy mirror first, from its one safe side.
  { lives: 3, map: String.raw`
      ###########
      #>...../..#
      #.........#
      #@........#
      #.........#
      #..&....R.#
      #..^...R.E#
      ###########` },
  // 6. Everything: a heavy mirror from its safe side, then a wall of light to turn away, cross and close.
  { lives: 3, map: String.raw`
      ############
      #>....\...E#
      #..........#
      #@.........#
      #..........#
      #..........#
      #..&......R#
      #..^..R....#
      ############` },
];
