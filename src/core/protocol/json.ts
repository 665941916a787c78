/**
 * What any JSON a participant sends must satisfy before anything else looks at it: bounded
 * depth, size and strings that every part of the system can store and write back out.
 *
 * WARNING: the walk is iterative on purpose. A body that nests thousands of arrays deep is
 * legal JSON; walking it recursively (as `JSON.stringify` and many validators do) overflows the
 * stack, and PostgreSQL's `jsonb` refuses NUL characters and lone surrogates, which would fail a
 * whole group-committed statement. Checking here, once, keeps both out of the server.
 */

export interface JsonLimits {
  /** Deepest nesting of arrays and objects; the value itself is depth 0. */
  readonly maxDepth: number;
  /** Most arrays, objects, strings, numbers, booleans and nulls in all. */
  readonly maxNodes: number;
  /** Longest string, in UTF-16 code units (keys included). */
  readonly maxString: number;
  /** Most keys in one object. */
  readonly maxKeys: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 16, maxNodes: 250_000, maxString: 10_000, maxKeys: 200 };

/** Keys that mean something to JavaScript objects and are never data. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A problem with a value: where (`events.3.data.grid`) and why. */
export interface JsonProblem {
  readonly path: string;
  readonly reason: string;
}

/** Why a string cannot be stored, or null: NUL characters and unpaired UTF-16 surrogates. */
export function stringProblem(s: string): string | null {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return `holds a NUL character at position ${i}`;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return `holds an unpaired UTF-16 surrogate at position ${i}`;
    }
    if (c >= 0xdc00 && c <= 0xdfff) return `holds an unpaired UTF-16 surrogate at position ${i}`;
  }
  return null;
}

/**
 * The first problem of a parsed JSON value under `limits`, or null when it is safe to validate,
 * store and serialise. Numbers must be finite (`1e400` parses to Infinity, which would be stored
 * as null).
 */
export function jsonProblem(value: unknown, limits: JsonLimits = DEFAULT_JSON_LIMITS): JsonProblem | null {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: '', depth: 0 }];
  let nodes = 0;
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    const at = path || '(body)';
    if (++nodes > limits.maxNodes) return { path: at, reason: `the body holds more than ${limits.maxNodes} values` };
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { path: at, reason: 'is a number too large to store (it must be finite)' };
      continue;
    }
    if (typeof v === 'string') {
      if (v.length > limits.maxString)
        return { path: at, reason: `is a string of ${v.length} characters; at most ${limits.maxString} are accepted` };
      const p = stringProblem(v);
      if (p) return { path: at, reason: p };
      continue;
    }
    if (typeof v !== 'object') return { path: at, reason: `is not a JSON value (${typeof v})` };
    if (depth >= limits.maxDepth) return { path: at, reason: `nests deeper than ${limits.maxDepth} levels` };
    const child = (key: string) => (path ? `${path}.${key}` : key);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: child(String(i)), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    if (keys.length > limits.maxKeys)
      return { path: at, reason: `has ${keys.length} keys; at most ${limits.maxKeys} are accepted` };
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i];
      if (FORBIDDEN_KEYS.has(k)) return { path: child(k), reason: `uses the reserved name "${k}"` };
      if (k.length > limits.maxString)
        return { path: at, reason: `has a key of ${k.length} characters; at most ${limits.maxString} are accepted` };
      const p = stringProblem(k);
      if (p) return { path: at, reason: `has a key that ${p}` };
      stack.push({ v: (v as Record<string, unknown>)[k], path: child(k), depth: depth + 1 });
    }
  }
  return null;
}
