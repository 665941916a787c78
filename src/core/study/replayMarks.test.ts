import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../log/events';
import { replayMarks } from './replayMarks';

let seq = 0;
const ev = (t: number, kind: string, data: Record<string, unknown> = {}): LogEvent => ({ seq: seq++, t, kind, data });
const paint = (t: number, row: number, stroke: number) => ev(t, 'paint', { row, col: 0, color: 2, stroke });
const grid = [[2]];

describe('replay marks', () => {
  it('labels the item start, each run of one tool, every submit with its verdict, and hidden and idle stretches', () => {
    seq = 0;
    const events = [
      ev(0, 'item.start', { item: 'task-a', kind: 'task' }), // 0
      ev(10, 'task.open', { taskId: 'task-a', tests: 1 }), // 1
      ev(20, 'resize', { rows: 1, cols: 1 }), // 2
      paint(30, 0, 1),
      paint(40, 0, 1),
      ev(45, 'stroke.end', { stroke: 1 }),
      paint(50, 0, 2), // 3-6
      ev(60, 'submit', { index: 0, trial: 1, verdict: 'wrong', grid }), // 7
      ev(70, 'visibility', { state: 'hidden' }), // 8
      ev(3_070, 'visibility', { state: 'visible' }), // 9
      ev(3_100, 'idle', { state: 'idle', ms: 120_000 }), // 10
      ev(5_100, 'idle', { state: 'active', ms: 2_000 }), // 11
      ev(5_200, 'fill', { row: 0, col: 0, color: 3 }), // 12
      ev(5_300, 'submit', { index: 0, trial: 2, verdict: 'correct', grid }), // 13
    ];
    expect(
      replayMarks(events).map(({ kind, from, to, at, label, verdict, ms }) => ({
        kind,
        from,
        to,
        at,
        label,
        verdict,
        ms,
      })),
    ).toEqual([
      { kind: 'item', from: 0, to: 0, at: 1, label: 'start of task-a', verdict: undefined, ms: undefined },
      { kind: 'tool', from: 2, to: 2, at: 3, label: 'resize to 1x1', verdict: undefined, ms: undefined },
      // Three cells over two strokes are one run of painting: the stroke's end does not break it.
      { kind: 'tool', from: 3, to: 6, at: 7, label: 'paint 3 cells', verdict: undefined, ms: undefined },
      {
        kind: 'submit',
        from: 7,
        to: 7,
        at: 8,
        label: 'submit test 1: wrong (trial 1)',
        verdict: 'wrong',
        ms: undefined,
      },
      { kind: 'hidden', from: 8, to: 9, at: 9, label: 'tab hidden', verdict: undefined, ms: 3_000 },
      { kind: 'idle', from: 10, to: 11, at: 11, label: 'idle', verdict: undefined, ms: 2_000 },
      {
        kind: 'tool',
        from: 12,
        to: 12,
        at: 13,
        label: 'flood fill at (0, 0) colour 3',
        verdict: undefined,
        ms: undefined,
      },
      {
        kind: 'submit',
        from: 13,
        to: 13,
        at: 14,
        label: 'submit test 1: correct (trial 2)',
        verdict: 'correct',
        ms: undefined,
      },
    ]);
  });

  it('marks what a game run did: resets, completed levels, undo and game over', () => {
    seq = 0;
    const act = (t: number, action: string, level: number, state = 'NOT_FINISHED') =>
      ev(t, 'game.action', { game: 'g', action, level, state, frameHash: 'x' });
    const events = [
      ev(0, 'game.open', { game: 'g', seed: 1 }),
      act(1, 'RESET', 0),
      act(2, 'ACTION1', 0),
      act(3, 'ACTION2', 1),
      act(4, 'ACTION7', 1),
      act(5, 'ACTION3', 1, 'GAME_OVER'),
    ];
    expect(replayMarks(events).map((m) => `${m.at} ${m.label}`)).toEqual([
      '2 reset',
      '4 level 1 completed',
      '5 undo',
      '6 game over',
    ]);
  });
});
