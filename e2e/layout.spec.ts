/**
 * The participant's pages on every screen the studies meet: a laptop (1280x720), a large monitor
 * (1920x1080), a tablet with touch either way up (768x1024, 1024x768) and a phone (390x844). Nothing overflows
 * sideways; every cell of a 30x30 demonstration reads at 8 px or more beside the test on a laptop
 * and a monitor, and at 12 px or more in the pair viewer on every screen; the
 * game frame and the output editor fit the window; and a phone is stopped at the consent page
 * with the study's device message unless the study allows any device.
 */
import { expect, test, type Page } from './studio-test';
import { giveUpItem } from './arc3-helpers';
import { ADMIN } from './study-helpers';
import { picture } from './helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

const SIZES = [
  { name: 'laptop', width: 1280, height: 720, touch: false },
  { name: 'monitor', width: 1920, height: 1080, touch: false },
  { name: 'tablet', width: 768, height: 1024, touch: true },
  { name: 'tablet-landscape', width: 1024, height: 768, touch: true },
  { name: 'phone', width: 390, height: 844, touch: true },
] as const;

/** An ARC-AGI-1 evaluation task whose four demonstrations are 30x30 grids. */
const BIG_TASK = '/tasks/arc-agi-1/evaluation/f9d67f8b';

async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(scroll, `${where}: the page is ${scroll}px wide in a ${client}px window`).toBeLessThanOrEqual(client);
}

/** The element lies inside the window (nothing of it cut off or off screen). */
async function expectInWindow(page: Page, testId: string): Promise<{ width: number; height: number }> {
  const box = (await page.getByTestId(testId).boundingBox())!;
  const vp = page.viewportSize()!;
  expect(box.x, testId).toBeGreaterThanOrEqual(0);
  expect(box.y, testId).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, testId).toBeLessThanOrEqual(vp.width + 0.5);
  expect(box.y + box.height, testId).toBeLessThanOrEqual(vp.height + 0.5);
  return box;
}

/** CSS pixels per cell of a grid canvas. */
async function cellSize(page: Page, testId: string): Promise<number> {
  const canvas = page.getByTestId(testId);
  const box = (await canvas.boundingBox())!;
  return Math.min(
    box.width / Number(await canvas.getAttribute('data-cols')),
    box.height / Number(await canvas.getAttribute('data-rows')),
  );
}

async function createStudy(page: Page, id: string, devices?: string): Promise<void> {
  const res = await page.request.post(`/api/admin/studies/${id}`, {
    headers: ADMIN,
    data: {
      definition: {
        title: 'Screens',
        consent: 'You agree to take part.',
        instructions: 'Play, then solve.',
        completion: { code: 'SCREENS' },
        ...(devices ? { devices } : {}),
        items: [
          { kind: 'game', id: 'push', game: 'push' },
          { kind: 'task', id: 'mirror', collection: 'samples', task: 'mirror-across-wall' },
        ],
      },
    },
  });
  expect(res.status(), await res.text()).toBe(201);
}

