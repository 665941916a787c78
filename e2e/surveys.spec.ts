/**
 * The participant's side of question studies beyond single questions: a block of questions on
 * one screen, a grid task followed by written descriptions of its rule (first and last, as H-ARC
 * collects them), a survey checked against its questions, and withdrawing; every answer ends up
 * in responses.csv.
 */
import { expect, test, type APIRequestContext } from './studio-test';
import { seriousViolations } from './axe';
import { parseCsvObjects } from '../src/core/formats/csv';
import { ADMIN, browserSession, buildGrid, expectAllStored, sampleTask, serverEvents } from './study-helpers';
import { picture } from './helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

const DEFINITION = {
  title: 'Questions, a task and a survey',
  consent: 'You agree to take part.',
  items: [
    {
      kind: 'question',
      id: 'science-block',
      title: 'Science',
      questions: [
        { collection: 'science', question: 'sci-006' },
        { collection: 'science', question: 'sci-007' },
        { collection: 'arb-sample', question: 'arb-phys-1' },
      ],
    },
    { kind: 'task', id: 'mirror', collection: 'samples', task: 'mirror-across-wall', describe: true },
    {
      kind: 'survey',
      id: 'about',
      title: 'About you',
      questions: [
        { id: 'age', prompt: 'How old are you?', type: 'number', min: 18, max: 120, required: true },
        { id: 'hand', prompt: 'Which hand do you write with?', type: 'choice', options: ['Left', 'Right', 'Both'] },
        {
          id: 'devices',
          prompt: 'Which devices do you use daily?',
          type: 'multi',
          options: ['Phone', 'Tablet', 'Computer'],
        },
        {
          id: 'ease',
          prompt: 'How hard was the study?',
          type: 'scale',
          min: 1,
          max: 5,
          labels: ['Very easy', 'Very hard'],
          required: true,
        },
        { id: 'notes', prompt: 'Anything else you want to tell us?', type: 'longtext' },
      ],
    },
  ],
  completion: { code: 'SURVEY-OK' },
  withdraw: { message: 'Thank you for your time.', code: 'WITHDRAWN-42' },
};

async function saveStudy(request: APIRequestContext, id: string): Promise<void> {
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition: DEFINITION } });
  expect(saved.status(), await saved.text()).toBe(201);
}

async function exportRows(request: APIRequestContext, id: string): Promise<Record<string, string>[]> {
  const made = await request.post(`/api/admin/studies/${id}/exports`, {
    headers: ADMIN,
    data: { format: 'responses' },
  });
  expect(made.status()).toBe(201);
  const { url, fileName } = (await made.json()) as { url: string; fileName: string };
  expect(fileName).toBe(`${id}-responses.csv`);
  return parseCsvObjects(await (await request.get(url)).text());
}

