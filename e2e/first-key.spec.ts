/**
 * A key pressed the moment a player appears is not lost. The page presses it itself, from a
 * mutation observer, in the microtask right after the commit that puts the grid or the game's
 * frame in the page, before the browser has painted it: earlier than any person can see it and
 * act. A key listener registered after the browser paints (a passive effect) misses it.
 */
import { expect, test, type Page } from './studio-test';
import { clickCell, openTask, screenGrid } from './helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

/** Presses `key` on the window as soon as an element with this test id is put in the page. */
async function pressWhenInserted(page: Page, testId: string, key: string): Promise<void> {
  await page.addInitScript(
    ([id, k]) => {
      const observer = new MutationObserver(() => {
        if (!document.querySelector(`[data-testid="${id}"]`)) return;
        observer.disconnect();
        window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
      });
      observer.observe(document, { childList: true, subtree: true });
    },
    [testId, key] as const,
  );
}

test('a colour key pressed as the task player draws its grids chooses the colour', async ({ page }) => {
  await pressWhenInserted(page, 'output-grid', '6');
  await openTask(page, 'arc-agi-1', 'training/007bbfb7');
  await clickCell(page, 'output-grid', 0, 0);
  await expect.poll(async () => (await screenGrid(page, 'output-grid'))[0][0]).toBe(6);
});

test("a game key pressed as the game's frame is drawn is played", async ({ page }) => {
  await pressWhenInserted(page, 'game-canvas', 'ArrowRight');
  await page.goto('/games/push');
  await expect(page.getByTestId('game-actions')).toHaveText('1');
});
