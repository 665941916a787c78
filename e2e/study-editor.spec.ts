import { expect, test } from './studio-test';
import { ADMIN, completeCurrentItem, expectAllStored, type StudyFile } from './study-helpers';
import { picture } from './helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

test('a researcher creates a study in the studio, a participant runs it, and an edit afterwards makes version 2', async ({
  page,
  browser,
  request,
}) => {
  const id = `e2e-editor-${Date.now().toString(36)}`;
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.getByRole('link', { name: 'New study' }).click();
  await page.getByRole('textbox', { name: /Study id/ }).fill(id);
  await page.getByRole('textbox', { name: 'Study title' }).fill('Editor study');
  await page.getByRole('textbox', { name: 'Consent (Markdown)' }).fill('## Consent\n\nYou agree to **take part**.');
  await expect(page.getByLabel('Consent (Markdown) preview').getByRole('heading', { name: 'Consent' })).toBeVisible();
  await page.getByRole('button', { name: 'Add page' }).click();
  await page.getByLabel('Page text (Markdown)').fill('Welcome. Press continue.');
  await page.getByRole('button', { name: 'Add task' }).click();
  // The task picker: searched by id, with thumbnails; only the second test input is used.
  await page.getByRole('button', { name: /^Task Choose a task/ }).click();
  const picker = page.getByTestId('task-picker');
  await picker.getByLabel('Search tasks by id').fill('common');
  await expect(picker.getByTestId('task-picker-count')).toHaveText(/^1 of \d+ tasks$/);
  await picker.getByRole('button', { name: 'most-common-color' }).click();
  await expect(picker.getByTestId('task-picker-chosen')).toHaveText('most-common-color');
  await expect(picker.getByRole('list', { name: 'Tasks' }).locator('canvas').first()).toBeVisible();
  await picture(page, 'task-picker');
  await picker.getByRole('checkbox', { name: /^Test 1 / }).uncheck();
  await picker.getByRole('button', { name: 'Use this task' }).click();
  await expect(picker).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Task most-common-color · test 2/ })).toBeVisible();
  await page.getByRole('button', { name: 'Add game' }).click();
  // The game picker: searched, with opening frames; the button then names the game.
  await page.getByRole('button', { name: /^Game .* Change$/ }).click();
  const games = page.getByTestId('game-picker');
  await games.getByLabel('Search games by id, title or tag').fill('glow');
  await expect(games.getByRole('list', { name: 'Games' }).getByRole('button')).toHaveCount(1);
  // A card is named by what it shows: the title, the id, its levels, source and tags.
  await games.getByRole('list', { name: 'Games' }).getByRole('button', { name: /glow/i }).click();
  await expect(games.getByTestId('game-picker-chosen')).toHaveAttribute('data-game', 'glow');
  await games.getByRole('button', { name: 'Use this game' }).click();
  await expect(games).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Game .*\(glow\) · \d+ levels Change$/ })).toBeVisible();
  await page.getByLabel('Show game players their action counter').uncheck();
  await page.getByLabel('Completion code').fill('EDIT-OK');
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status')).toContainText('Saved as version 1');

  // A participant runs it.
  const participant = await browser.newPage();
  await participant.goto(`/s/${id}?PROLIFIC_PID=editor-participant`);
  await participant.getByRole('button', { name: 'I agree, start' }).click();
  await participant.getByRole('button', { name: 'Begin' }).click();
  const def = (await (await request.get(`/api/admin/studies/${id}`, { headers: ADMIN })).json()).definition;
  const study: StudyFile = { items: def.items, completion: def.completion };
  expect(def.items.find((i: { kind: string }) => i.kind === 'task')).toMatchObject({
    collection: 'samples',
    task: 'most-common-color',
    tests: [1],
  });
  let sawGame = false;
  for (let i = 0; i < study.items.length; i++) {
    // The study hides the action counter from game players.
    await expect(participant.locator('[data-item]')).toBeVisible();
    if ((await participant.locator('[data-item]').getAttribute('data-kind')) === 'game') {
      await expect(participant.getByTestId('game-level')).toBeVisible();
      await expect(participant.getByTestId('game-actions')).toHaveCount(0);
      sawGame = true;
    }
    await completeCurrentItem(participant, study);
  }
  expect(sawGame).toBe(true);
  await expect(participant.getByTestId('completion-code')).toHaveText('EDIT-OK');
  await expectAllStored(request, participant);

  // An edit after the first participant is a new version; the session keeps version 1.
  await page.getByRole('textbox', { name: 'Study title' }).fill('Editor study, revised');
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status')).toContainText('version 2');
  const sessions = (await (await request.get(`/api/admin/sessions?study=${id}`, { headers: ADMIN })).json()).sessions;
  expect(sessions).toHaveLength(1);
  expect(sessions[0].studyVersion).toBe(1);

  // An invalid study is refused with the reason in plain words, next to the field, and nothing changes.
  await page.getByLabel('Completion code').fill('');
  await page.getByRole('button', { name: 'Save study' }).click();
  const code = page.getByRole('textbox', { name: 'Completion code' });
  await expect(code).toHaveAttribute('aria-invalid', 'true');
  await expect(code).toHaveAccessibleDescription(
    'Give the code participants get at the end, to enter on the recruitment platform.',
  );
  await expect(page.getByTestId('save-problems')).toContainText(
    'Completion code: Give the code participants get at the end',
  );
  await expect(page.getByTestId('save-problems')).not.toContainText('completion.code');
  // The message goes as soon as the field is right again.
  await code.fill('EDIT-OK');
  await expect(page.getByTestId('field-problem')).toHaveCount(0);
  await expect(page.getByTestId('save-problems')).toHaveCount(0);
});

