/**
 * ARC grids: rectangular arrays of symbols 0-9, 1x1 to 30x30.
 *
 * Every operation is pure and returns a new grid; the input is never mutated, so grids can be
 * shared between undo history, the event replay and React state without copying.
 */

export type Symbol = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
export type Grid = readonly (readonly number[])[];

export const MIN_SIZE = 1;
export const MAX_SIZE = 30;

/** A cell position inside a grid: `row` from the top, `col` from the left, both 0-based. */
export interface Cell {
  readonly row: number;
  readonly col: number;
}

/** An inclusive rectangle of cells. Always normalised: r0 <= r1 and c0 <= c1. */
export interface Rect {
  readonly r0: number;
  readonly c0: number;
  readonly r1: number;
  readonly c1: number;
}

export function height(g: Grid): number {
  return g.length;
}

export function width(g: Grid): number {
  return g.length === 0 ? 0 : g[0].length;
}

/** A grid of `rows` x `cols` cells, all `fill`. */
export function makeGrid(rows: number, cols: number, fill = 0): Grid {
  return Array.from({ length: rows }, () => new Array<number>(cols).fill(fill));
}

export function cloneGrid(g: Grid): number[][] {
  return g.map((row) => row.slice());
}

export function inBounds(g: Grid, row: number, col: number): boolean {
  return row >= 0 && col >= 0 && row < height(g) && col < width(g);
}

/** Exact equality, dimensions included: a grid that is too wide or too tall is not equal. */
export function gridsEqual(a: Grid, b: Grid): boolean {
  if (a.length !== b.length) return false;
  for (let r = 0; r < a.length; r++) {
    const ra = a[r];
    const rb = b[r];
    if (ra.length !== rb.length) return false;
    for (let c = 0; c < ra.length; c++) if (ra[c] !== rb[c]) return false;
  }
  return true;
}

/** Sets one cell. Returns the same grid when nothing changes, so callers can skip no-op events. */
export function setCell(g: Grid, row: number, col: number, value: number): Grid {
  if (!inBounds(g, row, col) || g[row][col] === value) return g;
  const out = g.slice();
  const newRow = g[row].slice();
  newRow[col] = value;
  out[row] = newRow;
  return out;
}

/** Sets many cells at once; out-of-bounds cells are ignored. */
export function setCells(g: Grid, cells: readonly Cell[], value: number): Grid {
  let out: number[][] | null = null;
  for (const { row, col } of cells) {
    if (!inBounds(g, row, col) || (out ?? g)[row][col] === value) continue;
    out ??= cloneGrid(g);
    out[row][col] = value;
  }
  return out ?? g;
}

/**
 * Resizes to `rows` x `cols`, keeping the content at the top left; new cells are `fill`.
 * Throws a RangeError outside 1..30, so callers validate user input first (see parseSize).
 */
export function resize(g: Grid, rows: number, cols: number, fill = 0): Grid {
  assertSize(rows, cols);
  const out: number[][] = [];
  for (let r = 0; r < rows; r++) {
    const src = g[r];
    const row = new Array<number>(cols);
    for (let c = 0; c < cols; c++) row[c] = src !== undefined && c < src.length ? src[c] : fill;
    out.push(row);
  }
  return out;
}

function assertSize(rows: number, cols: number): void {
  if (
    !Number.isInteger(rows) ||
    !Number.isInteger(cols) ||
    rows < MIN_SIZE ||
    cols < MIN_SIZE ||
    rows > MAX_SIZE ||
    cols > MAX_SIZE
  ) {
    throw new RangeError(`grid size ${rows}x${cols} is outside ${MIN_SIZE}-${MAX_SIZE}`);
  }
}

export type SizeParse = { ok: true; rows: number; cols: number } | { ok: false; message: string };

/**
 * Reads a size typed as `HxW` (rows x columns), as in the original ARC interface.
 * Accepts `x`, `X`, `×` or `*` between the numbers and surrounding spaces.
 */
export function parseSize(text: string): SizeParse {
  const m = /^\s*(\d{1,3})\s*[xX×*]\s*(\d{1,3})\s*$/.exec(text);
  if (!m)
    return { ok: false, message: `"${text.trim()}" is not a size: type rows x columns, for example 3x3 or 10x12.` };
  const rows = Number(m[1]);
  const cols = Number(m[2]);
  if (rows < MIN_SIZE || cols < MIN_SIZE || rows > MAX_SIZE || cols > MAX_SIZE) {
    return {
      ok: false,
      message: `${rows}x${cols} is out of range: rows and columns must each be ${MIN_SIZE} to ${MAX_SIZE}.`,
    };
  }
  return { ok: true, rows, cols };
}

/**
 * 4-connected flood fill from (row, col) with `value`. Returns the new grid and the number of
 * cells changed (0 when the start cell already has `value` or is out of bounds).
 */
