import { performance } from 'node:perf_hooks';

/**
 * Times `fn` over enough iterations to fill about `budgetMs`, after a warm-up, and returns the
 * median of per-batch means in microseconds per call. Medians resist the noise of shared machines.
 */
export function timeMicros(fn: () => void, budgetMs = 300): number {
  for (let i = 0; i < 50; i++) fn();
  let batch = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    if (performance.now() - t0 > 5) break;
    batch *= 2;
  }
  const samples: number[] = [];
  const end = performance.now() + budgetMs;
  while (performance.now() < end || samples.length < 5) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    samples.push(((performance.now() - t0) * 1000) / batch);
  }
  return percentile(samples, 50);
}

export function percentile(values: number[], p: number): number {
  const s = values.slice().sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}
