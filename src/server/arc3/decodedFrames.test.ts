/** Frames decoded once for many runs (`DecodedFrames`): taken again only for the same text and reference. */
import { describe, expect, it } from 'vitest';
import { decodeFrameCells, encodeFrames, FrameCodecError } from '../../core/formats/frames';
import { DecodedFrames } from './storedRuns';

const grid = (f: (x: number, y: number) => number) =>
  Array.from({ length: 8 }, (_, y) => Array.from({ length: 8 }, (_, x) => f(x, y)));
const cellsOf = (g: number[][]) => ({ width: 8, height: 8, cells: Uint8Array.from(g.flat()) });

describe('DecodedFrames', () => {
  it('answers as decodeFrameCells does, the same cells again for the same text from the same reference', () => {
    const a = grid((x, y) => (x + y) % 4);
    const moved = grid((x, y) => (x === 3 && y === 3 ? 9 : (x + y) % 4));
    const delta = encodeFrames([moved], a);
    const decoded = new DecodedFrames();
    const first = decoded.decode(delta, cellsOf(a));
    expect(first).toEqual(decodeFrameCells(delta, cellsOf(a)));
    // Another copy of the same reference frame: the cells decoded before.
    expect(decoded.decode(delta, cellsOf(a))).toBe(first);
    // The same text from a reference that differs in one cell fails its check, as decodeFrameCells does.
    const other = cellsOf(grid((x, y) => (x === 0 && y === 0 ? 5 : (x + y) % 4)));
    expect(() => decoded.decode(delta, other)).toThrow(FrameCodecError);
    // A frame stored whole (no reference) is taken again too.
    const whole = encodeFrames([a]);
    expect(decoded.decode(whole, null)).toBe(decoded.decode(whole, null));
  });

  it('keeps at most its bound, the oldest dropped first', () => {
    const decoded = new DecodedFrames(2);
    const texts = [1, 2, 3].map((k) => encodeFrames([grid(() => k)]));
    const first = decoded.decode(texts[0], null);
    decoded.decode(texts[1], null);
    decoded.decode(texts[2], null);
    const again = decoded.decode(texts[0], null);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
