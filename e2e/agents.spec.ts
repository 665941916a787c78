/**
 * Agents beside the humans, in Chromium against the real server: a participant plays level 1 of
 * vc33 from a study link; the researcher issues an agent key in the studio; the official toolkit
 * in ONLINE mode, its scorecard tagged `study:<id>`, plays vc33 and the built-in push; its runs
 * appear in the study's results labelled as an agent, scored against the participant's baseline,
 * replay in the session viewer, and leave the human baselines and funnels as they were.
 */
import { expect, test, type Page } from './studio-test';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { versionedGameId } from '../src/core/game';
import { games, solutions } from '../src/games';
import {
  ADMIN,
  PYTHONPATH,
  VC33,
  VC33_LEVEL1_CLICKS,
  clickFrame,
  createStudy,
  giveUpItem,
  joinStudy,
  logIn,
  type TestServer,
} from './arc3-helpers';
import { picture } from './helpers';

const STUDY = 'agents';
const PUSH = versionedGameId(games.push);
const CLIENT = path.resolve('src/server/agents/toolkit_client.py');

/** What the human figures of vc33 show: players, the baseline cells of level 1 and the funnel's bars. */
async function humanFigures(page: Page): Promise<Record<string, string>> {
  const section = page.getByRole('region', { name: 'Game clicks' });
  await expect(section).toBeVisible();
  const out: Record<string, string> = { header: (await section.getByRole('heading').first().innerText()).trim() };
  for (const preset of ['best', 'second-best', 'median', 'upper-median']) {
    out[preset] = (await section.getByTestId(`baseline-${preset}-1`).innerText()).trim();
  }
  const table = section.getByRole('table', { name: /Human baselines/ });
  out.level1 = (await table.getByRole('row').nth(1).innerText()).replace(/\s+/g, ' ').trim();
  return out;
}

