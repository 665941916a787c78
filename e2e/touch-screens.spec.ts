/**
 * A participant on a phone (390x844, touch) plays an ARC-AGI-3 game run by the official engine,
 * by taps on the on-screen pad and on the frame, and solves a grid task by taps; and a tablet's
 * study header shows the whole title. Every control the participant needs lies in the window,
 * and no page is wider than the screen.
 */
import { expect, test, type Locator, type Page } from './studio-test';
import { expectAccessible } from './axe';
import {
  LS20,
  LS20_LEVEL1_KEYS,
  VC33,
  VC33_LEVEL1_CLICKS,
  createStudy,
  storedEvents,
  studySessionId,
  type TestServer,
} from './arc3-helpers';
import { cellPoint, screenGrid } from './helpers';
import { ADMIN, sampleTask } from './study-helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true } as const;

async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, `${where}: the page is ${scroll}px wide in a ${client}px window`).toBeLessThanOrEqual(client);
}

/** The element lies wholly in the window, as it is scrolled now. */
async function expectInWindow(
  page: Page,
  target: Locator,
  what: string,
): Promise<{ x: number; y: number; width: number; height: number }> {
  const box = (await target.boundingBox())!;
  const vp = page.viewportSize()!;
  expect(box, `${what} is not on the page`).not.toBeNull();
  expect(box.x, `${what}: left edge`).toBeGreaterThanOrEqual(0);
  expect(box.y, `${what}: top edge`).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, `${what}: right edge`).toBeLessThanOrEqual(vp.width + 0.5);
  expect(box.y + box.height, `${what}: bottom edge`).toBeLessThanOrEqual(vp.height + 0.5);
  return box;
}

/** What a tap at page point (x, y) lands on is `target` itself, not something drawn over it. */
async function expectOnTop(target: Locator, x: number, y: number, what: string): Promise<void> {
  expect(
    await target.evaluate((el, [px, py]) => document.elementFromPoint(px, py) === el, [x, y]),
    `${what} at (${x}, ${y}) is covered`,
  ).toBe(true);
}

const PAD: Record<string, string> = {
  ArrowUp: 'Up (ACTION1)',
  ArrowDown: 'Down (ACTION2)',
  ArrowLeft: 'Left (ACTION3)',
  ArrowRight: 'Right (ACTION4)',
};

/** Taps frame cell (x, y) of the game canvas with a finger. */
async function tapFrame(page: Page, x: number, y: number): Promise<void> {
  const box = (await page.getByTestId('game-canvas').boundingBox())!;
  await page.touchscreen.tap(box.x + ((x + 0.5) * box.width) / 64, box.y + ((y + 0.5) * box.height) / 64);
}

/** Leaves the game through the app's confirmation, by taps. */
async function leaveGame(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^(Give up|Finish) and continue$/ }).tap();
  const dialog = page.getByRole('dialog');
  await expectInWindow(page, dialog, 'the confirmation');
  await expectAccessible(page, 'the confirmation');
  await dialog.getByRole('button', { name: /^(Give up|Finish) and move on$/ }).tap();
}

