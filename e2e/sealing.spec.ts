/**
 * The sealing rule in the browser (docs/api.md, "Sealing"): a participant on a study link gets
 * no answer of the study's tasks from any route they can reach, and practice answers are
 * checked on the server, never in the page.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type Request, type Response } from './studio-test';
import type { ArcTask } from '../src/core/formats/arcTask';
import { ADMIN, buildGrid, sampleStudy, sampleTask } from './study-helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

const practiceTask = (id: string) =>
  JSON.parse(readFileSync(path.join('data/practice/warm-ups', `${id}.json`), 'utf8')) as ArcTask;

/** The study's answers as compact JSON, except grids the participant is shown anyway. */
function studyAnswers(): string[] {
  const tasks = sampleStudy().items.flatMap((i) => (i.kind === 'task' ? [sampleTask(i.task)] : []));
  const visible = new Set(
    tasks
      .flatMap((t) => [...t.train.flatMap((p) => [p.input, p.output]), ...t.test.map((p) => p.input)])
      .map((g) => JSON.stringify(g)),
  );
  const out = tasks.flatMap((t) => t.test.map((p) => JSON.stringify(p.output))).filter((g) => !visible.has(g));
  return [...new Set(out)];
}

/** Where a response body gives an answer away: a study answer anywhere in it, or a task's test list with outputs. */
function leaksIn(body: string, answers: readonly string[]): string[] {
  const found = answers.filter((a) => body.includes(a)).map((a) => `answer ${a.slice(0, 40)}`);
  try {
    JSON.parse(body, (key, value: unknown) => {
      if (key === 'test' && Array.isArray(value) && value.some((t) => t && typeof t === 'object' && 'output' in t))
        found.push('a test list with outputs');
      return value;
    });
  } catch {
    /* not JSON: the text search above applies */
  }
  return found;
}

/** Every response body the page receives from the server. */
function recordResponses(page: Page): { url: string; status: number; body: string }[] {
  const seen: { url: string; status: number; body: string }[] = [];
  page.on('response', (r: Response) => {
    void r.text().then(
      (body) => seen.push({ url: r.url(), status: r.status(), body }),
      () => {},
    );
  });
  return seen;
}

test("a participant on a study link cannot obtain any answer of the study's tasks from any route", async ({ page }) => {
  const answers = studyAnswers();
  expect(answers.length).toBeGreaterThanOrEqual(4);
  const seen = recordResponses(page);

  await page.goto('/s/sample?PROLIFIC_PID=curious-participant');
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  await expect(page.locator('[data-item]')).toBeVisible();

  // The participant's own session token, where the page keeps it.
  const session = await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open('arc-studio');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const all = await new Promise<{ id: string; token: string; studyId?: string }[]>((res, rej) => {
      const r = db.transaction('sessions').objectStore('sessions').getAll();
      r.onsuccess = () => res(r.result as never);
      r.onerror = () => rej(r.error);
    });
    return all.find((s) => s.studyId === 'sample')!;
  });
  expect(session.token).toBeTruthy();

  // What a curious participant tries from the page, with and without their token.
  const tasks = sampleStudy().items.flatMap((i) => (i.kind === 'task' ? [i] : []));
  const tries: { method: 'GET' | 'POST'; url: string; body?: unknown }[] = [
    { method: 'GET', url: '/api/collections' },
    { method: 'GET', url: '/api/collections/samples/tasks' },
    { method: 'GET', url: '/api/studies/sample' },
    { method: 'GET', url: `/api/sessions/${session.id}` },
    { method: 'GET', url: '/api/admin/studies/sample' },
    { method: 'GET', url: '/api/admin/sessions' },
    { method: 'GET', url: `/api/admin/sessions/${session.id}` },
    ...tasks.flatMap((t) => [
      { method: 'GET' as const, url: `/api/collections/${t.collection}/tasks/${t.task}` },
      { method: 'GET' as const, url: `/api/collections/${t.collection}/tasks/${t.task}.json` },
      { method: 'GET' as const, url: `/api/collections/warm-ups/tasks/${t.task}` },
      {
        method: 'POST' as const,
        url: `/api/collections/${t.collection}/tasks/${t.task}/check`,
        body: { testIndex: 0, grid: [[0]] },
      },
      { method: 'GET' as const, url: `/data/tasks/${t.collection}/${t.task}.json` },
      { method: 'GET' as const, url: `/${t.collection}/${t.task}.json` },
    ]),
  ];
  const results = await page.evaluate(
    async ({ tries, token }) => {
      const out: { who: string; method: string; url: string; status: number; body: string }[] = [];
      for (const [who, auth] of [
        ['visitor', null],
        ['participant', token],
      ] as const) {
        for (const t of tries) {
          const headers: Record<string, string> = { 'Content-Type': 'application/json' };
          if (auth) headers.Authorization = `Bearer ${auth}`;
          const r = await fetch(t.url, {
            method: t.method,
            headers,
            body: t.body === undefined ? undefined : JSON.stringify(t.body),
          });
          out.push({ who, method: t.method, url: t.url, status: r.status, body: await r.text() });
        }
      }
      return out;
    },
    { tries, token: session.token },
  );

  for (const r of results) {
    const what = `${r.who} ${r.method} ${r.url} -> ${r.status}`;
    expect(leaksIn(r.body, answers), what).toEqual([]);
    if (r.url.startsWith('/api/admin/')) expect([401, 403], what).toContain(r.status);
    if (r.url.endsWith('/check') || /^\/api\/collections\/samples\/tasks/.test(r.url))
      expect([401, 403, 404], what).toContain(r.status);
    expect(r.body, what).not.toMatch(/"(verdict|correct)"/);
  }
  // The participant's own session view holds the tasks, without answers.
  const own = results.find((r) => r.who === 'participant' && r.url === `/api/sessions/${session.id}`)!;
  expect(own.status).toBe(200);
  expect(JSON.parse(own.body).items.filter((i: { kind: string }) => i.kind === 'task')).toHaveLength(tasks.length);

  // The task player and browser of the same app: the study's collection shows as sealed.
  await page.goto(`/tasks/samples/${tasks[1].task}`);
  await expect(page.getByRole('alert')).toContainText('is sealed');
  await expect(page.getByRole('link', { name: 'Log in as researcher' })).toBeVisible();
  await expect(page.getByTestId('output-grid')).toHaveCount(0);
  await page.goto('/?c=samples');
  await expect(page.getByTestId('sealed-notice')).toContainText('samples is sealed');
  await expect(page.getByRole('list', { name: 'Tasks' }).getByRole('link')).toHaveCount(0);

  // Nothing the pages themselves received held an answer either.
  await expect.poll(() => seen.length).toBeGreaterThan(5);
  for (const r of seen) expect(leaksIn(r.body, answers), `${r.url} -> ${r.status}`).toEqual([]);
});

