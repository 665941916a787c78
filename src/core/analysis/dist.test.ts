import { describe, expect, it } from 'vitest';
import { distribution, quantile } from './dist';

describe('distribution', () => {
  it('gives the five numbers, the mean and the sorted values', () => {
    // sorted [1, 2, 3, 4]: p25 at position 0.75 -> 1 + 0.75 = 1.75; median at 1.5 -> 2.5; p75 at 2.25 -> 3.25
    expect(distribution([4, 1, 3, 2])).toEqual({
      n: 4,
      min: 1,
      p25: 1.75,
      median: 2.5,
      p75: 3.25,
      max: 4,
      mean: 2.5,
      values: [1, 2, 3, 4],
    });
  });

  it('takes the middle value of an odd count as the median', () => {
    // sorted [5, 7, 20]: p25 at 0.5 -> 6; p75 at 1.5 -> 13.5
    expect(distribution([20, 5, 7])).toMatchObject({
      n: 3,
      min: 5,
      p25: 6,
      median: 7,
      p75: 13.5,
      max: 20,
      mean: 32 / 3,
    });
  });

  it('has only nulls without values, and one value everywhere with one', () => {
    expect(distribution([])).toEqual({
      n: 0,
      min: null,
      p25: null,
      median: null,
      p75: null,
      max: null,
      mean: null,
      values: [],
    });
    expect(distribution([9])).toEqual({ n: 1, min: 9, p25: 9, median: 9, p75: 9, max: 9, mean: 9, values: [9] });
  });

  it('does not reorder the values it was given', () => {
    const v = [3, 1, 2];
    distribution(v);
    expect(v).toEqual([3, 1, 2]);
  });

  it('refuses the quantile of nothing', () => {
    expect(() => quantile([], 0.5)).toThrow(/no values/);
  });
});
