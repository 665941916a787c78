/**
 * Drawing and level-data helpers for game authors: ASCII maps, sprites, boards, HUDs.
 * All drawing clips at the frame's edges, so a sprite may hang over it.
 */
import { FRAME_SIZE, type Frame } from './types';

/** Sets one cell (ignored outside the frame). */
export function setCell(frame: Frame, x: number, y: number, colour: number): void {
  if (x >= 0 && y >= 0 && x < FRAME_SIZE && y < FRAME_SIZE) frame[y * FRAME_SIZE + x] = colour;
}

/** Fills a `w` x `h` rectangle whose top left is (x, y). */
export function fillRect(frame: Frame, x: number, y: number, w: number, h: number, colour: number): void {
  const x0 = Math.max(0, x),
    y0 = Math.max(0, y);
  const x1 = Math.min(FRAME_SIZE, x + w),
    y1 = Math.min(FRAME_SIZE, y + h);
  for (let yy = y0; yy < y1; yy++) frame.fill(colour, yy * FRAME_SIZE + x0, yy * FRAME_SIZE + x1);
}

/** Draws a one-cell outline of a rectangle. */
export function strokeRect(frame: Frame, x: number, y: number, w: number, h: number, colour: number): void {
  fillRect(frame, x, y, w, 1, colour);
  fillRect(frame, x, y + h - 1, w, 1, colour);
  fillRect(frame, x, y, 1, h, colour);
  fillRect(frame, x + w - 1, y, 1, h, colour);
}

/** A small picture: `pixels[y * w + x]` is a palette index, or -1 for transparent. */
export interface Sprite {
  readonly w: number;
  readonly h: number;
  readonly pixels: Int8Array;
}

/**
 * Builds a sprite from rows of characters: `0`-`9` and `a`-`f` are palette indices 0-15, `.`
 * is transparent; `legend` may add other characters.
 * @example const agent = sprite(['.cc.', 'cccc', 'c..c']);
 */
export function sprite(rows: readonly string[], legend: Readonly<Record<string, number>> = {}): Sprite {
  const h = rows.length;
  const w = Math.max(...rows.map((r) => r.length));
  const pixels = new Int8Array(w * h).fill(-1);
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) {
      const ch = row[x];
      const v = ch in legend ? legend[ch] : ch === '.' ? -1 : parseInt(ch, 16);
      if (Number.isNaN(v)) throw new Error(`sprite row ${y + 1} has "${ch}": use 0-9, a-f, "." or a legend character.`);
      pixels[y * w + x] = v;
    }
  });
  return { w, h, pixels };
}

/** Draws a sprite with its top left at (x, y); `tint` paints every opaque pixel in one colour. */
export function drawSprite(frame: Frame, s: Sprite, x: number, y: number, tint = -1): void {
  for (let sy = 0; sy < s.h; sy++) {
    const fy = y + sy;
    if (fy < 0 || fy >= FRAME_SIZE) continue;
    for (let sx = 0; sx < s.w; sx++) {
      const v = s.pixels[sy * s.w + sx];
      const fx = x + sx;
      if (v >= 0 && fx >= 0 && fx < FRAME_SIZE) frame[fy * FRAME_SIZE + fx] = tint >= 0 ? tint : v;
    }
  }
}

/** A level drawn as text, one character per board cell. */
export interface AsciiMap {
  readonly width: number;
  readonly height: number;
  readonly rows: readonly string[];
  /** The character at column x, row y (a space beyond a short row). */
  at(x: number, y: number): string;
  /** Every [x, y] holding `ch`, row by row. */
  find(ch: string): [number, number][];
}

/**
 * Parses a map written in a template string: blank first and last lines and the common
 * indentation are dropped, so maps can be indented with the code.
 * @example parseMap(`
 *   #####
 *   #@.o#
 *   #####`)
 */
export function parseMap(text: string): AsciiMap {
  const lines = text.replace(/\r/g, '').split('\n');
  while (lines.length && lines[0].trim() === '') lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  const rows = lines.map((l) => l.slice(indent).trimEnd());
  const width = Math.max(...rows.map((r) => r.length));
  return {
    width,
    height: rows.length,
    rows,
    at: (x, y) => rows[y]?.[x] ?? ' ',
    find(ch) {
      const out: [number, number][] = [];
      rows.forEach((r, y) => {
        for (let x = 0; x < r.length; x++) if (r[x] === ch) out.push([x, y]);
      });
      return out;
    },
  };
}

/** Where a board of `cols` x `rows` cells of `cell` pixels sits, centred below `top` rows of HUD. */
export interface Board {
  readonly x0: number;
  readonly y0: number;
  readonly cell: number;
  readonly cols: number;
  readonly rows: number;
}

export function board(cols: number, rows: number, cell: number, top = 0): Board {
  const x0 = Math.floor((FRAME_SIZE - cols * cell) / 2);
  const y0 = top + Math.floor((FRAME_SIZE - top - rows * cell) / 2);
  if (x0 < 0 || y0 < top)
    throw new Error(`a ${cols}x${rows} board of ${cell}-cell squares does not fit under ${top} HUD rows.`);
  return { x0, y0, cell, cols, rows };
}

/** The board cell under frame cell (px, py), or -1 when outside the board. */
export function boardCellAt(b: Board, px: number, py: number): number {
  const cx = Math.floor((px - b.x0) / b.cell),
    cy = Math.floor((py - b.y0) / b.cell);
  return cx >= 0 && cy >= 0 && cx < b.cols && cy < b.rows ? cy * b.cols + cx : -1;
}

/**
 * A HUD bar: `w` x `h` with the first `value / max` of it in `fg`, the rest in `bg`.
 * Players read it as a budget that drains.
 */
export function drawBar(
  frame: Frame,
  x: number,
  y: number,
  w: number,
  h: number,
  value: number,
  max: number,
  fg: number,
  bg: number,
): void {
  const full = max <= 0 ? 0 : Math.round((Math.max(0, Math.min(value, max)) / max) * w);
  fillRect(frame, x, y, full, h, fg);
  fillRect(frame, x + full, y, w - full, h, bg);
}

/** A HUD row of `max` squares of `size`, the first `value` in `on`, the rest in `off` (lives, charges). */
export function drawPips(
  frame: Frame,
  x: number,
  y: number,
  value: number,
  max: number,
  size: number,
  on: number,
  off: number,
  gap = 1,
): void {
  for (let i = 0; i < max; i++) fillRect(frame, x + i * (size + gap), y, size, size, i < value ? on : off);
}
