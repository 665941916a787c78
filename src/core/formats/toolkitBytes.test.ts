/** The bytes of recording lines against the text of `toolkitRecordingLine`, the toolkit's line. */
import { describe, expect, it } from 'vitest';
import { toolkitRecordingLine } from './recording';
import {
  FrameRowsCache,
  toolkitLineBound,
  toolkitLineHead,
  toolkitRecordingBytes,
  writeToolkitLine,
} from './toolkitBytes';

/** A step of ls20 after its start; each test changes what it checks. */
const STEP = {
  gameId: 'ls20-9607627b',
  guid: 'run',
  epochMs: Date.UTC(2026, 0, 2),
  input: { action: 'ACTION1' as const } as { action: 'ACTION1' | 'ACTION2' | 'ACTION6'; x?: number; y?: number },
  state: 'NOT_FINISHED' as const,
  levelsCompleted: 0,
  winLevels: 7,
  fullReset: false,
  available: [1, 2, 3, 4],
};

describe('toolkitRecordingBytes', () => {
  it('writes the same line as toolkitRecordingLine, byte for byte, with its line end', () => {
    // Two 3x2 frames with every colour 0-15 among them; a click with its coordinates; a non-ASCII game id.
    const grids = [
      [
        [0, 9, 10],
        [15, 3, 12],
      ],
      [
        [11, 13, 14],
        [1, 2, 4],
      ],
    ];
    const step = {
      ...STEP,
      gameId: 'lé01-0a1b',
      epochMs: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      input: { action: 'ACTION6' as const, x: 12, y: 40 },
      levelsCompleted: 1,
      available: [1, 2, 6],
    };
    const cells = { width: 3, height: 2, frames: grids.map((g) => Uint8Array.from(g.flat())) };
    const bytes = toolkitRecordingBytes({ ...step, frames: cells });
    expect(new TextDecoder().decode(bytes)).toBe(toolkitRecordingLine({ ...step, frames: grids }) + '\n');
    // No frame (an action after GAME_OVER): `"frame": []`.
    const none = toolkitRecordingBytes({ ...step, frames: { width: 0, height: 0, frames: [] } });
    expect(new TextDecoder().decode(none)).toBe(toolkitRecordingLine({ ...step, frames: [] }) + '\n');
  });

  it('copies the rows a frame keeps from the frame before and writes the same lines as without', () => {
    const step = STEP;
    const grid = (w: number, h: number, f: (x: number, y: number) => number) =>
      Uint8Array.from({ length: w * h }, (_, i) => f(i % w, Math.floor(i / w)));
    const a = grid(4, 3, (x, y) => (x + y) % 16);
    // One row changed (to two-digit colours), then the same frame twice in one step, then another size.
    const b = a.map((v, i) => (i >= 4 && i < 8 ? 12 : v));
    const steps = [
      { width: 4, height: 3, frames: [a] },
      { width: 4, height: 3, frames: [b, b, a] },
      { width: 0, height: 0, frames: [] },
      { width: 3, height: 4, frames: [grid(3, 4, (x, y) => (x * y) % 16)] },
      { width: 3, height: 4, frames: [grid(3, 4, (x) => x)] },
    ];
    const rows = new FrameRowsCache();
    const text = new TextDecoder();
    for (const frames of steps)
      expect(text.decode(toolkitRecordingBytes({ ...step, frames }, rows))).toBe(
        text.decode(toolkitRecordingBytes({ ...step, frames })),
      );
  });
});

describe('writeToolkitLine', () => {
  it('writes the head of every kind of step as toolkitRecordingLine does', () => {
    const base = {
      gameId: 'ls20-9607627b',
      guid: 'e9417bef-286d-44fb-868a-edc4699588b7',
      epochMs: Date.UTC(2026, 11, 6, 18, 44, 49, 221),
      input: { action: 'RESET' as const },
      state: 'NOT_FINISHED' as const,
      levelsCompleted: 0,
      winLevels: 7,
      fullReset: true,
      available: [1, 2, 3, 4],
    };
    const steps = [
      base,
      { ...base, epochMs: Date.UTC(2026, 0, 1), input: { action: 'ACTION6' as const, x: 0, y: 63 }, fullReset: false },
      { ...base, guid: 'rün-\u2028"q"', state: 'GAME_OVER' as const, available: [] },
      {
        ...base,
        gameId: 'vc33-5430563c',
        state: 'WIN' as const,
        levelsCompleted: 7,
        input: { action: 'ACTION7' as const },
      },
    ];
    for (const s of steps) expect(toolkitLineHead(s) + '[]}}').toBe(toolkitRecordingLine({ ...s, frames: [] }));
  });

  it('writes the lines of a run one after the other into one array, rows copied within it', () => {
    const step = { ...STEP, input: { action: 'ACTION2' as const } };
    const a = Uint8Array.from({ length: 64 }, (_, i) => i % 16);
    const b = a.map((v, i) => (i < 8 ? 15 - v : v));
    const frames = [[a], [b], [b, a], [a]].map((f) => ({ width: 8, height: 8, frames: f }));
    const out = new Uint8Array(1 << 16);
    const rows = new FrameRowsCache();
    let at = 0;
    let expected = '';
    for (const [k, f] of frames.entries()) {
      const s = { ...step, epochMs: step.epochMs + k, frames: f };
      const head = toolkitLineHead(s);
      const end = writeToolkitLine(s, head, out, at, rows);
      expect(end - at).toBeLessThanOrEqual(toolkitLineBound(head, s));
      at = end;
      expected += new TextDecoder().decode(toolkitRecordingBytes(s));
    }
    expect(new TextDecoder().decode(out.subarray(0, at))).toBe(expected);
  });
});
