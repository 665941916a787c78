/**
 * The O2ARC-style tools of the grid player (rotate, flip, move, magic wand, add to selection,
 * crop), each used with the pointer and with keys on real ARC-AGI-1 tasks, the downloaded log
 * replayed to the grid on screen; and a task solved with the keyboard alone.
 */
import { expect, test, type Page } from './studio-test';
import { seriousViolations } from './axe';
import { readFile } from 'node:fs/promises';
import { parseJsonl, type LogEvent } from '../src/core/log/events';
import { currentTest, replay } from '../src/core/log/gridPlayer';
import { type Grid, flipGrid, moveCells, rotateGrid } from '../src/core/grid/grid';
import {
  arcTask,
  clickCell,
  dragCells,
  expectOutput,
  openTask,
  resizeTo,
  screenGrid,
  type GridId,
  picture,
} from './helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

/** Downloads the practice log and checks that replaying it rebuilds the output on screen. */
async function downloadAndReplay(page: Page): Promise<LogEvent[]> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download log' }).click();
  const { events, errors } = parseJsonl(await readFile(await (await download).path(), 'utf8'));
  expect(errors).toEqual([]);
  expect(currentTest(replay(events))!.output).toEqual(await screenGrid(page, 'output-grid'));
  return events;
}

/** Moves a grid's keyboard cursor to a cell with the arrow keys (focusing the grid first). */
async function cursorTo(page: Page, id: GridId, row: number, col: number): Promise<void> {
  const grid = page.getByTestId(id);
  if ((await grid.getAttribute('data-cursor')) === null) {
    // The first arrow focuses the grid (the output when nothing has the focus) and shows its cursor.
    await page.keyboard.press('ArrowLeft');
    await expect(grid).toHaveAttribute('data-cursor', /\d+,\d+/);
  }
  const [r, c] = (await grid.getAttribute('data-cursor'))!.split(',').map(Number);
  for (let i = r; i < row; i++) await page.keyboard.press('ArrowDown');
  for (let i = r; i > row; i--) await page.keyboard.press('ArrowUp');
  for (let i = c; i < col; i++) await page.keyboard.press('ArrowRight');
  for (let i = c; i > col; i--) await page.keyboard.press('ArrowLeft');
  await expect(grid).toHaveAttribute('data-cursor', `${row},${col}`);
}

const block = (g: Grid, r0: number, c0: number, r1: number, c1: number) =>
  g.slice(r0, r1 + 1).map((row) => row.slice(c0, c1 + 1));
const cellsOf = (r0: number, c0: number, r1: number, c1: number) =>
  Array.from({ length: (r1 - r0 + 1) * (c1 - c0 + 1) }, (_, i) => ({
    row: r0 + Math.floor(i / (c1 - c0 + 1)),
    col: c0 + (i % (c1 - c0 + 1)),
  }));

// training/1cf80156: keep the one shape, cropped to its bounding box.
const CROP_TASK = 'training/1cf80156';

