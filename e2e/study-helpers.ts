/** A participant working through a study in the browser, with real clicks and keys. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, type Page, type APIRequestContext } from '@playwright/test';
import type { ArcTask } from '../src/core/formats/arcTask';
import type { Grid } from '../src/core/grid/grid';
import type { LogEvent } from '../src/core/log/events';
import { parseActions } from '../src/core/game';
import { solutions } from '../src/games';
import { gridGeometry, performGameActions, pointOf, resizeTo, screenGrid } from './helpers';

export const ADMIN = { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}` };

export interface StudyFile {
  items: (
    | { kind: 'page'; id: string }
    | { kind: 'task'; id: string; collection: string; task: string; tests?: number[] }
    | { kind: 'game'; id: string; game: string }
  )[];
  completion: { code: string };
}

export function sampleStudy(): StudyFile {
  return JSON.parse(readFileSync('data/studies/sample.json', 'utf8')) as StudyFile;
}

export function sampleTask(id: string): ArcTask {
  return JSON.parse(readFileSync(path.join('data/tasks/samples', `${id}.json`), 'utf8')) as ArcTask;
}

/** Builds `answer` in the output editor: resize when needed, then paint every cell that differs. */
export async function buildGrid(page: Page, answer: Grid): Promise<void> {
  const now = await screenGrid(page, 'output-grid');
  if (now.length !== answer.length || now[0].length !== answer[0].length) {
    await resizeTo(page, `${answer.length}x${answer[0].length}`);
    const canvas = page.getByTestId('output-grid');
    await expect(canvas).toHaveAttribute('data-rows', String(answer.length));
    await expect(canvas).toHaveAttribute('data-cols', String(answer[0].length));
  }
  const shown = await screenGrid(page, 'output-grid');
  // The grid stays where it is while it is painted: its place is read once, not per cell.
  const geometry = await gridGeometry(page, 'output-grid');
  let colour = -1;
  for (let r = 0; r < answer.length; r++) {
    for (let c = 0; c < answer[0].length; c++) {
      if (shown[r][c] === answer[r][c]) continue;
      if (answer[r][c] !== colour) {
        colour = answer[r][c];
        await page.keyboard.press(String(colour));
      }
      const p = pointOf(geometry, r, c);
      await page.mouse.click(p.x, p.y);
    }
  }
  await expect.poll(() => screenGrid(page, 'output-grid')).toEqual(answer);
}

/** Solves the study task on screen, test input by test input, and moves on. */
export async function solveTaskItem(page: Page, study: StudyFile, itemId: string): Promise<void> {
  const item = study.items.find((i) => i.id === itemId);
  if (item?.kind !== 'task') throw new Error(`${itemId} is not a task item`);
  const task = sampleTask(item.task);
  const tests = item.tests ?? task.test.map((_, i) => i);
  for (let k = 0; k < tests.length; k++) {
    await expect(page.getByTestId('test-position')).toHaveText(`Test ${k + 1} / ${tests.length}`);
    await buildGrid(page, task.test[tests[k]].output!);
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(page.getByTestId('status')).toContainText('Correct!');
  }
  await expect(page.getByTestId('task-result')).toHaveText('Task solved');
  await page.getByRole('button', { name: 'Next', exact: true }).click();
}

/** Plays every level of a game with its recorded solutions, by key and click. */
export async function playGame(page: Page, gameId: string, levels = solutions[gameId].length): Promise<void> {
  for (let level = 0; level < levels; level++) {
    await performGameActions(page, parseActions(solutions[gameId][level]));
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-level', String(level + 1));
  }
}

/** Does whatever the current item asks, as a participant who knows the answers. */
export async function completeCurrentItem(page: Page, study: StudyFile): Promise<string> {
  const holder = page.locator('[data-item]');
  await expect(holder).toBeVisible();
  const id = (await holder.getAttribute('data-item'))!;
  const kind = await holder.getAttribute('data-kind');
  if (kind === 'page') await page.getByRole('button', { name: 'Continue' }).click();
  else if (kind === 'task') await solveTaskItem(page, study, id);
  else {
    const item = study.items.find((i) => i.id === id) as { game: string };
    await playGame(page, item.game);
    await expect(page.getByTestId('game-result')).toHaveText('Every level complete');
    await page.getByRole('button', { name: 'Next', exact: true }).click();
  }
  await expect(page.locator(`[data-item="${id}"]`)).toHaveCount(0);
  return id;
}

