import { describe, expect, it } from 'vitest';
import { Rng } from '../game/rng';
import { FrameCodecError, MAX_ENCODED_LENGTH, decodeFrames, encodeFrames, encodeFramesBoth } from './frames';

const SIDE = 64;

function filled(colour: number, side = SIDE): number[][] {
  return Array.from({ length: side }, () => new Array<number>(side).fill(colour));
}

function randomFrame(rng: Rng, width = SIDE, height = SIDE): number[][] {
  return Array.from({ length: height }, () => Array.from({ length: width }, () => rng.int(16)));
}

/** A frame like an arcengine game's: an 8x8-cell board drawn 8 pixels per cell, walls, a walker, a status bar. */
function boardFrame(walkerX: number, walkerY: number): number[][] {
  const f = filled(0);
  const block = (cx: number, cy: number, colour: number): void => {
    for (let y = cy * 8; y < cy * 8 + 8; y++) for (let x = cx * 8; x < cx * 8 + 8; x++) f[y][x] = colour;
  };
  for (let i = 0; i < 8; i++) {
    block(i, 0, 5);
    block(i, 7, 5);
    block(0, i, 5);
    block(7, i, 5);
  }
  block(2, 2, 5);
  block(3, 2, 5);
  block(6, 6, 3);
  block(walkerX, walkerY, 9);
  for (let x = 2; x < 30; x++) f[62][x] = 11;
  return f;
}

function bytes(text: string): number {
  return (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof FrameCodecError) return e.code;
    throw e;
  }
  throw new Error('expected a FrameCodecError');
}

