/**
 * Presence in a study session, made by what a person does, as far as headless Chromium can:
 *
 * - focus and blur: another tab brought to the front and the study tab brought back. Playwright
 *   normally tells every page it has the focus; that emulation is turned off for the study tab
 *   (a DevTools protocol switch), so the window's real focus changes reach the page;
 * - hidden and visible: headless Chromium reports every open tab as visible, whatever is in
 *   front, so the test leaves the study for another page and comes back with Back, which hides
 *   the study page as in any browser;
 * - idle: Playwright's clock runs the page's own clock forward past the idle threshold, and a
 *   real mouse movement brings the participant back.
 *
 * The server's log must hold those events, and the session summary's time on task must leave
 * out the hidden and idle time.
 */
import { expect, test } from './studio-test';
import { activeTime, untilItemEnd } from '../src/core/study/activeTime';
import { ADMIN, serverEvents, untilStored } from './study-helpers';

test('a study session logs focus, blur, idle and visibility from real tab switches, inactivity and leaving the page; time on task leaves out idle and hidden time', async ({
  page,
  context,
  request,
}) => {
  await page.clock.install();
  await page.goto(`/s/sample?PROLIFIC_PID=presence-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.locator('[data-kind="task"]')).toBeVisible();
  const item = (await page.locator('[data-item]').getAttribute('data-item'))!;

  // Another tab in front, then the study again.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
  const other = await context.newPage();
  await other.bringToFront();
  await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(false);
  await page.bringToFront();
  await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(true);
  await other.close();

  // Two minutes and five seconds without input: idle. A minute more, then the mouse moves.
  await page.clock.fastForward('02:05');
  await page.clock.fastForward('01:00');
  await page.mouse.move(300, 300);
  await page.mouse.move(320, 340);

  // Away to another page and back.
  await page.goto('about:blank');
  await page.goBack();
  await expect(page.locator('[data-item]')).toHaveAttribute('data-item', item);

  const local = await untilStored(request, page);
  const events = await serverEvents(request, local.id);
  const from = events.findIndex((e) => e.kind === 'item.start' && e.data.item === item);
  const presence = events
    .slice(from)
    .filter((e) => ['focus', 'blur', 'idle', 'visibility'].includes(e.kind))
    .map((e) => (e.data.state ? `${e.kind}:${String(e.data.state)}` : e.kind));
  expect(presence).toEqual(['blur', 'focus', 'idle:idle', 'idle:active', 'visibility:hidden', 'visibility:visible']);
  // The page load that started the session logged the tab's state once.
  expect(
    events
      .slice(0, from)
      .filter((e) => e.kind === 'visibility')
      .map((e) => e.data.state),
  ).toEqual(['visible']);
  const idle = events.find((e) => e.kind === 'idle' && e.data.state === 'idle')!;
  const back = events.find((e) => e.kind === 'idle' && e.data.state === 'active')!;
  expect(idle.data.ms).toBeGreaterThanOrEqual(120_000);
  expect(back.t - idle.t).toBeGreaterThanOrEqual(60_000);

  // Time on task: the summary's figure is the span less the idle and hidden time.
  const mine = events.slice(from);
  const time = activeTime(untilItemEnd(mine, item));
  expect(time.idleMs).toBeGreaterThanOrEqual(60_000);
  expect(time.hiddenMs).toBeGreaterThan(0);
  expect(time.activeMs).toBeLessThan(time.spanMs - 60_000);
  const summary = (await (await request.get(`/api/admin/sessions/${local.id}`, { headers: ADMIN })).json()).summary as {
    items: { id: string; activeMs: number }[];
  };
  expect(summary.items.find((i) => i.id === item)!.activeMs).toBeCloseTo(time.activeMs, 3);
});
