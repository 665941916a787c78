/**
 * The study editor's survey builder: a researcher builds a survey of several question types with
 * forms (no JSON), sees each problem beside its field, tries the survey in the preview drawn by
 * the participants' own component, and the JSON tab follows; a participant answers it, and the
 * answers come out of the results page's responses export.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from './studio-test';
import { seriousViolations } from './axe';
import { setWindowSize, picture } from './helpers';
import { parseCsvObjects } from '../src/core/formats/csv';
import { ADMIN, expectAllStored } from './study-helpers';

test('a researcher builds a survey of several question types in the editor, a participant answers it, and the answers reach the results', async ({
  page,
  browser,
  request,
}) => {
  const id = `e2e-survey-builder-${Date.now().toString(36)}`;
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'New study' }).click();
  await page.getByRole('textbox', { name: /Study id/ }).fill(id);
  await page.getByRole('textbox', { name: 'Study title' }).fill('Survey builder study');
  await page.getByRole('textbox', { name: 'Consent (Markdown)' }).fill('You agree.');
  await page.getByLabel('Completion code').fill('SURVEY-BUILT');

  await page.getByRole('button', { name: 'Add survey' }).click();
  const builder = page.getByTestId('survey-builder-survey-1');
  const question = (n: number) => builder.getByRole('group', { name: `Question ${n}`, exact: true });
  const preview = builder.getByTestId('survey-preview');
  await builder.getByLabel('Survey title (participants see it at the top)').fill('Your experience');
  await expect(preview.getByRole('heading', { name: 'Your experience' })).toBeVisible();
  // The first question comes ready: a number from 18 to 120; it must be answered.
  await expect(question(1).getByRole('textbox', { name: 'Prompt' })).toHaveValue('How old are you?');
  await question(1).getByRole('checkbox', { name: 'Must be answered' }).check();

  // 2. One of several options; a new question's empty prompt is named at once, beside it.
  await builder.getByRole('button', { name: 'Add a question' }).click();
  const prompt2 = question(2).getByRole('textbox', { name: 'Prompt' });
  await expect(prompt2).toHaveAttribute('aria-invalid', 'true');
  await expect(prompt2).toHaveAccessibleDescription('Write the question participants answer.');
  await prompt2.fill('Which hand do you write with?');
  await expect(prompt2).not.toHaveAttribute('aria-invalid');
  await question(2).getByRole('combobox', { name: 'Answer type' }).selectOption({ label: 'One of several options' });
  await question(2).getByRole('textbox', { name: 'Question id (in exports)' }).fill('hand');
  await question(2).getByRole('textbox', { name: 'Option 1' }).fill('Left');
  await question(2).getByRole('textbox', { name: 'Option 2' }).fill('Right');
  await question(2).getByRole('button', { name: 'Add an option' }).click();
  await question(2).getByRole('textbox', { name: 'Option 3' }).fill('Left');
  await expect(question(2).getByTestId('field-problem')).toHaveText('Options must differ from each other.');
  await question(2).getByRole('textbox', { name: 'Option 3' }).fill('Both');
  await expect(question(2).getByTestId('field-problem')).toHaveCount(0);

  // 3. A Likert scale from 1 to 5 with its ends named; ends the wrong way round are named beside "To".
  await builder.getByRole('button', { name: 'Add a question' }).click();
  await question(3).getByRole('textbox', { name: 'Prompt' }).fill('How hard was the study?');
  await question(3).getByRole('combobox', { name: 'Answer type' }).selectOption({ label: 'Scale (Likert)' });
  await question(3).getByRole('textbox', { name: 'Question id (in exports)' }).fill('ease');
  await question(3).getByRole('spinbutton', { name: 'From' }).fill('5');
  await question(3).getByRole('spinbutton', { name: 'To' }).fill('1');
  await expect(question(3).getByRole('spinbutton', { name: 'To' })).toHaveAccessibleDescription(
    'A scale runs over whole numbers from min to max (2-21 points, default 1-7).',
  );
  await question(3).getByRole('spinbutton', { name: 'From' }).fill('1');
  await question(3).getByRole('spinbutton', { name: 'To' }).fill('5');
  await expect(question(3).getByTestId('field-problem')).toHaveCount(0);
  await question(3).getByRole('textbox', { name: 'Label of the low end' }).fill('Very easy');
  await question(3).getByRole('textbox', { name: 'Label of the high end' }).fill('Very hard');
  await question(3).getByRole('checkbox', { name: 'Must be answered' }).check();

  // 4. A paragraph; 5. one added by mistake and removed.
  await builder.getByRole('button', { name: 'Add a question' }).click();
  await question(4).getByRole('textbox', { name: 'Prompt' }).fill('Anything else you want to tell us?');
  await question(4).getByRole('combobox', { name: 'Answer type' }).selectOption({ label: 'Long text (a paragraph)' });
  await question(4).getByRole('textbox', { name: 'Question id (in exports)' }).fill('notes');
  await builder.getByRole('button', { name: 'Add a question' }).click();
  await expect(question(5)).toBeVisible();
  await builder.getByRole('button', { name: 'Remove question 5' }).click();
  await expect(question(5)).toHaveCount(0);
  // The scale goes last.
  await builder.getByRole('button', { name: 'Move question 3 down' }).click();
  const ids = builder.getByRole('textbox', { name: 'Question id (in exports)' });
  await expect(ids).toHaveCount(4);
  for (const [k, want] of ['age', 'hand', 'notes', 'ease'].entries()) await expect(ids.nth(k)).toHaveValue(want);

  // The preview is the participants' survey, checked by their rule; nothing is recorded.
  await expect(preview.getByRole('radio', { name: 'Both' })).toBeVisible();
  await expect(preview.getByText('Very easy')).toBeVisible();
  await preview.getByRole('button', { name: 'Check these answers' }).click();
  await expect(preview.getByText('needs an answer')).toHaveCount(2);
  await expect(preview.getByRole('status')).toHaveText('2 answers need a change (marked above).');
  await preview.getByRole('textbox', { name: /How old are you/ }).fill('30');
  await preview.getByRole('radio', { name: '3' }).check();
  await preview.getByRole('button', { name: 'Check these answers' }).click();
  await expect(preview.getByRole('status')).toHaveText('These answers would be accepted.');

  for (const width of [1280, 768, 390]) {
    await setWindowSize(page, { width, height: width === 390 ? 844 : 900 });
    await builder.evaluate((el) => el.scrollIntoView());
    await picture(page, `survey-builder-${width}`, { fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // The JSON tab holds what the forms built, and an edit there shows in the form.
  await page.getByRole('tab', { name: 'JSON' }).click();
  const json = page.getByRole('textbox', { name: 'Study definition (JSON)' });
  const written = JSON.parse(await json.inputValue()) as { items: { questions: { id: string; prompt: string }[] }[] };
  expect(written.items[0].questions.map((q) => q.id)).toEqual(['age', 'hand', 'notes', 'ease']);
  written.items[0].questions[2].prompt = 'Anything else to tell us?';
  await json.fill(JSON.stringify(written, null, 2));
  await page.getByRole('tab', { name: 'Form' }).click();
  await expect(question(3).getByRole('textbox', { name: 'Prompt' })).toHaveValue('Anything else to tell us?');

  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as version 1' })).toBeVisible();
  const def = (await (await request.get(`/api/admin/studies/${id}`, { headers: ADMIN })).json()).definition;
  expect(def.items[0]).toEqual({
    kind: 'survey',
    id: 'survey-1',
    title: 'Your experience',
    questions: [
      { id: 'age', prompt: 'How old are you?', type: 'number', min: 18, max: 120, required: true },
      {
        id: 'hand',
        prompt: 'Which hand do you write with?',
        type: 'choice',
        required: false,
        options: ['Left', 'Right', 'Both'],
      },
      { id: 'notes', prompt: 'Anything else to tell us?', type: 'longtext', required: false },
      {
        id: 'ease',
        prompt: 'How hard was the study?',
        type: 'scale',
        required: true,
        min: 1,
        max: 5,
        labels: ['Very easy', 'Very hard'],
      },
    ],
  });

  // A participant answers it.
  const participant = await browser.newPage();
  await participant.goto(`/s/${id}?PROLIFIC_PID=survey-builder-participant`);
  await participant.getByRole('button', { name: 'I agree, start' }).click();
  await participant.getByRole('button', { name: 'Begin' }).click();
  await expect(participant.getByRole('heading', { name: 'Your experience' })).toBeVisible();
  await participant.getByLabel(/How old are you/).fill('41');
  await participant.getByRole('radio', { name: 'Left' }).check();
  await participant.getByLabel(/Anything else to tell us/).fill('Clear questions.');
  await participant.getByRole('radio', { name: '4' }).check();
  await participant.getByRole('button', { name: 'Submit answers' }).click();
  await expect(participant.getByTestId('completion-code')).toHaveText('SURVEY-BUILT');
  await expectAllStored(request, participant);

  // The results page's responses export holds the answers, one row per question.
  await page.getByRole('link', { name: 'Results' }).click();
  await page.getByRole('tab', { name: 'Exports' }).click();
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download Responses (CSV)' }).click();
  const file = await (await downloading).path();
  const rows = parseCsvObjects(await readFile(file, 'utf8'));
  expect(rows.map((r) => [r.participant_id, r.item_id, r.kind, r.question_id, r.answer])).toEqual([
    ['survey-builder-participant', 'survey-1', 'survey', 'age', '41'],
    ['survey-builder-participant', 'survey-1', 'survey', 'hand', 'Left'],
    ['survey-builder-participant', 'survey-1', 'survey', 'notes', 'Clear questions.'],
    ['survey-builder-participant', 'survey-1', 'survey', 'ease', '4'],
  ]);
});
