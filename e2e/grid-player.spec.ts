import { expect, test } from './studio-test';
import { readFile } from 'node:fs/promises';
import { parseJsonl } from '../src/core/log/events';
import { currentTest, replay, replayOutputs } from '../src/core/log/gridPlayer';
import { arcTask, clickCell, dragCells, expectOutput, openTask, picture, resizeTo, screenGrid } from './helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

test.describe('the grid-task player', () => {
  test('solves a real ARC-AGI-1 task with select, copy, resize and paste, and the downloaded log replays to the grid on screen', async ({
    page,
  }) => {
    const id = 'training/007bbfb7';
    const task = arcTask(id);
    const input = task.test[0].input;
    await openTask(page, 'arc-agi-1', id);
    await expect(page.getByTestId('test-position')).toHaveText('Test 1 / 1');
    await expectOutput(page, [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);

    // Select the whole test input and copy it.
    await page.keyboard.press('s');
    await dragCells(page, 'input-grid', [
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    await page.keyboard.press('c');
    await expect(page.getByTestId('status')).toContainText('Copied 3x3 cells');

    await resizeTo(page, '9x9');
    await expect(page.getByTestId('output-grid-size')).toHaveText('9x9');

    // The rule: a copy of the input wherever the input has a coloured cell.
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) {
        if (input[r][c] === 0) continue;
        await clickCell(page, 'output-grid', 3 * r, 3 * c);
        await page.keyboard.press('v');
      }
    }
    await expectOutput(page, task.test[0].output!);
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.getByTestId('status')).toHaveText('Correct! The task is solved.');
    await expect(page.getByTestId('task-result')).toHaveText('Task solved');
    await expect(page.getByTestId('trials')).toContainText('Solved');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download log' }).click();
    const text = await readFile(await (await download).path(), 'utf8');
    const { events, errors } = parseJsonl(text);
    expect(errors).toEqual([]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.some((e) => e.t % 1 !== 0)).toBe(true);
    const kinds = new Set(events.map((e) => e.kind));
    for (const k of ['session.start', 'task.open', 'tool', 'select', 'copy', 'resize', 'paste', 'submit'])
      expect(kinds).toContain(k);
    const final = replay(events);
    expect(currentTest(final)!.output).toEqual(await screenGrid(page, 'output-grid'));
    expect(final.tests[0].status).toBe('solved');
    // Every intermediate grid: the 3x3 start, the resize, one per paste.
    const pastes = input.flat().filter((v) => v !== 0).length;
    expect(replayOutputs(events).length).toBe(2 + pastes);
  });

  test('solves a 20x20 task with copy from input and flood fill', async ({ page }) => {
    const id = 'training/00d62c1b';
    const task = arcTask(id);
    const answer = task.test[0].output!;
    await openTask(page, 'arc-agi-1', id);
    await page.getByRole('button', { name: 'Copy from input' }).click();
    await expectOutput(page, task.test[0].input);
    await page.keyboard.press('f');
    await page.keyboard.press('4');
    for (let r = 0; r < answer.length; r++) {
      for (let c = 0; c < answer[0].length; c++) {
        const now = await screenGrid(page, 'output-grid');
        if (now[r][c] !== answer[r][c]) await clickCell(page, 'output-grid', r, c);
      }
    }
    await expectOutput(page, answer);
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.getByTestId('task-result')).toHaveText('Task solved');
  });

  test('a wrong answer uses a trial, an identical one is refused, a too-wide grid is wrong, and the third trial ends the test input', async ({
    page,
  }) => {
    const id = 'training/25ff71a9';
    const task = arcTask(id);
    await openTask(page, 'arc-agi-1', id);
    await expect(page.getByTestId('test-position')).toHaveText('Test 1 / 2');
    const submit = page.getByRole('button', { name: 'Submit' });

    await submit.click();
    await expect(page.getByTestId('status')).toHaveText('Not correct. 2 trials left for test input 1.');
    await expect(page.getByTestId('trials')).toContainText('Trial 2 of 3');

    await submit.click();
    await expect(page.getByTestId('status')).toContainText('already submitted exactly this grid');
    await expect(page.getByTestId('trials')).toContainText('Trial 2 of 3');

    // The right answer with one extra column: the original interface accepted this; here it is wrong.
    const answer = task.test[0].output!;
    await resizeTo(page, `${answer.length}x${answer[0].length + 1}`);
    for (let r = 0; r < answer.length; r++) {
      for (let c = 0; c < answer[0].length; c++) {
        if (answer[r][c] === 0) continue;
        await page.keyboard.press(String(answer[r][c]));
        await clickCell(page, 'output-grid', r, c);
      }
    }
    await expectOutput(
      page,
      answer.map((row) => [...row, 0]),
    );
    await submit.click();
    await expect(page.getByTestId('status')).toHaveText('Not correct. 1 trial left for test input 1.');

    await page.keyboard.press('Control+z');
    await submit.click();
    await expect(page.getByTestId('status')).toHaveText('Not correct, and that was the last trial for test input 1.');
    // The test input is finished: the player moves to the next one.
    await expect(page.getByTestId('test-position')).toHaveText('Test 2 / 2');
    await expect(page.getByTestId('trials')).toContainText('Trial 1 of 3');

    const answer2 = task.test[1].output!;
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) {
        if (answer2[r][c] === 0) continue;
        await page.keyboard.press(String(answer2[r][c]));
        await clickCell(page, 'output-grid', r, c);
      }
    await submit.click();
    await expect(page.getByTestId('task-result')).toHaveText('Task finished');
    await page.getByRole('button', { name: 'Previous test input' }).click();
    await expect(page.getByTestId('trials')).toContainText('No trials left');
  });

  test('undo and redo every grid change with the keyboard; a drag is one step', async ({ page }) => {
    await openTask(page, 'arc-agi-1', 'training/3aa6fb7a');
    await page.keyboard.press('2');
    await dragCells(page, 'output-grid', [
      [0, 0],
      [0, 1],
      [0, 2],
    ]);
    await expectOutput(page, [
      [2, 2, 2],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    await clickCell(page, 'output-grid', 2, 2);
    await expectOutput(page, [
      [2, 2, 2],
      [0, 0, 0],
      [0, 0, 2],
    ]);
    await page.keyboard.press('Control+z');
    await expectOutput(page, [
      [2, 2, 2],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    await page.keyboard.press('Control+z');
    await expectOutput(page, [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    await page.keyboard.press('Control+Shift+z');
    await expectOutput(page, [
      [2, 2, 2],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    await page.keyboard.press('Control+y');
    await expectOutput(page, [
      [2, 2, 2],
      [0, 0, 0],
      [0, 0, 2],
    ]);
    await page.getByRole('button', { name: 'Reset grid' }).click();
    await expectOutput(page, [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expectOutput(page, [
      [2, 2, 2],
      [0, 0, 0],
      [0, 0, 2],
    ]);
  });

  test('copy from the input and paste at the selected output cell, cells outside the grid dropped; the pasted block stays selected, so Flip and a drag act on it', async ({
    page,
  }) => {
    const id = 'training/3aa6fb7a';
    const input = arcTask(id).test[0].input;
    await openTask(page, 'arc-agi-1', id);
    await resizeTo(page, '5x5');
    await page.keyboard.press('s');
    await dragCells(page, 'input-grid', [
      [1, 1],
      [3, 3],
    ]);
    await page.keyboard.press('Control+c');
    await clickCell(page, 'output-grid', 3, 3);
    await page.keyboard.press('Control+v');
    const expected = Array.from({ length: 5 }, (_, r) =>
      Array.from({ length: 5 }, (_, c) => (r >= 3 && c >= 3 ? input[r - 2][c - 2] : 0)),
    );
    await expectOutput(page, expected);
    await expect(page.getByTestId('output-grid-size')).toHaveText('5x5');

    // The pasted block (its cells inside the grid) is still selected: Flip mirrors it alone...
    await page.keyboard.press('x');
    const flipped = expected.map((row, r) => row.map((v, c) => (r >= 3 && c >= 3 ? expected[r][7 - c] : v)));
    await expectOutput(page, flipped);
    // ...and a drag from one of its cells moves the whole block, leaving black behind.
    await dragCells(page, 'output-grid', [
      [3, 3],
      [2, 2],
    ]);
    const moved = Array.from({ length: 5 }, (_, r) =>
      Array.from({ length: 5 }, (_, c) => (r >= 2 && r <= 3 && c >= 2 && c <= 3 ? flipped[r + 1][c + 1] : 0)),
    );
    await expectOutput(page, moved);

    // With output cells selected, picking a colour recolours them.
    await dragCells(page, 'output-grid', [
      [0, 0],
      [1, 1],
    ]);
    await page.keyboard.press('7');
    const recoloured = moved.map((row, r) => row.map((v, c) => (r <= 1 && c <= 1 ? 7 : v)));
    await expectOutput(page, recoloured);
  });

  test('sizes are typed as HxW with a clear message for anything else, and shortcuts never fire while typing', async ({
    page,
  }) => {
    await openTask(page, 'arc-agi-1', 'training/3aa6fb7a');
    await resizeTo(page, '31x2');
    await expect(page.getByRole('alert')).toContainText('31x2 is out of range');
    await resizeTo(page, 'big');
    await expect(page.getByRole('alert')).toContainText('is not a size');
    await expect(page.getByTestId('output-grid-size')).toHaveText('3x3');
    // Typing digits and letters into the field picks no colour and no tool.
    await page.getByLabel('Size').fill('');
    await page.getByLabel('Size').pressSequentially('4x5');
    await expect(page.getByRole('radio', { name: /^Colour 1 / })).toHaveAttribute('aria-checked', 'true');
    await page.getByLabel('Size').press('Enter');
    await expect(page.getByTestId('output-grid-size')).toHaveText('4x5');
    await expectOutput(
      page,
      Array.from({ length: 4 }, () => [0, 0, 0, 0, 0]),
    );
    await page.getByLabel('Show symbol numbers').check();
    await expect(page.getByRole('radio', { name: /^Colour 3 / })).toHaveText('3');
  });
});

test('30x30 grids fit a 1280x800 window without scrolling', async ({ page }) => {
  const id = 'evaluation/05a7bcf2';
  await openTask(page, 'arc-agi-1', id);
  await resizeTo(page, '30x30');
  await expect(page.getByTestId('output-grid-size')).toHaveText('30x30');
  const doc = await page.evaluate(() => ({
    w: document.documentElement.scrollWidth,
    h: document.documentElement.scrollHeight,
  }));
  expect(doc).toEqual({ w: 1280, h: 800 });
  for (const grid of ['input-grid', 'output-grid'] as const) {
    const box = (await page.getByTestId(grid).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(800);
    expect(box.x + box.width).toBeLessThanOrEqual(1280);
    // At least 10 CSS pixels a cell: readable, and whole pixels keep the lines crisp.
    expect(box.width / 30).toBeGreaterThanOrEqual(10);
    expect(Number.isInteger((box.width - 1) / 30)).toBe(true);
  }
  await expect(page.getByRole('button', { name: 'Submit' })).toBeInViewport();
});

test('on a tablet the demonstrations strip says how many examples there are and shows those beyond its edge', async ({
  page,
}) => {
  await page.setViewportSize({ width: 768, height: 1024 });
  await openTask(page, 'arc-agi-1', 'training/0d3d703e');
  const strip = page.getByTestId('demonstrations');
  await expect(strip.getByTestId('demo-count')).toHaveText('(4 examples)');
  const pairs = strip.getByTestId('demo-pair');
  await expect(pairs).toHaveCount(4);
  await expect(pairs.nth(3)).not.toBeInViewport({ ratio: 1 });
  const more = strip.getByRole('button', { name: /^More examples \(\d\) ›$/ });
  await expect(more).toBeVisible();
  await picture(page, 'demonstrations-strip-768');
  await more.click();
  await expect(pairs.nth(3)).toBeInViewport({ ratio: 1 });
  // Scrolled to its end, nothing is left beyond the edge.
  await expect(more).toHaveCount(0);
});

test.describe('on a touch screen', () => {
  test.use({ hasTouch: true });
  test('a tap paints a cell and a tap with the fill tool fills', async ({ page }) => {
    await openTask(page, 'arc-agi-1', 'training/3aa6fb7a');
    await page.getByRole('radio', { name: /^Colour 8 / }).tap();
    const box = (await page.getByTestId('output-grid').boundingBox())!;
    await page.touchscreen.tap(box.x + box.width / 6, box.y + box.height / 6);
    await expectOutput(page, [
      [8, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    await page.getByRole('button', { name: /Flood fill/ }).tap();
    await page.getByRole('radio', { name: /^Colour 3 / }).tap();
    await page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
    await expectOutput(page, [
      [8, 3, 3],
      [3, 3, 3],
      [3, 3, 3],
    ]);
  });
});
