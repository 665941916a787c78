/**
 * The researcher's survey summary: two participants answer a survey in their own browsers, and
 * the results page's Surveys tab counts each option, gives the scale's distribution and lists the
 * written answers with who wrote them, searchable; axe-clean at a laptop, a tablet and a phone.
 */
import { readFile } from 'node:fs/promises';
import type { ExportedSurveys } from '../src/server/export/surveys';
import { expect, test, type Page } from './studio-test';
import { expectAccessible } from './axe';
import { setWindowSize, picture } from './helpers';
import { ADMIN, expectAllStored } from './study-helpers';

const DEFINITION = {
  title: 'A short feedback survey',
  consent: 'You agree to take part.',
  devices: 'any',
  items: [
    {
      kind: 'survey',
      id: 'feedback',
      title: 'Your feedback',
      questions: [
        { id: 'hand', prompt: 'Which hand do you write with?', type: 'choice', options: ['Left', 'Right', 'Both'] },
        { id: 'ease', prompt: 'How hard was it?', type: 'scale', min: 1, max: 5, labels: ['Easy', 'Hard'] },
        { id: 'notes', prompt: 'Anything else?', type: 'longtext' },
      ],
    },
  ],
  completion: { code: 'THANKS' },
};

async function answerSurvey(page: Page, id: string, pid: string, hand: string, ease: string, notes: string) {
  await page.goto(`/s/${id}?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.getByRole('heading', { name: 'Your feedback' })).toBeVisible();
  await page.getByRole('radio', { name: hand }).check();
  await page.getByRole('radio', { name: ease, exact: true }).check();
  await page.getByLabel(/Anything else/).fill(notes);
  await page.getByRole('button', { name: 'Submit answers' }).click();
  await expect(page.getByTestId('completion-code')).toHaveText('THANKS');
}

test('two participants answer a survey; the researcher reads each question summarised', async ({
  page,
  browser,
  request,
}) => {
  const id = `e2e-survey-summary-${Date.now().toString(36)}`;
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition: DEFINITION } });
  expect(saved.status(), await saved.text()).toBe(201);

  await answerSurvey(page, id, 'ann', 'Right', '2', 'The grids were fun.');
  await expectAllStored(request, page);
  const other = await browser.newContext();
  const second = await other.newPage();
  await answerSurvey(second, id, 'bob', 'Right', '4', 'Too long for me.');
  await expectAllStored(request, second);
  await other.close();

  await page.goto('about:blank');
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${id}`);
  await page.getByRole('tab', { name: 'Surveys' }).click();
  const survey = page.getByTestId('survey-feedback');
  await expect(survey.getByRole('heading', { name: 'Your feedback' })).toBeVisible();
  await expect(survey.getByTestId('respondents')).toHaveText('2 respondents');

  const hand = survey.getByRole('list', { name: 'Answers to hand' });
  await expect(hand.locator('[data-option="Right"]')).toHaveAttribute('data-count', '2');
  await expect(hand.locator('[data-option="Right"]')).toContainText('2 (100%)');
  await expect(hand.locator('[data-option="Left"]')).toContainText('0 (0%)');

  const ease = survey.getByTestId('survey-question-ease');
  await expect(ease.getByText('Mean', { exact: true }).locator('..')).toContainText('3');
  await expect(ease.getByText('Median', { exact: true }).locator('..')).toContainText('3');
  const points = ease.getByRole('list', { name: 'Distribution of ease' }).getByRole('listitem');
  await expect(points).toHaveCount(5);
  expect(await points.evaluateAll((li) => li.map((x) => (x as HTMLElement).dataset.count))).toEqual([
    '0',
    '1',
    '0',
    '1',
    '0',
  ]);

  const notes = survey.getByTestId('survey-question-notes');
  const answers = notes.getByRole('list', { name: 'Answers to notes' }).getByRole('listitem');
  await expect(answers).toHaveCount(2);
  await expect(answers.filter({ hasText: 'The grids were fun.' })).toContainText('ann');
  await notes.getByRole('searchbox', { name: 'Search the answers to notes' }).fill('too long');
  await expect(answers).toHaveCount(1);
  await expect(answers).toContainText('bob');
  await expect(notes.getByTestId('text-count-notes')).toHaveText('1–1 of 1 answer');

  // The Exports tab's survey file holds the summary the tab shows.
  await page.getByRole('tab', { name: 'Exports' }).click();
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download Survey summaries (JSON)' }).click();
  const exported = JSON.parse(await readFile(await (await downloading).path(), 'utf8')) as ExportedSurveys;
  expect(exported.studyId).toBe(id);
  const [feedback] = exported.surveys;
  expect(feedback.respondents).toBe(2);
  const byId = new Map(feedback.questions.map((q) => [q.id, q]));
  const handSummary = byId.get('hand');
  expect(handSummary?.summary === 'choice' && handSummary.options.map((o) => [o.option, o.count])).toEqual([
    ['Left', 0],
    ['Right', 2],
    ['Both', 0],
  ]);
  const notesSummary = byId.get('notes');
  expect(notesSummary?.summary === 'text' && notesSummary.answers.map((a) => [a.participant, a.text]).sort()).toEqual([
    ['ann', 'The grids were fun.'],
    ['bob', 'Too long for me.'],
  ]);
  await page.getByRole('tab', { name: 'Surveys' }).click();

  await picture(page, 'survey-summary-1280', { fullPage: true });
  for (const size of [
    { width: 1280, height: 800 },
    { width: 768, height: 1024 },
    { width: 390, height: 844 },
  ]) {
    await setWindowSize(page, size);
    await expectAccessible(page, `survey summary at ${size.width}`);
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
    await picture(page, `survey-summary-${size.width}`, { fullPage: true });
  }
});
