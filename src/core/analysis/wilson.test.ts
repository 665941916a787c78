import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './wilson';

describe('wilsonInterval', () => {
  // Reference values from scipy.stats.binomtest(k, n).proportion_ci(method="wilson") (scipy 1.17),
  // the same as R's prop.test(k, n, correct = FALSE).
  it.each([
    [0, 10, 0, 0.277533],
    [5, 10, 0.236593, 0.763407],
    [10, 10, 0.722467, 1],
    [81, 263, 0.255289, 0.36621],
    [3, 4, 0.300642, 0.954413],
    [1, 1, 0.206549, 1],
  ])('%i of %i is [%f, %f]', (k, n, low, high) => {
    const ci = wilsonInterval(k, n)!;
    expect(ci.low).toBeCloseTo(low, 6);
    expect(ci.high).toBeCloseTo(high, 6);
  });

  it('is null with no answers, and exactly 0 or 1 at the ends', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(wilsonInterval(0, 3)!.low).toBe(0);
    expect(wilsonInterval(3, 3)!.high).toBe(1);
  });

  it('refuses counts that cannot be a proportion', () => {
    expect(() => wilsonInterval(4, 3)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 3)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 3)).toThrow(RangeError);
  });
});
