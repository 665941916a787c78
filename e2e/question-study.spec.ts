/**
 * A question study end to end: a participant answers AI2 ARC multiple-choice questions, a
 * numerical problem and a free response with a rubric, solves a grid task and describes its rule
 * in writing; a grader, with a link made in the studio's Grading tab, grades the free response in
 * a browser of their own; the studio's results then show the accuracy, the times and the grade,
 * and responses.csv holds the answers and the description.
 */
import { expect, test } from './studio-test';
import { seriousViolations } from './axe';
import { parseCsvObjects } from '../src/core/formats/csv';
import { ADMIN, buildGrid, expectAllStored, sampleTask } from './study-helpers';
import { picture } from './helpers';

const DEFINITION = {
  title: 'Science, numbers, a proof and a grid',
  consent: 'You agree to take part.',
  items: [
    // AI2 ARC format (data/questions/science.jsonl): sci-001 is Easy (key B), sci-006 Challenge (key B).
    { kind: 'question', id: 'puddle', collection: 'science', question: 'sci-001' },
    { kind: 'question', id: 'food-chain', collection: 'science', question: 'sci-006' },
    // ARB-style: a number within 1% of 4.952, and a proof graded with a rubric of 5 points (pass at 2.5).
    { kind: 'question', id: 'incline', collection: 'arb-sample', question: 'arb-phys-1' },
    { kind: 'question', id: 'recurrence', collection: 'arb-sample', question: 'arb-math-1' },
    { kind: 'task', id: 'boxes', collection: 'samples', task: 'fill-closed-boxes', describe: true },
  ],
  completion: { code: 'MIXED-DONE' },
};

const PROOF = 'Closed form a_n = 2^n - 1. Base: a_1 = 1. Step: 2(2^n - 1) + 1 = 2^{n+1} - 1. By induction it holds.';
const RULE = 'Every closed box gets its inside filled; open boxes stay empty.';