test.describe('a phone, 390x844 touch', () => {
  test.use(PHONE);

  test.describe('an ARC-AGI-3 game on the official engine', () => {
    // Its tests share the server started below: they run together, in one worker.
    test.describe.configure({ mode: 'default' });
    let server: TestServer;
    test.beforeAll(async ({ officialGames }) => {
      server = officialGames;
      await createStudy(
        server.base,
        'phone',
        [
          { kind: 'game', id: 'keys', game: LS20 },
          { kind: 'game', id: 'clicks', game: VC33 },
        ],
        { devices: 'any' },
      );
    });

    test('level 1 of ls20 by taps on the pad and of vc33 by taps on the frame: every tap acts', async ({ page }) => {
      await page.goto(`${server.base}/s/phone?PROLIFIC_PID=phone-player`);
      await page.getByRole('button', { name: 'I agree, start' }).tap();
      await page.getByRole('button', { name: 'Begin' }).tap();

      const canvas = page.getByTestId('game-canvas');
      const actions = page.getByTestId('game-actions');
      await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
      await expect(page.getByRole('heading', { name: 'LS20' })).toBeVisible();
      const frame = await expectInWindow(page, canvas, 'the frame');
      expect(frame.width, 'the frame is at least 320 px wide').toBeGreaterThanOrEqual(320);
      // Nothing lies over the frame: its centre and corners take the taps.
      for (const [x, y] of [
        [0.5, 0.5],
        [0.02, 0.02],
        [0.98, 0.02],
        [0.02, 0.98],
        [0.98, 0.98],
      ]) {
        await expectOnTop(canvas, frame.x + x * frame.width, frame.y + y * frame.height, 'the frame');
      }
      const pad = page.getByRole('group', { name: 'Game controls' });
      await expectInWindow(page, pad, 'the pad');
      await expectInWindow(page, page.getByRole('button', { name: 'Give up and continue' }), 'Give up');
      await expectNoSidewaysScroll(page, 'ls20');
      await expectAccessible(page, 'a game on a phone');
      await page.screenshot({ path: test.info().outputPath('phone-ls20.png') });

      // Three quick taps in a row, without waiting, are three actions...
      const quick = 3;
      for (const key of LS20_LEVEL1_KEYS.slice(0, quick)) await pad.getByRole('button', { name: PAD[key] }).tap();
      await expect(actions).toHaveText(String(quick));
      // ...and so is each tap after: the counter moves on before the next one.
      for (const [i, key] of LS20_LEVEL1_KEYS.entries()) {
        if (i < quick) continue;
        await pad.getByRole('button', { name: PAD[key] }).tap();
        await expect(actions).toHaveText(String(i + 1));
      }
      await expect(canvas).toHaveAttribute('data-level', '1');
      await expect(page.getByTestId('game-level')).toHaveText('2 / 7');
      const sessionId = await studySessionId(page);
      await leaveGame(page);

      // vc33 is played by clicks alone: no pad, taps on the frame.
      await expect(page.getByRole('heading', { name: 'VC33' })).toBeVisible();
      await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
      await expect(page.getByRole('group', { name: 'Game controls' })).toHaveCount(0);
      expect((await expectInWindow(page, canvas, 'the frame')).width).toBeGreaterThanOrEqual(320);
      for (const [i, [x, y]] of VC33_LEVEL1_CLICKS.entries()) {
        await tapFrame(page, x, y);
        await expect(actions).toHaveText(String(i + 1));
      }
      await expect(canvas).toHaveAttribute('data-level', '1');
      await expectNoSidewaysScroll(page, 'vc33');
      await page.screenshot({ path: test.info().outputPath('phone-vc33.png') });
      await leaveGame(page);
      await expect(page.getByText('ARC3-OK')).toBeVisible({ timeout: 60_000 });

      // The server holds every tap as the action it was, in order.
      const events = await storedEvents(server.base, sessionId);
      const played = events
        .filter((e) => e.kind === 'game.action')
        .map((e) => (e.data.action === 'ACTION6' ? [e.data.x, e.data.y] : e.data.action));
      expect(played).toEqual([
        'RESET',
        'ACTION3',
        'ACTION3',
        'ACTION3',
        'ACTION1',
        'ACTION1',
        'ACTION1',
        'ACTION1',
        'ACTION4',
        'ACTION4',
        'ACTION4',
        'ACTION1',
        'ACTION1',
        'ACTION1',
        'RESET',
        ...VC33_LEVEL1_CLICKS,
      ]);
    });
  });

  test('a grid task solved by taps: the test input reads at 10 px per cell or more, Submit shows above the grid', async ({
    page,
    request,
  }) => {
    const id = `phone-task-${Date.now().toString(36)}`;
    const saved = await request.post(`/api/admin/studies/${id}`, {
      headers: ADMIN,
      data: {
        definition: {
          title: 'Grids on a phone',
          consent: 'You agree.',
          completion: { code: 'PHONE-GRID' },
          devices: 'any',
          items: [{ kind: 'task', id: 'mirror', collection: 'samples', task: 'mirror-across-wall' }],
        },
      },
    });
    expect(saved.status(), await saved.text()).toBe(201);
    await page.goto(`/s/${id}?PROLIFIC_PID=phone-solver`);
    await page.getByRole('button', { name: 'I agree, start' }).tap();
    await page.getByRole('button', { name: 'Begin' }).tap();

    const input = page.getByTestId('input-grid');
    await expect(input).toBeVisible();
    const submit = page.getByRole('button', { name: 'Submit' });
    const inBox = await expectInWindow(page, input, 'the test input');
    expect(
      inBox.width / Number(await input.getAttribute('data-cols')),
      'px per cell of the test input',
    ).toBeGreaterThanOrEqual(10);
    await expectInWindow(page, submit, 'Submit');
    await expectNoSidewaysScroll(page, 'task');
    await expectAccessible(page, 'a task on a phone');
    await page.screenshot({ path: test.info().outputPath('phone-task-input.png') });

    await page.getByRole('button', { name: /^Your output/ }).tap();
    const output = page.getByTestId('output-grid');
    await expectInWindow(page, output, 'the output');
    // Every control the task needs is within the screen's width.
    for (const name of [
      'Edit',
      'Select',
      'Wand',
      'Flood fill',
      'Copy from input',
      'Reset grid',
      'Undo',
      'Redo',
      'Resize',
      'Submit',
      'Give up and continue',
    ]) {
      const box = (await page.getByRole('button', { name, exact: true }).boundingBox())!;
      expect(box.x, name).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, name).toBeLessThanOrEqual(390.5);
    }

    const answer = sampleTask('mirror-across-wall').test[0].output!;
    await page.getByRole('button', { name: 'Copy from input', exact: true }).tap();
    // The output, the colours and Submit on one screen: painting needs no scrolling.
    await expectInWindow(page, output, 'the output');
    for (let c = 0; c < 10; c++)
      await expectInWindow(page, page.getByRole('radio', { name: new RegExp(`^Colour ${c} `) }), `colour ${c}`);
    await expectInWindow(page, submit, 'Submit');
    const start = await screenGrid(page, 'output-grid');
    for (let r = 0; r < answer.length; r++) {
      for (let c = 0; c < answer[0].length; c++) {
        if (start[r][c] === answer[r][c]) continue;
        await page.getByRole('radio', { name: new RegExp(`^Colour ${answer[r][c]} `) }).tap();
        const p = await cellPoint(page, 'output-grid', r, c);
        await page.touchscreen.tap(p.x, p.y);
      }
    }
    await expect.poll(() => screenGrid(page, 'output-grid')).toEqual(answer);
    await expectInWindow(page, submit, 'Submit');
    await page.screenshot({ path: test.info().outputPath('phone-task-output.png') });
    await submit.tap();
    await expect(page.getByTestId('status')).toContainText('Correct!');
    await expect(page.getByTestId('task-result')).toHaveText('Task solved');
    await page.getByRole('button', { name: 'Next', exact: true }).tap();
    await expect(page.getByTestId('completion-code')).toHaveText('PHONE-GRID');
  });

  test('the practice player of a 30x30 task fits the screen: the grid at 12 px per cell, the log download in reach', async ({
    page,
  }) => {
    await page.goto('/tasks/arc-agi-1/evaluation/f9d67f8b');
    const input = page.getByTestId('input-grid');
    await expect(input).toBeVisible();
    expect(Number(await input.getAttribute('data-cols'))).toBe(30);
    // Submit and the log download sit above the grid: in the window as the page opens.
    await expectInWindow(page, page.getByRole('button', { name: 'Submit' }), 'Submit');
    await expectInWindow(page, page.getByRole('button', { name: 'Download log' }), 'Download log');
    await input.scrollIntoViewIfNeeded();
    const box = await expectInWindow(page, input, 'the test input');
    expect(box.width / 30).toBeGreaterThanOrEqual(12);
    await expectNoSidewaysScroll(page, 'practice task');
    await expectAccessible(page, 'the practice player on a phone');
    await page.screenshot({ path: test.info().outputPath('phone-practice.png'), fullPage: true });
  });
});

