/**
 * A study on Prolific ends on Prolific's completion page: the code stays on screen for the
 * study's `completion.redirectAfterSeconds`, then the page goes to
 * `https://app.prolific.com/submissions/complete?cc=<code>` by itself. Prolific itself is never
 * reached: the browser's requests to it are answered by the test. Time is moved with `page.clock`.
 */
import { expect, test } from './studio-test';
import { ADMIN } from './study-helpers';

test('the end of a study on Prolific shows the code, then sends the participant to Prolific with it after the delay', async ({
  page,
  request,
}) => {
  const definition = {
    title: 'On Prolific',
    consent: 'You agree.',
    instructions: 'Read the page.',
    items: [{ kind: 'page', id: 'only', markdown: 'Press continue.' }],
    completion: { code: 'PRO-7Q2', redirectAfterSeconds: 120 },
    prolific: { studyId: '65aa00bb11cc22dd33ee44ff' },
  };
  const saved = await request.put('/api/admin/studies/on-prolific', { headers: ADMIN, data: { definition } });
  expect(saved.status()).toBe(201);
  // A delay the study cannot have is refused with what to change.
  const refused = await request.put('/api/admin/studies/on-prolific-bad', {
    headers: ADMIN,
    data: { definition: { ...definition, completion: { code: 'X', redirectAfterSeconds: 3600 } } },
  });
  expect(refused.status()).toBe(400);
  expect(await refused.text()).toContain('redirectAfterSeconds');

  const reached: string[] = [];
  await page.route('https://app.prolific.com/**', (route) => {
    reached.push(route.request().url());
    return route.fulfill({ contentType: 'text/html', body: '<title>Prolific</title><h1>Submission complete</h1>' });
  });
  await page.clock.install();
  await page.goto(
    '/s/on-prolific?PROLIFIC_PID=5f00aa11bb22cc33dd44ee55&STUDY_ID=65aa00bb11cc22dd33ee44ff&SESSION_ID=s1',
  );
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page.getByTestId('completion-code')).toHaveText('PRO-7Q2');
  const note = page.getByTestId('redirect-note');
  await expect(note).toContainText('in 120 s');
  await expect(note).toHaveAttribute('data-redirect-url', 'https://app.prolific.com/submissions/complete?cc=PRO-7Q2');
  // Before the delay, the page stays with its code on screen.
  await page.clock.runFor(100_000);
  await expect(page.getByTestId('completion-code')).toBeVisible();
  expect(reached).toEqual([]);

  await page.clock.runFor(21_000);
  await page.waitForURL('https://app.prolific.com/submissions/complete?cc=PRO-7Q2');
  await expect(page.getByRole('heading', { name: 'Submission complete' })).toBeVisible();
  expect(reached).toEqual(['https://app.prolific.com/submissions/complete?cc=PRO-7Q2']);
});