test.describe('grid tools', () => {
  test('wand (its copy pastes only its cells), crop, rotate, flip, move by drag and Shift to add, with the pointer; the log replays', async ({
    page,
  }) => {
    const answer = arcTask(CROP_TASK).test[0].output!;
    await openTask(page, 'arc-agi-1', CROP_TASK);

    // A wand selection copied from the input pastes only its own cells: the green between them stays.
    await resizeTo(page, '4x6');
    await page.getByRole('button', { name: /^Flood fill/ }).click();
    await page.keyboard.press('3');
    await clickCell(page, 'output-grid', 0, 0);
    await page.getByRole('button', { name: /^Wand/ }).click();
    await clickCell(page, 'input-grid', 4, 4);
    await page.getByRole('button', { name: /^Copy C/ }).click();
    await expect(page.getByTestId('status')).toContainText('Copied 11 selected cells (a 4x6 block)');
    await clickCell(page, 'output-grid', 0, 0);
    await page.getByRole('button', { name: /^Paste/ }).click();
    await expectOutput(
      page,
      answer.map((row) => row.map((v) => (v === 0 ? 3 : v))),
    );

    await page.getByRole('button', { name: 'Copy from input' }).click();

    // The magic wand selects the shape (4-connected, one colour), and crop keeps its bounding box.
    await page.getByRole('button', { name: /^Wand/ }).click();
    await clickCell(page, 'output-grid', 4, 4);
    await page.getByRole('button', { name: /^Crop/ }).click();
    await expectOutput(page, answer);

    // With nothing selected, rotate and flip act on the whole output; a 4x6 grid turns to 6x4.
    await page.getByRole('button', { name: /^Rotate ↻/ }).click();
    await expectOutput(page, rotateGrid(answer, 'cw'));
    await expect(page.getByTestId('output-grid-size')).toHaveText('6x4');
    await page.getByRole('button', { name: /^Rotate ↺/ }).click();
    await expectOutput(page, answer);
    await page.getByRole('button', { name: /^Flip ↔/ }).click();
    await page.getByRole('button', { name: /^Flip ↕/ }).click();
    await expectOutput(page, flipGrid(flipGrid(answer, 'horizontal'), 'vertical'));
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.getByRole('button', { name: 'Undo' }).click();
    await expectOutput(page, answer);

    // Drag out a selection, then drag it by one of its cells: it moves, leaving black behind.
    await page.getByRole('button', { name: /^Select/ }).click();
    await dragCells(page, 'output-grid', [
      [0, 2],
      [1, 5],
    ]);
    await dragCells(page, 'output-grid', [
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    const moved = moveCells(answer, cellsOf(0, 2, 1, 5), (c) => ({ row: c.row + 2, col: c.col })).grid;
    await expectOutput(page, moved);
    await page.keyboard.press('Control+z');
    await expectOutput(page, answer);

    // Shift adds a second rectangle: picking a colour recolours both, and nothing between them.
    await dragCells(page, 'output-grid', [
      [0, 0],
      [0, 1],
    ]);
    await page.keyboard.down('Shift');
    await dragCells(page, 'output-grid', [
      [3, 4],
      [3, 5],
    ]);
    await page.keyboard.up('Shift');
    await page.getByRole('radio', { name: /^Colour 3 / }).click();
    const recoloured = answer.map((row, r) => row.map((v, c) => ((r === 0 && c <= 1) || (r === 3 && c >= 4) ? 3 : v)));
    await expectOutput(page, recoloured);
    await page.keyboard.press('Control+z');

    // A selection's content turns in place from its top-left corner.
    await dragCells(page, 'output-grid', [
      [2, 0],
      [3, 1],
    ]);
    await page.getByRole('button', { name: /^Rotate ↻/ }).click();
    expect(block(await screenGrid(page, 'output-grid'), 2, 0, 3, 1)).toEqual(
      rotateGrid(block(answer, 2, 0, 3, 1), 'cw'),
    );
    await page.getByRole('button', { name: 'Undo' }).click();
    await expectOutput(page, answer);

    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.getByTestId('task-result')).toHaveText('Task solved');
    const events = await downloadAndReplay(page);
    const kinds = new Set(events.map((e) => e.kind));
    for (const k of ['select.wand', 'crop', 'rotate', 'flip', 'move', 'select', 'recolor', 'undo'])
      expect(kinds).toContain(k);
    expect(events.some((e) => e.kind === 'paste' && Array.isArray(e.data.cells))).toBe(true);
    expect(events.some((e) => e.kind === 'select' && e.data.add === true)).toBe(true);
    expect(replay(events).tests[0].status).toBe('solved');
  });

  test('the same tools by keys: wand, crop, rotate, flip, Shift+arrows, arrows move, copy, paste and fill at the cursor', async ({
    page,
  }) => {
    const task = arcTask(CROP_TASK);
    const answer = task.test[0].output!;
    await openTask(page, 'arc-agi-1', CROP_TASK);
    await page.keyboard.press('i');
    await expectOutput(page, task.test[0].input);

    await page.keyboard.press('w');
    await cursorTo(page, 'output-grid', 4, 4);
    await expect(page.getByTestId('output-grid')).toBeFocused();
    await page.keyboard.press('Space');
    await page.keyboard.press('k');
    await expectOutput(page, answer);

    await page.keyboard.press('r');
    await expectOutput(page, rotateGrid(answer, 'cw'));
    await page.keyboard.press('Shift+R');
    await page.keyboard.press('x');
    await expectOutput(page, flipGrid(answer, 'horizontal'));
    await page.keyboard.press('y');
    await expectOutput(page, flipGrid(flipGrid(answer, 'horizontal'), 'vertical'));
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    await expectOutput(page, answer);

    // Shift+arrows select from the cursor; plain arrows then move the selected cells.
    await cursorTo(page, 'output-grid', 0, 2);
    for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expectOutput(page, moveCells(answer, cellsOf(0, 2, 1, 5), (c) => ({ row: c.row + 2, col: c.col })).grid);
    await page.keyboard.press('Control+z');
    await page.keyboard.press('Control+z');
    await expectOutput(page, answer);

    // Copy a block, drop the selection, move the cursor and paste there.
    await cursorTo(page, 'output-grid', 2, 0);
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('c');
    await expect(page.getByTestId('status')).toContainText('Copied 2x1 cells');
    await page.keyboard.press('Escape');
    await cursorTo(page, 'output-grid', 0, 5);
    await page.keyboard.press('v');
    const pasted = answer.map((row, r) => row.map((v, c) => (c === 5 && r <= 1 ? answer[r + 2][0] : v)));
    await expectOutput(page, pasted);
    // The pasted block stays selected (a colour key would recolour it): drop it before filling.
    await page.keyboard.press('Escape');

    // Fill at the cursor, and the wand adds an area with Shift+Space.
    await page.keyboard.press('f');
    await page.keyboard.press('2');
    await cursorTo(page, 'output-grid', 1, 4);
    await page.keyboard.press('Space');
    const filled = await screenGrid(page, 'output-grid');
    expect(filled[1][3]).toBe(2);
    expect(filled[1][4]).toBe(2);
    await page.keyboard.press('w');
    await cursorTo(page, 'output-grid', 0, 0);
    await page.keyboard.press('Space');
    await cursorTo(page, 'output-grid', 3, 5);
    await page.keyboard.press('Shift+Space');
    await page.keyboard.press('9');
    const wanded = await screenGrid(page, 'output-grid');
    expect(wanded[0][0]).toBe(9);
    expect(wanded[3][5]).toBe(9);
    expect(wanded[0][2]).toBe(6);

    const events = await downloadAndReplay(page);
    const kinds = new Set(events.map((e) => e.kind));
    for (const k of ['select.wand', 'crop', 'rotate', 'flip', 'move', 'copy', 'paste', 'fill', 'recolor', 'undo'])
      expect(kinds).toContain(k);
  });

  test('a task solved with the keyboard alone: copy from input, colour, cursor, paint, submit', async ({ page }) => {
    const id = 'training/3aa6fb7a';
    const task = arcTask(id);
    const answer = task.test[0].output!;
    await openTask(page, 'arc-agi-1', id);
    await page.keyboard.press('i');
    await page.keyboard.press('1');
    const now = await screenGrid(page, 'output-grid');
    for (let r = 0; r < answer.length; r++) {
      for (let c = 0; c < answer[0].length; c++) {
        if (now[r][c] === answer[r][c]) continue;
        await cursorTo(page, 'output-grid', r, c);
        await page.keyboard.press('Space');
      }
    }
    await expectOutput(page, answer);
    await expect(page.getByTestId('output-grid')).toBeFocused();
    await page.keyboard.press('Control+Enter');
    await expect(page.getByTestId('status')).toHaveText('Correct! The task is solved.');
    await expect(page.getByTestId('task-result')).toHaveText('Task solved');
    const events = await downloadAndReplay(page);
    expect(events.filter((e) => e.kind === 'paint').length).toBe(
      answer.flat().filter((v, i) => v !== task.test[0].input.flat()[i]).length,
    );
  });

  test('the grids are named keyboard stops that Tab reaches, with a visible cursor; axe finds nothing serious', async ({
    page,
  }) => {
    await openTask(page, 'arc-agi-1', 'training/3aa6fb7a');
    const input = page.getByRole('application', { name: /^Test input, 7 by 7/ });
    const output = page.getByRole('application', { name: /^Your output, 3 by 3/ });
    await input.focus();
    await page.keyboard.press('Tab');
    await expect(output).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(output).toHaveAttribute('data-cursor', '1,0');
    await expect(page.getByTestId('output-grid-cursor')).toHaveText('Row 2, column 1: colour 0');
    await page.keyboard.press('Shift+Tab');
    await expect(input).toBeFocused();
    await page.keyboard.press('ArrowRight');
    await expect(input).toHaveAttribute('data-cursor', '0,1');
    await expect(output).not.toHaveAttribute('data-cursor', /./);
    // A wand selection (not a rectangle) on the output, the cursor shown, and the keys listed.
    await page.keyboard.press('i');
    await page.keyboard.press('w');
    await clickCell(page, 'output-grid', 0, 5);
    await page.keyboard.down('Shift');
    await clickCell(page, 'output-grid', 3, 3);
    await page.keyboard.up('Shift');
    await page.getByText('Keys', { exact: true }).click();
    await expect(page.getByTestId('keys-help')).toContainText('Shift+Arrows');
    await picture(page, 'grid-tools');
    expect(await seriousViolations(page)).toEqual([]);
    // Escape closes the list without dropping the selection; so does a press elsewhere.
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('keys-help')).not.toHaveAttribute('open', /.*/);
    await expect(page.getByRole('button', { name: /^Crop/ })).toBeEnabled();
    await page.getByText('Keys', { exact: true }).click();
    await expect(page.getByTestId('keys-help')).toHaveAttribute('open', '');
    await clickCell(page, 'input-grid', 0, 0);
    await expect(page.getByTestId('keys-help')).not.toHaveAttribute('open', /.*/);
  });
});
