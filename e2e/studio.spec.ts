import { expect, test, type Page } from '@playwright/test';
import { Timeline } from '../src/core/log/timeline';
import { gameRunReducer, renderRun, hashFrame } from '../src/core/game';
import type { LogEvent } from '../src/core/log/events';
import { games, solutions } from '../src/games';
import { completeCurrentItem, sampleStudy, serverEvents } from './study-helpers';

async function runParticipant(page: Page, pid: string): Promise<void> {
  const study = sampleStudy();
  await page.goto(`/s/sample?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
  for (let i = 0; i < study.items.length; i++) await completeCurrentItem(page, study);
  await expect(page.getByTestId('completion-code')).toBeVisible();
}

test('a researcher sees the funnel and baselines of the sample study and replays a session from its middle', async ({ browser, page, request }) => {
  test.setTimeout(240_000);
  const run = Date.now().toString(36);
  const [a, b] = [`studio-a-${run}`, `studio-b-${run}`];
  for (const pid of [a, b]) {
    const p = await browser.newPage();
    await runParticipant(p, pid);
    await p.close();
  }

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await page.getByRole('link', { name: 'Sample study: grid puzzles and a game' }).click();
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
  await expect(page.getByTestId('heatmap')).toBeVisible();

  await page.getByRole('tab', { name: 'Grid tasks' }).click();
  await expect(page.getByRole('table', { name: 'Grid tasks' })).toContainText('downscale');

  // Replay the first participant's game from the middle of its log.
  await page.getByRole('tab', { name: /Participants/ }).click();
  await table.getByRole('row', { name: new RegExp(a) }).getByRole('link', { name: 'Replay' }).click();
  await page.getByRole('list', { name: 'Items' }).getByRole('button', { name: /^push/ }).click();
  const sessionId = page.url().split('/sessions/')[1];
  const all = await serverEvents(request, sessionId);
  const start = all.findIndex((e) => e.kind === 'item.start' && e.data.item === 'push');
  const end = all.findIndex((e, i) => i > start && e.kind === 'item.start');
  const itemEvents: LogEvent[] = all.slice(start, end < 0 ? undefined : end);
  const middle = Math.floor(itemEvents.length / 2);
  await page.getByTestId('scrubber').fill(String(middle));
  await expect(page.getByTestId('replay-position')).toHaveText(`${middle} / ${itemEvents.length}`);
  const expected = new Timeline(null, itemEvents, gameRunReducer(games.push)).at(middle)!;
  await expect(page.getByTestId('replay-frame')).toHaveAttribute('data-level', String(expected.levelsCompleted));
  // The frame on screen is the one the participant saw after the last action before this point.
  const lastAction = itemEvents.slice(0, middle).filter((e) => e.kind === 'game.action').pop()!;
  expect(hashFrame(renderRun(expected))).toBe(lastAction.data.frameHash);
  await expect(page.getByTestId('replay-frame')).toHaveAttribute('data-frame-hash', String(lastAction.data.frameHash));
  // Step with the keyboard and play at 10x to the end.
  await page.getByRole('button', { name: 'Forward one event' }).click();
  await expect(page.getByTestId('replay-position')).toHaveText(`${middle + 1} / ${itemEvents.length}`);
  await page.getByRole('button', { name: '10x' }).click();
  await page.getByRole('button', { name: 'Play' }).click();
  await expect(page.getByTestId('replay-position')).toHaveText(`${itemEvents.length} / ${itemEvents.length}`, { timeout: 60_000 });
  await expect(page.getByTestId('replay-frame')).toHaveAttribute('data-level', String(games.push.levels.length));
});

test('a designer playtests any level with a state inspector and instant restart; the recording is labelled and never counts', async ({ page, request }) => {
  // Participants cannot make themselves playtests.
  const refused = await request.post('/api/studies/sample/sessions', { data: { params: { mode: 'playtest' } } });
  expect(refused.status()).toBe(403);
  const before = await (await request.get('/api/admin/studies/sample/results', { headers: { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}` } })).json();

  await page.goto(`/login#token=${process.env.E2E_ADMIN_TOKEN}`);
  await expect(page.getByRole('heading', { name: 'Studies' })).toBeVisible();
  await page.goto('/games/push/playtest');
  await page.getByLabel('Record to').selectOption({ label: 'sample · push' });
  await page.getByLabel('Level', { exact: true }).selectOption('2');
  await expect(page.getByTestId('game-level')).toHaveText(`3 / ${games.push.levels.length}`);
  const hash0 = await page.getByTestId('state-hash').textContent();
  for (const a of solutions.push[2].split(',')) await page.keyboard.press({ ACTION1: 'ArrowUp', ACTION2: 'ArrowDown', ACTION3: 'ArrowLeft', ACTION4: 'ArrowRight', ACTION5: 'Space' }[a]!);
  await expect(page.getByTestId('game-level')).toHaveText(`4 / ${games.push.levels.length}`);
  await expect(page.getByTestId('state-hash')).not.toHaveText(hash0!);
  await page.getByRole('button', { name: 'Restart level' }).click();
  await expect(page.getByTestId('game-level')).toHaveText(`3 / ${games.push.levels.length}`);
  await expect(page.getByTestId('state-hash')).toHaveText(hash0!);

  const admin = { Authorization: `Bearer ${process.env.E2E_ADMIN_TOKEN}` };
  await expect.poll(async () => {
    const r = await (await request.get('/api/admin/studies/sample/results', { headers: admin })).json();
    return r.participants.filter((p: { playtest: boolean }) => p.playtest).length;
  }, { timeout: 20_000 }).toBeGreaterThan(before.participants.filter((p: { playtest: boolean }) => p.playtest).length);
  const after = await (await request.get('/api/admin/studies/sample/results', { headers: admin })).json();
  const level3 = (r: typeof after) => r.games[0].levels[2];
  expect(level3(after).completed).toBe(level3(before).completed);
  expect(level3(after).baselines).toEqual(level3(before).baselines);
});
