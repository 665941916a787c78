/** Stable, fast, non-cryptographic hashes (32-bit FNV-1a) for frames and states. */
import type { Frame } from './types';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function hex(h: number): string {
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** FNV-1a over bytes, continuing from `h`. */
export function fnvBytes(bytes: Uint8Array, h = FNV_OFFSET): number {
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], FNV_PRIME);
  return h;
}

function fnvString(s: string, h: number): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h = Math.imul(h ^ (c & 0xff), FNV_PRIME);
    h = Math.imul(h ^ (c >>> 8), FNV_PRIME);
  }
  return h;
}

/**
 * A short stable hash of a frame: 8 hex digits of FNV-1a over its 4096 bytes.
 * @example hashFrame(new Uint8Array(4096)) // '...' the same on every machine
 */
export function hashFrame(frame: Frame): string {
  return hex(fnvBytes(frame));
}

/**
 * Hashes a JSON-like value structurally: numbers, strings, booleans, null, undefined, arrays,
 * typed arrays and plain objects (keys sorted, so key order does not matter).
 */
export function hashValue(value: unknown, h = FNV_OFFSET): number {
  if (value === null || value === undefined) return Math.imul(h ^ (value === null ? 1 : 2), FNV_PRIME);
  switch (typeof value) {
    case 'number': {
      // Integers hash by value; other numbers through their text, which is exact for doubles.
      if (Number.isInteger(value) && Math.abs(value) < 2 ** 31) {
        h = Math.imul(h ^ 3, FNV_PRIME);
        h = Math.imul(h ^ (value & 0xffff), FNV_PRIME);
        return Math.imul(h ^ ((value >>> 16) & 0xffff), FNV_PRIME);
      }
      return fnvString(String(value), Math.imul(h ^ 4, FNV_PRIME));
    }
    case 'string': return fnvString(value, Math.imul(h ^ 5, FNV_PRIME));
    case 'boolean': return Math.imul(h ^ (value ? 6 : 7), FNV_PRIME);
    case 'object': {
      if (ArrayBuffer.isView(value)) {
        const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
        return fnvBytes(bytes, Math.imul(h ^ 8, FNV_PRIME));
      }
      if (Array.isArray(value)) {
        h = Math.imul(h ^ 9, FNV_PRIME);
        for (const v of value) h = hashValue(v, h);
        return Math.imul(h ^ 10, FNV_PRIME);
      }
      h = Math.imul(h ^ 11, FNV_PRIME);
      const o = value as Record<string, unknown>;
      for (const k of Object.keys(o).sort()) h = hashValue(o[k], fnvString(k, h));
      return Math.imul(h ^ 12, FNV_PRIME);
    }
    default:
      throw new TypeError(`hashValue cannot hash a ${typeof value}: keep game state to plain data and typed arrays.`);
  }
}

/** `hashValue` as 8 hex digits. */
export function hashHex(value: unknown): string {
  return hex(hashValue(value));
}