test('a participant takes a mixed question study, a grader grades the free response, the studio shows accuracy, times and the grade', async ({
  browser,
  page,
  request,
}) => {
  test.setTimeout(300_000);
  const id = `e2e-qstudy-${Date.now().toString(36)}`;
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition: DEFINITION } });
  expect(saved.status(), await saved.text()).toBe(201);

  // The participant, with clicks and keys.
  await page.goto(`/s/${id}?PROLIFIC_PID=mixed-participant`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  const submitted = async () => {
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
    await page.getByRole('button', { name: 'Next' }).click();
  };

  // 1. puddle: a click on A, then the arrow key moves the pick to B (one answer change); right.
  await expect(page.getByTestId('question-prompt')).toContainText('puddle');
  await page.getByRole('radio', { name: /soaked into the concrete/ }).click();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('radio', { name: /evaporated/ })).toBeChecked();
  expect(await seriousViolations(page)).toEqual([]);
  await submitted();
  // 2. food-chain: "the soil" is wrong (the key is the Sun).
  await expect(page.getByTestId('question-prompt')).toContainText('food');
  await page.getByRole('radio', { name: /the soil/ }).check();
  await submitted();
  // 3. incline: a number typed key by key; 4.95 is within 1% of 4.952.
  const number = page.getByRole('textbox', { name: 'Your answer (a number)' });
  await number.click();
  await number.pressSequentially('4.95');
  await submitted();
  // 4. recurrence: a written proof, kept for grading (the math is rendered).
  await expect(page.getByTestId('question-prompt').locator('.katex').first()).toBeVisible();
  const proof = page.getByRole('textbox', { name: /Your answer \(write your reasoning/ });
  await proof.click();
  await proof.pressSequentially(PROOF, { delay: 2 });
  await submitted();

  // 5. The grid task: solved at the first submission, which asks for the rule in writing.
  await expect(page.getByTestId('output-grid')).toBeVisible();
  await buildGrid(page, sampleTask('fill-closed-boxes').test[0].output!);
  await page.getByRole('button', { name: 'Submit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Describe the rule in your own words' });
  await expect(dialog).toBeVisible();
  const description = dialog.getByRole('textbox', { name: 'Your description' });
  await description.click();
  await page.keyboard.type(RULE);
  await dialog.getByRole('button', { name: 'Save description' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('task-result')).toHaveText('Task solved');
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await expect(page.getByTestId('completion-code')).toHaveText('MIXED-DONE');
  const session = await expectAllStored(request, page);

  // The researcher, in the studio: before grading, the proof awaits grading.
  const studio = await (await browser.newContext()).newPage();
  await studio.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(studio.getByRole('link', { name: 'New study' })).toBeVisible();
  await studio.goto(`/studies/${id}`);
  await studio.getByRole('tab', { name: 'Questions' }).click();
  await expect(studio.getByTestId('question-accuracy-recurrence-0')).toContainText('1 awaiting grading');
  await expect(studio.getByTestId('group-accuracy-all-All questions')).toContainText('66.7% (2/3)');

  // A grader link from the Grading tab (the name typed, Enter adds it).
  await studio.getByRole('tab', { name: 'Grading' }).click();
  await studio.getByRole('textbox', { name: "Grader's name or label" }).fill('Grader A');
  await studio.keyboard.press('Enter');
  const box = studio.getByRole('textbox', { name: 'Grader link for Grader A' });
  await expect(box).toHaveValue(/\/grade\/[A-Za-z0-9_-]{43}$/);
  const link = await box.inputValue();

  // The grader, in another browser context: the proof with its rubric; 4 of 5 points pass.
  const graderContext = await browser.newContext();
  const grader = await graderContext.newPage();
  await grader.goto(link);
  await expect(grader.getByTestId('grading-progress')).toHaveText('0 of 1 graded');
  await expect(grader.getByTestId('grading-answer')).toHaveText(PROOF);
  const points = [1, 1, 1, 1];
  for (let i = 0; i < points.length; i++)
    await grader.getByRole('spinbutton', { name: new RegExp(`^Criterion ${i + 1} points`) }).fill(String(points[i]));
  await grader.getByRole('button', { name: 'Save grade' }).click();
  await expect(grader.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await expect(grader.getByTestId('grading-progress')).toHaveText('1 of 1 graded');
  await graderContext.close();

  // The results now count the graded proof: accuracy, its score, and the times.
  await studio.reload();
  await studio.getByRole('tab', { name: 'Questions' }).click();
  const section = studio.getByRole('region', { name: 'Question results' });
  await expect(section).toBeVisible();
  const recurrence = studio.getByTestId('question-accuracy-recurrence-0');
  await expect(recurrence).toContainText('100.0% (1/1)');
  await expect(recurrence).not.toContainText('awaiting grading');
  await expect(section.getByRole('row').filter({ hasText: 'arb-sample/arb-math-1' })).toContainText('1 by grading');
  await expect(studio.getByTestId('question-score-recurrence-0')).toHaveText('mean score 4 / 5');
  await expect(studio.getByTestId('question-accuracy-puddle-0')).toContainText('100.0% (1/1)');
  await expect(studio.getByTestId('question-changed-puddle-0')).toHaveText('1/1');
  await expect(studio.getByTestId('question-accuracy-food-chain-0')).toContainText('0.0% (0/1)');
  await expect(studio.getByTestId('question-accuracy-incline-0')).toContainText('100.0% (1/1)');
  for (const item of ['puddle', 'food-chain', 'incline', 'recurrence'])
    await expect(studio.getByTestId(`question-time-${item}-0`)).toHaveText(/^(\d+s|\d+m \d\ds)$/);
  // All four: 3 of 4 right; the free response's type group counts the grade.
  await expect(studio.getByTestId('group-accuracy-all-All questions')).toContainText('75.0% (3/4)');
  await expect(studio.getByTestId('group-accuracy-type-symbolic')).toContainText('100.0% (1/1)');
  expect(await seriousViolations(studio, 'section[aria-label="Question results"]')).toEqual([]);
  await picture(studio, 'question-study-results', { fullPage: true });
  await picture(section.getByRole('table', { name: 'Questions' }), 'question-study-questions');

  // responses.csv: the answers with their verdicts and times, and the written description.
  const made = await request.post(`/api/admin/studies/${id}/exports`, {
    headers: ADMIN,
    data: { format: 'responses' },
  });
  expect(made.status()).toBe(201);
  const rows = parseCsvObjects(await (await request.get(((await made.json()) as { url: string }).url)).text()).filter(
    (r) => r.session_id === session.id,
  );
  expect(rows.map((r) => [r.item_id, r.kind, r.question_id, r.part, r.answer, r.verdict])).toEqual([
    ['puddle', 'question', 'sci-001', '', 'B', 'correct'],
    ['food-chain', 'question', 'sci-006', '', 'A', 'wrong'],
    ['incline', 'question', 'arb-phys-1', '', '4.95', 'correct'],
    // The proof is graded (4 of 5, a pass): correct by its final grade, as in the results.
    ['recurrence', 'question', 'arb-math-1', '', PROOF, 'correct'],
    ['boxes', 'description', '', 'first', RULE, ''],
  ]);
  for (const r of rows.filter((x) => x.kind === 'question')) expect(Number(r.item_time_ms)).toBeGreaterThan(0);
});
