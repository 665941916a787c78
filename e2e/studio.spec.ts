import { expect, test, type Page } from './studio-test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseActions } from '../src/core/game';
import { toRecording } from '../src/core/formats/recording';
import { Timeline } from '../src/core/log/timeline';
import { gameRunReducer, renderRun, hashFrame } from '../src/core/game';
import type { LogEvent } from '../src/core/log/events';
import { games, solutions } from '../src/games';
import { itemActions } from '../src/core/study/actions';
import { completeCurrentItem, sampleStudy, serverEvents } from './study-helpers';
import { performGameActions, picture } from './helpers';
import { readZip } from '../src/server/export/zip';

/** The 0-based index of a table's column by its header's text. */
async function columnIndex(table: ReturnType<Page['getByRole']>, header: string): Promise<number> {
  const headers = await table.getByRole('columnheader').allInnerTexts();
  const i = headers.findIndex((h) => h.trim().startsWith(header));
  expect(i, `column ${header} in ${headers.join(', ')}`).toBeGreaterThanOrEqual(0);
  return i;
}

async function runParticipant(page: Page, pid: string): Promise<void> {
  const study = sampleStudy();
  await page.goto(`/s/sample?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  for (let i = 0; i < study.items.length; i++) await completeCurrentItem(page, study);
  await expect(page.getByTestId('completion-code')).toBeVisible();
}

test('a researcher sees the funnel and baselines of the sample study and replays a session from its middle', async ({
  browser,
  page,
  request,
}) => {
  const run = Date.now().toString(36);
  const [a, b] = [`studio-a-${run}`, `studio-b-${run}`];
  for (const pid of [a, b]) {
    const p = await browser.newPage();
    await runParticipant(p, pid);
    await p.close();
  }

  // From the home page, Sign in leads to the sign-in page, and from there to the login page, where the token is pasted.
  await page.goto('/');
  await picture(page, 'home-sign-in');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Log in with a token instead' }).click();
  await expect(page.getByRole('heading', { name: 'Researcher login' })).toBeVisible();
  await page.getByLabel('Researcher token').fill(process.env.E2E_ADMIN_TOKEN!);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('link', { name: 'Sample study: grid puzzles and a game' }).click();
  // Signed in, the header no longer offers it.
  await expect(page.getByRole('link', { name: 'Sign in' })).toHaveCount(0);
  const table = page.getByRole('table', { name: 'Participants' });
  await expect(table.getByText(a)).toBeVisible();
  await expect(table.getByText(b)).toBeVisible();

  await page.getByRole('tab', { name: 'Game levels' }).click();
  await expect(page.getByTestId('funnel')).toBeVisible();
  // Everyone here played push with the recorded solutions: level 1 takes its minimal count.
  const level1 = solutions.push[0].split(',').length;
  await expect(page.getByTestId('baseline-best-1')).toContainText(String(level1));
  await expect(page.getByTestId('baseline-second-best-1')).toContainText(String(level1));
  await expect(page.getByTestId('baseline-second-best-1')).toContainText(/n=\d+/);
  // push is played with the keys: no empty click heatmap, a sentence saying why.
  await expect(page.getByTestId('no-clicks')).toHaveText(/has no clicks: its players use the keys only/);
  await expect(page.getByTestId('heatmap')).toHaveCount(0);

  await page.getByRole('tab', { name: 'Grid tasks' }).click();
  await expect(page.getByRole('table', { name: 'Grid tasks' })).toContainText('downscale');

  // Replay the first participant's game from the middle of its log.
  await page.getByRole('tab', { name: /Participants/ }).click();
  const tableActions = Number(
    await table
      .getByRole('row', { name: new RegExp(a) })
      .getByRole('cell')
      .nth(await columnIndex(table, 'Actions'))
      .innerText(),
  );
  await table
    .getByRole('row', { name: new RegExp(a) })
    .getByRole('link', { name: 'Replay' })
    .click();
  const sessionId = page.url().split('/sessions/')[1];
  const all = await serverEvents(request, sessionId);
  // One definition of actions: the replay sidebar counts each item as itemActions does on the
  // stored log, and the participants table's figure is their sum over the counted items.
  const study = sampleStudy();
  let counted = 0;
  for (const item of study.items) {
    const from = all.findIndex((e) => e.kind === 'item.start' && e.data.item === item.id);
    const to = all.findIndex((e, i) => i > from && e.kind === 'item.start');
    const n = itemActions(item, all.slice(from, to < 0 ? undefined : to));
    if (item.kind !== 'page')
      await expect(
        page.getByRole('list', { name: 'Items' }).getByRole('button', { name: new RegExp(`^${item.id}`) }),
      ).toContainText(`${item.kind} · ${n} actions`);
    if (item.kind !== 'page' && !('practice' in item && item.practice)) counted += n;
  }
  expect(tableActions).toBe(counted);
  await page.getByRole('list', { name: 'Items' }).getByRole('button', { name: /^push/ }).click();
  const start = all.findIndex((e) => e.kind === 'item.start' && e.data.item === 'push');
  const end = all.findIndex((e, i) => i > start && e.kind === 'item.start');
  const itemEvents: LogEvent[] = all.slice(start, end < 0 ? undefined : end);
  const middle = Math.floor(itemEvents.length / 2);
  await page.getByTestId('scrubber').fill(String(middle));
  await expect(page.getByTestId('replay-position')).toHaveText(`${middle} / ${itemEvents.length}`);
  const expected = new Timeline(null, itemEvents, gameRunReducer(games.push)).at(middle)!;
  await expect(page.getByTestId('replay-frame')).toHaveAttribute('data-level', String(expected.levelsCompleted));
  // The frame on screen is the one the participant saw after the last action before this point.
  const lastAction = itemEvents
    .slice(0, middle)
    .filter((e) => e.kind === 'game.action')
    .pop()!;
  expect(hashFrame(renderRun(expected))).toBe(lastAction.data.frameHash);
  await expect(page.getByTestId('replay-frame')).toHaveAttribute('data-frame-hash', String(lastAction.data.frameHash));
  // Step with the keyboard and play at 10x to the end.
  await page.getByRole('button', { name: 'Forward one event' }).click();
  await expect(page.getByTestId('replay-position')).toHaveText(`${middle + 1} / ${itemEvents.length}`);
  await page.getByRole('button', { name: '10x' }).click();
  await page.getByRole('button', { name: 'Play' }).click();
  await expect(page.getByTestId('replay-position')).toHaveText(`${itemEvents.length} / ${itemEvents.length}`, {
    timeout: 60_000,
  });
  await expect(page.getByTestId('replay-frame')).toHaveAttribute('data-level', String(games.push.levels.length));
});

test('a designer playtests any level with a state inspector and instant restart; the recording is labelled and never counts', async ({
  page,
  request,
}) => {
  // Participants cannot make themselves playtests.
  const refused = await request.post('/api/studies/sample/sessions', { data: { params: { mode: 'playtest' } } });
  expect(refused.status()).toBe(403);
  const before = await (
    await request.get('/api/admin/studies/sample/results', {
      headers: { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}` },
    })
  ).json();

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto('/games/push/playtest');
  await page.getByLabel('Record to').selectOption({ label: 'sample · push' });
  await page.getByLabel('Level', { exact: true }).selectOption('2');
  await expect(page.getByTestId('game-level')).toHaveText(`3 / ${games.push.levels.length}`);
  const hash0 = await page.getByTestId('state-hash').textContent();
  await performGameActions(page, parseActions(solutions.push[2]));
  await expect(page.getByTestId('game-level')).toHaveText(`4 / ${games.push.levels.length}`);
  await expect(page.getByTestId('state-hash')).not.toHaveText(hash0!);
  await page.getByRole('button', { name: 'Restart level' }).click();
  await expect(page.getByTestId('game-level')).toHaveText(`3 / ${games.push.levels.length}`);
  await expect(page.getByTestId('state-hash')).toHaveText(hash0!);

  const admin = { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}` };
  await expect
    .poll(async () => {
      const r = await (await request.get('/api/admin/studies/sample/results', { headers: admin })).json();
      return r.participants.filter((p: { playtest: boolean }) => p.playtest).length;
    })
    .toBeGreaterThan(before.participants.filter((p: { playtest: boolean }) => p.playtest).length);
  const after = await (await request.get('/api/admin/studies/sample/results', { headers: admin })).json();
  const level3 = (r: typeof after) => r.games[0].levels[2];
  expect(level3(after).completed).toBe(level3(before).completed);
  expect(level3(after).baselines).toEqual(level3(before).baselines);
});

test('a researcher downloads every export of the sample study and scores a recording against its baselines', async ({
  page,
  browser,
  request,
}) => {
  // The paper preset needs two first-time players who completed each level.
  const results = await (
    await request.get('/api/admin/studies/sample/results', {
      headers: { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}` },
    })
  ).json();
  for (let n = results.games[0].levels[5].completed; n < 2; n++) {
    const p = await browser.newPage();
    await runParticipant(p, `export-${n}-${Date.now().toString(36)}`);
    await p.close();
  }
  // From the home page, Sign in leads to the sign-in page, and from there to the login page, where the token is pasted.
  await page.goto('/');
  await picture(page, 'home-sign-in');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Log in with a token instead' }).click();
  await expect(page.getByRole('heading', { name: 'Researcher login' })).toBeVisible();
  await page.getByLabel('Researcher token').fill(process.env.E2E_ADMIN_TOKEN!);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('link', { name: 'Sample study: grid puzzles and a game' }).click();
  // Signed in, the header no longer offers it.
  await expect(page.getByRole('link', { name: 'Sign in' })).toHaveCount(0);
  await page.getByRole('tab', { name: 'Exports' }).click();
  const exportsList = page.getByRole('list', { name: 'Exports' });
  const got: Record<string, Buffer> = {};
  for (const title of [
    'Study bundle (ZIP)',
    'Raw events (JSONL)',
    'Attempts (CSV)',
    'Human baselines (JSON)',
    'Human baselines (CSV)',
    'Grid-task actions (CSV)',
    'ARC-AGI-3 recordings (ZIP)',
    'Archive (ZIP)',
  ]) {
    const download = page.waitForEvent('download');
    await exportsList.getByRole('button', { name: `Download ${title}` }).click();
    const d = await download;
    got[title] = await readFile((await d.path())!);
    expect(got[title].length, title).toBeGreaterThan(0);
  }
  expect(got['Study bundle (ZIP)'].subarray(0, 2).toString()).toBe('PK');
  expect(got['ARC-AGI-3 recordings (ZIP)'].subarray(0, 2).toString()).toBe('PK');
  // The archive: every row of the study, its manifest listing each part with its SHA-256.
  const archive = new Map(readZip(got['Archive (ZIP)']).map((e) => [e.name, e.data.toString('utf8')]));
  const manifest = JSON.parse(archive.get('archive.json')!) as {
    study: string;
    parts: { file: string; rows: number }[];
  };
  expect(manifest.study).toBe('sample');
  expect(manifest.parts.find((p) => p.file === 'parts/events.jsonl')!.rows).toBeGreaterThan(10);
  const events = got['Raw events (JSONL)']
    .toString()
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { sessionId: string; seq: number });
  expect(events.length).toBeGreaterThan(10);
  expect(got['Attempts (CSV)'].toString().split('\n')[0]).toContain('session');
  expect(got['Grid-task actions (CSV)'].toString().split('\n')[0]).toContain('task_name');
  const baselines = JSON.parse(got['Human baselines (JSON)'].toString());
  expect(baselines.format).toBe('arc-studio.baselines');
  expect(got['Human baselines (CSV)'].toString()).toContain('second-best');

  // Score the engine's own solution of push against those baselines, in the studio.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-score-'));
  const lines = [
    ...toRecording(
      games.push,
      1,
      parseActions(`RESET,${solutions.push.join(',')}`).map((input, i) => ({ input, t: i * 500 })),
      { guid: 'e2e-run', startTime: Date.UTC(2026, 0, 1) },
    ),
  ];
  const rec = path.join(dir, 'push.recording.jsonl');
  writeFileSync(rec, lines.join('\n') + '\n');
  const bl = path.join(dir, 'baselines.json');
  writeFileSync(bl, got['Human baselines (JSON)']);
  await page.goto('/score');
  await page.getByLabel('Recordings').setInputFiles(rec);
  await page.getByLabel('Baselines file').setInputFiles(bl);
  await page.getByLabel(/^paper/).check();
  // The recorded solutions are minimal, as every participant here played them: full marks.
  await expect(page.getByTestId('rhae-total')).toHaveText('1.000');
  await page.getByRole('combobox', { name: 'Baselines from a study' }).selectOption('sample');
  await expect(page.getByText('Using study:sample')).toBeVisible();
  await expect(page.getByTestId('rhae-total')).toHaveText('1.000');
});
