/**
 * React's StrictMode mounts every component, runs its effects, cleans them up and runs them
 * again, but only in a development build. This spec serves a development build of the app (made
 * here, or beside the unit tests by `npm test`, which names it in E2E_DEV_DIST) from a server of
 * its own, and checks that a study session and the practice players still log each opening once.
 */
import { expect, test, type Page } from './studio-test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LogEvent } from '../src/core/log/events';
import { ADMIN, sampleStudy } from './study-helpers';
import { ownPort, seedDataDir } from './helpers';
import { arcStudioArgs } from '../src/server/testing/command';

test.describe.configure({ mode: 'serial' });

/** `vite build` for development into the folder that follows (scripts/test.mjs runs the same). */
const DEVELOPMENT_BUILD = ['build', '--mode', 'development', '--logLevel', 'warn', '--emptyOutDir', '--outDir'];

let server: ChildProcess | null = null;
let base = '';
let tmp = '';

test.beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-strict-'));
  // A build and a server start: minutes on a busy machine.
  test.setTimeout(480_000);
  // `npm test` makes the development build beside the unit tests and names it in E2E_DEV_DIST.
  const prebuilt = process.env.E2E_DEV_DIST;
  const dist = prebuilt && existsSync(path.join(prebuilt, 'index.html')) ? prebuilt : path.join(tmp, 'dist');
  if (dist !== prebuilt) {
    const build = spawnSync(process.execPath, ['node_modules/vite/bin/vite.js', ...DEVELOPMENT_BUILD, dist], {
      env: { ...process.env, NODE_ENV: 'development' },
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`The development build failed:\n${build.stderr}`);
  }
  const port = ownPort(1);
  base = `http://127.0.0.1:${port}`;
  server = spawn(
    process.execPath,
    arcStudioArgs([
      'serve',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      seedDataDir(path.join(tmp, 'data')),
      '--practice-tasks',
      'arc-agi-1=../shared/data/arc-agi-1',
    ]),
    {
      env: { ...process.env, ARC_STUDIO_DIST: dist, ARC_STUDIO_ADMIN_TOKEN: process.env.E2E_ADMIN_TOKEN },
      stdio: 'ignore',
    },
  );
  await expect
    .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, {
      timeout: 300_000,
      message: 'the server did not start',
    })
    .toBe(200);
});

test.afterAll(() => {
  server?.kill('SIGKILL');
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The practice log this page load wrote to IndexedDB. */
async function practiceEvents(page: Page): Promise<LogEvent[]> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open('arc-studio');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const get = <T>(store: string) =>
      new Promise<T[]>((res, rej) => {
        const r = db.transaction(store).objectStore(store).getAll();
        r.onsuccess = () => res(r.result as T[]);
        r.onerror = () => rej(r.error);
      });
    const sessions = (await get<{ id: string; label: string; startedAt: string }>('sessions'))
      .filter((s) => s.label === 'practice')
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    const events = await get<LogEvent & { session: string }>('events');
    return events.filter((e) => e.session === sessions[0].id).sort((a, b) => a.seq - b.seq);
  });
}

const count = (events: readonly LogEvent[], kind: string) => events.filter((e) => e.kind === kind).length;

test('the app under test is a development build, where StrictMode runs effects twice', async () => {
  const html = await (await fetch(base)).text();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
  // A warning only React's development build carries.
  expect(await (await fetch(base + script)).text()).toContain('unique "key" prop');
});

test('a participant giving up every item of the sample study: each opening, item start and end is logged once', async ({
  page,
  request,
}) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const study = sampleStudy();
  await page.goto(`${base}/s/sample?PROLIFIC_PID=strict-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  for (let i = 0; i < study.items.length; i++) {
    const holder = page.locator('[data-item]');
    await expect(holder).toBeVisible();
    const id = (await holder.getAttribute('data-item'))!;
    const kind = await holder.getAttribute('data-kind');
    if (kind === 'page') await page.getByRole('button', { name: 'Continue' }).click();
    else {
      await expect(page.getByTestId(kind === 'game' ? 'game-canvas' : 'output-grid')).toBeVisible();
      await page.getByRole('button', { name: 'Give up and continue' }).click();
      await page
        .getByRole('dialog', { name: 'Give up this item?' })
        .getByRole('button', { name: 'Give up and move on' })
        .click();
    }
    await expect(page.locator(`[data-item="${id}"]`)).toHaveCount(0);
  }
  await expect(page.getByTestId('completion-code')).toHaveText(study.completion.code);
  // React's development warnings (state set while rendering, missing keys, ...) are console errors.
  expect(errors).toEqual([]);

  const sessions = (await (await request.get(`${base}/api/admin/sessions?study=sample`, { headers: ADMIN })).json())
    .sessions as { id: string; params: Record<string, string> }[];
  const id = sessions.find((s) => s.params.PROLIFIC_PID?.startsWith('strict-'))!.id;
  const events = (await (await request.get(`${base}/api/admin/sessions/${id}/events`, { headers: ADMIN })).json())
    .events as LogEvent[];
  for (const kind of ['session.start', 'consent', 'instructions.done', 'session.end', 'visibility'])
    expect(count(events, kind), kind).toBe(1);
  const starts = events.filter((e) => e.kind === 'item.start').map((e) => e.data.item);
  const ends = events.filter((e) => e.kind === 'item.end').map((e) => e.data.item);
  expect(starts).toHaveLength(study.items.length);
  expect(new Set(starts)).toEqual(new Set(study.items.map((i) => i.id)));
  expect(ends).toEqual(starts);
  expect(count(events, 'task.open')).toBe(study.items.filter((i) => i.kind === 'task').length);
  expect(count(events, 'game.open')).toBe(study.items.filter((i) => i.kind === 'game').length);
  // Every task.open and game.open follows its own item's start.
  for (const e of events.filter((x) => x.kind === 'task.open' || x.kind === 'game.open')) {
    const start = events.filter((x) => x.kind === 'item.start' && x.seq < e.seq).pop()!;
    expect(events.find((x) => x.seq === start.seq + 1)?.kind, `${e.kind} ${JSON.stringify(e.data)}`).toBe(e.kind);
  }
});

test('the practice players log one task.open, and one game.open with its RESET', async ({ page }) => {
  await page.goto(`${base}/tasks/arc-agi-1/training/007bbfb7`);
  await expect(page.getByTestId('output-grid')).toBeVisible();
  await expect.poll(async () => count(await practiceEvents(page), 'task.open')).toBe(1);

  await page.goto(`${base}/games/push`);
  await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
  await expect.poll(async () => count(await practiceEvents(page), 'game.open')).toBe(1);
  const events = await practiceEvents(page);
  expect(events.filter((e) => e.kind === 'game.action').map((e) => e.data.action)).toEqual(['RESET']);
  expect(count(events, 'session.start')).toBe(1);
  expect(count(events, 'visibility')).toBe(1);
});
