/**
 * A grid task's replay as a researcher reads it: the test input beside the output as the
 * participant built it, the demonstrations on demand, and a timeline whose marks name each submit
 * and its verdict. The participant works a real ARC-AGI-1 task in a study first.
 */
import { expect, test, type Page } from './studio-test';
import type { Grid } from '../src/core/grid/grid';
import { Timeline } from '../src/core/log/timeline';
import { initialPlayer, reduce, currentTest } from '../src/core/log/gridPlayer';
import { replayMarks } from '../src/core/study/replayMarks';
import { arcTask, clickCell, screenGrid } from './helpers';
import { ADMIN, expectAllStored } from './study-helpers';

const TASK = 'training/0520fde7';

/** The grid a replay canvas shows, as it reports it. */
async function gridOf(page: Page, testId: string): Promise<Grid> {
  return JSON.parse((await page.getByTestId(testId).getAttribute('data-grid'))!) as Grid;
}

test("a researcher replays a participant's ARC-AGI-1 task: input beside output, demonstrations, and labelled submits", async ({
  page,
  browser,
  request,
}) => {
  const task = arcTask(TASK);
  const answer = task.test[0].output!;
  const id = `replay-grid-${Date.now().toString(36)}`;
  const definition = {
    title: 'Replay of a grid task',
    consent: 'You agree to take part.',
    items: [{ kind: 'task', id: 'arc', collection: 'arc-agi-1', task: TASK, practice: true }],
    completion: { code: 'REPLAY-GRID' },
  };
  const saved = await request.post(`/api/admin/studies/${id}`, { headers: ADMIN, data: { definition } });
  expect(saved.status(), await saved.text()).toBe(201);

  // The participant submits the empty 3x3 grid (wrong), then paints the two red cells (correct).
  const participant = await browser.newPage();
  await participant.goto(`/s/${id}?PROLIFIC_PID=replay-grid`);
  await participant.getByRole('button', { name: 'I agree, start' }).click();
  await participant.getByRole('button', { name: 'Begin' }).click();
  await expect(participant.getByTestId('output-grid')).toBeVisible();
  await participant.getByRole('button', { name: 'Submit' }).click();
  await expect(participant.getByTestId('status')).toContainText('Not correct');
  await participant.keyboard.press('2');
  for (const [r, c] of [
    [0, 0],
    [0, 2],
  ] as const)
    await clickCell(participant, 'output-grid', r, c);
  await expect.poll(() => screenGrid(participant, 'output-grid')).toEqual(answer);
  await participant.getByRole('button', { name: 'Submit' }).click();
  await expect(participant.getByTestId('status')).toContainText('Correct!');
  const { id: sessionId, events: all } = await expectAllStored(request, participant);
  await participant.close();

  const start = all.findIndex((e) => e.kind === 'item.start' && e.data.item === 'arc');
  const events = all.slice(start);
  const marks = replayMarks(events);
  const wrong = marks.find((m) => m.kind === 'submit' && m.verdict === 'wrong')!;
  const correct = marks.find((m) => m.kind === 'submit' && m.verdict === 'correct')!;
  expect(wrong.label).toBe('submit test 1: wrong (trial 1)');
  expect(correct.label).toBe('submit test 1: correct (trial 2)');

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto(`/studies/${id}/sessions/${sessionId}`);
  await expect(page.getByTestId('replay-position')).toHaveText(`${events.length} / ${events.length}`);

  // The test input and the participant's final output, side by side.
  await expect.poll(() => gridOf(page, 'replay-input')).toEqual(task.test[0].input);
  await expect.poll(() => gridOf(page, 'replay-grid')).toEqual(answer);
  const inputBox = (await page.getByTestId('replay-input').boundingBox())!;
  const outputBox = (await page.getByTestId('replay-grid').boundingBox())!;
  expect(outputBox.x, 'the output is to the right of the input').toBeGreaterThan(inputBox.x + inputBox.width);
  await expect(page.getByTestId('replay-status')).toContainText('solved');

  // The demonstrations, on demand.
  await expect(page.getByTestId('demo-pair')).toHaveCount(0);
  const toggle = page.getByRole('button', { name: `Demonstrations (${task.train.length})` });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('demo-pair')).toHaveCount(task.train.length);
  await expect(page.getByRole('img', { name: 'Example 1 input' })).toHaveAttribute(
    'data-grid',
    JSON.stringify(task.train[0].input),
  );

  // The timeline names both submits with their verdicts; choosing one moves the grids there.
  const timeline = page.getByRole('toolbar', { name: 'Timeline marks' });
  const wrongMark = timeline.getByRole('button', { name: /^submit test 1: wrong \(trial 1\), at / });
  await expect(wrongMark).toHaveAttribute('data-verdict', 'wrong');
  await expect(timeline.getByRole('button', { name: /^submit test 1: correct \(trial 2\), at / })).toHaveAttribute(
    'data-verdict',
    'correct',
  );
  await expect(timeline.getByRole('button', { name: /^start of arc, at / })).toBeVisible();
  await expect(timeline.getByRole('button', { name: /^paint 2 cells, at / })).toBeVisible();
  await wrongMark.click();
  await expect(page.getByTestId('replay-position')).toHaveText(`${wrong.at} / ${events.length}`);
  const expected = currentTest(new Timeline(initialPlayer(), events, reduce).at(wrong.at))!.output;
  expect(expected).toEqual(events[wrong.from].data.grid);
  await expect.poll(() => gridOf(page, 'replay-grid')).toEqual(expected);
  await expect(page.getByTestId('timeline-caption')).toContainText('submit test 1: wrong (trial 1)');

  // One Tab stop: the arrow keys go from mark to mark and move the replay with them.
  await expect(wrongMark).toBeFocused();
  await page.keyboard.press('ArrowRight');
  const next = marks[marks.indexOf(wrong) + 1];
  await expect(page.getByTestId('replay-position')).toHaveText(`${next.at} / ${events.length}`);
  await expect(timeline.getByRole('button', { name: new RegExp(`^${next.label}`) })).toBeFocused();
  await page.keyboard.press('End');
  await expect(page.getByTestId('replay-position')).toHaveText(`${marks[marks.length - 1].at} / ${events.length}`);

  // Scrubbing to the start shows the task before it opened; the middle, the grid built by then.
  await page.getByTestId('scrubber').fill('0');
  await expect(page.getByText('The task is not open yet at this point.')).toBeVisible();
  await page.getByTestId('scrubber').fill(String(correct.from));
  const before = currentTest(new Timeline(initialPlayer(), events, reduce).at(correct.from))!.output;
  await expect.poll(() => gridOf(page, 'replay-grid')).toEqual(before);
});
