/**
 * What a participant is told about time and about leaving: the time left on each item when the
 * study shows it, a message when an item's hard limit closes it (and nothing is done after), and
 * leaving a game after winning levels worded as a finish.
 */
import { expect, test } from './studio-test';
import { parseActions } from '../src/core/game';
import { solutions } from '../src/games';
import { performGameActions, picture } from './helpers';
import { ADMIN, serverEvents } from './study-helpers';

test('the time left shows, the hard limit says it closed the item, and leaving a game after a won level is a finish', async ({
  page,
  request,
}) => {
  const id = `limits-${Date.now().toString(36)}`;
  const created = await request.post(`/api/admin/studies/${id}`, {
    headers: ADMIN,
    data: {
      definition: {
        title: 'Time and leaving',
        consent: 'You agree.',
        instructions: 'Go.',
        showTimeLeft: true,
        completion: { code: 'LIMITS-OK' },
        items: [
          {
            kind: 'task',
            id: 'mirror',
            collection: 'samples',
            task: 'mirror-across-wall',
            softMinutes: 0.5,
            hardMinutes: 1.5,
          },
          { kind: 'game', id: 'push', game: 'push' },
        ],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);

  // The page's clock is moved past the limits by the test, not waited for.
  await page.clock.install();
  await page.goto(`/s/${id}?PROLIFIC_PID=limits-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.getByTestId('output-grid')).toBeVisible();
  // A minute and a half in all: the clock counts down.
  await expect(page.getByTestId('time-left')).toHaveText(/^Time left: (1:30|1:[0-2]\d)$/);
  const softNotice = page.getByText(
    'You have spent 30 seconds on this item. You may move on whenever you like; it closes after 1 minute 30 seconds.',
  );
  await expect(softNotice).toHaveCount(0);
  await page.clock.fastForward('00:35');
  await expect(softNotice).toBeVisible();
  await expect(page.getByTestId('time-left')).toHaveText(/^Time left: 0:[4-5]\d$/);
  await picture(page, 'study-time-left');

  // The hard limit closes the item and says so; the task is no longer on screen.
  const timeUp = page.getByRole('alertdialog', { name: 'Time is up for this item' });
  await expect(timeUp).toHaveCount(0);
  await page.clock.fastForward('01:00');
  await expect(timeUp).toBeVisible();
  await expect(timeUp).toHaveAttribute('aria-modal', 'true');
  await expect(timeUp).toContainText('This item closes after 1 minute 30 seconds');
  await expect(timeUp).toContainText('Everything you did on this item is saved');
  // The alert has the focus: Enter continues.
  await expect(timeUp.getByRole('button', { name: 'Continue' })).toBeFocused();
  await picture(page, 'study-time-up');
  await expect(page.getByTestId('output-grid')).toHaveCount(0);
  await page.keyboard.press('Enter');

  // The game: once level 1 is won, leaving is "Finish and continue", not giving up.
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Give up and continue' })).toBeVisible();
  await performGameActions(page, parseActions(solutions.push[0]));
  await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-level', '1');
  await expect(page.getByRole('button', { name: 'Give up and continue' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Finish and continue' }).click();
  // The app's own dialog asks first; Escape keeps the participant on the game.
  const finish = page.getByRole('dialog', { name: 'Finish this game?' });
  await expect(finish).toContainText('You completed 1 level');
  await page.keyboard.press('Escape');
  await expect(finish).toHaveCount(0);
  await expect(page.getByTestId('game-canvas')).toBeVisible();
  await page.getByRole('button', { name: 'Finish and continue' }).click();
  await finish.getByRole('button', { name: 'Finish and move on' }).click();
  await expect(page.getByTestId('completion-code')).toHaveText('LIMITS-OK');

  const sessions = (
    (await (await request.get(`/api/admin/studies/${id}/results`, { headers: ADMIN })).json()) as {
      participants: { sessionId: string }[];
    }
  ).participants;
  const events = await serverEvents(request, sessions[0].sessionId);
  // The soft limit's notice is in the log, once, before the item's end.
  const notices = events.filter((e) => e.kind === 'item.soft_limit');
  expect(notices.map((e) => e.data)).toEqual([{ item: 'mirror', softMinutes: 0.5, hardMinutes: 1.5 }]);
  expect(events.indexOf(notices[0])).toBeLessThan(events.findIndex((e) => e.kind === 'item.end'));
  const ends = events.filter((e) => e.kind === 'item.end').map((e) => [e.data.item, e.data.reason]);
  expect(ends).toEqual([
    ['mirror', 'time_up'],
    ['push', 'finished_levels'],
  ]);
});

test("a participant sees what the study pays; one who does not consent gets the study's decline message and code, and no session is made", async ({
  page,
  request,
}) => {
  const id = `decline-${Date.now().toString(36)}`;
  const created = await request.post(`/api/admin/studies/${id}`, {
    headers: ADMIN,
    data: {
      definition: {
        title: 'Consent or not',
        consent: 'You agree to solve puzzles.',
        completion: { code: 'DONE' },
        decline: { message: 'Thank you for considering **this study**.', code: 'NOCONSENT' },
        payment: { currency: 'GBP', fee: 2, bonus: { perLevel: 0.25 } },
        items: [{ kind: 'game', id: 'push', game: 'push' }],
      },
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  await page.goto(`/s/${id}?PROLIFIC_PID=decline-${Date.now().toString(36)}`);
  // What the study pays is on the consent page, before the participant decides.
  await expect(page.getByTestId('payment')).toHaveText(
    'You are paid £2.00 for taking part, and a bonus of £0.25 for each game level you complete.',
  );
  await picture(page, 'consent-payment');
  await page.getByRole('button', { name: 'I do not agree' }).click();
  const declined = page.getByTestId('declined');
  await expect(declined.getByRole('heading', { name: 'You chose not to take part' })).toBeVisible();
  await expect(declined.locator('strong')).toHaveText('this study');
  await expect(page.getByTestId('decline-code')).toHaveText('NOCONSENT');
  const results = (await (await request.get(`/api/admin/studies/${id}/results`, { headers: ADMIN })).json()) as {
    participants: unknown[];
  };
  expect(results.participants).toEqual([]);
});