test("a participant answers a block of questions, describes a task's rule, fills in a survey; responses.csv holds it all", async ({
  page,
  request,
}) => {
  const id = `e2e-survey-${Date.now().toString(36)}`;
  await saveStudy(request, id);
  await page.goto(`/s/${id}?PROLIFIC_PID=survey-participant`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();

  // 1. The block: three questions on one screen, each sent on its own; Next once all are answered.
  await expect(page.getByRole('heading', { name: 'Science', level: 1 })).toBeVisible();
  const questions = page.getByTestId('block-question');
  await expect(questions).toHaveCount(3);
  await expect(page.getByTestId('block-progress')).toHaveText('0 of 3 answered');
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  expect(await seriousViolations(page)).toEqual([]);
  await questions
    .nth(0)
    .getByRole('radio', { name: /the soil/ })
    .check();
  await questions
    .nth(0)
    .getByRole('radio', { name: /the Sun/ })
    .check();
  await page.getByRole('button', { name: 'Submit answer 1' }).click();
  await expect(questions.nth(0).getByRole('status')).toHaveText('Answer 1 is recorded.');
  await questions.nth(1).getByRole('radio', { name: /coal/ }).check();
  await page.getByRole('button', { name: 'Submit answer 2' }).click();
  await expect(page.getByTestId('block-progress')).toHaveText('2 of 3 answered');
  // A reload keeps what was sent and what was typed.
  await questions.nth(2).getByRole('textbox', { name: 'Your answer (a number)' }).fill('4.93');
  await questions.nth(2).getByRole('textbox', { name: 'Your answer (a number)' }).blur();
  // Leaving the field logs what was typed: reload once it is in the browser's log.
  await expect
    .poll(async () =>
      (await browserSession(page)).events.some((e) => e.kind === 'question.input' && e.data.text === '4.93'),
    )
    .toBe(true);
  await page.reload();
  await expect(page.getByTestId('block-progress')).toHaveText('2 of 3 answered');
  await expect(questions.nth(2).getByRole('textbox', { name: 'Your answer (a number)' })).toHaveValue('4.93');
  await page.getByRole('button', { name: 'Submit answer 3' }).click();
  await expect(page.getByText('All your answers are recorded.')).toBeVisible();
  await picture(page, 'surveys-block');
  await page.getByRole('button', { name: 'Next' }).click();

  // 2. The task: the first submission (wrong) asks for the first description, in a dialog.
  await expect(page.getByTestId('output-grid')).toBeVisible();
  await page.getByRole('button', { name: 'Submit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Describe the rule in your own words' });
  await expect(dialog).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Save description' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Write a description first');
  await dialog
    .getByRole('textbox', { name: 'Your description' })
    .pressSequentially('The shape is copied to the other side of the wall.');
  await picture(page, 'surveys-describe-first');
  await dialog.getByRole('button', { name: 'Save description' }).click();
  await expect(dialog).toHaveCount(0);
  // Solved on the next trial; leaving asks for the last description, since it was submitted again.
  const task = sampleTask('mirror-across-wall');
  await buildGrid(page, task.test[0].output!);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByTestId('task-result')).toHaveText('Task solved');
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  const last = page.getByTestId('describe-form');
  await expect(last).toHaveAttribute('data-stage', 'last');
  // A reload here asks for it again, with what was typed.
  await last.getByRole('textbox', { name: 'Your description' }).fill('Mirror every shape');
  // What was typed is logged after a pause in typing: reload once it is in the browser's log.
  await expect
    .poll(async () =>
      (await browserSession(page)).events.some(
        (e) => e.kind === 'description.input' && e.data.text === 'Mirror every shape',
      ),
    )
    .toBe(true);
  await page.reload();
  await expect(last).toHaveAttribute('data-stage', 'last');
  await expect(last.getByRole('textbox', { name: 'Your description' })).toHaveValue('Mirror every shape');
  await expect(page.getByRole('heading', { name: 'Describe the rule in your own words' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await last
    .getByRole('textbox', { name: 'Your description' })
    .fill('Mirror every shape across the grey wall, keeping its colours.');
  await last.getByRole('button', { name: 'Save description' }).click();

  // 3. The survey: problems are named beside their question; then the answers go once.
  await expect(page.getByRole('heading', { name: 'About you' })).toBeVisible();
  await page.getByRole('button', { name: 'Submit answers' }).click();
  await expect(page.getByText('needs an answer')).toHaveCount(2);
  await page.getByLabel(/How old are you/).fill('12');
  await page.getByRole('button', { name: 'Submit answers' }).click();
  await expect(page.getByText('must be at least 18')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByLabel(/How old are you/).fill('34');
  await page.getByRole('radio', { name: 'Right' }).check();
  await page.getByRole('checkbox', { name: 'Phone' }).check();
  await page.getByRole('checkbox', { name: 'Computer' }).check();
  await page.getByRole('radio', { name: '4' }).check();
  await page.getByLabel(/Anything else/).fill('The mirror task was fun.');
  await picture(page, 'surveys-survey', { fullPage: true });
  await page.getByRole('button', { name: 'Submit answers' }).click();

  await expect(page.getByTestId('completion-code')).toHaveText('SURVEY-OK');
  const local = await expectAllStored(request, page);

  // The log holds the picks, the descriptions and the survey.
  const events = await serverEvents(request, local.id);
  expect(events.filter((e) => e.kind === 'question.choice' && e.data.index === 0).map((e) => e.data.label)).toEqual([
    'A',
    'B',
  ]);
  expect(events.filter((e) => e.kind === 'description.submit').map((e) => e.data.stage)).toEqual(['first', 'last']);
  expect(events.find((e) => e.kind === 'survey.submit')?.data.answers).toEqual({
    age: 34,
    hand: 'Right',
    devices: ['Phone', 'Computer'],
    ease: 4,
    notes: 'The mirror task was fun.',
  });

  // responses.csv: one row per question, description and survey question.
  const rows = (await exportRows(request, id)).filter((r) => r.session_id === local.id);
  const pick = (r: Record<string, string>) => [
    r.item_id,
    r.kind,
    r.question_index,
    r.question_id,
    r.part,
    r.answer,
    r.verdict,
  ];
  expect(rows.map(pick)).toEqual([
    ['science-block', 'question', '0', 'sci-006', '', 'B', 'correct'],
    ['science-block', 'question', '1', 'sci-007', '', '1', 'wrong'],
    ['science-block', 'question', '2', 'arb-phys-1', '', '4.93', 'correct'],
    ['mirror', 'description', '', '', 'first', 'The shape is copied to the other side of the wall.', ''],
    ['mirror', 'description', '', '', 'last', 'Mirror every shape across the grey wall, keeping its colours.', ''],
    ['about', 'survey', '', 'age', '', '34', ''],
    ['about', 'survey', '', 'hand', '', 'Right', ''],
    ['about', 'survey', '', 'devices', '', 'Phone; Computer', ''],
    ['about', 'survey', '', 'ease', '', '4', ''],
    ['about', 'survey', '', 'notes', '', 'The mirror task was fun.', ''],
  ]);
  // The soil, then the Sun: one change (the first pick is the answer, not a change).
  expect(rows[0].changes).toBe('1');
  expect(rows.every((r) => r.participant_id === 'survey-participant' && r.session_state === 'finished')).toBe(true);
  expect(Number(rows[0].item_time_ms)).toBeGreaterThan(0);
});

test('a participant withdraws with a reason: the session ends withdrawn, kept and never finished', async ({
  page,
  request,
}) => {
  const id = `e2e-withdraw-${Date.now().toString(36)}`;
  await saveStudy(request, id);
  await page.goto(`/s/${id}?PROLIFIC_PID=withdrawing-participant`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.getByTestId('block-question')).toHaveCount(3);

  // Opening and cancelling changes nothing.
  await page.getByRole('button', { name: 'Withdraw from study' }).click();
  const dialog = page.getByRole('dialog', { name: 'Withdraw from the study?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Keep going' }).click();
  await expect(dialog).toHaveCount(0);
  await page.getByRole('button', { name: 'Withdraw from study' }).click();
  expect(await seriousViolations(page)).toEqual([]);
  await picture(page, 'surveys-withdraw');
  await dialog.getByRole('button', { name: 'Withdraw', exact: true }).click();
  await expect(dialog.getByRole('alert')).toContainText('Choose a reason first');
  await dialog.getByRole('radio', { name: 'I do not have time to finish' }).check();
  await dialog.getByRole('textbox', { name: 'Comment (optional)' }).fill('Something came up.');
  await dialog.getByRole('button', { name: 'Withdraw', exact: true }).click();

  await expect(page.getByRole('heading', { name: 'You have withdrawn from the study' })).toBeVisible();
  await expect(page.getByTestId('withdraw-code')).toHaveText('WITHDRAWN-42');
  await expect(page.getByText('Thank you for your time.')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  // A reload shows the same end, not the study.
  await page.reload();
  await expect(page.getByTestId('withdrawn')).toBeVisible();
  await expect(page.getByTestId('block-question')).toHaveCount(0);

  const sessions = (await (await request.get(`/api/admin/sessions?study=${id}`, { headers: ADMIN })).json()) as {
    sessions: { id: string; state: string; finishedAt: number | null }[];
  };
  expect(sessions.sessions.map((s) => s.state)).toEqual(['withdrawn']);
  // The events reach the server through the browser's outbox: read once they are all there.
  await expect
    .poll(async () =>
      (await serverEvents(request, sessions.sessions[0].id))
        .filter((e) => e.kind.startsWith('withdraw'))
        .map((e) => [e.kind, e.data.reason ?? null]),
    )
    .toEqual([
      ['withdraw.open', null],
      ['withdraw.cancel', null],
      ['withdraw.open', null],
      ['withdraw', 'no_time'],
    ]);
  const rows = await exportRows(request, id);
  expect(rows.map((r) => [r.kind, r.item_id, r.answer, r.comment, r.session_state])).toEqual([
    ['question', 'science-block', '', '', 'withdrawn'],
    ['question', 'science-block', '', '', 'withdrawn'],
    ['question', 'science-block', '', '', 'withdrawn'],
    ['withdraw', 'science-block', 'no_time', 'Something came up.', 'withdrawn'],
  ]);

  // The studio's participants table shows the session as withdrawn, and not finished.
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  // The login page keeps the token once its script has run: wait for it before leaving.
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${id}`);
  await expect(page.getByRole('cell', { name: 'withdrawn' })).toBeVisible();
});

test('a researcher makes a question block, asks for descriptions and adds a survey in the study editor', async ({
  page,
  request,
}) => {
  const id = `e2e-block-editor-${Date.now().toString(36)}`;
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'New study' }).click();
  await page.getByRole('textbox', { name: /Study id/ }).fill(id);
  await page.getByRole('textbox', { name: 'Study title' }).fill('Block editor study');
  await page.getByRole('textbox', { name: 'Consent (Markdown)' }).fill('You agree.');
  await page.getByLabel('Completion code').fill('BLOCK-EDIT');

  // A question, then a second one makes the item a block.
  await page.getByRole('button', { name: 'Add question' }).click();
  await page.getByRole('button', { name: /^Question Choose a question/ }).click();
  const picker = page.getByTestId('question-picker');
  await picker.getByRole('button', { name: /sci-006/ }).click();
  await picker.getByRole('button', { name: 'Use this question' }).click();
  await page.getByRole('button', { name: 'Add another question (a block on one screen)' }).click();
  await picker.getByRole('button', { name: /sci-007/ }).click();
  await picker.getByRole('button', { name: 'Use this question' }).click();
  const block = page.getByRole('list', { name: 'Questions of question-1' });
  await expect(block.getByRole('listitem')).toHaveText([/science \/ sci-006/, /science \/ sci-007/]);
  await page.getByRole('textbox', { name: 'Block title (optional)' }).fill('Energy');

  // A task that asks for written descriptions.
  await page.getByRole('button', { name: 'Add task' }).click();
  await page.getByRole('button', { name: /^Task Choose a task/ }).click();
  await page
    .getByTestId('task-picker')
    .getByRole('button', { name: /mirror-across-wall/ })
    .first()
    .click();
  await page.getByTestId('task-picker').getByRole('button', { name: 'Use this task' }).click();
  await page.getByRole('checkbox', { name: 'Ask for a written description' }).check();

  // A survey built with its forms: the age question it starts with, made required, and a choice.
  await page.getByRole('button', { name: 'Add survey' }).click();
  const survey = page.getByTestId('survey-builder-survey-3');
  await survey
    .getByRole('group', { name: 'Question 1', exact: true })
    .getByRole('checkbox', { name: 'Must be answered' })
    .check();
  await survey.getByRole('button', { name: 'Add a question' }).click();
  const hand = survey.getByRole('group', { name: 'Question 2', exact: true });
  await hand.getByRole('textbox', { name: 'Prompt' }).fill('Hand?');
  await hand.getByRole('combobox', { name: 'Answer type' }).selectOption({ label: 'One of several options' });
  await hand.getByRole('textbox', { name: 'Question id (in exports)' }).fill('hand');
  await hand.getByRole('textbox', { name: 'Option 1' }).fill('Left');
  await hand.getByRole('textbox', { name: 'Option 2' }).fill('Right');
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status')).toContainText('Saved as version 1');

  const def = (await (await request.get(`/api/admin/studies/${id}`, { headers: ADMIN })).json()).definition;
  expect(def.items[0]).toEqual({
    kind: 'question',
    id: 'question-1',
    title: 'Energy',
    questions: [
      { collection: 'science', question: 'sci-006' },
      { collection: 'science', question: 'sci-007' },
    ],
    practice: false,
  });
  expect(def.items[1]).toMatchObject({
    kind: 'task',
    task: 'mirror-across-wall',
    describe: { prompt: 'Describe the rule in your own words' },
  });
  expect(def.items[2]).toMatchObject({
    kind: 'survey',
    title: 'About you',
    questions: [
      { id: 'age', type: 'number', min: 18, required: true },
      { id: 'hand', type: 'choice', options: ['Left', 'Right'] },
    ],
  });
});

test('a game that asks for a description asks once, when the participant leaves it', async ({ page, request }) => {
  const id = `e2e-game-describe-${Date.now().toString(36)}`;
  const definition = {
    title: 'A game and its rule',
    consent: 'You agree.',
    completion: { code: 'GAME-DESCRIBED' },
    items: [{ kind: 'game', id: 'push-1', game: 'push', describe: { prompt: 'How do you win a level?' } }],
  };
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);
  await page.goto(`/s/${id}?PROLIFIC_PID=game-describer`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await page.keyboard.press('d');
  await page.getByRole('button', { name: 'Give up and continue' }).click();
  await page
    .getByRole('dialog', { name: 'Give up this item?' })
    .getByRole('button', { name: 'Give up and move on' })
    .click();
  const form = page.getByTestId('describe-form');
  await expect(form).toHaveAttribute('data-stage', 'last');
  await expect(page.getByRole('heading', { name: 'How do you win a level?' })).toBeVisible();
  await form.getByRole('textbox', { name: 'Your description' }).fill('Push every box onto a target.');
  await form.getByRole('button', { name: 'Save description' }).click();
  await expect(page.getByTestId('completion-code')).toHaveText('GAME-DESCRIBED');
  const local = await expectAllStored(request, page);
  const events = await serverEvents(request, local.id);
  // The description comes after the item ended, so the game's time does not include the writing.
  const end = events.findIndex((e) => e.kind === 'item.end' && e.data.item === 'push-1');
  const saved2 = events.findIndex((e) => e.kind === 'description.submit');
  expect(end).toBeGreaterThan(-1);
  expect(saved2).toBeGreaterThan(end);
  const rows = (await exportRows(request, id)).map((r) => [r.item_id, r.kind, r.part, r.answer]);
  expect(rows).toEqual([['push-1', 'description', 'last', 'Push every box onto a target.']]);
});
