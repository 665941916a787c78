/**
 * The Wilson score interval for a proportion: the confidence interval the results give with
 * every accuracy. Unlike the normal ("Wald") interval it stays inside [0, 1] and does not
 * collapse to a point at 0 or n successes, which matters for the small counts of a study.
 */

/** z for a two-sided 95% interval (the 0.975 quantile of the standard normal). */
export const Z95 = 1.959963984540054;

/** An interval, both ends within [0, 1]. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * The Wilson score interval of `successes` out of `n` (null when `n` is 0):
 * centre `(p + z²/2n) / (1 + z²/n)`, half-width `z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)`.
 * The same as `scipy.stats.binomtest(k, n).proportion_ci(method="wilson")` and R's
 * `prop.test(k, n, correct = FALSE)$conf.int`.
 * @example wilsonInterval(5, 10) // {low: 0.2366, high: 0.7634} (rounded)
 * @throws RangeError when the counts are not whole numbers with 0 <= successes <= n.
 */
export function wilsonInterval(successes: number, n: number, z: number = Z95): Interval | null {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || successes > n) {
    throw new RangeError(`wilsonInterval needs whole numbers 0 <= successes <= n, not ${successes} of ${n}`);
  }
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0 or n successes one end is exactly 0 or 1; rounding must not push it past.
  return {
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === n ? 1 : Math.min(1, centre + half),
  };
}
