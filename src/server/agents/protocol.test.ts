/**
 * The JSON text of an action's response, written from the frame's cells: it must parse to the
 * same value as the official field layout serialised by `JSON.stringify`, for every cell value a
 * byte can hold and for frames given as nested arrays.
 */
import { describe, expect, it } from 'vitest';
import { frameJson, type ProtocolFrame } from './protocol';

const head: Omit<ProtocolFrame, 'frame'> = {
  game_id: 'push-7ddd58ea3060',
  guid: 'g-1',
  state: 'NOT_FINISHED',
  levels_completed: 2,
  win_levels: 6,
  available_actions: [1, 2, 3, 4, 7],
  full_reset: false,
  action_input: { id: 4, data: { game_id: 'push-7ddd58ea3060' }, reasoning: { why: 'a "quoted" note' } },
};

const rows = (cells: Uint8Array, side: number) =>
  Array.from({ length: side }, (_, y) => Array.from(cells.subarray(y * side, (y + 1) * side)));

describe('frameJson', () => {
  it('writes 64x64 frames of colours 0-15 exactly as JSON.stringify would', () => {
    const a = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7 + (i >> 6)) % 16);
    const b = Uint8Array.from({ length: 4096 }, (_, i) => (i === 0 || i === 4095 ? 15 : i % 11));
    const text = frameJson(head, [a, b]);
    expect(text).toBe(JSON.stringify({ frame: [rows(a, 64), rows(b, 64)], ...head }));
  });

  it('writes every byte value, small and odd-sized grids, nested arrays, and no frame at all', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => 255 - i);
    const small = Uint8Array.from([10, 0, 9, 100, 99, 101, 255, 1, 15]);
    const nested = [
      [3, 12],
      [0, 7],
    ];
    expect(JSON.parse(frameJson(head, [all, small, nested]))).toEqual({
      frame: [rows(all, 16), rows(small, 3), nested],
      ...head,
    });
    expect(frameJson(head, [])).toBe(JSON.stringify({ frame: [], ...head }));
  });

  it('a larger frame after a smaller one is written whole', () => {
    frameJson(head, [new Uint8Array(4)]);
    const big = Uint8Array.from({ length: 128 * 128 }, (_, i) => 100 + (i % 156));
    expect(JSON.parse(frameJson(head, [big])).frame[0]).toEqual(rows(big, 128));
  });
});
