/**
 * The O2ARC-style tools of the grid player: rotate, flip, move, magic wand, add to selection and
 * crop. Each is an event the pure reducer applies, undoable like paint, and a log of them
 * replays to the same state.
 */
import { describe, expect, it } from 'vitest';
import type { Grid, Rect } from '../grid/grid';
import type { LogEvent } from './events';
import {
  type GridEventData,
  type GridEventKind,
  type PlayerState,
  cellPairs,
  currentTest,
  initialPlayer,
  makeSelection,
  reduce,
  replay,
  selectionHas,
} from './gridPlayer';
import { regionAt } from '../grid/grid';

class Log {
  readonly events: LogEvent[] = [];
  state: PlayerState = initialPlayer();
  emit<K extends GridEventKind>(kind: K, data: GridEventData[K]): this {
    const e: LogEvent = {
      seq: this.events.length,
      t: this.events.length * 10.5,
      kind,
      data: data as unknown as Record<string, unknown>,
    };
    this.events.push(e);
    this.state = reduce(this.state, e);
    return this;
  }
  get output(): Grid {
    return currentTest(this.state)!.output;
  }
}

/** A log with one open task whose output is `grid`. */
function withOutput(grid: Grid): Log {
  return new Log().emit('task.open', { taskId: 't', tests: 1 }).emit('copy.input', { grid });
}

const G: Grid = [
  [1, 2, 3],
  [4, 5, 6],
];
const rect = (r0: number, c0: number, r1: number, c1: number): Rect => ({ r0, c0, r1, c1 });

describe('rotate and flip', () => {
  it('turns the whole output with no selection, swapping a non-square size', () => {
    const l = withOutput(G);
    l.emit('rotate', { dir: 'cw' });
    expect(l.output).toEqual([
      [4, 1],
      [5, 2],
      [6, 3],
    ]);
    l.emit('rotate', { dir: 'ccw' });
    expect(l.output).toEqual(G);
    l.emit('rotate', { dir: 'ccw' });
    expect(l.output).toEqual([
      [3, 6],
      [2, 5],
      [1, 4],
    ]);
    l.emit('undo', {}).emit('flip', { axis: 'horizontal' });
    expect(l.output).toEqual([
      [3, 2, 1],
      [6, 5, 4],
    ]);
    l.emit('flip', { axis: 'vertical' });
    expect(l.output).toEqual([
      [6, 5, 4],
      [3, 2, 1],
    ]);
  });

  it('turns only the output selection, from its top-left corner; vacated cells become 0 and the selection follows', () => {
    const l = withOutput([
      [1, 2, 0, 0],
      [3, 4, 0, 0],
      [5, 6, 0, 0],
    ]);
    l.emit('select', { side: 'output', rect: rect(0, 0, 2, 1) });
    l.emit('rotate', { dir: 'cw' });
    expect(l.output).toEqual([
      [5, 3, 1, 0],
      [6, 4, 2, 0],
      [0, 0, 0, 0],
    ]);
    expect(l.state.selection).toEqual({ side: 'output', rect: rect(0, 0, 1, 2) });
    l.emit('flip', { axis: 'vertical' });
    expect(l.output.slice(0, 2)).toEqual([
      [6, 4, 2, 0],
      [5, 3, 1, 0],
    ]);
    // A block turned past the edge loses the cells that fall outside.
    l.emit('select', { side: 'output', rect: rect(0, 2, 1, 3) }).emit('rotate', { dir: 'cw' });
    expect(l.state.selection?.rect).toEqual(rect(0, 2, 1, 3));
  });

  it('with a selection on the input, turns the whole output', () => {
    const l = withOutput(G)
      .emit('select', { side: 'input', rect: rect(0, 0, 0, 0) })
      .emit('flip', { axis: 'horizontal' });
    expect(l.output).toEqual([
      [3, 2, 1],
      [6, 5, 4],
    ]);
  });
});

