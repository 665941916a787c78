import { expect, test } from '@playwright/test';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ARC_AGI_1, arcTask, screenGrid } from './helpers';

const ids = ['evaluation', 'training'].flatMap((dir) =>
  readdirSync(path.join(ARC_AGI_1, dir)).filter((f) => f.endsWith('.json')).sort().map((f) => `${dir}/${f.replace(/\.json$/, '')}`));

test('every one of the 800 ARC-AGI-1 tasks opens and renders without an error, stepping with the ] key', async ({ page }) => {
  test.setTimeout(600_000);
  expect(ids).toHaveLength(800);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });

  await page.goto(`/tasks/arc-agi-1/${ids[0]}`);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    const task = arcTask(id);
    await expect(page.getByTestId('task-id')).toHaveText(id);
    await expect(page.getByTestId('demo-pair')).toHaveCount(task.train.length);
    await expect.poll(() => screenGrid(page, 'input-grid')).toEqual(task.test[0].input);
    await expect(page.getByTestId('test-position')).toHaveText(`Test 1 / ${task.test.length}`);
    if (i < ids.length - 1) await page.keyboard.press(']');
  }
  await expect(page.getByRole('button', { name: 'Next task' }).first()).toBeDisabled();
  expect(problems).toEqual([]);
});
