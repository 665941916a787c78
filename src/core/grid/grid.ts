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
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < MIN_SIZE || cols < MIN_SIZE || rows > MAX_SIZE || cols > MAX_SIZE) {
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
  if (!m) return { ok: false, message: `"${text.trim()}" is not a size: type rows x columns, for example 3x3 or 10x12.` };
  const rows = Number(m[1]);
  const cols = Number(m[2]);
  if (rows < MIN_SIZE || cols < MIN_SIZE || rows > MAX_SIZE || cols > MAX_SIZE) {
    return { ok: false, message: `${rows}x${cols} is out of range: rows and columns must each be ${MIN_SIZE} to ${MAX_SIZE}.` };
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
    if (r > 0 && out[r - 1][c] === target) { out[r - 1][c] = value; changed++; stack[top++] = i - w; }
    if (r < h - 1 && out[r + 1][c] === target) { out[r + 1][c] = value; changed++; stack[top++] = i + w; }
    if (c > 0 && out[r][c - 1] === target) { out[r][c - 1] = value; changed++; stack[top++] = i - 1; }
    if (c < w - 1 && out[r][c + 1] === target) { out[r][c + 1] = value; changed++; stack[top++] = i + 1; }
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
 * dropped; the grid never grows.
 */
export function paste(g: Grid, block: Grid, row: number, col: number): Grid {
  const out = cloneGrid(g);
  const h = height(g);
  const w = width(g);
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
    if (e2 > -dr) { err -= dr; c += sc; }
    if (e2 < dc) { err += dc; r += sr; }
  }
  return cells;
}
