/**
 * The input benchmark taps as a touch screen does (`fingerTap`, src/bench/tap.ts), not through
 * Playwright's taps, which DevTools holds back for a frame. Its figures stand for a person's taps
 * only if those taps are taps: on a phone each is one touch press on what lies under it, and it
 * acts once, on a game's pad and frame and on a grid task's output.
 */
import { expect, test, type Page } from './studio-test';
import { parseActions } from '../src/core/game';
import { solutions } from '../src/games';
import { fingerTap, fingerTapOn } from '../src/bench/tap';
import { cellPoint, screenGrid } from './helpers';

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

/** Records every pointerdown's pointer type and target from now on. */
async function recordPresses(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { presses: string[] };
    w.presses = [];
    window.addEventListener(
      'pointerdown',
      (e) => w.presses.push(`${e.pointerType} ${(e.target as Element).closest('button, canvas')?.localName}`),
      true,
    );
  });
}

function presses(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { presses: string[] }).presses);
}

test("the benchmark's finger taps play flux's level 1 on the pad and the frame, one action per tap", async ({
  page,
}) => {
  await page.goto('/games/flux');
  const canvas = page.getByTestId('game-canvas');
  await expect(canvas).toHaveAttribute('data-frame-hash', /./);
  await recordPresses(page);
  const count = page.getByTestId('game-actions');
  const inputs = parseActions(solutions.flux[0]);
  expect(inputs.map((i) => i.action)).toContain('ACTION6');
  for (const [i, input] of inputs.entries()) {
    if (input.action === 'ACTION6') {
      await canvas.scrollIntoViewIfNeeded();
      const box = (await canvas.boundingBox())!;
      await fingerTap(page, box.x + ((input.x! + 0.5) * box.width) / 64, box.y + ((input.y! + 0.5) * box.height) / 64);
    } else {
      expect(input.action).toBe('ACTION4');
      await fingerTapOn(
        page.getByRole('group', { name: 'Game controls' }).getByRole('button', { name: 'Right (ACTION4)' }),
      );
    }
    await expect(count).toHaveText(String(i + 1));
  }
  await expect(canvas).toHaveAttribute('data-level', '1');
  expect(await presses(page)).toEqual(inputs.map((i) => (i.action === 'ACTION6' ? 'touch canvas' : 'touch button')));
});

test("the benchmark's finger tap paints one cell of a grid task's output", async ({ page }) => {
  await page.goto('/tasks/warm-ups/mirror-left-right');
  await expect(page.getByTestId('input-grid')).toBeVisible();
  // A phone shows one grid at a time, the test input first.
  await page.getByRole('button', { name: /^Your output/ }).tap();
  await expect(page.getByTestId('output-grid')).toBeVisible();
  await page.getByRole('radio', { name: /^Colour 4 / }).tap();
  await page.getByTestId('output-grid').scrollIntoViewIfNeeded();
  const before = await screenGrid(page, 'output-grid');
  expect(before[1][2]).not.toBe(4);
  await recordPresses(page);
  const p = await cellPoint(page, 'output-grid', 1, 2);
  await fingerTap(page, p.x, p.y);
  const after = before.map((row, r) => row.map((v, c) => (r === 1 && c === 2 ? 4 : v)));
  await expect.poll(() => screenGrid(page, 'output-grid')).toEqual(after);
  expect(await presses(page)).toEqual(['touch canvas']);
});
