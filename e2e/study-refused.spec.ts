/**
 * A session the server refuses: here its per-session event quota is tiny, so the server answers
 * 413 and retrying cannot help. The participant must not wait forever on "Saving your answers",
 * must see what is wrong and what to do, and must be able to take every action away.
 */
import { expect, test } from './studio-test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseJsonl } from '../src/core/log/events';
import { ADMIN, browserSession } from './study-helpers';
import { ownPort, seedDataDir } from './helpers';
import { arcStudioArgs } from '../src/server/testing/command';

let server: ChildProcess | null = null;
let base = '';
let tmp = '';

test.beforeAll(async () => {
  // A server start takes minutes on a busy machine.
  test.setTimeout(360_000);
  tmp = seedDataDir(mkdtempSync(path.join(os.tmpdir(), 'arc-studio-refused-')));
  const port = ownPort(3);
  base = `http://127.0.0.1:${port}`;
  server = spawn(
    process.execPath,
    arcStudioArgs(['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', tmp]),
    {
      env: { ...process.env, ARC_STUDIO_ADMIN_TOKEN: process.env.E2E_ADMIN_TOKEN, ARC_STUDIO_MAX_SESSION_EVENTS: '3' },
      stdio: 'ignore',
    },
  );
  await expect
    .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, {
      timeout: 300_000,
      message: 'the server did not start',
    })
    .toBe(200);
  const definition = {
    title: 'One page',
    consent: 'You agree.',
    instructions: 'Read the page.',
    items: [{ kind: 'page', id: 'only', markdown: 'Press continue.' }],
    completion: { code: 'NEVER-SHOWN' },
  };
  const res = await fetch(`${base}/api/admin/studies/one-page`, {
    method: 'PUT',
    headers: { ...ADMIN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ definition }),
  });
  expect(res.status).toBe(201);
});

test.afterAll(() => {
  server?.kill('SIGKILL');
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('a refused session ends on a clear error, not an endless save, and the participant can download every action', async ({
  page,
}) => {
  await page.goto(`${base}/s/one-page`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  // Refused mid-study: the participant is told at once, with the way to keep their work.
  const banner = page.getByTestId('fatal-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('kept in this browser');
  await expect(banner.getByRole('button', { name: 'Download your actions' })).toBeVisible();
  await page.getByRole('button', { name: 'Continue' }).click();

  const error = page.getByTestId('finish-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText('could not be completed');
  await expect(error).toContainText('(413: This session has stored');
  await expect(error).toContainText('Nothing is lost');
  await expect(page.getByTestId('completion-code')).toHaveCount(0);
  // Retrying cannot help a refused session, so it is not offered.
  await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(0);

  const local = await browserSession(page);
  expect(local.events.map((e) => e.kind)).toEqual(
    expect.arrayContaining(['session.start', 'consent', 'instructions.done', 'item.start', 'item.end', 'session.end']),
  );
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download your actions' }).click();
  const file = await (await download).path();
  expect(parseJsonl(readFileSync(file, 'utf8'))).toEqual({ events: local.events, errors: [] });
  expect((await download).suggestedFilename()).toBe(`arc-studio-session-${local.id}.jsonl`);
});