test('practice answers are checked on the server: the page gets the task without its test outputs', async ({
  page,
}) => {
  const id = 'swap-rows-and-columns';
  const task = practiceTask(id);
  const checks: Request[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith(`/api/collections/warm-ups/tasks/${id}/check`)) checks.push(r);
  });
  const received = page.waitForResponse((r) => r.url().endsWith(`/api/collections/warm-ups/tasks/${id}`));

  // A visitor starts on the practice collection; the sealed one is marked.
  await page.goto('/');
  const collections = page.getByRole('list', { name: 'Collections' });
  await expect(collections.getByRole('button', { name: /warm-ups/ })).toHaveAttribute('aria-current', 'true');
  await expect(collections.getByRole('button', { name: /samples/ })).toContainText('sealed');
  await expect(page.getByTestId('task-count')).toHaveText('8 tasks');
  await page.getByRole('link', { name: id }).click();
  await expect(page.getByTestId('task-id')).toHaveText(id);
  await expect(page.getByTestId('judge-mode')).toHaveText('Practice · checked on the server');

  const body = (await (await received).json()) as { task: ArcTask; access: string };
  expect(body.access).toBe('practice');
  expect(body.task.test.map((t) => Object.keys(t))).toEqual([['input'], ['input']]);
  expect(body.task.test.map((t) => t.input)).toEqual(task.test.map((t) => t.input));

  // A wrong answer, then the right one: each is a request to the server, which says which is which.
  await buildGrid(page, [[1]]);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByTestId('status')).toContainText('Not correct');
  await buildGrid(page, task.test[0].output!);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByTestId('status')).toContainText('Correct!');
  expect(checks.map((r) => r.method())).toEqual(['POST', 'POST']);
  expect(checks.map((r) => JSON.parse(r.postData()!))).toEqual([
    { testIndex: 0, grid: [[1]] },
    { testIndex: 0, grid: task.test[0].output },
  ]);
});

test('a researcher previews a sealed task with its answers, checked in the browser', async ({ page, request }) => {
  const checks: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/check')) checks.push(r.url());
  });
  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto('/?c=samples');
  await expect(page.getByTestId('sealed-notice')).toHaveCount(0);
  await expect(page.getByTestId('task-count')).toHaveText('14 tasks');
  await page.getByRole('link', { name: 'most-common-color' }).click();
  await expect(page.getByTestId('judge-mode')).toHaveText('Researcher preview');
  const answer = sampleTask('most-common-color').test[0].output!;
  await buildGrid(page, answer);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page.getByTestId('status')).toContainText('Correct!');
  expect(checks).toEqual([]);
  // The same preview over the API needs the token; with it, the answers are there (and the check above would see them).
  const preview = await request.get('/api/collections/samples/tasks/mirror-across-wall', { headers: ADMIN });
  expect(preview.status()).toBe(200);
  expect(leaksIn(await preview.text(), studyAnswers()).length).toBeGreaterThan(0);
  expect((await request.get('/api/collections/samples/tasks/mirror-across-wall')).status()).toBe(401);
});
