import { expect, test, type Response } from './studio-test';
import { seriousViolations } from './axe';
import { ADMIN, expectAllStored, serverEvents } from './study-helpers';
import { picture } from './helpers';

/**
 * A participant answers question items: two AI2 ARC questions (letters, then digits), a
 * numerical ARB-style problem with LaTeX, and a free response kept for grading. The server
 * judges; nothing the browser receives holds an answer, a rubric or a reference solution.
 */
test('a participant answers choice, numerical and free-response questions; the server judges and keeps them', async ({
  page,
  request,
}) => {
  const id = `e2e-questions-${Date.now().toString(36)}`;
  const definition = {
    title: 'Science and reasoning questions',
    consent: 'You agree to take part.',
    items: [
      { kind: 'question', id: 'q-roots', collection: 'science', question: 'sci-004' },
      { kind: 'question', id: 'q-friction', collection: 'science', question: 'sci-003' },
      { kind: 'question', id: 'q-speed', collection: 'arb-sample', question: 'arb-phys-1' },
      { kind: 'question', id: 'q-proof', collection: 'arb-sample', question: 'arb-math-1' },
    ],
    completion: { code: 'QUESTIONS-OK' },
  };
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);

  const bodies: string[] = [];
  page.on('response', (r: Response) => {
    if (r.url().includes('/api/'))
      void r
        .text()
        .then((t) => bodies.push(t))
        .catch(() => {});
  });

  await page.goto(`/s/${id}?PROLIFIC_PID=question-participant`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();

  // 1. Letters: a change of mind is logged, then the answer is sent.
  await expect(page.getByTestId('question-prompt')).toContainText('Which part of a plant takes in most of the water');
  await page.getByRole('radio', { name: /the leaves/ }).check();
  await page.getByRole('radio', { name: /the roots/ }).check();
  expect(await seriousViolations(page)).toEqual([]);
  // A reload keeps the pick, and after the answer is sent, keeps it sent.
  await page.reload();
  await expect(page.getByRole('radio', { name: /the roots/ })).toBeChecked();
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
  await expect(page.getByRole('radio', { name: /the roots/ })).toBeDisabled();
  await page.reload();
  await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
  await page.getByRole('button', { name: 'Next' }).click();

  // 2. Digit labels; nothing picked yet is refused in the page.
  await expect(page.getByTestId('question-prompt')).toContainText('toy car');
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await expect(page.getByRole('alert')).toHaveText('Pick an answer first.');
  await expect(page.getByText('1.', { exact: true })).toBeVisible();
  await page.getByRole('radio', { name: /more gravity/ }).check();
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
  await page.getByRole('button', { name: 'Next' }).click();

  // 3. A numerical problem with math rendered by KaTeX; text that is not a number is refused.
  const prompt = page.getByTestId('question-prompt');
  await expect(prompt.locator('.katex').first()).toBeVisible();
  await expect(prompt.locator('.katex-display')).toHaveCount(1);
  // What is drawn is the typeset formula; the TeX source is only in KaTeX's MathML for screen readers.
  await expect(prompt.locator('.katex-html').first()).toHaveText(/^m=2\.0\s*kg$/);
  // The item's image, served by the server from beside the question file.
  const figure = prompt.getByRole('img', { name: /frictionless incline/ });
  await expect(figure).toBeVisible();
  expect(await figure.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(240);
  const box = page.getByRole('textbox', { name: 'Your answer (a number)' });
  await box.click();
  await box.pressSequentially('about 5 m/s');
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await expect(page.getByRole('alert')).toContainText('Enter one number');
  await box.fill('');
  await box.pressSequentially('4.93');
  await picture(page, 'questions-numerical');
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
  await page.getByRole('button', { name: 'Next' }).click();

  // 4. A free response, kept for grading.
  await expect(page.getByTestId('question-prompt')).toContainText('closed form');
  const proof = page.getByRole('textbox', { name: /Your answer \(write your reasoning/ });
  await proof.click();
  await proof.pressSequentially('Guess $a_n = 2^n - 1$; it holds for n = 1 and the step doubles and adds one.');
  await page.getByRole('button', { name: 'Submit answer' }).click();
  await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
  await page.getByRole('button', { name: 'Next' }).click();

  await expect(page.getByTestId('completion-code')).toHaveText('QUESTIONS-OK');
  const local = await expectAllStored(request, page);

  // The server judged each answer and kept the free response.
  const admin = (await (await request.get(`/api/admin/sessions/${local.id}`, { headers: ADMIN })).json()) as {
    submissions: { item: string; verdict: string; grid: unknown }[];
  };
  const verdicts = Object.fromEntries(admin.submissions.map((s) => [s.item, [s.verdict, s.grid]]));
  expect(verdicts).toEqual({
    'q-roots': ['correct', { choice: 'C' }],
    'q-friction': ['wrong', { choice: '1' }],
    'q-speed': ['correct', { text: '4.93' }],
    'q-proof': ['ungraded', { text: 'Guess $a_n = 2^n - 1$; it holds for n = 1 and the step doubles and adds one.' }],
  });

  // Choice changes, typing, focus and the submissions are in the log.
  const events = await serverEvents(request, local.id);
  const of = (kind: string, item: string) => events.filter((e) => e.kind === kind && e.data.item === item);
  expect(of('question.choice', 'q-roots').map((e) => e.data.label)).toEqual(['B', 'C']);
  expect(of('question.submit', 'q-roots').map((e) => e.data.verdict)).toEqual(['correct']);
  expect(of('question.focus', 'q-speed').length).toBeGreaterThan(0);
  expect(of('question.input', 'q-speed').at(-1)?.data.text).toBe('4.93');
  expect(of('question.input', 'q-proof').at(-1)?.data.text).toContain('2^n - 1');
  expect(of('question.submit', 'q-proof').map((e) => e.data.verdict)).toEqual(['ungraded']);
  const times = of('question.submit', 'q-speed').map((e) => e.t);
  expect(times[0]).toBeGreaterThan(of('question.focus', 'q-speed')[0].t);

  // Nothing the participant's browser received gives an answer away.
  const participantText = bodies.join('\n');
  for (const secret of ['answerKey', 'rubric', 'the mass cancels', 'By induction', '4.952', '"answer"'])
    expect(participantText).not.toContain(secret);
});

test('a researcher adds a question item in the study editor', async ({ page, request }) => {
  const id = `e2e-q-editor-${Date.now().toString(36)}`;
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'New study' }).click();
  await page.getByRole('textbox', { name: /Study id/ }).fill(id);
  await page.getByRole('textbox', { name: 'Study title' }).fill('Question editor study');
  await page.getByRole('textbox', { name: 'Consent (Markdown)' }).fill('You agree.');
  await page.getByRole('button', { name: 'Add question' }).click();
  await expect(page.getByRole('combobox', { name: 'Question collection' })).toHaveValue('science');
  await page.getByLabel('Completion code').fill('Q-EDIT');
  await page.getByRole('button', { name: 'Save study' }).click();
  // No question chosen yet: refused with the reason.
  await expect(page.getByRole('alert')).toContainText('question');
  // The picker: searched by text, the question shown as the participant sees it, no answer.
  await page.getByRole('button', { name: /^Question Choose a question/ }).click();
  const picker = page.getByTestId('question-picker');
  await expect(picker.getByTestId('question-picker-count')).toHaveText(/^12 of 12 questions$/);
  await picker.getByLabel('Search questions').fill('moon looks different');
  await expect(picker.getByTestId('question-picker-count')).toHaveText('1 of 12 questions');
  await picker.getByRole('button', { name: /sci-009/ }).click();
  await expect(picker.getByTestId('question-picker-chosen')).toContainText('What causes these changes');
  await expect(picker.getByTestId('question-picker-chosen').getByRole('listitem')).toHaveCount(4);
  await picker.getByRole('button', { name: 'Use this question' }).click();
  await expect(picker).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Question sci-009 Change', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status')).toContainText('Saved as version 1');
  const def = (await (await request.get(`/api/admin/studies/${id}`, { headers: ADMIN })).json()).definition;
  expect(def.items).toEqual([
    { kind: 'question', id: 'question-1', collection: 'science', question: 'sci-009', practice: false },
  ]);
});
