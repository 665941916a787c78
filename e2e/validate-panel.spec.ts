import { expect, test, type Page } from './studio-test';
import { analyzeGraph, exploreLevel } from '../src/core/game/graph';
import { games } from '../src/games';
import { picture } from './helpers';

/** Every CSP violation, refusal and uncaught error of the page (the graph library must live with the studio's CSP). */
async function watchProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  await page.exposeFunction('reportViolation', (text: string) => {
    problems.push(text);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { reportViolation: (t: string) => void }).reportViolation(
        `${e.violatedDirective} ${e.blockedURI}`,
      );
    });
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy|Refused to|Worker|cytoscape/i.test(m.text()))
      problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

/** The playtest controls a designer needs at all times. */
async function expectControlsReachable(page: Page): Promise<void> {
  await expect(page.getByLabel('Level', { exact: true })).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Restart level' })).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Reset' })).toBeInViewport();
}

test('the playtest Validate panel runs a level in a worker with progress, cancels a long run, and draws the state graph', async ({
  page,
}) => {
  // Three runs, one of a level of a few thousand states, on a machine that may be shared.
  const problems = await watchProblems(page);
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto('/games/push/playtest');
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await expectControlsReachable(page);

  await page.getByRole('button', { name: 'Validate…' }).click();
  const panel = page.getByTestId('validate-panel');
  await expect(panel).toBeVisible();
  await expectControlsReachable(page);
  await expect(panel.getByLabel('Validate level')).toHaveValue('0');
  await panel.getByLabel('Steps', { exact: true }).selectOption('10000');
  await panel.getByLabel('Max states').selectOption('3000');

  // Record every progress value the page shows: a small run can end between two looks.
  await page.evaluate(() => {
    const w = window as unknown as { seenProgress: string[] };
    w.seenProgress = [];
    new MutationObserver(() => {
      const p = document.querySelector('[data-testid="validate-progress"]');
      if (p) w.seenProgress.push(`${p.getAttribute('aria-label')}:${p.getAttribute('data-done')}`);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await panel.getByRole('button', { name: 'Validate', exact: true }).click();
  await expect(panel.getByTestId('validate-status')).toContainText('Finished', { timeout: 60_000 });
  const seen = await page.evaluate(() => (window as unknown as { seenProgress: string[] }).seenProgress);
  expect(seen.some((s) => s.startsWith('Random policy'))).toBe(true);
  expect(seen.some((s) => s.startsWith('Exploring the state graph'))).toBe(true);

  // The results: level 1 (the tutorial) under each regime, with the steps that ran.
  const level1 = panel.getByTestId('validate-level-1');
  await expect(level1.getByTestId('verdict')).toHaveText(/tutorial, not judged|problems found/);
  const rows = level1.getByRole('row');
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(1)).toContainText('short');
  await expect(rows.nth(1)).toContainText('10,000');
  await expect(rows.nth(3)).toContainText('fuzz');
  await expect(panel.getByTestId('validate-report')).toContainText('Ran 30,000 steps');

  // The state graph: the same figures as the engine gives here, and the drawing holds every state.
  const expected = analyzeGraph(exploreLevel(games.push, 0, { seed: 0 }));
  const summary = panel.getByTestId('graph-summary');
  await expect(summary).toHaveAttribute('data-states', String(expected.states));
  await expect(summary.getByTestId('graph-states')).toHaveText(`${expected.states} (fully explored)`);
  await expect(summary.getByTestId('graph-depth')).toHaveText(String(expected.depth));
  await expect(summary.getByTestId('graph-shortest-solution')).toContainText(
    `${expected.shortest!.length} actions (recorded:`,
  );
  await expect(summary.getByTestId('graph-probabilities')).toContainText('K=10:');
  const drawing = panel.getByTestId('state-graph');
  await expect(drawing).toHaveAttribute('data-ready', 'true');
  await expect(drawing).toHaveAttribute('data-state-nodes', String(expected.states));
  await expect(drawing).toHaveAttribute('data-edges', String(expected.edges - expected.gameOverStates));
  // Something is painted: some canvas of the drawing has opaque pixels.
  const painted = await drawing.evaluate((el) =>
    [...el.querySelectorAll('canvas')].some((c) => {
      const ctx = c.getContext('2d');
      if (!ctx || !c.width || !c.height) return false;
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) return true;
      return false;
    }),
  );
  expect(painted).toBe(true);
  await picture(page, 'validate-panel-1280');
  await drawing.scrollIntoViewIfNeeded();
  await picture(page, 'validate-graph-1280');
  await picture(page, 'validate-panel-readme');

  // A long run on every level shows its progress and stops at Cancel.
  await panel.getByLabel('Validate level').selectOption('all');
  await panel.getByLabel('Steps', { exact: true }).selectOption(String(1_000_000));
  await expect(panel.getByRole('checkbox', { name: /State graph/ })).toBeDisabled();
  await panel.getByRole('button', { name: 'Validate', exact: true }).click();
  const progress = panel.getByTestId('validate-progress');
  await expect.poll(async () => Number(await progress.getAttribute('data-done'))).toBeGreaterThan(0);
  await expect(panel.getByTestId('validate-report')).toHaveCount(0);
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.getByTestId('validate-status')).toContainText('Cancelled during “Random policy”');
  await expect(progress).toHaveCount(0);
  await expect(panel.getByRole('button', { name: 'Validate', exact: true })).toBeEnabled();
  await expect(panel.getByTestId('validate-report')).toHaveCount(0);

  // A tablet: the playtest's controls and the panel both stay on screen, and a level of a few
  // thousand states is drawn whole.
  await page.setViewportSize({ width: 1024, height: 768 });
  // flux level 2: a few thousand states, all within the panel's drawing limit.
  const big = analyzeGraph(exploreLevel(games.flux, 1, { seed: 0, maxStates: 3_000 }));
  expect(big.complete && big.states > 2_000).toBe(true);
  await page.goto('/games/flux/playtest');
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await page.getByRole('button', { name: 'Validate…' }).click();
  await expect(panel).toBeVisible();
  await panel.getByLabel('Validate level').selectOption('1');
  await panel.getByLabel('Steps', { exact: true }).selectOption('10000');
  await panel.getByRole('checkbox', { name: 'Long' }).uncheck();
  await panel.getByRole('checkbox', { name: 'Fuzz' }).uncheck();
  await panel.getByRole('button', { name: 'Validate', exact: true }).click();
  await expect(panel.getByTestId('state-graph')).toHaveAttribute('data-ready', 'true', { timeout: 60_000 });
  await expect(panel.getByTestId('state-graph')).toHaveAttribute('data-state-nodes', String(big.states));
  await expect(panel.getByTestId('validate-level-2').getByRole('row')).toHaveCount(2);
  await expectControlsReachable(page);
  await expect(panel.getByRole('button', { name: 'Validate', exact: true })).toBeInViewport();
  await picture(page, 'validate-panel-1024');
  await panel.getByTestId('state-graph').scrollIntoViewIfNeeded();
  await picture(page, 'validate-graph-1024');
  // Hiding the column gives the level its room back; the results wait for the next look.
  await page.getByRole('button', { name: 'Hide validation' }).click();
  await expect(panel).toBeHidden();
  await page.getByRole('button', { name: 'Validate…' }).click();
  await expect(panel.getByTestId('graph-summary')).toBeVisible();

  expect(problems).toEqual([]);
});
