/**
 * Grading free responses, end to end: participants answer the sample question study, the
 * researcher adds two graders in the studio and copies their links, each grader grades in a
 * browser of their own (blind to the participant and to each other), the researcher adjudicates
 * the disagreement, and the studio shows the final grades and the agreement.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Browser, type Page } from './studio-test';
import { seriousViolations } from './axe';
import { ADMIN } from './study-helpers';
import { picture } from './helpers';

const GOOD = 'Closed form a_n = 2^n - 1. Base: a_1 = 1. Step: 2(2^n - 1) + 1 = 2^{n+1} - 1. By induction it holds.';
const POOR = 'It doubles every time, so about 2^n.';

/** A participant works through the sample question study, writing `proof` for the recurrence. */
async function participate(
  browser: Browser,
  studyId: string,
  pid: string,
  proof: string,
  items: readonly string[],
): Promise<void> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`/s/${studyId}?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  for (const item of items) {
    // The item that ended stays on screen until the next one is known: answer the one asked now.
    await expect(page.locator('[data-item]')).toHaveAttribute('data-item', item);
    const prompt = page.getByTestId('question-prompt');
    await expect(prompt).toBeVisible();
    if (await page.getByRole('radio').count()) await page.getByRole('radio').first().check();
    else if (await page.getByRole('textbox', { name: 'Your answer (a number)' }).count())
      await page.getByRole('textbox', { name: 'Your answer (a number)' }).fill('4.95');
    else await page.getByRole('textbox', { name: /Your answer \(write your reasoning/ }).fill(proof);
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
    await page.getByRole('button', { name: 'Next' }).click();
  }
  await expect(page.getByTestId('completion-code')).toHaveText('QUESTIONS-DONE');
  await context.close();
}

/** Fills the rubric's four criteria and saves. */
async function grade(page: Page, points: number[]): Promise<void> {
  for (let i = 0; i < points.length; i++)
    await page.getByRole('spinbutton', { name: new RegExp(`^Criterion ${i + 1} points`) }).fill(String(points[i]));
  await page.getByRole('button', { name: 'Save grade' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
}

/** Grades both answers: `good` for the induction proof, `poor` for the other, whichever comes first in this grader's order. */
async function gradeAll(page: Page, good: number[], poor: number[]): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await page
      .getByRole('button', { name: `Answer ${i + 1}`, exact: false })
      .first()
      .click();
    // The answer is read once the page shows the one chosen, not the one before it.
    await expect(page.getByRole('region', { name: `Answer ${i + 1}`, exact: true })).toBeVisible();
    const text = await page.getByTestId('grading-answer').textContent();
    await grade(page, text === GOOD ? good : poor);
  }
}

test('two graders grade a free response blind, the researcher adjudicates, the studio shows agreement and the final grade', async ({
  browser,
  page,
  request,
}) => {
  const id = `e2e-grading-${Date.now().toString(36)}`;
  // The example question study's one-question screens (its block, task and survey are tested elsewhere).
  const definition = JSON.parse(readFileSync('data/example-studies/questions.json', 'utf8'));
  definition.items = definition.items.filter(
    (i: { kind: string; question?: string }) => i.kind === 'question' && i.question,
  );
  expect(definition.items.map((i: { question: string }) => i.question)).toContain('arb-math-1');
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);
  await participate(
    browser,
    id,
    'grading-good',
    GOOD,
    definition.items.map((i: { id: string }) => i.id),
  );
  await participate(
    browser,
    id,
    'grading-poor',
    POOR,
    definition.items.map((i: { id: string }) => i.id),
  );

  // The researcher adds two graders in the studio and copies their links.
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('link', { name: 'New study' })).toBeVisible();
  await page.goto(`/studies/${id}`);
  await page.getByRole('tab', { name: 'Grading' }).click();
  await expect(page.getByText('No grader yet')).toBeVisible();
  const links: string[] = [];
  for (const label of ['Grader A', 'Grader B']) {
    await page.getByRole('textbox', { name: "Grader's name or label" }).fill(label);
    await page.getByRole('button', { name: 'Add grader' }).click();
    const box = page.getByRole('textbox', { name: `Grader link for ${label}` });
    await expect(box).toHaveValue(/\/grade\/[A-Za-z0-9_-]{43}$/);
    links.push(await box.inputValue());
  }
  await expect(page.getByTestId('grader-progress-Grader A')).toHaveText('0 of 2');
  expect(await seriousViolations(page)).toEqual([]);

  // Grader A, in a browser of their own: blind, with the rubric and the reference.
  const a = await (await browser.newContext()).newPage();
  const seen: string[] = [];
  a.on('response', (r) => {
    if (r.url().includes('/api/'))
      void r
        .text()
        .then((t) => seen.push(t))
        .catch(() => {});
  });
  await a.goto(links[0]);
  await expect(a.getByRole('heading', { name: /Grading: Science and reasoning questions/ })).toBeVisible();
  await expect(a.getByTestId('grading-progress')).toHaveText('0 of 2 graded');
  await expect(a.getByTestId('grading-prompt').locator('.katex').first()).toBeVisible();
  await expect(a.getByTestId('grading-reference')).toContainText('By induction');
  await expect(a.getByText('Proves the step')).toBeVisible();
  expect(await seriousViolations(a)).toEqual([]);
  // Out of range is refused before it is sent.
  await a.getByRole('spinbutton', { name: /^Criterion 3 points/ }).fill('3');
  await a.getByRole('button', { name: 'Save grade' }).click();
  await expect(a.getByRole('alert')).toHaveText('Criterion 1: give points from 0 to 1.');
  // More than two decimals is refused with what to give instead.
  await a.getByRole('spinbutton', { name: /^Criterion 1 points/ }).fill('0.555');
  await a.getByRole('button', { name: 'Save grade' }).click();
  await expect(a.getByRole('alert')).toHaveText(
    'Criterion 1: 0.555 has more than two decimals; give at most two, e.g. 0.55 or 0.56.',
  );
  await gradeAll(a, [1, 1, 2, 1], [0, 0, 1, 0]);
  await expect(a.getByTestId('grading-progress')).toHaveText('2 of 2 graded');
  // Back to the first answer, changed and saved again.
  await a.getByRole('button', { name: 'Previous' }).click();
  await expect(a.getByRole('spinbutton', { name: /^Criterion 1 points/ })).not.toHaveValue('');
  await a.reload();
  await expect(a.getByTestId('grading-progress')).toHaveText('2 of 2 graded');
  const text = seen.join('\n');
  expect(text).not.toContain('grading-good');
  expect(text).not.toContain('sessionId');
  expect(text).not.toContain('Grader B');

  // Grader B: agrees on the good proof, passes the poor one.
  const b = await (await browser.newContext()).newPage();
  await b.goto(links[1]);
  await expect(b.getByText('as Grader B')).toBeVisible();
  await gradeAll(b, [1, 1, 2, 1], [1, 1, 1, 0]);
  await expect(b.getByTestId('grading-progress')).toHaveText('2 of 2 graded');
  // B sees none of A's grades: its first answer's form was empty until B filled it.
  await picture(b, 'grading-grader');

  // The researcher sees the progress, the agreement and the disagreement, and adjudicates it.
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.reload();
  await page.getByRole('tab', { name: 'Grading' }).click();
  await expect(page.getByTestId('grader-progress-Grader B')).toHaveText('2 of 2');
  await expect(page.getByRole('heading', { name: 'Disagreements to adjudicate (1)' })).toBeVisible();
  // Totals A 5 and 1, B 5 and 3: r = 1; pass A yes/no, B yes/yes: kappa 0.
  await expect(page.getByTestId('agreement-pearson')).toHaveText('1.00');
  await expect(page.getByTestId('agreement-kappa')).toHaveText('0.00');
  const dispute = page.getByRole('article', { name: /Disagreement on recurrence/ });
  await expect(dispute).toContainText(POOR);
  await expect(dispute.getByRole('table')).toContainText('Grader A');
  await expect(dispute.getByRole('table')).toContainText('Grader B');
  expect(await seriousViolations(page)).toEqual([]);
  await dispute.getByRole('spinbutton', { name: /^Criterion 1 points/ }).fill('0');
  await dispute.getByRole('spinbutton', { name: /^Criterion 2 points/ }).fill('1');
  await dispute.getByRole('spinbutton', { name: /^Criterion 3 points/ }).fill('0.5');
  await dispute.getByRole('spinbutton', { name: /^Criterion 4 points/ }).fill('0');
  await dispute.getByRole('textbox', { name: /Reason, for the audit log/ }).fill('no closed form stated');
  await dispute.getByRole('button', { name: 'Set final grade' }).click();
  await expect(page.getByRole('heading', { name: 'Disagreements to adjudicate (0)' })).toBeVisible();
  const finals = page.getByRole('table', { name: 'Answers and final grades' });
  await expect(finals).toContainText('final (adjudicated)');
  await expect(finals).toContainText('1.5 / 5');
  await expect(finals).toContainText('final (graders agree (mean))');
  await expect(page.getByRole('figure', { name: 'Final scores of recurrence' })).toContainText('n=2');
  await picture(page, 'grading-tab', { fullPage: true });

  // The adjudication is in the audit log; grades.csv has every grade and the final ones.
  await page.getByRole('tab', { name: 'Audit log' }).click();
  await expect(page.getByText('Set final grade')).toBeVisible();
  // Graders are named as the researcher named them, their id beside.
  await expect(page.getByRole('row').filter({ hasText: 'Grader B (' }).first()).toBeVisible();
  const link = await request.post(`/api/admin/studies/${id}/exports`, { headers: ADMIN, data: { format: 'grades' } });
  expect(link.status()).toBe(201);
  const csv = await (await request.get((await link.json()).url)).text();
  const lines = csv.trim().split('\r\n');
  expect(lines).toHaveLength(1 + 4 + 2);
  expect(lines.filter((l) => l.includes(',adjudication,'))).toHaveLength(1);

  // Revoking a grader's link asks first; Cancel keeps it working.
  await page.getByRole('tab', { name: 'Grading' }).click();
  await page.getByRole('button', { name: 'Revoke the link of Grader B' }).click();
  const ask = page.getByRole('dialog', { name: 'Revoke the link of Grader B?' });
  await expect(ask).toContainText('cannot be restored');
  await ask.getByRole('button', { name: 'Cancel' }).click();
  await expect(ask).toHaveCount(0);
  await page.getByRole('button', { name: 'Revoke the link of Grader B' }).click();
  await ask.getByRole('button', { name: 'Revoke link' }).click();
  await expect(ask).toHaveCount(0);
  await expect(page.getByRole('row').filter({ hasText: 'Grader B' }).getByText('revoked')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Revoke the link of Grader A' })).toBeVisible();
});
