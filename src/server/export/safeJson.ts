/**
 * JSON for exports, whatever the database holds. Ingestion bounds what participants send, but
 * an export also reads events stored before those bounds existed, so nothing here may assume
 * a sane shape.
 *
 * WARNING: `JSON.stringify` recurses, and data nested a few thousand levels deep overflows the
 * stack; inside an export that would cut the file short. `jsonText` falls back to an iterative
 * writer that gives the same text.
 */
import type { StoredEvent } from '../../core/study/rules';

/**
 * `JSON.stringify(value)`, also for values nested too deep for it. `undefined` (not JSON) is
 * written as `null`.
 * @example jsonText({ a: [1, 'x'] }) // '{"a":[1,"x"]}'
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (e) {
    if (e instanceof RangeError) return deepJsonText(value);
    throw e;
  }
}

type Frame =
  | { kind: 'array'; items: readonly unknown[]; next: number }
  | { kind: 'object'; entries: [string, unknown][]; next: number };

/** The iterative writer: the same output as `JSON.stringify` for values read from JSON. */
function deepJsonText(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    if (Array.isArray(v)) {
      out.push('[');
      stack.push({ kind: 'array', items: v, next: 0 });
    } else if (v !== null && typeof v === 'object') {
      out.push('{');
      stack.push({
        kind: 'object',
        entries: Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== 'function'),
        next: 0,
      });
    } else {
      out.push(JSON.stringify(v) ?? 'null');
    }
  };
  open(root);
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.kind === 'array') {
      if (top.next === top.items.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (top.next > 0) out.push(',');
      const v = top.items[top.next++];
      open(v === undefined || typeof v === 'function' ? null : v);
    } else {
      if (top.next === top.entries.length) {
        out.push('}');
        stack.pop();
        continue;
      }
      if (top.next > 0) out.push(',');
      const [k, v] = top.entries[top.next++];
      out.push(JSON.stringify(k), ':');
      open(v);
    }
  }
  return out.join('');
}

/** Whether `value` nests arrays and objects more than `max` levels deep (walked without recursion). */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v))
      if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
  }
  return false;
}

/**
 * Deepest nesting of an event's `data` that the analyses (attempts, grid actions, baselines,
 * recordings) read. A grid inside `data` is 3 levels deep; nothing a client logs goes past 4.
 */
export const ANALYSIS_MAX_DEPTH = 32;

/**
 * The event as the analyses read it: a field of `data` that nests deeper than
 * `ANALYSIS_MAX_DEPTH` reads as `null`, and `data` that is not an object reads as `{}`, so
 * every analysis sees an event of its kind with that field missing (an event that changes
 * nothing, or a game log that does not verify). The events file (`events.jsonl`) keeps the
 * data as stored.
 */
export function forAnalysis(e: StoredEvent): StoredEvent {
  const d: unknown = e.data;
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return { ...e, data: {} };
  if (!nestedDeeperThan(d, ANALYSIS_MAX_DEPTH)) return e;
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) data[k] = nestedDeeperThan(v, ANALYSIS_MAX_DEPTH - 1) ? null : v;
  return { ...e, data };
}
