/**
 * The on-screen pad acts on the press (pointerdown), as the frame does, so that a touch screen's
 * late click never delays a move; each press acts once, and a pad button focused from the
 * keyboard still acts on Enter.
 */
import { expect, test } from './studio-test';

test('a pad button acts once per mouse press, once per tap, and once per Enter when focused', async ({
  browser,
  baseURL,
}) => {
  const touch = await browser.newContext({
    baseURL,
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    isMobile: true,
  });
  const desk = await browser.newContext({ baseURL, viewport: { width: 1280, height: 800 } });
  try {
    const page = await desk.newPage();
    await page.goto('/games/push');
    const right = page.getByRole('group', { name: 'Game controls' }).getByRole('button', { name: 'Right (ACTION4)' });
    const count = page.getByTestId('game-actions');
    await right.click();
    await expect(count).toHaveText('1');
    // A press held down acts at once, before the button is released.
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect(count).toHaveText('0');
    const box = (await right.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await expect(count).toHaveText('1');
    await page.mouse.up();
    await expect(count).toHaveText('1');
    await right.focus();
    await page.keyboard.press('Enter');
    await expect(count).toHaveText('2');

    const phone = await touch.newPage();
    await phone.goto('/games/push');
    const tapped = phone.getByRole('group', { name: 'Game controls' }).getByRole('button', { name: 'Right (ACTION4)' });
    await tapped.tap();
    await expect(phone.getByTestId('game-actions')).toHaveText('1');
    await tapped.tap();
    await expect(phone.getByTestId('game-actions')).toHaveText('2');
  } finally {
    await touch.close();
    await desk.close();
  }
});
