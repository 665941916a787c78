import { expect, test } from './studio-test';
import { createServer, type Server } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ARC_AGI_1, screenGrid } from './helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

const BROKEN = path.resolve('e2e/fixtures/broken-tasks');

test.describe('the task browser', () => {
  test('lists collections, searches by id and opens tasks with the keyboard', async ({ page }) => {
    await page.goto('/');
    const collections = page.getByRole('list', { name: 'Collections' });
    await expect(collections.getByRole('button', { name: /arc-agi-1\s*800/ })).toBeVisible();
    await expect(collections.getByRole('button', { name: /samples/ })).toBeVisible();
    await collections.getByRole('button', { name: /arc-agi-1/ }).click();
    await expect(page.getByTestId('task-count')).toHaveText('800 tasks');

    await page.keyboard.press('/');
    await page.keyboard.type('training/0');
    const matching = readdirSync(path.join(ARC_AGI_1, 'training'))
      .filter((f) => f.startsWith('0'))
      .sort()
      .map((f) => `training/${f.replace('.json', '')}`);
    // Read once the list has been filtered, not as the last key is typed.
    await expect(page.getByTestId('task-count')).toHaveText(`${matching.length} tasks`);
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('task-id')).toHaveText(matching[1]);
    // In the player, [ and ] step through the whole collection.
    await page.keyboard.press('[');
    await expect(page.getByTestId('task-id')).toHaveText(matching[0]);
    await page.keyboard.press(']');
    await page.keyboard.press(']');
    await expect(page.getByTestId('task-id')).toHaveText(matching[2]);
  });

  test('imports task files with the file picker and reports every broken file with its reason', async ({ page }) => {
    await page.goto('/');
    const good = path.join(ARC_AGI_1, 'training/3aa6fb7a.json');
    const broken = readdirSync(BROKEN)
      .filter((f) => f.endsWith('.json'))
      .map((f) => path.join(BROKEN, f));
    expect(broken.length).toBeGreaterThan(10);
    await page.getByTestId('import-files').setInputFiles([good, ...broken]);
    const result = page.getByTestId('import-result');
    await expect(result).toContainText(`1 imported, ${broken.length} rejected`);
    await expect(result).toContainText('is not valid JSON');
    await expect(result).toContainText('must be 0-9');
    await expect(page.getByTestId('task-count')).toHaveText('1 task');
    await page.getByRole('link', { name: '3aa6fb7a' }).click();
    await expect(page.getByTestId('task-id')).toHaveText('3aa6fb7a');
    const task = JSON.parse(readFileSync(good, 'utf8'));
    await expect.poll(() => screenGrid(page, 'input-grid')).toEqual(task.test[0].input);
    // Imports are kept in the browser across reloads.
    await page.reload();
    await expect.poll(() => screenGrid(page, 'input-grid')).toEqual(task.test[0].input);
  });

  test('imports a whole folder and files dropped on the page', async ({ page }) => {
    await page.goto('/');
    await page.getByTestId('import-folder').setInputFiles(path.join(ARC_AGI_1, 'evaluation'));
    await expect(page.getByTestId('import-result')).toContainText('400 imported, 0 rejected', { timeout: 60_000 });
    await expect(page.getByTestId('task-count')).toHaveText('400 tasks');

    const text = readFileSync(path.join(ARC_AGI_1, 'training/007bbfb7.json'), 'utf8');
    const bad = readFileSync(path.join(BROKEN, 'value-11.json'), 'utf8');
    const dt = await page.evaluateHandle(
      ([t, b]) => {
        const d = new DataTransfer();
        d.items.add(new File([t], 'dropped-task.json', { type: 'application/json' }));
        d.items.add(new File([b], 'value-11.json', { type: 'application/json' }));
        d.items.add(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
        return d;
      },
      [text, bad],
    );
    await page.dispatchEvent('main', 'dragover', { dataTransfer: dt });
    await page.dispatchEvent('main', 'drop', { dataTransfer: dt });
    const result = page.getByTestId('import-result');
    await expect(result).toContainText('1 imported, 2 rejected');
    await expect(result).toContainText('notes.txt: is not a .json file');
    await expect(result).toContainText('must be 0-9');
    await expect(page.getByTestId('task-count')).toHaveText('401 tasks');
  });

  test('imports one task from a URL, and explains a URL that fails', async ({ page }) => {
    const body = readFileSync(path.join(ARC_AGI_1, 'training/25ff71a9.json'), 'utf8');
    const server: Server = createServer((req, res) => {
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (req.url === '/tasks/25ff71a9.json') {
        res.setHeader('Content-Type', 'application/json');
        res.end(body);
      } else {
        res.statusCode = 404;
        res.end('not found');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      await page.goto('/');
      await page.getByLabel('Task URL').fill(`http://127.0.0.1:${port}/tasks/25ff71a9.json`);
      await page.getByRole('button', { name: 'Fetch' }).click();
      await expect(page.getByTestId('import-result')).toContainText('1 imported, 0 rejected');
      await page.getByLabel('Task URL').fill(`http://127.0.0.1:${port}/tasks/missing.json`);
      await page.getByRole('button', { name: 'Fetch' }).click();
      await expect(page.getByTestId('import-result')).toContainText('the server answered 404');
      await page.getByRole('link', { name: '25ff71a9' }).click();
      await expect(page.getByTestId('test-position')).toHaveText('Test 1 / 2');
    } finally {
      server.close();
    }
  });
});