describe('move', () => {
  const start: Grid = [
    [7, 7, 0, 0],
    [7, 0, 0, 0],
    [0, 0, 0, 0],
  ];

  it('moves the selected cells, leaves 0 behind, keeps the selection on them, one undo step each', () => {
    const l = withOutput(start).emit('select', { side: 'output', rect: rect(0, 0, 1, 1) });
    l.emit('move', { dr: 1, dc: 1 });
    expect(l.output).toEqual([
      [0, 0, 0, 0],
      [0, 7, 7, 0],
      [0, 7, 0, 0],
    ]);
    expect(l.state.selection).toEqual({ side: 'output', rect: rect(1, 1, 2, 2) });
    l.emit('move', { dr: 0, dc: 1 });
    expect(l.output).toEqual([
      [0, 0, 0, 0],
      [0, 0, 7, 7],
      [0, 0, 7, 0],
    ]);
    l.emit('undo', {});
    expect(l.output).toEqual([
      [0, 0, 0, 0],
      [0, 7, 7, 0],
      [0, 7, 0, 0],
    ]);
    l.emit('undo', {});
    expect(l.output).toEqual(start);
    l.emit('redo', {}).emit('redo', {});
    expect(l.output).toEqual([
      [0, 0, 0, 0],
      [0, 0, 7, 7],
      [0, 0, 7, 0],
    ]);
  });

  it('drops cells moved past an edge; the selection keeps what is left', () => {
    const l = withOutput(start)
      .emit('select', { side: 'output', rect: rect(0, 0, 1, 1) })
      .emit('move', { dr: 0, dc: 3 });
    expect(l.output).toEqual([
      [0, 0, 0, 7],
      [0, 0, 0, 7],
      [0, 0, 0, 0],
    ]);
    expect(l.state.selection).toEqual({ side: 'output', rect: rect(0, 3, 1, 3) });
  });

  it('does nothing without an output selection', () => {
    const l = withOutput(start);
    const before = l.state;
    l.emit('move', { dr: 1, dc: 0 });
    expect(l.state).toBe(before);
  });
});

describe('magic wand and add to selection', () => {
  const g: Grid = [
    [1, 1, 0],
    [0, 1, 0],
    [1, 0, 1],
  ];

  it('regionAt finds the 4-connected same-colour cells only', () => {
    expect(cellPairs(regionAt(g, 0, 0))).toEqual([
      [0, 0],
      [0, 1],
      [1, 1],
    ]);
    expect(cellPairs(regionAt(g, 2, 2))).toEqual([[2, 2]]);
    expect(regionAt(g, 3, 0)).toEqual([]);
  });

  it('selects a non-rectangular set; Shift adds; recolour and move act on the set only', () => {
    const l = withOutput(g);
    l.emit('select.wand', { side: 'output', row: 0, col: 0, cells: cellPairs(regionAt(g, 0, 0)) });
    const sel = l.state.selection!;
    expect(sel.rect).toEqual(rect(0, 0, 1, 1));
    expect(selectionHas(sel, 1, 1)).toBe(true);
    expect(selectionHas(sel, 1, 0)).toBe(false);
    l.emit('select.wand', { side: 'output', row: 2, col: 2, add: true, cells: [[2, 2]] });
    expect(l.state.selection!.rect).toEqual(rect(0, 0, 2, 2));
    expect(l.state.selection!.cells).toHaveLength(4);
    l.emit('recolor', { rect: l.state.selection!.rect, color: 4, cells: cellPairs(l.state.selection!.cells!) });
    expect(l.output).toEqual([
      [4, 4, 0],
      [0, 4, 0],
      [1, 0, 4],
    ]);
    l.emit('select.wand', {
      side: 'output',
      row: 0,
      col: 0,
      cells: [
        [0, 0],
        [0, 1],
        [1, 1],
      ],
    }).emit('move', { dr: 1, dc: 0 });
    expect(l.output).toEqual([
      [0, 0, 0],
      [4, 4, 0],
      [1, 4, 4],
    ]);
  });

  it('a rectangle added to a rectangle that fills a bigger one is stored as a plain rectangle', () => {
    const l = withOutput(g)
      .emit('select', { side: 'output', rect: rect(0, 0, 0, 2) })
      .emit('select', { side: 'output', rect: rect(1, 0, 1, 2), add: true });
    expect(l.state.selection).toEqual({ side: 'output', rect: rect(0, 0, 1, 2) });
    // Adding on the other side starts afresh.
    l.emit('select', { side: 'input', rect: rect(2, 2, 2, 2), add: true });
    expect(l.state.selection).toEqual({ side: 'input', rect: rect(2, 2, 2, 2) });
  });

  it('makeSelection drops duplicates and lists cells in reading order', () => {
    expect(
      makeSelection('output', [
        { row: 1, col: 1 },
        { row: 0, col: 0 },
        { row: 1, col: 1 },
      ]),
    ).toEqual({
      side: 'output',
      rect: rect(0, 0, 1, 1),
      cells: [
        { row: 0, col: 0 },
        { row: 1, col: 1 },
      ],
    });
    expect(makeSelection('input', [])).toBeNull();
  });
});

