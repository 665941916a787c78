/**
 * Draws an ARC grid on a canvas. Rendering is a plain function of (grid, view): React owns
 * neither the pixels nor the grid, so a paint stroke redraws without a React render of the page.
 */
import { ARC_PALETTE, symbolTextColor } from '../../core/grid/palette';
import type { Cell, Grid, Rect } from '../../core/grid/grid';

export interface GridView {
  /** CSS pixels per cell. */
  readonly cell: number;
  /** Device pixels per CSS pixel. */
  readonly dpr: number;
  readonly showSymbols: boolean;
  /** Cells to outline as selected, or null. */
  readonly selection: Rect | null;
  /** A selection that is not a whole rectangle (magic wand, Shift to add): outlined cell by cell. */
  readonly selectedCells?: readonly Cell[] | null;
  /** The keyboard's cell cursor, drawn as a bright frame; null when the grid has no focus. */
  readonly cursor?: Cell | null;
}

const CURSOR = '#38bdf8';

const LINE = '#3b4658';
const SELECT_FILL = 'rgba(255,255,255,0.18)';

/** The canvas size in CSS pixels for a grid drawn at `cell` pixels per cell (1px border included). */
export function canvasSize(rows: number, cols: number, cell: number): { width: number; height: number } {
  return { width: cols * cell + 1, height: rows * cell + 1 };
}

/**
 * Sizes the canvas backing store for the device pixel ratio and draws every cell. Cell edges are
 * rounded to whole device pixels so that lines stay sharp at any zoom.
 */
export function renderGrid(canvas: HTMLCanvasElement, grid: Grid, view: GridView): void {
  const rows = grid.length;
  const cols = rows ? grid[0].length : 0;
  const { width, height } = canvasSize(rows, cols, view.cell);
  const pw = Math.round(width * view.dpr);
  const ph = Math.round(height * view.dpr);
  if (canvas.width !== pw) canvas.width = pw;
  if (canvas.height !== ph) canvas.height = ph;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const k = view.cell * view.dpr;
  const gap = view.cell >= 6 ? Math.max(1, Math.round(view.dpr)) : 0;
  const edge = (i: number) => Math.round(i * k);
  ctx.fillStyle = LINE;
  ctx.fillRect(0, 0, pw, ph);
  for (let r = 0; r < rows; r++) {
    const y0 = edge(r) + gap;
    const y1 = edge(r + 1);
    const row = grid[r];
    for (let c = 0; c < cols; c++) {
      const x0 = edge(c) + gap;
      ctx.fillStyle = ARC_PALETTE[row[c]]?.hex ?? '#ff00ff';
      ctx.fillRect(x0, y0, edge(c + 1) - x0, y1 - y0);
    }
  }
  if (view.showSymbols && view.cell >= 10) {
    ctx.font = `${Math.round(k * 0.55)}px ui-monospace, monospace`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const v = grid[r][c];
        ctx.fillStyle = symbolTextColor(v);
        ctx.fillText(String(v), (edge(c) + edge(c + 1) + gap) / 2, (edge(r) + edge(r + 1) + gap) / 2 + k * 0.04);
      }
    }
  }
  if (view.selectedCells?.length) {
    drawCellSet(ctx, view.selectedCells, edge, gap, view.dpr);
  } else if (view.selection) {
    const s = view.selection;
    const x0 = edge(s.c0);
    const y0 = edge(s.r0);
    const x1 = edge(s.c1 + 1) + gap;
    const y1 = edge(s.r1 + 1) + gap;
    ctx.fillStyle = SELECT_FILL;
    ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
    const lw = Math.max(2, Math.round(2 * view.dpr));
    ctx.lineWidth = lw;
    ctx.setLineDash([4 * view.dpr, 3 * view.dpr]);
    ctx.strokeStyle = '#ffffff';
    ctx.strokeRect(x0 + lw / 2, y0 + lw / 2, x1 - x0 - lw, y1 - y0 - lw);
    ctx.lineDashOffset = 4 * view.dpr;
    ctx.strokeStyle = '#000000';
    ctx.strokeRect(x0 + lw / 2, y0 + lw / 2, x1 - x0 - lw, y1 - y0 - lw);
    ctx.setLineDash([]);
    ctx.lineDashOffset = 0;
  }
  if (view.cursor && view.cursor.row < rows && view.cursor.col < cols) {
    const { row, col } = view.cursor;
    const lw = Math.max(2, Math.round(2 * view.dpr));
    const x0 = edge(col);
    const y0 = edge(row);
    const w = edge(col + 1) + gap - x0;
    const h = edge(row + 1) + gap - y0;
    ctx.lineWidth = lw;
    ctx.strokeStyle = '#0f172a';
    ctx.strokeRect(x0 + lw * 1.5, y0 + lw * 1.5, w - lw * 3, h - lw * 3);
    ctx.strokeStyle = CURSOR;
    ctx.strokeRect(x0 + lw / 2, y0 + lw / 2, w - lw, h - lw);
  }
}

