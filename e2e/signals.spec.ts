import { expect, test } from './studio-test';
import { ADMIN, expectAllStored } from './study-helpers';

const PASTED = 'a_n = 2^n - 1, proved by induction on n.';

/**
 * A participant pastes their written answer to a free-response question with the keyboard; the
 * page logs the paste, and the researcher sees it as a signal (a reason to look, in amber) beside
 * that participant on the results page's Participants tab, and not beside one who typed.
 */
test('a paste into a free response shows as a signal on the results page', async ({ page, browser, request }) => {
  const id = `e2e-signals-${Date.now().toString(36)}`;
  const definition = {
    title: 'Signals',
    consent: 'Your answers are recorded.',
    instructions: 'Answer the question.',
    completion: { code: 'SIG-DONE' },
    items: [{ kind: 'question', id: 'recurrence', collection: 'arb-sample', question: 'arb-math-1' }],
  };
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);

  for (const [pid, paste] of [
    ['paster', true],
    ['typist', false],
  ] as const) {
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const p = await context.newPage();
    await p.goto(`/s/${id}?PROLIFIC_PID=${pid}`);
    await p.getByRole('button', { name: 'I agree, start' }).click();
    await p.getByRole('button', { name: 'Begin' }).click();
    const box = p.getByRole('textbox', { name: /Your answer \(write your reasoning/ });
    await box.click();
    if (paste) {
      await p.evaluate((text) => navigator.clipboard.writeText(text), PASTED);
      await p.keyboard.press('ControlOrMeta+V');
    } else await box.pressSequentially('By induction.');
    await expect(box).toHaveValue(paste ? PASTED : 'By induction.');
    await p.getByRole('button', { name: 'Submit answer' }).click();
    await expect(p.getByRole('status')).toHaveText('Your answer is recorded.');
    await p.getByRole('button', { name: 'Next' }).click();
    await expect(p.getByTestId('completion-code')).toHaveText('SIG-DONE');
    const { events } = await expectAllStored(request, p);
    const pastes = events.filter((e) => e.kind === 'text.paste');
    expect(pastes.map((e) => e.data)).toEqual(
      paste ? [{ item: 'recurrence', field: 'answer', length: PASTED.length, text: PASTED }] : [],
    );
    await context.close();
  }

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${id}`);
  await page.getByRole('tab', { name: /^Participants/ }).click();
  const table = page.getByRole('table', { name: 'Participants' });
  const paster = table.getByRole('row').filter({ hasText: 'paster' });
  const signal = paster.locator('[data-signal="pasted_text:recurrence"]');
  await expect(signal).toHaveText('pasted text · recurrence');
  await expect(signal).toHaveAttribute('title', /pasted into a description or a written answer/);
  await expect(table.getByRole('row').filter({ hasText: 'typist' })).toBeVisible();
  await expect(table.getByRole('row').filter({ hasText: 'typist' }).locator('[data-signal]')).toHaveCount(0);
});
