/**
 * What the pages say is what is true: a sealed task is not called practice, an unknown study link
 * is not called an outage, and a verdict does not outlive the grid it was given for.
 */
import { expect, test } from './studio-test';
import { readFileSync } from 'node:fs';
import type { ArcTask } from '../src/core/formats/arcTask';
import { clickCell, picture } from './helpers';
import { buildGrid } from './study-helpers';

const practiceTask = (id: string) => JSON.parse(readFileSync(`data/practice/warm-ups/${id}.json`, 'utf8')) as ArcTask;

test('a sealed task opened while logged out is badged sealed, with the way in', async ({ page }) => {
  await page.goto('/tasks/samples/mirror-across-wall');
  await expect(page.getByRole('alert')).toContainText('is sealed');
  await expect(page.getByTestId('judge-mode')).toHaveText('Sealed · researchers only');
  await expect(page.getByText(/checked on the server/i)).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Log in as researcher' })).toBeVisible();
});

test('an unknown study link says the link is unknown and what to do, and claims nothing is saved', async ({ page }) => {
  await page.goto('/s/no-such-study-here?PROLIFIC_PID=lost-1');
  const error = page.getByTestId('study-error');
  await expect(error.getByRole('heading')).toHaveText('This study link is not known');
  await expect(error).toContainText(
    'There is no study no-such-study-here on this server, so nothing has been recorded.',
  );
  await expect(error).toContainText('open it again from where you got it');
  await expect(error).not.toContainText('saved');
  await expect(error).not.toContainText('Reload');
  await picture(page, 'unknown-study');
});

test('a wrong verdict is cleared by the next edit of the grid, and a tool change keeps it', async ({ page }) => {
  const id = 'swap-rows-and-columns';
  await page.goto(`/tasks/warm-ups/${id}`);
  await expect(page.getByTestId('judge-mode')).toHaveText('Practice · checked on the server');
  await buildGrid(page, [[1]]);
  await page.getByRole('button', { name: 'Submit' }).click();
  const status = page.getByTestId('status');
  await expect(status).toHaveText('Not correct. 2 trials left for test input 1.');
  await page.getByRole('button', { name: /^Flood fill/ }).click();
  await expect(status).toContainText('Not correct');
  await page.getByRole('button', { name: /^Edit/ }).click();
  await page.keyboard.press('3');
  await clickCell(page, 'output-grid', 0, 0);
  await expect(status).not.toContainText('Not correct');
  await expect(page.getByTestId('trials')).toContainText('Trial 2 of 3');
  // The right grid: the verdict now is the new one.
  await buildGrid(page, practiceTask(id).test[0].output!);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(status).toContainText('Correct!');
});
