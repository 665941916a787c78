import { expect, test } from '@playwright/test';
import { ADMIN, completeCurrentItem, expectAllStored, type StudyFile } from './study-helpers';

test('a researcher creates a study in the studio, a participant runs it, and an edit afterwards makes version 2', async ({ page, browser, request }) => {
  test.setTimeout(180_000);
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
  await page.screenshot({ path: test.info().outputPath('task-picker.png') });
  await picker.getByRole('checkbox', { name: /^Test 1 / }).uncheck();
  await picker.getByRole('button', { name: 'Use this task' }).click();
  await expect(picker).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Task most-common-color · test 2/ })).toBeVisible();
  await page.getByRole('button', { name: 'Add game' }).click();
  await page.getByLabel('Game', { exact: true }).selectOption('glow');
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
  expect(def.items.find((i: { kind: string }) => i.kind === 'task')).toMatchObject({ collection: 'samples', task: 'most-common-color', tests: [1] });
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

  // An invalid study is refused with the reason, and nothing changes.
  await page.getByLabel('Completion code').fill('');
  await page.getByRole('button', { name: 'Save study' }).click();
  await expect(page.getByRole('alert')).toContainText('completion.code');
});
