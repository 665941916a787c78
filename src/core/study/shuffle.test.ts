import { describe, expect, it } from 'vitest';
import { Rng } from '../game/rng';
import { seededShuffle } from './shuffle';

describe('seededShuffle', () => {
  it('gives the orders stored sessions were shown (pinned: the seed is all a session keeps)', () => {
    const xs = Array.from({ length: 10 }, (_, i) => i);
    expect(seededShuffle(xs, 42)).toEqual([0, 7, 3, 5, 2, 1, 8, 9, 4, 6]);
    expect(seededShuffle(xs, 0)).toEqual([3, 8, 6, 4, 5, 9, 7, 1, 0, 2]);
    // Seeds beyond 31 bits and negative seeds keep their 32 bits.
    expect(seededShuffle(xs, 0xdeadbeef)).toEqual([1, 5, 3, 0, 4, 7, 8, 6, 2, 9]);
    expect(seededShuffle(xs, -7)).toEqual([8, 6, 7, 1, 5, 0, 3, 9, 2, 4]);
  });

  it('draws from the engine generator: the first swap index is Rng(seed).int(n)', () => {
    const xs = Array.from({ length: 10 }, (_, i) => i);
    const j = new Rng(42).int(10);
    expect(seededShuffle(xs, 42)[9]).toBe(xs[j]);
  });
});
