/**
 * Seeded order of a study's items for one participant. The seed is recorded with the session,
 * so the order can be recomputed and audited.
 */
import type { StudyDefinition } from './schema';

/** mulberry32: a small, fast 32-bit PRNG. Returns a function giving floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates with a seeded generator; returns a new array. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = items.slice();
  const rand = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The session's order as indices into `study.items`. With `order: 'shuffled'`, the tasks and
 * games that are not practice swap places among themselves; pages and practice items stay where
 * the researcher put them (an introduction stays first, a practice task stays before the real ones).
 */
export function sessionOrder(study: StudyDefinition, seed: number): number[] {
  const order = study.items.map((_, i) => i);
  if (study.order === 'fixed') return order;
  const movable = order.filter((i) => { const it = study.items[i]; return it.kind !== 'page' && !it.practice; });
  const shuffled = seededShuffle(movable, seed);
  let k = 0;
  return order.map((i) => (movable.includes(i) ? shuffled[k++] : i));
}
