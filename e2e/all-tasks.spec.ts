/**
 * A sample of the 800 ARC-AGI-1 tasks in the browser: each opens and renders without an error,
 * the ] key steps to the next task, and the last task has no next one. Every one of the 800 is
 * parsed and drawn by `src/client/grid/allTasks.test.ts`.
 */
import { expect, test } from './studio-test';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ARC_AGI_1, arcTask, screenGrid } from './helpers';

const ids = ['evaluation', 'training'].flatMap((dir) =>
  readdirSync(path.join(ARC_AGI_1, dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => `${dir}/${f.replace(/\.json$/, '')}`),
);
/** Every 40th task, each followed by the next one (reached with the ] key), and the very last. */
const SAMPLE = ids.flatMap((_, i) => (i % 40 === 0 ? [i] : [])).concat(ids.length - 1);

test('a sample of the 800 ARC-AGI-1 tasks opens and renders without an error, stepping with the ] key', async ({
  page,
}) => {
  test.setTimeout(300_000);
  expect(ids).toHaveLength(800);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });

  const shows = async (id: string) => {
    const task = arcTask(id);
    await expect(page.getByTestId('task-id')).toHaveText(id);
    await expect(page.getByTestId('demo-pair')).toHaveCount(task.train.length);
    await expect.poll(() => screenGrid(page, 'input-grid')).toEqual(task.test[0].input);
    await expect(page.getByTestId('test-position')).toHaveText(`Test 1 / ${task.test.length}`);
  };
  for (const i of SAMPLE) {
    await page.goto(`/tasks/arc-agi-1/${ids[i]}`);
    await shows(ids[i]);
    if (i < ids.length - 1) {
      // The ] key steps once the collection's list has arrived: the button says when.
      await expect(page.getByRole('button', { name: 'Next task' }).first()).toBeEnabled();
      await page.keyboard.press(']');
      await shows(ids[i + 1]);
    }
  }
  await expect(page.getByRole('button', { name: 'Next task' }).first()).toBeDisabled();
  expect(problems).toEqual([]);
});