/**
 * Works through every item on screen until the completion code shows. Between two items neither
 * is on screen for a moment: each round waits for the next item or the code, never counts items
 * as the page changes.
 */
export async function finishStudy(page: Page, study: StudyFile): Promise<void> {
  const done = page.getByTestId('completion-code');
  for (;;) {
    await expect(page.locator('[data-item]').or(done)).toBeVisible();
    if (await done.isVisible()) return;
    await completeCurrentItem(page, study);
  }
}

/** The session id of the study the page is in, from the browser's own storage. */
export async function browserSession(page: Page): Promise<{ id: string; events: LogEvent[] }> {
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
    const sessions = (await get<{ id: string; studyId?: string }>('sessions')).filter((s) => s.studyId);
    const id = sessions[0].id;
    const events = (
      await get<{ session: string; seq: number; t: number; kind: string; data: Record<string, unknown> }>('events')
    )
      .filter((e) => e.session === id)
      .sort((a, b) => a.seq - b.seq)
      .map(({ seq, t, kind, data }) => ({ seq, t, kind, data }));
    return { id, events };
  });
}

export async function serverEvents(request: APIRequestContext, sessionId: string): Promise<LogEvent[]> {
  const res = await request.get(`/api/admin/sessions/${sessionId}/events`, { headers: ADMIN });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { events: LogEvent[] }).events;
}

/**
 * The seqs the server holds that this browser does not: events sent as a page closed (a reload) can
 * reach the server while the closing page's storage never wrote them, and the page that loads next
 * numbers its events after them (`Outbox.adoptServerAck`).
 */
function serverOnly(stored: readonly LogEvent[], local: readonly LogEvent[]): number[] {
  const kept = new Set(local.map((e) => e.seq));
  return stored.map((e) => e.seq).filter((seq) => !kept.has(seq));
}

/**
 * Waits until the server holds every event the browser has logged, both read again at each look
 * (the page may log more meanwhile: a focus, a heartbeat); the browser's log then.
 */
export async function untilStored(request: APIRequestContext, page: Page): Promise<{ id: string; events: LogEvent[] }> {
  let local = await browserSession(page);
  await expect
    .poll(
      async () => {
        local = await browserSession(page);
        const held = new Set((await serverEvents(request, local.id)).map((e) => e.seq));
        return local.events.filter((e) => !held.has(e.seq)).map((e) => e.seq);
      },
      { timeout: 60_000, message: "the seqs of the browser's events that the server does not hold" },
    )
    .toEqual([]);
  return local;
}

/**
 * Every event the browser logged is on the server exactly once, in order, unchanged. The server may
 * hold more only where a page closed: events the closing page sent and did not keep, each run of
 * them followed at once by the next page's `session.resume`.
 */
export async function expectAllStored(
  request: APIRequestContext,
  page: Page,
): Promise<{ id: string; events: LogEvent[] }> {
  const local = await untilStored(request, page);
  const stored = await serverEvents(request, local.id);
  expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i));
  const bySeq = new Map(stored.map(({ seq, t, kind, data }) => [seq, { seq, t, kind, data }]));
  expect(local.events.map((e) => bySeq.get(e.seq))).toEqual(local.events);
  const localBySeq = new Map(local.events.map((e) => [e.seq, e]));
  for (const seq of serverOnly(stored, local.events)) {
    let next = seq + 1;
    while (!localBySeq.has(next) && next < stored.length) next++;
    expect(
      localBySeq.get(next)?.kind,
      `event ${seq} (${bySeq.get(seq)?.kind}) is on the server only, and not where a page closed`,
    ).toBe('session.resume');
  }
  return local;
}
