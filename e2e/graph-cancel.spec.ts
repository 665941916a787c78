/**
 * The state-graph panel of an arcengine game's playtest page, with the official engine in a real
 * worker: Cancel stops an exploration under way (ls20's first level has thousands of states) and
 * the panel says it was cancelled; an exploration run to the end then shows the human baseline
 * of the level beside the shortest solution, or says there is none yet. axe-core on the panel.
 */
import { expect, test } from './studio-test';
import { expectAccessible } from './axe';
import { LS20, OFFICIAL_GAMES, logIn, startServer } from './arc3-helpers';

test('Cancel stops a state-graph exploration on the server; a finished one says the level has no human baseline yet', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const server = await startServer(['--arc3-games', OFFICIAL_GAMES], { ARC_STUDIO_ARC3_WORKERS: '1' });
  try {
    await logIn(page, server.base);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.base}/games/${LS20}/playtest`);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
    const panel = page.getByTestId('arc3-graph');
    await panel.locator('summary').click();
    await panel.getByRole('combobox', { name: 'Max states' }).selectOption('5000');
    const cancelled = page.waitForResponse((r) => r.url().endsWith('/graph') && r.request().method() === 'POST');
    await panel.getByRole('button', { name: 'Explore level 1' }).click();
    await expect(panel.getByTestId('arc3-graph-status')).toContainText('Exploring level 1 on the server');
    await panel.getByRole('button', { name: 'Cancel' }).click();
    const answer = await cancelled;
    expect(answer.status()).toBe(409);
    expect(((await answer.json()) as { error: string }).error).toBe('cancelled');
    const said = panel.getByTestId('arc3-graph-cancelled');
    await expect(said).toContainText('The exploration of level 1 was cancelled after');
    await expect(said).toContainText('nothing more runs on the server');
    await expect(panel.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
    await expect(panel.getByRole('button', { name: 'Explore level 1' })).toBeEnabled();
    await page.screenshot({ path: test.info().outputPath('graph-cancelled.png') });
    await expectAccessible(page, 'state graph cancelled');

    // A small budget runs to its end: the summary, then the level's human baseline (none yet here).
    await panel.getByRole('combobox', { name: 'Max states' }).selectOption('500');
    await panel.getByRole('button', { name: 'Explore level 1' }).click();
    await expect(panel.getByTestId('graph-summary')).toBeVisible({ timeout: 120_000 });
    await expect(said).toHaveCount(0);
    const baseline = panel.getByTestId('arc3-graph-baseline');
    await expect(baseline).toHaveAttribute('data-studies', '0');
    await expect(baseline.getByTestId('arc3-graph-no-baseline')).toContainText(
      'None yet: no study in this studio has a first-time player who completed level 1 of this game',
    );
    await baseline.scrollIntoViewIfNeeded();
    await page.screenshot({ path: test.info().outputPath('graph-baseline.png') });
    await expectAccessible(page, 'state graph with its baseline');
  } finally {
    await server.stop();
  }
});
