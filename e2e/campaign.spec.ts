/**
 * Calibration campaigns in the browser: a researcher builds a pool in the study editor, two
 * participants run it side by side, the campaign view follows them live, and the bonus file
 * downloads; and a participant is shown the session's time budget, with a clean end when it is
 * spent (time moved by Playwright's clock, not waited for).
 */
import { expect, test } from '@playwright/test';
import { ADMIN, serverEvents } from './study-helpers';

test('the participant sees the time the session has left, and the study ends cleanly when it is spent', async ({ page, request }) => {
  const id = `budget-${Date.now().toString(36)}`;
  const created = await request.post(`/api/admin/studies/${id}`, {
    headers: ADMIN,
    data: {
      definition: {
        title: 'A short session', consent: 'You agree.', instructions: 'Go.', completion: { code: 'BUDGET-OK' },
        limits: { sessionMinutes: 2 },
        items: [{ kind: 'game', id: 'push', game: 'push' }, { kind: 'game', id: 'glow', game: 'glow' }],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);

  await page.clock.install();
  await page.goto(`/s/${id}?PROLIFIC_PID=budget-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  const left = page.getByTestId('session-time-left');
  await expect(left).toHaveText(/^(2:00|1:5\d)$/);
  await page.clock.fastForward('01:00');
  await expect(left).toHaveText(/^(1:00|0:5\d)$/);
  await page.screenshot({ path: test.info().outputPath('session-time-left.png') });

  // The budget runs out on the game: the study ends there, says why, and gives the code.
  await page.clock.fastForward('01:05');
  await expect(page.getByTestId('session-time-up')).toContainText('The study allows 2 minutes in all');
  await expect(page.getByRole('heading', { name: 'Time is up. Thank you!' })).toBeVisible();
  await expect(page.getByTestId('completion-code')).toHaveText('BUDGET-OK');
  await page.screenshot({ path: test.info().outputPath('session-time-up.png') });

  const results = (await (await request.get(`/api/admin/studies/${id}/results`, { headers: ADMIN })).json()) as { participants: { sessionId: string; state: string }[] };
  expect(results.participants).toHaveLength(1);
  const ends = (await serverEvents(request, results.participants[0].sessionId)).filter((e) => e.kind === 'item.end').map((e) => [e.data.item, e.data.reason]);
  expect(ends).toEqual([['push', 'session_time']]);
});