test.describe('agents in a study', () => {
  let server: TestServer;
  test.beforeAll(async ({ officialGames }) => {
    server = officialGames;
    await createStudy(server.base, STUDY, [{ kind: 'game', id: 'clicks', game: VC33 }]);
  });

  test('an agent run made by the official toolkit shows in the results as an agent, replays, and leaves the human baselines alone', async ({
    page,
    browser,
  }) => {
    // A participant completes level 1 of vc33 in three clicks.
    const participant = await browser.newPage();
    await joinStudy(participant, server.base, STUDY, 'human-1');
    const canvas = participant.getByTestId('game-canvas');
    await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
    for (const [x, y] of VC33_LEVEL1_CLICKS) await clickFrame(participant, x, y);
    await expect(canvas).toHaveAttribute('data-level', '1');
    await giveUpItem(participant);
    // The participant's log has reached the server once the results count their completion.
    await expect
      .poll(async () => {
        const r = (await (
          await fetch(`${server.base}/api/admin/studies/${STUDY}/results`, { headers: ADMIN })
        ).json()) as { games: { levels: { completed: number }[] }[] };
        return r.games[0]?.levels[0]?.completed ?? 0;
      })
      .toBe(1);
    await participant.close();

    // The researcher sees the human baseline, then issues a key in the studio.
    await logIn(page, server.base);
    await page.goto(`${server.base}/studies/${STUDY}`);
    await page.getByRole('tab', { name: 'Game levels' }).click();
    await expect(
      page.getByRole('region', { name: 'Game clicks' }).getByTestId('baseline-upper-median-1'),
    ).toContainText('3');
    const before = await humanFigures(page);
    expect(before.header).toContain('1 first-time players');
    expect(before['upper-median']).toMatch(/^3 \(n=1\)$/);

    await page.getByRole('tab', { name: /Agents/ }).click();
    await expect(page.getByText('No agent has played this study yet.')).toBeVisible();
    await page.getByLabel('Agent name').fill('toolkit random agent');
    await page.getByRole('button', { name: 'Issue key' }).click();
    const key = (await page.getByTestId('issued-key-value').innerText()).trim();
    expect(key).toMatch(/^arcs_/);
    await expect(page.getByRole('list', { name: 'Agent key list' })).toContainText('toolkit random agent');

    // The official toolkit, ONLINE mode, with the study's tag on its scorecard.
    const recordings = mkdtempSync(path.join(os.tmpdir(), 'agents-e2e-'));
    try {
      const { stdout } = await promisify(execFile)(
        'python3',
        [CLIENT, server.base, key, PUSH, solutions.push[0], VC33, recordings, `study:${STUDY},e2e`],
        {
          env: { ...process.env, PYTHONPATH },
          timeout: 120_000,
        },
      );
      const out = JSON.parse(stdout.trim().split('\n').pop()!) as { card_id: string; scorecard: { score: number } };
      // The scorecard is scored against the study's baselines: vc33 level 1 in 3 actions against the
      // participant's 3 is (3/3)^2 = 100 on that level (against the official metadata's baseline it
      // would be 115, the cap); push is not in the study, nor in a baselines file: it scores 0.
      const card = (await (
        await fetch(`${server.base}/api/scorecard/${out.card_id}`, { headers: { 'X-API-Key': key } })
      ).json()) as {
        preset: string;
        environments: {
          id: string;
          score: number;
          baselines: string | null;
          runs: { level_scores: number[]; level_baseline_actions: number[] }[];
        }[];
      };
      const vc = card.environments.find((e) => e.id === VC33)!;
      expect(card.preset).toBe('toolkit-2026-04');
      expect(vc.baselines).toBe(`study:${STUDY}`);
      expect(vc.runs[0].level_baseline_actions[0]).toBe(3);
      expect(vc.runs[0].level_scores[0]).toBeCloseTo(100, 10);
      expect(card.environments.find((e) => e.id === PUSH)!).toMatchObject({ score: 0, baselines: null });
      expect(vc.score).toBeGreaterThan(0);
      const paper = (await (
        await fetch(`${server.base}/api/scorecard/${out.card_id}?preset=paper`, { headers: { 'X-API-Key': key } })
      ).json()) as typeof card;
      // The paper's preset needs two completers (second-best): one participant gives no baseline.
      expect(paper.environments.find((e) => e.id === VC33)!.runs[0].level_baseline_actions[0]).toBe(-1);
      // ... and the scorecard says why instead of leaving silent -1s.
      expect((paper.environments.find((e) => e.id === VC33)!.runs[0] as { message?: string }).message).toMatch(
        new RegExp(`study "${STUDY}" has no human baseline for any of its levels yet`),
      );

      // The runs appear in the results, labelled as an agent with the key's name and the scorecard.
      await page.getByRole('button', { name: 'Refresh' }).click();
      const runs = page.getByTestId('agent-runs');
      await expect(runs.getByRole('row')).toHaveCount(3);
      await expect(runs).toContainText('agent');
      await expect(runs).toContainText('toolkit random agent');
      await expect(runs).toContainText(out.card_id.slice(0, 8));
      await expect(runs).toContainText(PUSH);
      await expect(runs).toContainText(`study:${STUDY}`);
      const vcRow = runs.getByRole('row').filter({ hasText: VC33 });
      await expect(vcRow.getByTestId('agent-score')).toContainText(vc.score.toFixed(1));
      await picture(page, 'agents-tab');

      // Beside the human figures of the same game, which have not changed.
      await page.getByRole('tab', { name: 'Game levels' }).click();
      const beside = page.getByRole('region', { name: 'Game clicks' }).getByTestId(`agent-runs-${VC33}`);
      await expect(beside.getByRole('row')).toHaveCount(2);
      await expect(beside).toContainText('toolkit random agent');
      expect(await humanFigures(page)).toEqual(before);
      await page.getByRole('tab', { name: 'Participants' }).click();
      await expect(page.getByRole('table', { name: 'Participants' }).getByRole('row')).toHaveCount(2);
      await page.getByRole('tab', { name: 'Game levels' }).click();
      await beside.scrollIntoViewIfNeeded();
      await picture(page, 'agents-results', { fullPage: true });

      // The vc33 run replays from the frames the server stored: RESET, three clicks (level 1 won), a full RESET.
      await beside.getByRole('link', { name: 'Replay' }).click();
      await expect(page.getByTestId('agent-replay-info')).toContainText('toolkit random agent');
      await expect(page.getByTestId('agent-replay-info')).toContainText('agent');
      const frame = page.getByTestId('replay-frame');
      await expect(frame).toBeVisible();
      await expect(page.getByTestId('replay-position')).toHaveText('5 / 5');
      await expect(frame).toHaveAttribute('data-level', '0');
      await page.getByRole('button', { name: 'Back one event' }).click();
      await expect(frame).toHaveAttribute('data-level', '1');
      await expect(page.getByTestId('replay-event')).toContainText('ACTION6 at (60, 32) → level 2');
      await picture(page, 'agents-replay-vc33');

      // The built-in game replays on the TS engine from the stored actions (its opening RESET after the game's opening).
      await page.goBack();
      await page.getByRole('tab', { name: /Agents/ }).click();
      await page
        .getByTestId('agent-runs')
        .getByRole('row')
        .filter({ hasText: PUSH })
        .getByRole('link', { name: 'Replay' })
        .click();
      const pushFrame = page.getByTestId('replay-frame');
      const moves = solutions.push[0].split(',').length;
      await expect(page.getByTestId('replay-position')).toHaveText(`${moves + 3} / ${moves + 3}`);
      await page.getByRole('button', { name: 'Back one event' }).click();
      await expect(pushFrame).toHaveAttribute('data-level', '1');
    } finally {
      rmSync(recordings, { recursive: true, force: true });
    }
  });
});