for (const size of SIZES) {
  test.describe(`${size.name} ${size.width}x${size.height}`, () => {
    test.use({ viewport: { width: size.width, height: size.height }, hasTouch: size.touch, isMobile: size.touch });

    if (size.name === 'phone') {
      test('a phone is stopped at the consent page with the device message, unless the study allows any device', async ({
        page,
      }) => {
        const id = `phone-${Date.now().toString(36)}`;
        await createStudy(page, id);
        await page.goto(`/s/${id}?PROLIFIC_PID=phone-1`);
        await expect(page.getByTestId('device-message')).toContainText('This study needs a larger screen than a phone');
        await expect(page.getByTestId('device-message')).toContainText(`/s/${id}?PROLIFIC_PID=phone-1`);
        await expect(page.getByRole('button', { name: 'I agree, start' })).toHaveCount(0);
        await expectNoSidewaysScroll(page, 'device message');
        await picture(page, `study-consent-${size.width}x${size.height}`);
        // Nothing was made for the phone.
        const results = (await (
          await page.request.get(`/api/admin/studies/${id}/results`, { headers: ADMIN })
        ).json()) as { participants: unknown[] };
        expect(results.participants).toEqual([]);

        const open = `${id}-any`;
        await createStudy(page, open, 'any');
        await page.goto(`/s/${open}?PROLIFIC_PID=phone-2`);
        await expect(page.getByRole('button', { name: 'I agree, start' })).toBeVisible();
        await expect(page.getByTestId('device-message')).toHaveCount(0);
        await expectNoSidewaysScroll(page, 'consent');
      });
      return;
    }

    test('the pair viewer shows a 30x30 demonstration at 12 px per cell or more, and the player fits', async ({
      page,
    }) => {
      await page.goto(BIG_TASK);
      await expect(page.getByTestId('output-grid')).toBeVisible();
      await expectNoSidewaysScroll(page, 'task player');
      await expectInWindow(page, 'output-grid');
      await expect(page.getByRole('button', { name: 'Submit' })).toBeInViewport();

      const enlarge = page.getByRole('button', { name: 'Enlarge example 3' });
      if (size.touch) await enlarge.tap();
      else await enlarge.click();
      const viewer = page.getByTestId('pair-viewer');
      await expect(viewer.getByRole('heading')).toContainText('Example 3 of 4');
      for (const side of ['pair-viewer-input', 'pair-viewer-output']) {
        await expectInWindow(page, side);
        expect(await cellSize(page, side), side).toBeGreaterThanOrEqual(12);
      }
      // The other pairs, from the thumbnails and the arrow keys; Escape closes.
      await viewer.getByRole('button', { name: 'Example 1', exact: true }).click();
      await expect(viewer.getByRole('heading')).toContainText('Example 1 of 4');
      await page.keyboard.press('ArrowRight');
      await expect(viewer.getByRole('heading')).toContainText('Example 2 of 4');
      await viewer.getByLabel('Symbol numbers').check();
      await page.keyboard.press('Escape');
      await expect(viewer).toHaveCount(0);
      // The player's own keys were not taken by the viewer: the tool is still Edit.
      await expect(page.getByRole('button', { name: /^Edit/ })).toHaveAttribute('aria-pressed', 'true');
    });

    if (size.name === 'laptop' || size.name === 'monitor') {
      test('every 30x30 demonstration reads at 8 px per cell or more beside the test, without enlarging it', async ({
        page,
      }) => {
        await page.goto(BIG_TASK);
        await expect(page.getByTestId('output-grid')).toBeVisible();
        const demos = page
          .getByTestId('demonstrations')
          .getByRole('img', { name: /^Example \d+ (input|output), 30 by 30$/ });
        await expect(demos).toHaveCount(8);
        for (const canvas of await demos.all()) {
          const box = (await canvas.boundingBox())!;
          expect(
            Math.min(box.width, box.height) / 30,
            (await canvas.getAttribute('aria-label')) ?? 'a demonstration',
          ).toBeGreaterThanOrEqual(8);
        }
        // The test keeps what it needs: its 30x30 input still reads at 7 px a cell beside the
        // toolbar's rows (the window's height limits it), the output editor and Submit in view.
        for (const side of ['input-grid', 'output-grid'])
          expect(await cellSize(page, side), side).toBeGreaterThanOrEqual(7);
        await expectInWindow(page, 'output-grid');
        await expect(page.getByRole('button', { name: 'Submit' })).toBeInViewport();
        await expectNoSidewaysScroll(page, 'task player');
        await picture(page, `demonstrations-${size.width}x${size.height}`);
      });
    }

    test("the study's consent, game and task pages fit the window", async ({ page }) => {
      const id = `screens-${size.name}-${Date.now().toString(36)}`;
      await createStudy(page, id);
      await page.goto(`/s/${id}?PROLIFIC_PID=${id}`);
      await expect(page.getByRole('button', { name: 'I agree, start' })).toBeInViewport();
      await expectNoSidewaysScroll(page, 'consent');
      await page.getByRole('button', { name: 'I agree, start' }).click();
      await page.getByRole('button', { name: 'Begin' }).click();

      const frame = await expectInWindow(page, 'game-canvas');
      expect(frame.width, 'the game frame').toBeGreaterThanOrEqual(256);
      await expectNoSidewaysScroll(page, 'game');
      await giveUpItem(page);

      await expect(page.getByTestId('output-grid')).toBeVisible();
      await expectInWindow(page, 'output-grid');
      await expect(page.getByRole('button', { name: 'Submit' })).toBeInViewport();
      await expectNoSidewaysScroll(page, 'task');
      await picture(page, `study-task-${size.width}x${size.height}`);
    });
  });
}
