import { readFileSync } from 'node:fs';
import { expect, test, type Page } from './studio-test';
import { seriousViolations } from './axe';
import { ADMIN, buildGrid, expectAllStored, sampleTask } from './study-helpers';
import { setWindowSize, picture } from './helpers';

type Pick = RegExp[];

/** Picks each label in turn inside `scope`. */
async function pick(scope: Page | ReturnType<Page['getByTestId']>, names: Pick): Promise<void> {
  for (const name of names) await scope.getByRole('radio', { name }).check();
}

/**
 * A participant takes the example question study: puddle (one question), the Energy block
 * (sci-006 and sci-007), shop-sign, incline (a number), recurrence (a proof), the mirror task with
 * its two written descriptions, and the survey's two required questions.
 */
async function takeStudy(
  page: Page,
  studyId: string,
  pid: string,
  plan: { puddle: Pick; food: Pick; energy: Pick; shop: Pick; incline: string },
): Promise<void> {
  await page.goto(`/s/${studyId}?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  const single = async (answer: () => Promise<void>) => {
    await answer();
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await expect(page.getByRole('status')).toHaveText('Your answer is recorded.');
    await page.getByRole('button', { name: 'Next' }).click();
  };
  await single(() => pick(page, plan.puddle));
  const block = page.getByTestId('block-question');
  await pick(block.nth(0), plan.food);
  await page.getByRole('button', { name: 'Submit answer 1' }).click();
  await expect(block.nth(0).getByRole('status')).toHaveText('Answer 1 is recorded.');
  await pick(block.nth(1), plan.energy);
  await page.getByRole('button', { name: 'Submit answer 2' }).click();
  await expect(page.getByText('All your answers are recorded.')).toBeVisible();
  await page.getByRole('button', { name: 'Next' }).click();
  await single(() => pick(page, plan.shop));
  await single(async () => {
    const box = page.getByRole('textbox', { name: 'Your answer (a number)' });
    await box.click();
    await box.pressSequentially(plan.incline);
  });
  await single(() =>
    page.getByRole('textbox', { name: /Your answer \(write your reasoning/ }).fill('a_n = 2^n - 1 by induction.'),
  );
  // The task: a first (wrong) submission and its description, then solved, and the last description.
  await expect(page.getByTestId('output-grid')).toBeVisible();
  await page.getByRole('button', { name: 'Submit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Describe the rule in your own words' });
  await dialog.getByRole('textbox', { name: 'Your description' }).fill('Mirror the shape.');
  await dialog.getByRole('button', { name: 'Save description' }).click();
  await expect(dialog).toHaveCount(0);
  await buildGrid(page, sampleTask('mirror-across-wall').test[0].output!);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByTestId('task-result')).toHaveText('Task solved');
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  const last = page.getByTestId('describe-form');
  await last.getByRole('textbox', { name: 'Your description' }).fill('Mirror every shape across the wall.');
  await last.getByRole('button', { name: 'Save description' }).click();
  // The survey's required questions.
  await page.getByLabel(/How old are you/).fill('30');
  await page.getByRole('radio', { name: 'Secondary school' }).check();
  await page.getByRole('button', { name: 'Submit answers' }).click();
  await expect(page.getByTestId('completion-code')).toHaveText('QUESTIONS-DONE');
  await expectAllStored(page.request, page);
}

/**
 * Three people take the example question study (AI2 ARC questions, one pair in a block, an ARB
 * law question, a numerical problem, a proof, a grid task and a survey); the researcher reads accuracy, time, answer changes and the
 * options picked per question and per subset, then scores a model's answers file on the Score
 * page beside those people.
 */
test("question results, and a model's answers beside the people", async ({ page, browser, request }) => {
  const id = `e2e-qres-${Date.now().toString(36)}`;
  const definition = JSON.parse(readFileSync('data/example-studies/questions.json', 'utf8'));
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);

  // puddle (sci-001, B, Easy); the block: sci-006 (B, Challenge) and sci-007 (2, Easy); shop-sign (B); incline (4.952 within 1%).
  // The three take the study at the same time, each in a browser of their own: most of a walk is
  // spent waiting for answers to be recorded (an answer waits for the events before it, which the
  // browser sends in batches a second apart), and one person's wait is another's turn.
  const people: [string, Parameters<typeof takeStudy>[3]][] = [
    [
      'ann',
      {
        puddle: [/soaked into the concrete/, /evaporated/],
        food: [/the Sun/],
        energy: [/wind/],
        shop: [/A contract may have formed/],
        incline: '4.95',
      },
    ],
    [
      'ben',
      { puddle: [/evaporated/], food: [/the soil/], energy: [/coal/], shop: [/No contract: a sign/], incline: '7' },
    ],
    [
      'cat',
      {
        puddle: [/absorbed by the sunlight/],
        food: [/the Sun/],
        energy: [/wind/],
        shop: [/A contract may have formed/],
        incline: '4.95',
      },
    ],
  ];
  await Promise.all(
    people.map(async ([pid, plan]) => {
      const context = await browser.newContext();
      await takeStudy(await context.newPage(), id, pid, plan);
      await context.close();
    }),
  );

  // The researcher's results: the Questions tab.
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${id}`);
  await page.getByRole('tab', { name: 'Questions' }).click();
  const section = page.getByRole('region', { name: 'Question results' });
  await expect(section).toBeVisible();
  // puddle: ann (changed A to B) and ben right, cat wrong.
  await expect(page.getByTestId('question-accuracy-puddle-0')).toHaveAttribute('data-accuracy', String(2 / 3));
  await expect(page.getByTestId('question-accuracy-puddle-0')).toContainText('66.7% (2/3)');
  await expect(section.getByRole('row').filter({ hasText: 'science/sci-001' })).toContainText('20.8–93.9%');
  await expect(page.getByTestId('question-changed-puddle-0')).toHaveText('1/3');
  await expect(page.getByTestId('question-time-puddle-0')).toHaveText(/^\d+s$/);
  const options = page.getByTestId('question-options-puddle-0').getByRole('listitem');
  await expect(options).toHaveCount(4);
  expect(
    await options.evaluateAll((els) =>
      els.map((e) => [e.getAttribute('data-label'), e.getAttribute('data-count'), e.getAttribute('data-correct')]),
    ),
  ).toEqual([
    ['A', '0', 'false'],
    ['B', '2', 'true'],
    ['C', '0', 'false'],
    ['D', '1', 'false'],
  ]);
  await expect(page.getByTestId('question-options-puddle-0').getByText('correct answer')).toHaveCount(1);
  // The numerical problem: 4.95 is within 1% of 4.952, 7 is not; the proof awaits grading.
  await expect(page.getByTestId('question-accuracy-incline-0')).toContainText('66.7% (2/3)');
  await expect(page.getByTestId('question-accuracy-recurrence-0')).toContainText('3 awaiting grading');
  // The block's questions have rows of their own.
  await expect(page.getByTestId('question-accuracy-food-and-energy-0')).toContainText('66.7% (2/3)');
  await expect(page.getByTestId('question-options-food-and-energy-1').getByRole('listitem')).toHaveCount(4);
  // Per subset: Easy is puddle and sci-007 (4 of 6 right), Challenge sci-006 (2 of 3).
  await expect(page.getByTestId('group-accuracy-subset-Easy')).toContainText('66.7% (4/6)');
  await expect(page.getByTestId('group-accuracy-subset-Challenge')).toContainText('66.7% (2/3)');
  await expect(page.getByTestId('group-accuracy-type-free-response')).toHaveCount(0);
  await expect(page.getByTestId('group-accuracy-type-symbolic')).toContainText('3 awaiting grading');
  expect(await seriousViolations(page, 'section[aria-label="Question results"]')).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 720 });
  await picture(page, 'question-results-1280', { fullPage: true });
  await setWindowSize(page, { width: 768, height: 1024 });
  await picture(page, 'question-results-768', { fullPage: true });
  // Readable at 768 px: the accuracy and options of a question stay on screen without sideways scrolling.
  const puddle = page.getByTestId('question-options-puddle-0');
  await expect
    .poll(async () => {
      const box = (await puddle.boundingBox())!;
      return box.x + box.width;
    })
    .toBeLessThanOrEqual(768);

  // The Score page: a model's answers to the science collection beside these people.
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/score');
  const panel = page.getByRole('region', { name: /Score a model's answers to questions/ });
  await panel.getByRole('combobox', { name: 'Question collection' }).selectOption('science');
  await panel.getByRole('combobox', { name: 'Study' }).selectOption(id);
  // A broken file first: refused with the line and the reason.
  await panel.getByLabel('Model answers (.jsonl)').setInputFiles({
    name: 'broken.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from('{"id": "sci-001"}\n'),
  });
  await panel.getByRole('button', { name: 'Score answers' }).click();
  await expect(panel.getByRole('alert')).toContainText(
    'broken.jsonl: The answers file has 1 problem; fix them and upload it again:',
  );
  await expect(panel.getByRole('alert')).toContainText('answers:1 response: is missing');
  // The model: every science key right but sci-001 (it says A).
  const keys: Record<string, string> = {
    'sci-001': 'A',
    'sci-002': 'A',
    'sci-003': '2',
    'sci-004': 'C',
    'sci-005': 'C',
    'sci-006': 'B',
    'sci-007': '2',
    'sci-008': 'C',
    'sci-009': 'C',
    'sci-010': 'B',
    'sci-011': '2',
    'sci-012': 'A',
  };
  const model = Object.entries(keys)
    .map(([q, k]) => JSON.stringify({ id: q, response: `Reasoning... so the answer is ${k}` }))
    .join('\n');
  await panel
    .getByLabel('Model answers (.jsonl)')
    .setInputFiles({ name: 'model.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(model) });
  await panel.getByRole('button', { name: 'Score answers' }).click();
  const table = panel.getByRole('table', { name: 'Model beside people, per subset' });
  await expect(table).toBeVisible();
  await expect(panel.getByTestId('model-accuracy')).toHaveText('91.7%');
  const easy = panel.getByTestId('beside-Easy').getByRole('cell');
  // Easy: the model 5 of 6, on the two the people answered (sci-001, sci-007) 1 of 2; the people 4 of 6.
  expect(await easy.allInnerTexts()).toEqual([
    'Easy',
    '6',
    '83.3% (5/6)',
    '50.0% (1/2)',
    '66.7% (4/6)',
    '30.0–90.3%',
    '6 (2)',
  ]);
  await expect(panel.getByTestId('beside-Challenge').getByRole('cell').nth(4)).toHaveText('66.7% (2/3)');
  expect(await seriousViolations(page, 'section[aria-labelledby="question-score-title"]')).toEqual([]);
  await picture(page, 'question-score-1280', { fullPage: true });
  await page.setViewportSize({ width: 768, height: 1024 });
  await picture(page, 'question-score-768', { fullPage: true });
});