describe('copy and paste of a selection that is not a rectangle', () => {
  it('puts down only the selected cells; a rectangle copy still pastes its whole block', () => {
    const g: Grid = [
      [5, 5, 0],
      [0, 5, 0],
      [3, 3, 3],
    ];
    const l = withOutput(g);
    l.emit('select.wand', {
      side: 'output',
      row: 0,
      col: 0,
      cells: [
        [0, 0],
        [0, 1],
        [1, 1],
      ],
    });
    l.emit('copy', {
      side: 'output',
      rect: rect(0, 0, 1, 1),
      block: [
        [5, 5],
        [0, 5],
      ],
      cells: [
        [0, 0],
        [0, 1],
        [1, 1],
      ],
    });
    expect(l.state.clipboardCells).toEqual([
      { row: 0, col: 0 },
      { row: 0, col: 1 },
      { row: 1, col: 1 },
    ]);
    l.emit('paste', {
      row: 1,
      col: 1,
      block: [
        [5, 5],
        [0, 5],
      ],
      cells: [
        [0, 0],
        [0, 1],
        [1, 1],
      ],
    });
    // (2, 1) keeps its 3: the block's unselected bottom-left cell is not put down.
    expect(l.output).toEqual([
      [5, 5, 0],
      [0, 5, 5],
      [3, 3, 5],
    ]);
    l.emit('copy', {
      side: 'output',
      rect: rect(0, 0, 1, 1),
      block: [
        [5, 5],
        [0, 5],
      ],
    });
    expect(l.state.clipboardCells).toBeNull();
    l.emit('paste', {
      row: 1,
      col: 1,
      block: [
        [5, 5],
        [0, 5],
      ],
    });
    expect(l.output).toEqual([
      [5, 5, 0],
      [0, 5, 5],
      [3, 0, 5],
    ]);
  });
});

describe('crop', () => {
  it('cuts the output to the rectangle, undoably, and clears the selection', () => {
    const l = withOutput([
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]).emit('select', { side: 'output', rect: rect(1, 1, 2, 2) });
    l.emit('crop', { rect: rect(1, 1, 2, 2) });
    expect(l.output).toEqual([
      [5, 6],
      [8, 9],
    ]);
    expect(l.state.selection).toBeNull();
    l.emit('undo', {});
    expect(l.output).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7, 8, 9],
    ]);
  });

  it('a rectangle wholly outside the output changes nothing', () => {
    const l = withOutput(G);
    l.emit('crop', { rect: rect(5, 5, 6, 6) });
    expect(l.output).toEqual(G);
  });
});

describe('replay of the new tools', () => {
  it('rebuilds the same state from the log, through JSON, as a download would', () => {
    const l = withOutput([
      [1, 0, 2],
      [0, 3, 0],
      [4, 0, 5],
    ]);
    l.emit('tool', { tool: 'wand' })
      .emit('select.wand', { side: 'output', row: 1, col: 1, cells: [[1, 1]] })
      .emit('select', { side: 'output', rect: rect(0, 0, 0, 0), add: true })
      .emit('move', { dr: 1, dc: 0 })
      .emit('rotate', { dir: 'cw' })
      .emit('flip', { axis: 'horizontal' })
      .emit('select.clear', {})
      .emit('rotate', { dir: 'ccw' })
      .emit('resize', { rows: 4, cols: 5 })
      .emit('select', { side: 'output', rect: rect(0, 0, 2, 3) })
      .emit('crop', { rect: rect(0, 0, 2, 3) })
      .emit('undo', {})
      .emit('redo', {});
    expect(replay(JSON.parse(JSON.stringify(l.events)) as LogEvent[])).toEqual(l.state);
    expect(l.output).toHaveLength(3);
  });
});
