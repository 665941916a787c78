/**
 * Seeded order of a study's items for one participant. The seed is recorded with the session,
 * so the order can be recomputed and audited.
 */
import { Rng } from '../game/rng';
import type { StudyDefinition } from './schema';

/**
 * Fisher-Yates with the engine's seeded generator (`Rng`, mulberry32); returns a new array.
 * WARNING: stored sessions keep only their seed, so changing the generator or this loop
 * changes the item order of every existing session (`shuffle.test.ts` pins it).
 */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = items.slice();
  const rng = new Rng(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The session's order as indices into `study.items`. Each pool contributes the candidates the
 * session drew (`drawn`, by pool id, indices into `study.items`, in draw order) where the pool is
 * written, and nothing when it drew none. With `order: 'shuffled'`, the tasks and games (and
 * question items) that are not practice swap places among themselves; pages, surveys and practice
 * items stay where the researcher put them (an introduction stays first, a practice task stays
 * before the real ones).
 */
export function sessionOrder(
  study: StudyDefinition,
  seed: number,
  drawn: ReadonlyMap<string, readonly number[]> = new Map(),
): number[] {
  const order: number[] = [];
  for (let i = 0; i < study.items.length; i++) {
    const pool = study.pools.find((p) => p.candidates[0] === i);
    if (!pool) {
      order.push(i);
      continue;
    }
    order.push(...(drawn.get(pool.id) ?? []));
    i += pool.candidates.length - 1;
  }
  if (study.order === 'fixed') return order;
  const movable = order.filter((i) => {
    const it = study.items[i];
    return it.kind !== 'page' && it.kind !== 'survey' && !it.practice;
  });
  const shuffled = seededShuffle(movable, seed);
  let k = 0;
  return order.map((i) => (movable.includes(i) ? shuffled[k++] : i));
}
