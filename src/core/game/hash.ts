/**
 * Stable, fast, non-cryptographic hashes (32-bit FNV-1a) for frames and states, a 64-bit FNV-1a
 * for content versions, and `canonicalKey`, the exact identity of a value (no collisions).
 */
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
    case 'string':
      return fnvString(value, Math.imul(h ^ 5, FNV_PRIME));
    case 'boolean':
      return Math.imul(h ^ (value ? 6 : 7), FNV_PRIME);
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

/**
 * An exact, canonical text of a JSON-like value (the values `hashValue` takes): equal values give
 * equal keys and different values different keys, with no collisions, unlike any hash. Object keys
 * are sorted; typed arrays are written as their bytes, one character per byte; every part is
 * self-delimiting. Whole numbers 0-255 are one character after a tag, other numbers
 * `String(n)`; `-0` is `0`. The text stays within
 * Latin-1 unless the value holds strings beyond it, so engines keep it at one byte per character.
 * @example canonicalKey([1, 'a', new Uint8Array([7])]) // '[c\x01s1:ab1:\x07]'
 */
export function canonicalKey(value: unknown): string {
  if (value === null) return 'N';
  switch (typeof value) {
    case 'undefined':
      return 'U';
    // Small whole numbers (cells, counters, colours) take one character: no number-to-text work.
    case 'number':
      return value >= 0 && value < 256 && (value | 0) === value ? `c${String.fromCharCode(value)}` : `n${value},`;
    case 'string':
      return `s${value.length}:${value}`;
    case 'boolean':
      return value ? 'T' : 'F';
    case 'object': {
      if (ArrayBuffer.isView(value)) {
        const bytes =
          value instanceof Uint8Array ? value : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
        // One call for the usual small arrays; chunks keep big ones within the argument limit.
        if (bytes.length <= 4096)
          return `b${bytes.length}:${String.fromCharCode.apply(null, bytes as unknown as number[])}`;
        let text = '';
        for (let i = 0; i < bytes.length; i += 4096)
          text += String.fromCharCode.apply(null, bytes.subarray(i, i + 4096) as unknown as number[]);
        return `b${bytes.length}:${text}`;
      }
      if (Array.isArray(value)) {
        let text = '[';
        for (const v of value) text += canonicalKey(v);
        return `${text}]`;
      }
      const o = value as Record<string, unknown>;
      let text = '{';
      for (const k of Object.keys(o).sort()) text += `s${k.length}:${k}${canonicalKey(o[k])}`;
      return `${text}}`;
    }
    default:
      throw new TypeError(
        `canonicalKey cannot encode a ${typeof value}: keep game state and level data to plain data and typed arrays.`,
      );
  }
}

/**
 * 64-bit FNV-1a over the UTF-16 code units of `text` (each as two bytes, low byte first), as 16
 * hex digits. Computed with 16-bit limbs, so it is exact in plain JavaScript numbers.
 * @example hash64('') // 'cbf29ce484222325', the FNV-1a 64 offset basis
 */
export function hash64(text: string): string {
  // h = h3:h2:h1:h0, 16 bits each, starting at the offset basis 0xcbf29ce484222325.
  let h0 = 0x2325,
    h1 = 0x8422,
    h2 = 0x9ce4,
    h3 = 0xcbf2;
  const mix = (byte: number) => {
    h0 ^= byte;
    // h * 0x100000001b3 = h * 0x1b3 + (h << 40), modulo 2^64.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (t1 >>> 16) + ((h0 << 8) & 0xffff);
    const t3 = h3 * 0x1b3 + (t2 >>> 16) + (((h0 >>> 8) | (h1 << 8)) & 0xffff);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    mix(c & 0xff);
    mix(c >>> 8);
  }
  const hex4 = (v: number) => v.toString(16).padStart(4, '0');
  return hex4(h3) + hex4(h2) + hex4(h1) + hex4(h0);
}
