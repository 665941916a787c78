/**
 * A designer of an arcengine game on its playtest page, with the official engine in a real worker:
 * the state graph of a level explored on the server and drawn as for built-in games (the fixture
 * tg01: 27 states on level 1, counted by hand in src/server/arc3/graph.test.ts) beside the level's
 * human baseline (none yet), and a header that fits a phone, a tablet and a desktop; and Cancel,
 * which stops an exploration under way (ls20's first level has thousands of states). axe-core on
 * each page state.
 */
import { expect, test } from './studio-test';
import { expectAccessible, seriousViolations } from './axe';
import {
  ADMIN,
  FIXTURE_GAMES,
  LS20,
  OFFICIAL_GAMES,
  TG01,
  frameColour,
  logIn,
  rgb,
  startServer,
  type TestServer,
} from './arc3-helpers';
import { setWindowSize, picture } from './helpers';
import { PALETTE } from '../src/core/game/types';

/**
 * One server for both tests, with the fixture games and the official ones, and no study: no level
 * has a human baseline. One Python worker is enough for one designer.
 */
test.describe('the state graph of an arcengine game on its playtest page', () => {
  test.describe.configure({ mode: 'default' });
  let server: TestServer;
  test.beforeAll(async () => {
    server = await startServer(['--arc3-games', FIXTURE_GAMES, '--arc3-games', OFFICIAL_GAMES, '--arc3-workers', '1']);
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  test('the state graph of a level with its human baseline (none yet), and a header that fits at 390, 768 and 1280', async ({
    page,
  }) => {
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
    // Beside the shortest solution, the level's human baseline: none, as no study here has players.
    const baseline = panel.getByTestId('arc3-graph-baseline');
    await expect(baseline).toHaveAttribute('data-studies', '0');
    await expect(baseline).toContainText('shortest solution found: 10 actions');
    await expect(baseline.getByTestId('arc3-graph-no-baseline')).toContainText(
      'None yet: no study in this studio has a first-time player who completed level 1 of this game',
    );

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
      await picture(page, `playtest-header-${width}`);
      await panel.scrollIntoViewIfNeeded();
      await picture(page, `arc3-graph-${width}`);
      expect(await seriousViolations(page)).toEqual([]);
    }
  });

  test('a designer signed in with her link, with no token in the browser, playtests an arcengine game', async ({
    page,
  }) => {
    const added = await page.request.post(`${server.base}/api/admin/people`, {
      headers: ADMIN,
      data: { email: 'dee-playtest@lab.org', role: 'designer', name: 'Dee Signer' },
    });
    expect(added.status(), await added.text()).toBe(201);
    await page.goto(`${server.base}${((await added.json()) as { link: string }).link}`);
    await expect(page.getByTestId('signed-in')).toContainText('Dee Signer (designer)');
    expect(await page.evaluate(() => localStorage.getItem('arc-studio:researcher-token'))).toBeNull();
    await page.goto(`${server.base}/games`);
    await page.getByRole('link', { name: /Gatekeeper/ }).click();
    await expect(page).toHaveURL(new RegExp(`/games/${TG01}/playtest$`));
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
    // A step goes out with the sign-in cookie and its CSRF header: the walker moves down a cell.
    await expect.poll(() => frameColour(page, 12, 12)).toEqual(rgb(PALETTE[9]));
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => frameColour(page, 12, 20)).toEqual(rgb(PALETTE[9]));
  });

  test('Cancel stops a state-graph exploration on the server, and the next exploration clears what it said', async ({
    page,
  }) => {
    await logIn(page, server.base);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.base}/games/${LS20}/playtest`);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
    const panel = page.getByTestId('arc3-graph');
    await panel.locator('summary').click();
    await panel.getByRole('combobox', { name: 'Max states' }).selectOption('5000');
    const explored = () => page.waitForResponse((r) => r.url().endsWith('/graph') && r.request().method() === 'POST');
    const cancelled = explored();
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
    await picture(page, 'graph-cancelled');
    await expectAccessible(page, 'state graph cancelled');

    // Exploring again takes the notice away while the new exploration runs; it is cancelled in turn.
    const again = explored();
    await panel.getByRole('button', { name: 'Explore level 1' }).click();
    await expect(panel.getByTestId('arc3-graph-status')).toContainText('Exploring level 1 on the server');
    await expect(said).toHaveCount(0);
    await panel.getByRole('button', { name: 'Cancel' }).click();
    expect((await again).status()).toBe(409);
    await expect(said).toContainText('The exploration of level 1 was cancelled after');
  });
});