export function floodFill(g: Grid, row: number, col: number, value: number): { grid: Grid; changed: number } {
  if (!inBounds(g, row, col)) return { grid: g, changed: 0 };
  const target = g[row][col];
  if (target === value) return { grid: g, changed: 0 };
  const h = height(g);
  const w = width(g);
  const out = cloneGrid(g);
  // An explicit stack of packed indices: no recursion, no per-cell allocation.
  const stack = new Int32Array(h * w + 1);
  let top = 0;
  stack[top++] = row * w + col;
  out[row][col] = value;
  let changed = 1;
  while (top > 0) {
    const i = stack[--top];
    const r = (i / w) | 0;
    const c = i - r * w;
    if (r > 0 && out[r - 1][c] === target) {
      out[r - 1][c] = value;
      changed++;
      stack[top++] = i - w;
    }
    if (r < h - 1 && out[r + 1][c] === target) {
      out[r + 1][c] = value;
      changed++;
      stack[top++] = i + w;
    }
    if (c > 0 && out[r][c - 1] === target) {
      out[r][c - 1] = value;
      changed++;
      stack[top++] = i - 1;
    }
    if (c < w - 1 && out[r][c + 1] === target) {
      out[r][c + 1] = value;
      changed++;
      stack[top++] = i + 1;
    }
  }
  return { grid: out, changed };
}

/** The rectangle spanned by two corner cells, in either order. */
export function rectFrom(a: Cell, b: Cell): Rect {
  return {
    r0: Math.min(a.row, b.row),
    c0: Math.min(a.col, b.col),
    r1: Math.max(a.row, b.row),
    c1: Math.max(a.col, b.col),
  };
}

/** Clips a rectangle to the grid; null when nothing of it is inside. */
export function clipRect(g: Grid, rect: Rect): Rect | null {
  const r0 = Math.max(0, rect.r0);
  const c0 = Math.max(0, rect.c0);
  const r1 = Math.min(height(g) - 1, rect.r1);
  const c1 = Math.min(width(g) - 1, rect.c1);
  return r0 > r1 || c0 > c1 ? null : { r0, c0, r1, c1 };
}

export function rectContains(rect: Rect, row: number, col: number): boolean {
  return row >= rect.r0 && row <= rect.r1 && col >= rect.c0 && col <= rect.c1;
}

/** The block of cells under `rect` (clipped to the grid), as a new grid; null when empty. */
export function crop(g: Grid, rect: Rect): Grid | null {
  const r = clipRect(g, rect);
  if (!r) return null;
  const out: number[][] = [];
  for (let row = r.r0; row <= r.r1; row++) out.push(g[row].slice(r.c0, r.c1 + 1));
  return out;
}

/** Fills every cell of `rect` (clipped) with `value`. */
export function fillRect(g: Grid, rect: Rect, value: number): Grid {
  const r = clipRect(g, rect);
  if (!r) return g;
  let out: number[][] | null = null;
  for (let row = r.r0; row <= r.r1; row++) {
    for (let col = r.c0; col <= r.c1; col++) {
      if ((out ?? g)[row][col] === value) continue;
      out ??= cloneGrid(g);
      out[row][col] = value;
    }
  }
  return out ?? g;
}

/**
 * Pastes `block` with its top-left corner at (row, col). Cells that fall outside the grid are
 * dropped; the grid never grows. With `only` (cells relative to the block's top-left), just
 * those cells of the block are put down: the copy of a selection that was not a rectangle.
 */
export function paste(g: Grid, block: Grid, row: number, col: number, only?: readonly Cell[]): Grid {
  const out = cloneGrid(g);
  const h = height(g);
  const w = width(g);
  if (only) {
    for (const c of only) {
      const v = block[c.row]?.[c.col];
      if (v !== undefined && inBounds(g, row + c.row, col + c.col)) out[row + c.row][col + c.col] = v;
    }
    return out;
  }
  for (let r = 0; r < block.length; r++) {
    const tr = row + r;
    if (tr < 0 || tr >= h) continue;
    const src = block[r];
    const dst = out[tr];
    for (let c = 0; c < src.length; c++) {
      const tc = col + c;
      if (tc >= 0 && tc < w) dst[tc] = src[c];
    }
  }
  return out;
}

/** Cells on the straight line from a to b (Bresenham), so a fast drag paints without gaps. */
export function lineCells(a: Cell, b: Cell): Cell[] {
  const cells: Cell[] = [];
  let r = a.row;
  let c = a.col;
  const dr = Math.abs(b.row - a.row);
  const dc = Math.abs(b.col - a.col);
  const sr = a.row < b.row ? 1 : -1;
  const sc = a.col < b.col ? 1 : -1;
  let err = dc - dr;
  for (;;) {
    cells.push({ row: r, col: c });
    if (r === b.row && c === b.col) break;
    const e2 = 2 * err;
    if (e2 > -dr) {
      err -= dr;
      c += sc;
    }
    if (e2 < dc) {
      err += dc;
      r += sr;
    }
  }
  return cells;
}

