/**
 * Every one of the 800 ARC-AGI-1 tasks (`../shared/data/arc-agi-1`) parses, and every grid in it
 * (each demonstration pair's and each test input) is drawn by the player's `renderGrid` with each
 * cell in its palette colour. The browser opens a sample of them (`e2e/all-tasks.spec.ts`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTaskText } from '../../core/formats/arcTask';
import { ARC_PALETTE } from '../../core/grid/palette';
import type { Grid } from '../../core/grid/grid';
import { canvasSize, renderGrid } from './render';

const ARC_AGI_1 = path.resolve(__dirname, '../../../../shared/data/arc-agi-1');
const ids = ['evaluation', 'training'].flatMap((dir) =>
  readdirSync(path.join(ARC_AGI_1, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => `${dir}/${f.replace(/\.json$/, '')}`),
);

/** A 2D context that keeps the colour of every pixel `fillRect` covers: enough for `renderGrid`'s cells. */
function pixelCanvas() {
  let pixels: string[] = [];
  const canvas = {
    width: 0,
    height: 0,
    style: {} as Record<string, string>,
    getContext: () => ctx,
  };
  const ctx = {
    fillStyle: '',
    fillRect(x: number, y: number, w: number, h: number) {
      if (pixels.length !== canvas.width * canvas.height)
        pixels = new Array<string>(canvas.width * canvas.height).fill('');
      for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) pixels[j * canvas.width + i] = this.fillStyle;
    },
  };
  return { canvas: canvas as unknown as HTMLCanvasElement, at: (x: number, y: number) => pixels[y * canvas.width + x] };
}

/** Draws the grid at 8 px a cell and reads back each cell's centre. */
function drawn(grid: Grid): number[][] {
  const { canvas, at } = pixelCanvas();
  const cell = 8;
  renderGrid(canvas, grid, { cell, dpr: 1, showSymbols: false, selection: null });
  const { width, height } = canvasSize(grid.length, grid[0].length, cell);
  expect([canvas.width, canvas.height]).toEqual([width, height]);
  const byHex = new Map(ARC_PALETTE.map((p, i) => [p.hex, i]));
  return grid.map((row, r) => row.map((_, c) => byHex.get(at(c * cell + cell / 2, r * cell + cell / 2)) ?? -1));
}

describe('the 800 ARC-AGI-1 tasks', () => {
  it('parse, and draw every cell of every grid in its colour', () => {
    expect(ids).toHaveLength(800);
    for (const id of ids) {
      const parsed = parseTaskText(readFileSync(path.join(ARC_AGI_1, `${id}.json`), 'utf8'));
      if (!parsed.ok) throw new Error(`${id}: ${JSON.stringify(parsed.problems)}`);
      const { task } = parsed;
      expect(task.train.length, id).toBeGreaterThan(0);
      expect(task.test.length, id).toBeGreaterThan(0);
      for (const grid of [...task.train.flatMap((p) => [p.input, p.output]), ...task.test.map((t) => t.input)]) {
        expect(drawn(grid), id).toEqual(grid);
      }
    }
  }, 300_000);
});
