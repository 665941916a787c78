/**
 * Reference recordings in the studio, in Chromium against the real server with the official games:
 * a participant plays level 1 of vc33 in a study; recordings the official toolkit writes now are
 * imported on the game's figures page, a file with a malformed line first (refused, its line
 * named), then good ones; the group shows per level beside the study's participants, on the
 * game's page and on the study's results, which lead back to the game's page.
 */
import { expect, test } from './studio-test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  OFFICIAL_GAMES,
  VC33,
  VC33_LEVEL1_CLICKS,
  VENDOR,
  clickFrame,
  createStudy,
  giveUpItem,
  joinStudy,
  logIn,
  storedEvents,
  studySessionId,
  type TestServer,
} from './arc3-helpers';
import { expectAccessible } from './axe';

const STUDY = 'reference-beside';
const RECORD = path.resolve('src/core/scoring/fixtures/toolkit_recordings.py');
const SOLVE_1 = VC33_LEVEL1_CLICKS.map(([x, y]) => `ACTION6:${x}:${y}`);
const WASTE = 'ACTION6:10:60';

test.describe('reference recordings beside the participants', () => {
  let server: TestServer;
  let work: string;
  let files: string[];
  test.beforeAll(async ({ officialGames }) => {
    server = officialGames;
    await createStudy(server.base, STUDY, [{ kind: 'game', id: 'clicks', game: VC33 }]);
    work = mkdtempSync(path.join(os.tmpdir(), 'reference-e2e-'));
    const jobs = [
      ['RESET', ...SOLVE_1, WASTE],
      ['RESET', WASTE, WASTE, ...SOLVE_1],
    ].map((actions) => ({
      dir: OFFICIAL_GAMES,
      game: VC33,
      out: work,
      actions,
    }));
    files = JSON.parse(
      execFileSync('python3', [RECORD, VENDOR], { input: JSON.stringify(jobs), encoding: 'utf8' }),
    ) as string[];
  });
  test.afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  test('imported in the studio, a group shows per level beside the study', async ({ page }) => {
    // A participant completes level 1 in 3 clicks.
    await joinStudy(page, server.base, STUDY, 'beside-1');
    const canvas = page.getByTestId('game-canvas');
    await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
    for (const [x, y] of VC33_LEVEL1_CLICKS) await clickFrame(page, x, y);
    await expect(canvas).toHaveAttribute('data-level', '1');
    const sessionId = await studySessionId(page);
    await giveUpItem(page);
    await expect
      .poll(async () => (await storedEvents(server.base, sessionId)).filter((e) => e.kind === 'item.end').length)
      .toBe(1);

    await logIn(page, server.base);
    await page.goto(`${server.base}/games`);
    await page
      .getByTestId('game-baselines-link')
      .and(page.locator(`[href="/games/${VC33}/baselines"]`))
      .click();
    await expect(page.getByRole('heading', { name: `Human figures of ${VC33}` })).toBeVisible();
    const level1 = page.getByRole('region', { name: 'Level 1' });
    // This study's participants (the server's other studies may have played vc33 too).
    const participants = level1.locator(`[data-kind="participants"][data-study="${STUDY}"]`);
    await expect(participants).toHaveCount(1);
    await expect(participants.locator('[data-field="completed"]')).toHaveText('1 (100%)');

    // A malformed line refuses the whole import and is named.
    const lines = readFileSync(files[1], 'utf8').split('\n');
    lines[1] = lines[1].slice(0, 80);
    const bad = path.join(work, 'cut.recording.jsonl');
    writeFileSync(bad, lines.join('\n'));
    await page.getByLabel('Group name').fill('official humans');
    await page.getByLabel('Recordings').setInputFiles([files[0], bad]);
    await page.getByRole('button', { name: 'Import' }).click();
    await expect(page.getByTestId('import-refused')).toContainText('cut.recording.jsonl line 2: not JSON');
    await expect(page.getByTestId('reference-group')).toHaveCount(0);

    await page.getByLabel('Recordings').setInputFiles(files);
    await page.getByRole('button', { name: 'Import' }).click();
    await expect(page.getByRole('status')).toContainText('Imported "official humans": 2 recordings.');
    await expect(page.getByTestId('reference-group')).toHaveAttribute('data-group', 'official humans');
    // Level 1 took 3 and 5 actions in the two recordings (median 4), beside the participant's 3.
    const reference = level1.locator('[data-kind="reference"]');
    await expect(reference).toHaveAttribute('data-source', 'official humans');
    await expect(reference.locator('[data-field="completed"]')).toHaveText('2 (100%)');
    await expect(reference.locator('[data-field="actions"]')).toHaveText('4');
    await expect(participants.locator('[data-field="actions"]')).toHaveText('3');
    // Level 2 was reached by both recordings (a waste, then nothing) and completed by neither.
    await expect(
      page.getByRole('region', { name: 'Level 2' }).locator('[data-kind="reference"] [data-field="completed"]'),
    ).toHaveText('0 (0%)');
    await expectAccessible(page, "a game's human figures with a reference group");

    // The study's results show the group beside its own players, and lead back to the game's page.
    await page.goto(`${server.base}/studies/${STUDY}`);
    await page.getByRole('tab', { name: 'Game levels' }).click();
    const beside = page.getByTestId('reference-beside');
    const row = (level: number, kind: string) =>
      beside.locator(`[data-testid="reference-beside-row"][data-level="${level}"][data-kind="${kind}"]`);
    await expect(row(1, 'reference')).toHaveAttribute('data-source', 'official humans');
    await expect(row(1, 'reference').locator('[data-field="completed"]')).toHaveText('2 (100%)');
    await expect(row(1, 'reference').locator('[data-field="actions"]')).toHaveText('4');
    await expect(row(1, 'participants').locator('[data-field="actions"]')).toHaveText('3');
    await expect(row(2, 'reference').locator('[data-field="completed"]')).toHaveText('0 (0%)');
    await expectAccessible(page, "a study's game levels beside a reference group");
    await beside.getByTestId('reference-game-link').click();
    await expect(page.getByRole('heading', { name: `Human figures of ${VC33}` })).toBeVisible();
    await expect(page.getByTestId('reference-group')).toHaveAttribute('data-group', 'official humans');
  });
});
