/**
 * Distributions of per-participant figures, as the results pages show them: the five-number
 * summary, the mean and every value, so a page can draw a box plot or a strip of dots.
 */

/**
 * A distribution. Quartiles interpolate linearly between the sorted values (the method of
 * NumPy's default `percentile` and R's type 7): with values `v[0] <= ... <= v[n-1]`, the
 * quantile q lies at position `q * (n - 1)`. The median of an even count is therefore the mean
 * of the two middle values. With no values every statistic is null.
 */
export interface Dist {
  readonly n: number;
  readonly min: number | null;
  readonly p25: number | null;
  readonly median: number | null;
  readonly p75: number | null;
  readonly max: number | null;
  readonly mean: number | null;
  /** Every value, ascending. */
  readonly values: number[];
}

/** The quantile `q` (0-1) of values sorted ascending, by linear interpolation. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('quantile of no values');
  const pos = q * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * The distribution of `values` (any order).
 * @example distribution([4, 1, 3, 2]) // {n: 4, min: 1, p25: 1.75, median: 2.5, p75: 3.25, max: 4, mean: 2.5, values: [1, 2, 3, 4]}
 */
export function distribution(values: readonly number[]): Dist {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { n: 0, min: null, p25: null, median: null, p75: null, max: null, mean: null, values: [] };
  return {
    n,
    min: sorted[0],
    p25: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    p75: quantile(sorted, 0.75),
    max: sorted[n - 1],
    mean: sorted.reduce((a, b) => a + b, 0) / n,
    values: sorted,
  };
}