test('the study editor names each problem next to its field, in plain words', async ({ page }) => {
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto('/studies/new');
  await page.getByRole('textbox', { name: /Study id/ }).fill('Not An Id');
  await page.getByRole('button', { name: 'Add task' }).click();
  await page.getByRole('spinbutton', { name: 'Session limit (min)' }).fill('0');
  await page.getByRole('textbox', { name: 'Redirect URL at the end (optional)' }).fill('prolific');
  // Nothing is marked before the first try to save.
  await expect(page.getByTestId('field-problem')).toHaveCount(0);
  await page.getByRole('button', { name: 'Save study' }).click();
  const problem = (field: string) => page.locator(`[data-testid="field-problem"][data-field="${field}"]`);
  await expect(problem('id')).toHaveText('Use 1-64 lower-case letters, digits or "-": it becomes the link /s/<id>.');
  await expect(problem('title')).toHaveText('Give the study a title: participants see it at the top of every page.');
  await expect(page.getByRole('textbox', { name: 'Study title' })).toHaveAccessibleDescription(
    /^Give the study a title/,
  );
  await expect(problem('limits.sessionMinutes')).toHaveText('Must be more than 0.');
  await expect(problem('completion.redirectUrl')).toHaveText(
    'Must be a web address starting with https:// (or http://).',
  );
  await expect(problem('items[0].task')).toHaveText('Task: Choose a task.');
  await expect(page.getByTestId('save-problems')).toContainText('Item 1, Task: Choose a task.');
  await expect(page.locator('body')).not.toContainText(/Too small|expected string|>=/);
  await picture(page, 'editor-problems', { fullPage: true });
  // Fixing a field takes its message away at once; the study is not saved until all are fixed.
  await page.getByRole('textbox', { name: 'Study title' }).fill('Plain words');
  await expect(problem('title')).toHaveCount(0);
  await expect(page.getByRole('status')).toHaveCount(0);
});

