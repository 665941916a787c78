import { describe, expect, it } from 'vitest';
import {
  type Cell,
  type Grid,
  clipRect,
  crop,
  fillRect,
  floodFill,
  gridsEqual,
  lineCells,
  makeGrid,
  parseSize,
  paste,
  rectFrom,
  resize,
  setCell,
  setCells,
} from './grid';

/** Grids written as rows of digits keep the expectations readable. */
function g(...rows: string[]): Grid {
  return rows.map((r) => [...r].map(Number));
}

describe('resize', () => {
  const src = g('123', '456');

  it('keeps the top-left content and pads new cells with 0', () => {
    expect(resize(src, 3, 4)).toEqual(g('1230', '4560', '0000'));
  });

  it('crops from the bottom and the right when shrinking', () => {
    expect(resize(src, 1, 2)).toEqual(g('12'));
  });

  it('grows rows and columns independently', () => {
    expect(resize(src, 2, 1)).toEqual(g('1', '4'));
    expect(resize(src, 4, 3)).toEqual(g('123', '456', '000', '000'));
  });

  it('does not change the grid it was given', () => {
    resize(src, 5, 5);
    expect(src).toEqual(g('123', '456'));
  });

  it('throws a RangeError outside 1-30', () => {
    expect(() => resize(src, 0, 3)).toThrow(RangeError);
    expect(() => resize(src, 3, 31)).toThrow('grid size 3x31 is outside 1-30');
    expect(() => resize(src, 2.5, 3)).toThrow(RangeError);
    expect(resize(src, 30, 30)).toHaveLength(30);
  });
});

describe('parseSize', () => {
  it.each([
    ['3x3', 3, 3],
    [' 10 X 12 ', 10, 12],
    ['30x30', 30, 30],
    ['1x1', 1, 1],
    ['4×7', 4, 7],
    ['2*9', 2, 9],
  ])('accepts %j', (text, rows, cols) => {
    expect(parseSize(text)).toEqual({ ok: true, rows, cols });
  });

  it.each([
    ['0x3', '0x3 is out of range: rows and columns must each be 1 to 30.'],
    ['31x2', '31x2 is out of range: rows and columns must each be 1 to 30.'],
    ['3x0', '3x0 is out of range: rows and columns must each be 1 to 30.'],
    ['3', '"3" is not a size: type rows x columns, for example 3x3 or 10x12.'],
    ['axb', '"axb" is not a size: type rows x columns, for example 3x3 or 10x12.'],
    ['3x3x3', '"3x3x3" is not a size: type rows x columns, for example 3x3 or 10x12.'],
    ['', '"" is not a size: type rows x columns, for example 3x3 or 10x12.'],
    ['-1x3', '"-1x3" is not a size: type rows x columns, for example 3x3 or 10x12.'],
  ])('rejects %j with a message that says what to type', (text, message) => {
    expect(parseSize(text)).toEqual({ ok: false, message });
  });
});

describe('floodFill', () => {
  it('fills the 4-connected region and counts the cells it changed', () => {
    const src = g('1100', '1010', '0011');
    expect(floodFill(src, 0, 0, 5)).toEqual({ grid: g('5500', '5010', '0011'), changed: 3 });
  });

  it('does not cross a diagonal', () => {
    // (1,1) touches (0,0) and (2,2) only at corners.
    const src = g('100', '010', '001');
    expect(floodFill(src, 1, 1, 4)).toEqual({ grid: g('100', '040', '001'), changed: 1 });
  });

  it('fills around obstacles and reaches every connected cell', () => {
    const src = g('00000', '02220', '02020', '02220', '00000');
    const { grid, changed } = floodFill(src, 0, 0, 3);
    expect(grid).toEqual(g('33333', '32223', '32023', '32223', '33333'));
    expect(changed).toBe(16);
  });

  it('changes nothing when the start already has the colour or is outside the grid', () => {
    const src = g('12', '34');
    expect(floodFill(src, 0, 0, 1)).toEqual({ grid: src, changed: 0 });
    expect(floodFill(src, 0, 0, 1).grid).toBe(src);
    expect(floodFill(src, 2, 0, 7).grid).toBe(src);
    expect(floodFill(src, -1, 0, 7).changed).toBe(0);
  });

  it('fills a whole 30x30 grid', () => {
    expect(floodFill(makeGrid(30, 30), 29, 29, 8)).toEqual({ grid: makeGrid(30, 30, 8), changed: 900 });
  });

  it('does not change the grid it was given', () => {
    const src = g('00', '00');
    floodFill(src, 0, 0, 1);
    expect(src).toEqual(g('00', '00'));
  });
});

describe('paste', () => {
  const base = makeGrid(3, 4);
  const block = g('12', '34');

  it('places a block with its top-left corner at the given cell', () => {
    expect(paste(base, block, 1, 1)).toEqual(g('0000', '0120', '0340'));
  });

  it('clips at the right edge', () => {
    expect(paste(base, block, 0, 3)).toEqual(g('0001', '0003', '0000'));
  });

  it('clips at the bottom edge', () => {
    expect(paste(base, block, 2, 0)).toEqual(g('0000', '0000', '1200'));
  });

  it('clips at negative offsets', () => {
    expect(paste(base, block, -1, -1)).toEqual(g('4000', '0000', '0000'));
    expect(paste(base, block, -1, 2)).toEqual(g('0034', '0000', '0000'));
  });

  it('never grows the grid, even when the block is larger than it', () => {
    const big = makeGrid(5, 6, 7);
    const out = paste(base, big, -1, -1);
    expect(out).toEqual(makeGrid(3, 4, 7));
    expect(paste(base, block, 3, 4)).toEqual(base);
    expect(paste(base, block, -2, -2)).toEqual(base);
  });

  it('does not change the grid it was given', () => {
    paste(base, block, 0, 0);
    expect(base).toEqual(makeGrid(3, 4));
  });
});

