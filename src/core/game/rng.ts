/**
 * A small seeded PRNG (mulberry32) whose whole state is one 32-bit integer, so it is stored in
 * the run and snapshotted with it: a replay from the same seed draws the same numbers. The one
 * generator of the project: the study's seeded item order draws from it too.
 */

/** Advances the generator: returns the next state. */
export function nextRng(state: number): number {
  return (state + 0x6d2b79f5) | 0;
}

/** The value in [0, 1) for a generator state (call after `nextRng`). */
export function rngValue(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Mixes a seed and a salt (e.g. a level index) into an independent generator state. */
export function mixSeed(seed: number, salt: number): number {
  let h = (seed ^ Math.imul(salt + 1, 0x9e3779b1)) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/**
 * A mutable generator for code outside the engine (a study's item order, random policies,
 * tests, benchmarks), with the same algorithm. Inside a game, use the `random()` of the step context instead.
 */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed | 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.s = nextRng(this.s);
    return rngValue(this.s);
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}