/**
 * Shades a set of cells and outlines its boundary (the sides of a cell whose neighbour is not
 * in the set), in the same black-and-white dashes as a rectangle selection.
 */
function drawCellSet(
  ctx: CanvasRenderingContext2D,
  cells: readonly Cell[],
  edge: (i: number) => number,
  gap: number,
  dpr: number,
): void {
  const key = (r: number, c: number) => `${r},${c}`;
  const set = new Set(cells.map((c) => key(c.row, c.col)));
  ctx.fillStyle = SELECT_FILL;
  for (const { row, col } of cells)
    ctx.fillRect(edge(col), edge(row), edge(col + 1) + gap - edge(col), edge(row + 1) + gap - edge(row));
  const lw = Math.max(2, Math.round(2 * dpr));
  const path = new Path2D();
  for (const { row, col } of cells) {
    const x0 = edge(col) + lw / 2;
    const y0 = edge(row) + lw / 2;
    const x1 = edge(col + 1) + gap - lw / 2;
    const y1 = edge(row + 1) + gap - lw / 2;
    if (!set.has(key(row - 1, col))) {
      path.moveTo(x0, y0);
      path.lineTo(x1, y0);
    }
    if (!set.has(key(row + 1, col))) {
      path.moveTo(x0, y1);
      path.lineTo(x1, y1);
    }
    if (!set.has(key(row, col - 1))) {
      path.moveTo(x0, y0);
      path.lineTo(x0, y1);
    }
    if (!set.has(key(row, col + 1))) {
      path.moveTo(x1, y0);
      path.lineTo(x1, y1);
    }
  }
  ctx.lineWidth = lw;
  ctx.setLineDash([4 * dpr, 3 * dpr]);
  ctx.strokeStyle = '#ffffff';
  ctx.stroke(path);
  ctx.lineDashOffset = 4 * dpr;
  ctx.strokeStyle = '#000000';
  ctx.stroke(path);
  ctx.setLineDash([]);
  ctx.lineDashOffset = 0;
}

/** The cell under a pointer position (client coordinates), clamped to the grid when `clamp`. */
export function cellAt(
  canvas: HTMLCanvasElement,
  rows: number,
  cols: number,
  clientX: number,
  clientY: number,
  clamp: boolean,
): { row: number; col: number } | null {
  const rect = canvas.getBoundingClientRect();
  const col = Math.floor(((clientX - rect.left) / rect.width) * cols);
  const row = Math.floor(((clientY - rect.top) / rect.height) * rows);
  if (clamp) return { row: Math.min(rows - 1, Math.max(0, row)), col: Math.min(cols - 1, Math.max(0, col)) };
  return row >= 0 && col >= 0 && row < rows && col < cols ? { row, col } : null;
}