describe('gridsEqual', () => {
  it('is true for equal grids', () => {
    expect(gridsEqual(g('12', '34'), g('12', '34'))).toBe(true);
  });

  it('rejects a grid that is too wide even when its left part matches', () => {
    expect(gridsEqual(g('12', '34'), g('120', '340'))).toBe(false);
    expect(gridsEqual(g('120', '340'), g('12', '34'))).toBe(false);
  });

  it('rejects a grid that is too tall even when its top part matches', () => {
    expect(gridsEqual(g('12', '34'), g('12', '34', '00'))).toBe(false);
    expect(gridsEqual(g('12', '34', '00'), g('12', '34'))).toBe(false);
  });

  it('rejects one differing cell and a ragged row', () => {
    expect(gridsEqual(g('12', '34'), g('12', '35'))).toBe(false);
    expect(
      gridsEqual(g('12', '34'), [
        [1, 2],
        [3, 4, 0],
      ]),
    ).toBe(false);
  });
});

describe('lineCells', () => {
  /** Every step moves to a neighbouring cell (sides or corners): no cell is skipped. */
  function expectUnbroken(a: Cell, b: Cell) {
    const cells = lineCells(a, b);
    expect(cells[0]).toEqual(a);
    expect(cells[cells.length - 1]).toEqual(b);
    expect(cells).toHaveLength(Math.max(Math.abs(b.row - a.row), Math.abs(b.col - a.col)) + 1);
    for (let i = 1; i < cells.length; i++) {
      const step = Math.max(Math.abs(cells[i].row - cells[i - 1].row), Math.abs(cells[i].col - cells[i - 1].col));
      expect(step).toBe(1);
    }
  }

  it('is a single cell when both ends are the same', () => {
    expect(lineCells({ row: 2, col: 3 }, { row: 2, col: 3 })).toEqual([{ row: 2, col: 3 }]);
  });

  it('covers a horizontal, a vertical and a diagonal line cell by cell', () => {
    expect(lineCells({ row: 0, col: 0 }, { row: 0, col: 3 })).toEqual([0, 1, 2, 3].map((col) => ({ row: 0, col })));
    expect(lineCells({ row: 3, col: 1 }, { row: 0, col: 1 })).toEqual([3, 2, 1, 0].map((row) => ({ row, col: 1 })));
    expect(lineCells({ row: 0, col: 0 }, { row: 2, col: 2 })).toEqual([0, 1, 2].map((i) => ({ row: i, col: i })));
  });

  it('has no gaps for steep and shallow lines in every direction', () => {
    const centre = { row: 15, col: 15 };
    for (const [dr, dc] of [
      [3, 11],
      [11, 3],
      [-7, 2],
      [2, -9],
      [-13, -5],
      [-1, 14],
      [14, -1],
      [0, -6],
      [-6, 0],
    ]) {
      expectUnbroken(centre, { row: centre.row + dr, col: centre.col + dc });
      expectUnbroken({ row: centre.row + dr, col: centre.col + dc }, centre);
    }
  });
});

describe('setCell and setCells', () => {
  const src = g('12', '34');

  it('returns the same object when nothing changes', () => {
    expect(setCell(src, 0, 0, 1)).toBe(src);
    expect(setCell(src, 5, 0, 9)).toBe(src);
    expect(setCell(src, 0, -1, 9)).toBe(src);
    expect(
      setCells(
        src,
        [
          { row: 0, col: 1 },
          { row: 1, col: 0 },
        ],
        2,
      ),
    ).not.toBe(src);
    expect(
      setCells(
        src,
        [
          { row: 0, col: 1 },
          { row: 9, col: 9 },
        ],
        2,
      ),
    ).toBe(src);
  });

  it('returns a new grid with the one cell changed and shares untouched rows', () => {
    const out = setCell(src, 1, 0, 7);
    expect(out).toEqual(g('12', '74'));
    expect(src).toEqual(g('12', '34'));
    expect(out[0]).toBe(src[0]);
  });

  it('sets many cells, skipping those outside the grid', () => {
    expect(
      setCells(
        src,
        [
          { row: 0, col: 0 },
          { row: 1, col: 1 },
          { row: 2, col: 2 },
        ],
        0,
      ),
    ).toEqual(g('02', '30'));
  });
});

describe('rectangles', () => {
  const src = g('123', '456', '789');

  it('normalises corners given in any order', () => {
    expect(rectFrom({ row: 2, col: 0 }, { row: 0, col: 2 })).toEqual({ r0: 0, c0: 0, r1: 2, c1: 2 });
  });

  it('clips to the grid and is null when nothing is inside', () => {
    expect(clipRect(src, { r0: -2, c0: 1, r1: 5, c1: 9 })).toEqual({ r0: 0, c0: 1, r1: 2, c1: 2 });
    expect(clipRect(src, { r0: 3, c0: 0, r1: 4, c1: 1 })).toBeNull();
  });

  it('crops the block under a rectangle', () => {
    expect(crop(src, { r0: 1, c0: 1, r1: 2, c1: 5 })).toEqual(g('56', '89'));
    expect(crop(src, { r0: -3, c0: -3, r1: -1, c1: -1 })).toBeNull();
  });

  it('fills a clipped rectangle and returns the same grid when nothing changes', () => {
    expect(fillRect(src, { r0: 1, c0: 1, r1: 9, c1: 9 }, 0)).toEqual(g('123', '400', '700'));
    const same = g('11', '11');
    expect(fillRect(same, { r0: 0, c0: 0, r1: 1, c1: 1 }, 1)).toBe(same);
  });
});