test.describe('a phone at a study that needs a larger screen', () => {
  test.use(PHONE);

  test('the stop page copies the study link with a tap', async ({ page, context, request }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const id = `phone-stop-${Date.now().toString(36)}`;
    const saved = await request.post(`/api/admin/studies/${id}`, {
      headers: ADMIN,
      data: {
        definition: {
          title: 'Computers only',
          consent: 'You agree.',
          completion: { code: 'STOP' },
          items: [{ kind: 'game', id: 'push', game: 'push' }],
        },
      },
    });
    expect(saved.status(), await saved.text()).toBe(201);
    await page.goto(`/s/${id}?PROLIFIC_PID=phone-stop`);
    await expect(page.getByTestId('device-message')).toContainText('This study needs a larger screen than a phone');
    const copy = page.getByRole('button', { name: 'Copy link' });
    await expectInWindow(page, copy, 'Copy link');
    await copy.tap();
    await expect(page.getByRole('status')).toHaveText('Copied: paste it into a message or an email to yourself.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
      `${new URL(page.url()).origin}/s/${id}?PROLIFIC_PID=phone-stop`,
    );
    await expectNoSidewaysScroll(page, 'stop page');
    await expectAccessible(page, 'the stop page');
    await page.screenshot({ path: test.info().outputPath('phone-stop.png') });
  });
});

test.describe('a tablet, 768x1024 touch', () => {
  test.use({ viewport: { width: 768, height: 1024 }, hasTouch: true, isMobile: true });

  test('the study header shows the whole title', async ({ page, request }) => {
    const id = `tablet-${Date.now().toString(36)}`;
    const title = 'How people learn the rules of new puzzle games, round two';
    const saved = await request.post(`/api/admin/studies/${id}`, {
      headers: ADMIN,
      data: {
        definition: {
          title,
          consent: 'You agree.',
          completion: { code: 'TABLET' },
          items: [{ kind: 'game', id: 'push', game: 'push' }],
        },
      },
    });
    expect(saved.status(), await saved.text()).toBe(201);
    await page.goto(`/s/${id}?PROLIFIC_PID=tablet-1`);
    await page.getByRole('button', { name: 'I agree, start' }).tap();
    await page.getByRole('button', { name: 'Begin' }).tap();
    const shown = page.getByTestId('study-title');
    await expect(shown).toHaveText(title);
    expect(
      await shown.evaluate(
        (el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).textOverflow !== 'ellipsis',
      ),
    ).toBe(true);
    await expectInWindow(page, shown, 'the title');
    await expectInWindow(page, page.getByRole('button', { name: 'Withdraw from study' }), 'Withdraw');
    await expectNoSidewaysScroll(page, 'tablet study');
    await page.screenshot({ path: test.info().outputPath('tablet-header.png') });
  });
});
