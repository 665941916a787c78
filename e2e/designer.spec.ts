/**
 * A designer of an arcengine game on its playtest page: the state graph of a level explored on
 * the server through the official engine and drawn as for built-in games (the fixture tg01: 27
 * states on level 1, counted by hand in src/server/arc3/graph.test.ts), and a header that fits a
 * phone, a tablet and a desktop. axe-core on each size.
 */
import { expect, test } from './studio-test';
import { seriousViolations } from './axe';
import { FIXTURE_GAMES, TG01, logIn, startServer } from './arc3-helpers';
import { setWindowSize } from './helpers';

test('the state graph of an arcengine level on its playtest page, and a header that fits at 390, 768 and 1280', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const server = await startServer(['--arc3-games', FIXTURE_GAMES]);
  try {
    await logIn(page, server.base);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.base}/games/${TG01}/playtest`);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
    const panel = page.getByTestId('arc3-graph');
    await panel.locator('summary').click();
    await panel.getByRole('button', { name: 'Explore level 1' }).click();
    const summary = panel.getByTestId('graph-summary');
    await expect(summary).toHaveAttribute('data-complete', 'true', { timeout: 60_000 });
    await expect(summary).toHaveAttribute('data-states', '27');
    await expect(summary.getByTestId('graph-shortest-solution')).toHaveText('10 actions');
    await expect(summary.getByTestId('graph-game_over-states')).toHaveText('2');
    const drawing = panel.getByTestId('state-graph');
    await expect(drawing).toHaveAttribute('data-ready', 'true');
    await expect(drawing).toHaveAttribute('data-state-nodes', '27');

    for (const [width, height] of [
      [1280, 800],
      [768, 1024],
      [390, 844],
    ] as const) {
      await setWindowSize(page, { width, height });
      const header = page.getByTestId('playtest-header');
      // Nothing of the header is cut off or pushes the page sideways, once the page has laid itself out.
      await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await expect
        .poll(async () => {
          const box = (await header.boundingBox())!;
          return box.x + box.width;
        })
        .toBeLessThanOrEqual(width);
      for (const text of ['Games', 'Playtest']) await expect(header.getByText(text, { exact: true })).toBeInViewport();
      await page.screenshot({ path: test.info().outputPath(`playtest-header-${width}.png`) });
      await panel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: test.info().outputPath(`arc3-graph-${width}.png`) });
      expect(await seriousViolations(page)).toEqual([]);
    }
  } finally {
    await server.stop();
  }
});