/**
 * The 4-connected region of cells with the same symbol as (row, col), as the magic wand selects
 * it; empty when the cell is outside the grid. Cells come in reading order (row, then column).
 */
export function regionAt(g: Grid, row: number, col: number): Cell[] {
  if (!inBounds(g, row, col)) return [];
  const target = g[row][col];
  const w = width(g);
  const seen = new Uint8Array(height(g) * w);
  const stack = [row * w + col];
  seen[row * w + col] = 1;
  const found: number[] = [];
  while (stack.length > 0) {
    const i = stack.pop()!;
    found.push(i);
    const r = (i / w) | 0;
    const c = i - r * w;
    for (const [nr, nc] of [
      [r - 1, c],
      [r + 1, c],
      [r, c - 1],
      [r, c + 1],
    ] as const) {
      const j = nr * w + nc;
      if (inBounds(g, nr, nc) && !seen[j] && g[nr][nc] === target) {
        seen[j] = 1;
        stack.push(j);
      }
    }
  }
  return found.sort((a, b) => a - b).map((i) => ({ row: (i / w) | 0, col: i % w }));
}

/** The smallest rectangle holding every cell; null for no cells. */
export function boundsOf(cells: readonly Cell[]): Rect | null {
  if (cells.length === 0) return null;
  let r0 = Infinity,
    c0 = Infinity,
    r1 = -Infinity,
    c1 = -Infinity;
  for (const { row, col } of cells) {
    r0 = Math.min(r0, row);
    c0 = Math.min(c0, col);
    r1 = Math.max(r1, row);
    c1 = Math.max(c1, col);
  }
  return { r0, c0, r1, c1 };
}

/** Every cell of a rectangle, in reading order. */
export function rectCells(rect: Rect): Cell[] {
  const out: Cell[] = [];
  for (let row = rect.r0; row <= rect.r1; row++) for (let col = rect.c0; col <= rect.c1; col++) out.push({ row, col });
  return out;
}

export type Rotation = 'cw' | 'ccw';
/** `horizontal` mirrors left and right (each row reversed); `vertical` mirrors top and bottom. */
export type FlipAxis = 'horizontal' | 'vertical';

/** The grid turned a quarter clockwise or anticlockwise: a rows x cols grid becomes cols x rows. */
export function rotateGrid(g: Grid, dir: Rotation): Grid {
  const h = height(g);
  const w = width(g);
  return Array.from({ length: w }, (_, r) =>
    Array.from({ length: h }, (_, c) => (dir === 'cw' ? g[h - 1 - c][r] : g[c][w - 1 - r])),
  );
}

export function flipGrid(g: Grid, axis: FlipAxis): Grid {
  return axis === 'horizontal' ? g.map((row) => row.slice().reverse()) : g.slice().reverse();
}

/**
 * Where a cell of a `rect` lands when the rectangle's content is rotated or flipped in place:
 * the transformed block keeps the rectangle's top-left corner (so a rotated 2x3 block becomes
 * 3x2 from the same corner).
 */
export function transformCell(rect: Rect, cell: Cell, how: { rotate: Rotation } | { flip: FlipAxis }): Cell {
  const h = rect.r1 - rect.r0 + 1;
  const w = rect.c1 - rect.c0 + 1;
  const r = cell.row - rect.r0;
  const c = cell.col - rect.c0;
  let to: [number, number];
  if ('rotate' in how) to = how.rotate === 'cw' ? [c, h - 1 - r] : [w - 1 - c, r];
  else to = how.flip === 'horizontal' ? [r, w - 1 - c] : [h - 1 - r, c];
  return { row: rect.r0 + to[0], col: rect.c0 + to[1] };
}

/**
 * Lifts the symbols of `cells` off the grid and puts each down where `to` sends it. The cells
 * left behind become 0 (black), as in O2ARC; a cell sent outside the grid is dropped. Returns
 * the new grid and the cells that landed inside it (in reading order), i.e. the new selection.
 */
export function moveCells(g: Grid, cells: readonly Cell[], to: (cell: Cell) => Cell): { grid: Grid; cells: Cell[] } {
  const out = cloneGrid(g);
  const inside = cells.filter((c) => inBounds(g, c.row, c.col));
  for (const { row, col } of inside) out[row][col] = 0;
  const landed: Cell[] = [];
  for (const cell of inside) {
    const t = to(cell);
    if (!inBounds(g, t.row, t.col)) continue;
    out[t.row][t.col] = g[cell.row][cell.col];
    landed.push(t);
  }
  landed.sort((a, b) => a.row - b.row || a.col - b.col);
  return { grid: out, cells: landed };
}
