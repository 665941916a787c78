import { expect, test, type APIRequestContext, type Page } from './studio-test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clickCell, ownPort, screenGrid, seedDataDir } from './helpers';
import { ADMIN, browserSession, expectAllStored, finishStudy, untilStored, type StudyFile } from './study-helpers';
import { arcStudioArgs } from '../src/server/testing/command';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

/**
 * The sample study cut to its first page and two tasks: a fault strikes on the first task, and the
 * participant goes on to the next item and the end. What comes after the fault is what a
 * participant meets anywhere in a study; the whole walk through the sample, its game included, is
 * `study.spec.ts`'s.
 */
function faultsStudy(): { id: string; definition: Record<string, unknown>; study: StudyFile } {
  const sample = JSON.parse(readFileSync('data/studies/sample.json', 'utf8')) as Record<string, unknown> & StudyFile;
  const items = sample.items.filter((i) => ['intro', 'practice', 'downscale'].includes(i.id));
  const definition = { ...sample, title: 'Faults', items };
  return { id: `faults-${Math.random().toString(36).slice(2)}`, definition, study: { ...sample, items } };
}

/** Saves the study on the server at `base` and starts it in the page; stops at the first task item. */
async function reachTask(
  page: Page,
  request: APIRequestContext,
  faults: ReturnType<typeof faultsStudy>,
  base = '',
): Promise<void> {
  const saved = await request.post(`${base}/api/admin/studies/${faults.id}`, {
    headers: ADMIN,
    data: { definition: faults.definition },
  });
  expect(saved.status(), await saved.text()).toBe(201);
  await page.goto(`${base}/s/${faults.id}?PROLIFIC_PID=fault-${Math.random().toString(36).slice(2)}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.locator('[data-kind="task"]')).toBeVisible();
}

async function paintSome(page: Page, colour: number, cells: [number, number][]): Promise<void> {
  await page.keyboard.press(String(colour));
  for (const [r, c] of cells) await clickCell(page, 'output-grid', r, c);
}

async function finishAll(page: Page, study: StudyFile): Promise<void> {
  await finishStudy(page, study);
  await expect(page.getByTestId('completion-code')).toHaveText(study.completion.code);
}

test('offline for 60 seconds mid-item: work goes on, nothing is lost, and everything arrives once', async ({
  page,
  context,
  request,
}) => {
  // The page's clock is moved on by the test: a minute offline passes at once, and every retry
  // the outbox schedules in that minute (with its backoff) is due and fails.
  await page.clock.install();
  const faults = faultsStudy();
  await reachTask(page, request, faults);
  await context.setOffline(true);
  await paintSome(page, 2, [
    [0, 0],
    [1, 1],
    [2, 2],
  ]);
  await expect(page.getByTestId('offline-banner')).toBeVisible();
  await page.clock.runFor('01:00');
  await paintSome(page, 3, [
    [0, 2],
    [2, 0],
  ]);
  await context.setOffline(false);
  await expect(page.getByTestId('offline-banner')).toBeHidden({ timeout: 60_000 });
  await untilStored(request, page);
  await finishAll(page, faults.study);
  await expectAllStored(request, page);
});

test('a reload mid-item resumes the same item with its grid and trials', async ({ page, request }) => {
  const faults = faultsStudy();
  await reachTask(page, request, faults);
  const item = await page.locator('[data-item]').getAttribute('data-item');
  await paintSome(page, 4, [
    [0, 0],
    [0, 1],
  ]);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByTestId('trials')).toContainText('Trial 2 of 3');
  await paintSome(page, 5, [[1, 1]]);
  const before = await screenGrid(page, 'output-grid');
  await page.reload();
  await expect(page.locator('[data-item]')).toHaveAttribute('data-item', item!);
  await expect.poll(() => screenGrid(page, 'output-grid')).toEqual(before);
  await expect(page.getByTestId('trials')).toContainText('Trial 2 of 3');
  // Undo history comes back too.
  await page.keyboard.press('Control+z');
  await expect.poll(async () => (await screenGrid(page, 'output-grid'))[1][1]).toBe(0);
  await finishAll(page, faults.study);
  const { events } = await expectAllStored(request, page);
  expect(events.filter((e) => e.kind === 'session.resume')).toHaveLength(1);
});

test('the server killed with SIGKILL and restarted mid-session loses nothing', async ({ page, request }) => {
  test.setTimeout(480_000);
  const dataDir = seedDataDir(mkdtempSync(path.join(os.tmpdir(), 'arc-studio-kill-')));
  const port = ownPort(2);
  const base = `http://127.0.0.1:${port}`;
  const start = async (): Promise<ChildProcess> => {
    const child = spawn(
      process.execPath,
      arcStudioArgs(['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir]),
      {
        env: { ...process.env, ARC_STUDIO_ADMIN_TOKEN: process.env.E2E_ADMIN_TOKEN },
        stdio: 'ignore',
      },
    );
    try {
      await expect
        .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, {
          // A server took over 100 s to start at a load of 40 on 2 cores (`studio-test.ts`).
          timeout: 180_000,
          message: 'the server did not start',
        })
        .toBe(200);
    } catch (e) {
      // Never left running on the worker's port when it does not come up in time.
      child.kill('SIGKILL');
      throw e;
    }
    return child;
  };
  let server = await start();
  try {
    const faults = faultsStudy();
    await reachTask(page, request, faults, base);
    await paintSome(page, 6, [
      [0, 0],
      [1, 0],
    ]);
    const local = await browserSession(page);
    await expect
      .poll(
        async () =>
          (
            await (
              await request.get(`${base}/api/admin/sessions/${local.id}/events`, {
                headers: ADMIN,
              })
            ).json()
          ).events.length,
      )
      .toBe(local.events.length);
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    await paintSome(page, 7, [
      [2, 2],
      [2, 1],
    ]);
    await expect(page.getByTestId('offline-banner')).toBeVisible();
    server = await start();
    await expect(page.getByTestId('offline-banner')).toBeHidden({ timeout: 60_000 });
    await finishAll(page, faults.study);
    const after = await browserSession(page);
    const stored = (
      await (
        await request.get(`${base}/api/admin/sessions/${after.id}/events`, {
          headers: ADMIN,
        })
      ).json()
    ).events as { seq: number; t: number; kind: string; data: unknown }[];
    expect(stored.map((e) => e.seq)).toEqual(after.events.map((_, i) => i));
    expect(stored.map(({ seq, t, kind, data }) => ({ seq, t, kind, data }))).toEqual(after.events);
  } finally {
    server.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