describe('frame codec', () => {
  it('makes both encodings of a response at once exactly as two calls make them', () => {
    const rng = new Rng(20261127);
    // An animation: the walker moving, blinking every other frame (delta2 against the reference pays).
    const walk = (n: number) => Array.from({ length: n }, (_, i) => boardFrame(1 + (i % 2), 1 + (i % 3)));
    const cases: { frames: number[][][]; reference: number[][] | null }[] = [
      { frames: [], reference: boardFrame(1, 1) },
      { frames: [boardFrame(2, 1)], reference: boardFrame(1, 1) },
      { frames: walk(2), reference: boardFrame(2, 2) },
      { frames: walk(5), reference: boardFrame(2, 2) },
      { frames: walk(5), reference: null },
      // A reference of another size is not used: both texts stand alone.
      { frames: walk(3), reference: filled(4, 32) },
    ];
    for (let trial = 0; trial < 30; trial++) {
      const side = 1 + rng.int(SIDE);
      const reference = randomFrame(rng, side, side);
      const frames = Array.from({ length: 1 + rng.int(6) }, () =>
        rng.int(2)
          ? reference.map((row) => row.map((c) => (rng.int(20) ? c : rng.int(16))))
          : randomFrame(rng, side, side),
      );
      cases.push({ frames, reference });
    }
    for (const { frames, reference } of cases) {
      const both = encodeFramesBoth(frames, reference);
      expect(both.alone).toBe(encodeFrames(frames, null));
      expect(both.changes).toBe(encodeFrames(frames, reference));
      expect(decodeFrames(both.changes, reference)).toEqual(frames);
      // The last frame's cells, row by row; given back as the reference, they stand for its grid.
      const last = frames.at(-1);
      expect(both.last && { ...both.last, cells: Array.from(both.last.cells) }).toEqual(
        last ? { width: last[0].length, height: last.length, cells: last.flat() } : null,
      );
      if (reference) {
        const cells = {
          width: reference[0].length,
          height: reference.length,
          cells: Uint8Array.from(reference.flat()),
        };
        expect(encodeFramesBoth(frames, cells)).toEqual(both);
      }
    }
    expect(codeOf(() => encodeFramesBoth([filled(0), filled(0, 8)], null))).toBe('bad-frames');
  });

  it('round-trips random frames of every size, with and without a reference', () => {
    const rng = new Rng(20261123);
    for (let trial = 0; trial < 40; trial++) {
      const width = 1 + rng.int(SIDE);
      const height = 1 + rng.int(SIDE);
      const count = 1 + rng.int(4);
      // Mix noise with sparse edits of the frame before, so every kind of frame is written.
      const frames: number[][][] = [];
      let prev = randomFrame(rng, width, height);
      const reference = prev;
      for (let i = 0; i < count; i++) {
        const next =
          rng.int(2) === 0
            ? randomFrame(rng, width, height)
            : prev.map((row) => row.map((v) => (rng.int(20) === 0 ? rng.int(16) : v)));
        frames.push(next);
        prev = next;
      }
      expect(decodeFrames(encodeFrames(frames))).toEqual(frames);
      expect(decodeFrames(encodeFrames(frames, reference), reference)).toEqual(frames);
    }
  });

  it('round-trips an empty response (after GAME_OVER) and single cells', () => {
    expect(decodeFrames(encodeFrames([]))).toEqual([]);
    expect(decodeFrames(encodeFrames([[[7]]]))).toEqual([[[7]]]);
    expect(decodeFrames(encodeFrames([[[15, 0, 15]]]))).toEqual([[[15, 0, 15]]]);
  });

  it('stores a full board frame in well under its 4,096 cells and a one-cell change in a few bytes', () => {
    const first = boardFrame(1, 1);
    const full = encodeFrames([first]);
    expect(decodeFrames(full)).toEqual([first]);
    expect(bytes(full)).toBeLessThan(300);

    const next = first.map((row) => row.slice());
    next[40][17] = 8;
    const delta = encodeFrames([next], first);
    expect(decodeFrames(delta, first)).toEqual([next]);
    // Header 9 bytes (format, flags, count, width, height, reference hash) + kind + three runs:
    // 2,577 zeros (3 bytes), the cell (1), 1,518 zeros (3).
    expect(bytes(delta)).toBe(17);
  });

  it('stores a walker step (two 8x8 blocks change) as a small delta, and animation frames against each other', () => {
    const before = boardFrame(1, 1);
    const after = boardFrame(2, 1);
    const step = encodeFrames([after], before);
    expect(decodeFrames(step, before)).toEqual([after]);
    expect(bytes(step)).toBeLessThan(bytes(encodeFrames([after])));
    expect(bytes(step)).toBeLessThan(60);

    const animation = [boardFrame(2, 1), boardFrame(3, 1), boardFrame(4, 1), boardFrame(4, 1)];
    const text = encodeFrames(animation, before);
    expect(decodeFrames(text, before)).toEqual(animation);
    expect(bytes(text)).toBeLessThan(4 * 60);
  });

  it('stores a blinking animation (every other frame the same) as changes to the frame two before', () => {
    const on = boardFrame(2, 2);
    const off = on.map((row, y) => row.map((v, x) => (y >= 32 && y < 40 && x >= 32 && x < 52 ? 12 : v)));
    const blink = [off, on, off, on, off];
    const text = encodeFrames(blink, on);
    expect(decodeFrames(text, on)).toEqual(blink);
    // The first change costs runs over 8 rows; each repeat only a few bytes of unchanged runs.
    const first = bytes(encodeFrames([off], on));
    expect(bytes(text)).toBeLessThan(first + 4 * 6);
  });

  it('keeps noise near 4 bits per cell', () => {
    const noise = randomFrame(new Rng(7));
    const text = encodeFrames([noise]);
    expect(decodeFrames(text)).toEqual([noise]);
    expect(bytes(text)).toBeLessThanOrEqual((SIDE * SIDE) / 2 + 8);
  });

  it('ignores a reference of another size (the text then stands alone)', () => {
    const frame = boardFrame(3, 3);
    const text = encodeFrames([frame], filled(0, 10));
    expect(decodeFrames(text)).toEqual([frame]);
  });

  it('refuses to decode a delta without its reference, or against another frame', () => {
    const before = boardFrame(1, 1);
    const text = encodeFrames([boardFrame(2, 1)], before);
    expect(codeOf(() => decodeFrames(text))).toBe('reference-missing');
    expect(codeOf(() => decodeFrames(text, boardFrame(5, 5)))).toBe('reference-mismatch');
    expect(codeOf(() => decodeFrames(text, filled(0, 8)))).toBe('reference-mismatch');
    expect(() => decodeFrames(text)).toThrow(/decode them with that frame/);
  });

  it('refuses frames it cannot store, saying what is wrong', () => {
    expect(() => encodeFrames([[[16]]])).toThrow(/colours are integers 0-15/);
    expect(() => encodeFrames([[[1.5]]])).toThrow(FrameCodecError);
    expect(() => encodeFrames([[[1, 2], [3]]])).toThrow(/row 1 has 1 cells/);
    expect(() => encodeFrames([filled(0, 65)])).toThrow(/1 to 64 cells/);
    expect(() => encodeFrames([filled(0), filled(0, 32)])).toThrow(/must all be 64x64/);
    expect(codeOf(() => encodeFrames([[]]))).toBe('bad-frames');
  });

  it('fails fast and clearly on corrupt text', () => {
    const good = encodeFrames([boardFrame(1, 1), boardFrame(2, 1)]);
    expect(codeOf(() => decodeFrames(''))).toBe('corrupt');
    expect(codeOf(() => decodeFrames('abc'))).toBe('corrupt');
    expect(() => decodeFrames('@@@@')).toThrow(/not base64/);
    expect(() => decodeFrames(good.replace(/^../, 'AA'))).toThrow(/not 0xf1/);
    // Truncated at every length: always a clear error, never a wrong answer.
    for (let n = 4; n < good.length; n += 4) {
      expect(codeOf(() => decodeFrames(good.slice(0, n)))).toBe('corrupt');
    }
    // Trailing bytes.
    expect(() => decodeFrames(encodeFrames([[[1]]]).replace(/=*$/, '') + 'AAAA')).toThrow(FrameCodecError);
    // A huge claimed frame count in a few bytes: refused before any allocation.
    const header = (b: number[]): string => encodeBytes(b);
    expect(() => decodeFrames(header([0xf1, 0, 0xff, 0x07, 64, 64, 0, 0]))).toThrow(/at most 1024|frames in/);
    expect(() => decodeFrames(header([0xf1, 0, 0x80, 0x80, 0x80, 0x80, 0x01]))).toThrow(/longer than 3 bytes/);
    expect(() => decodeFrames(header([0xf1, 0, 1, 0, 64, 0]))).toThrow(/frame size of 0x64/);
    // A run longer than the frame.
    expect(() => decodeFrames(header([0xf1, 0, 1, 2, 2, 0, 0x1f, 0x7f]))).toThrow(/a run of 143 cells where 4 remain/);
    expect(() => decodeFrames(header([0xf1, 0, 1, 1, 1, 7, 0x10]))).toThrow(/unknown kind 7/);
    expect(() => decodeFrames(header([0xf1, 0, 1, 1, 1, 1, 0x10]))).toThrow(/delta with no frame one before it/);
    expect(() => decodeFrames(header([0xf1, 0, 2, 1, 1, 0, 0x10, 3, 0x10]))).toThrow(
      /delta with no frame two before it/,
    );
    expect(codeOf(() => decodeFrames('A'.repeat(MAX_ENCODED_LENGTH + 4)))).toBe('too-large');
  });

  it('writes standard base64 that other readers decode to the same bytes', () => {
    const rng = new Rng(99);
    for (let n = 0; n < 20; n++) {
      const frame = randomFrame(rng, 1 + rng.int(9), 1 + rng.int(9));
      const text = encodeFrames([frame]);
      expect(text).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
      expect(encodeBytes([...Buffer.from(text, 'base64')])).toBe(text);
    }
  });
});

/** Base64 of raw bytes, through Node (tests only; src/core has no Node). */
function encodeBytes(bytes: number[]): string {
  return Buffer.from(bytes).toString('base64');
}