test("the study editor sets the study's Prolific settings and the redirect's delay, naming their problems plainly", async ({
  page,
  request,
}) => {
  const id = `e2e-prolific-${Date.now().toString(36)}`;
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto('/studies/new');
  await page.getByRole('textbox', { name: /Study id/ }).fill(id);
  await page.getByRole('textbox', { name: 'Study title' }).fill('On Prolific');
  await page.getByRole('button', { name: 'Add page' }).click();
  await page.getByLabel('Page text (Markdown)').fill('Welcome.');
  await page.getByLabel('Completion code').fill('PROLIFIC-OK');
  const returned = page.getByLabel('A participant who returned their submission and comes back');
  // Without a Prolific study there is no rule for returns to set.
  await expect(returned).toBeDisabled();
  await page.getByRole('textbox', { name: 'Prolific study id (optional)' }).fill('not an id!');
  await page.getByRole('spinbutton', { name: 'Seconds before sending participants on (optional)' }).fill('601');
  await page.getByRole('button', { name: 'Save study' }).click();
  const problem = (field: string) => page.locator(`[data-testid="field-problem"][data-field="${field}"]`);
  await expect(problem('prolific.studyId')).toHaveText(
    "Must be Prolific's study id: 1-64 letters, digits, '_' or '-'.",
  );
  await expect(problem('completion.redirectAfterSeconds')).toHaveText(/^Must be at most 600/);
  await expect(page.getByTestId('save-problems')).toContainText('Prolific study id');
  await expect(page.getByTestId('save-problems')).toContainText('Seconds before sending participants on');

  await page.getByRole('textbox', { name: 'Prolific study id (optional)' }).fill('60a1b2c3d4e5');
  await page.getByRole('spinbutton', { name: 'Seconds before sending participants on (optional)' }).fill('0');
  await expect(returned).toBeEnabled();
  await returned.selectOption('allow');
  await expect(page.getByTestId('field-problem')).toHaveCount(0);
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status')).toContainText('Saved as version 1');
  const def = (await (await request.get(`/api/admin/studies/${id}`, { headers: ADMIN })).json()).definition;
  expect([def.prolific, def.completion.redirectAfterSeconds]).toEqual([
    { studyId: '60a1b2c3d4e5', afterReturn: 'allow' },
    0,
  ]);

  // Opened again, the editor shows what was saved; clearing the id takes the study off Prolific.
  await page.goto(`/studies/${id}/edit`);
  await expect(page.getByRole('textbox', { name: 'Prolific study id (optional)' })).toHaveValue('60a1b2c3d4e5');
  await expect(returned).toHaveValue('allow');
  await expect(page.getByRole('spinbutton', { name: 'Seconds before sending participants on (optional)' })).toHaveValue(
    '0',
  );
  await page.getByRole('textbox', { name: 'Prolific study id (optional)' }).fill('');
  await page.getByRole('button', { name: 'Save study' }).click();
  // No one has run it yet: the version is updated in place.
  await expect(page.getByRole('status')).toContainText('Saved: version 1 updated');
  const after = (await (await request.get(`/api/admin/studies/${id}`, { headers: ADMIN })).json()).definition;
  expect(after.prolific).toBeUndefined();
});

test('a counted task from a practice collection is refused under its own heading, saying what to do; as practice it saves', async ({
  page,
}) => {
  const id = `e2e-leak-${Date.now().toString(36)}`;
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'New study' }).click();
  await page.getByRole('textbox', { name: /Study id/ }).fill(id);
  await page.getByRole('textbox', { name: 'Study title' }).fill('Leaky study');
  await page.getByRole('textbox', { name: 'Consent (Markdown)' }).fill('You agree.');
  await page.getByLabel('Completion code').fill('LEAK');
  await page.getByRole('button', { name: 'Add task' }).click();
  // warm-ups is a practice collection of the server (data/practice/warm-ups).
  await page.getByRole('combobox', { name: 'Collection' }).selectOption('warm-ups');
  await page.getByRole('button', { name: /^Task Choose a task/ }).click();
  const picker = page.getByTestId('task-picker');
  await picker.getByRole('button', { name: 'grey-frame' }).click();
  await picker.getByRole('button', { name: 'Use this task' }).click();
  await page.getByRole('button', { name: 'Save study' }).click();
  const leaks = page.getByTestId('sealing-problems');
  await expect(
    leaks.getByRole('heading', {
      name: 'Not saved: counted answers would be open to anyone through a practice collection',
    }),
  ).toBeVisible();
  await expect(leaks).toContainText('one folder is mounted both as practice and as sealed');
  await expect(leaks.getByRole('listitem')).toHaveText([
    /^items\[0\] \(task-1\): collection "warm-ups" is a practice collection/,
  ]);
  // Nothing else was wrong, so there is no other list.
  await expect(page.getByTestId('save-problems')).toHaveCount(0);
  await page.getByRole('checkbox', { name: 'Practice (never counts)' }).check();
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('status')).toContainText('Saved as version 1');
  await expect(leaks).toHaveCount(0);
});
