/**
 * The researcher's side of ARC-AGI-3 games the server runs on the official engine, in Chromium
 * against the real server: after a participant plays level 1 of ls20 (keys) and vc33 (clicks),
 * the results page shows the runs (funnel, per-level table, baselines, the click heatmap over the
 * level's first frame), the replay steps through the stored frames and verifies them with the
 * engine, and the official recordings export scores the same with the official toolkit's
 * scorecard as with `arc-studio score`.
 */
import { expect, test, type Page } from './studio-test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeFrames } from '../src/core/formats/frames';
import { hashGrid } from '../src/core/game/serverGame';
import { PALETTE } from '../src/core/game/types';
import { eventsByItem } from '../src/core/study/rules';
import {
  ADMIN,
  LS20,
  LS20_LEVEL1_KEYS,
  OFFICIAL_GAMES,
  PYTHONPATH,
  VC33,
  VC33_LEVEL1_CLICKS,
  VENDOR,
  canvasCells,
  clickFrame,
  createStudy,
  giveUpItem,
  joinStudy,
  logIn,
  storedEvents,
  studySessionId,
  type StoredEventRow,
  type TestServer,
} from './arc3-helpers';
import { picture } from './helpers';
import { arcStudioArgs } from '../src/server/testing/command';

const STUDY = 'research';
const OFFICIAL_SCORE = path.resolve('src/core/scoring/fixtures/official_score.py');
const RGB = PALETTE.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number]);

/** The palette index of each cell's colour; -1 for a colour not in the palette. */
function paletteGrid(cells: [number, number, number][][]): number[][] {
  return cells.map((row) => row.map(([r, g, b]) => RGB.findIndex((c) => c[0] === r && c[1] === g && c[2] === b)));
}

/** The participant's part: level 1 of ls20 with keys, then of vc33 with clicks; returns the session id. */
async function playBothGames(page: Page, server: TestServer): Promise<string> {
  await joinStudy(page, server.base, STUDY, 'researcher-view-1');
  const canvas = page.getByTestId('game-canvas');
  await expect(page.getByRole('heading', { name: 'LS20' })).toBeVisible();
  await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
  for (const key of LS20_LEVEL1_KEYS) await page.keyboard.press(key);
  await expect(canvas).toHaveAttribute('data-level', '1');
  await expect(page.getByTestId('game-actions')).toHaveText(String(LS20_LEVEL1_KEYS.length));
  await giveUpItem(page);
  await expect(page.getByRole('heading', { name: 'VC33' })).toBeVisible();
  await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
  for (const [x, y] of VC33_LEVEL1_CLICKS) await clickFrame(page, x, y);
  await expect(canvas).toHaveAttribute('data-level', '1');
  const sessionId = await studySessionId(page);
  await giveUpItem(page);
  await expect
    .poll(async () => (await storedEvents(server.base, sessionId)).filter((e) => e.kind === 'item.end').length)
    .toBe(2);
  return sessionId;
}

/** The data of a line of an official recording, as far as this test reads it. */
interface RecordingData {
  game_id: string;
  state: string;
  levels_completed: number;
  full_reset: boolean;
  frame: number[][][];
  action_input: { id: string; data: Record<string, number> };
}
/** Official scorecard figures as official_score.py prints them (scores in percent). */
interface OfficialCard {
  score: number;
  environments: {
    id: string;
    score: number;
    runs: {
      score: number;
      levels_completed: number;
      actions: number;
      level_actions: number[];
      level_scores: number[];
    }[];
  }[];
}
/** `arc-studio score --json`'s result (scores as fractions). */
interface StudioScore {
  result: {
    total: number;
    games: {
      game: string;
      score: number;
      runs: { score: number; levels: { completed: boolean; agentActions?: number | null; score?: number | null }[] }[];
    }[];
  };
}

function officialScore(mode: 'replay' | 'lines', metadata: string, files: string[]): OfficialCard {
  return JSON.parse(
    execFileSync('python3', [OFFICIAL_SCORE, VENDOR, mode, metadata, ...files], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 180_000,
    }),
  ) as OfficialCard;
}

/** ARC Studio's figures against the official scorecard's: total, per game, per run and per level. */
function expectSameScore(ours: StudioScore['result'], official: OfficialCard): void {
  expect(ours.total).toBeCloseTo(official.score / 100, 12);
  expect(ours.games.map((g) => g.game)).toEqual(official.environments.map((e) => e.id));
  ours.games.forEach((g, i) => {
    const env = official.environments[i];
    expect(g.score).toBeCloseTo(env.score / 100, 12);
    expect(g.runs).toHaveLength(env.runs.length);
    g.runs.forEach((run, j) => {
      const o = env.runs[j];
      expect(run.score).toBeCloseTo(o.score / 100, 12);
      expect(run.levels.filter((l) => l.completed).length).toBe(o.levels_completed);
      const m = o.level_scores.length;
      expect(run.levels.slice(0, m).map((l) => (l.score ?? 0) * 100)).toEqual(
        o.level_scores.map((x) => expect.closeTo(x, 9)),
      );
      expect(run.levels.slice(0, o.levels_completed).map((l) => l.agentActions)).toEqual(
        o.level_actions.slice(0, o.levels_completed),
      );
    });
  });
}

test.describe('the researcher reads ARC-AGI-3 runs of the official engine', () => {
  let server: TestServer;
  let work: string;
  test.beforeAll(async ({ officialGames }) => {
    server = officialGames;
    await createStudy(server.base, STUDY, [
      { kind: 'game', id: 'keys', game: LS20 },
      { kind: 'game', id: 'clicks', game: VC33 },
    ]);
    work = mkdtempSync(path.join(os.tmpdir(), 'arc3-research-'));
  });
  test.afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  test('results with heatmap, a replay of the stored frames verified by the engine, and recordings the official scorecard scores as ARC Studio does', async ({
    page,
  }) => {
    // Four scoring processes (the CLI and the official toolkit in Python) take minutes on a busy machine.
    test.setTimeout(600_000);
    const sessionId = await playBothGames(page, server);
    const events = await storedEvents(server.base, sessionId);

    // 1. The results page: the runs, per level, with baselines and the click heatmap.
    await logIn(page, server.base);
    await page.goto(`${server.base}/studies/${STUDY}`);
    await expect(page.getByRole('tab', { name: 'Participants (1)' })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Participants' })).toContainText('researcher-view-1');
    await page.getByRole('tab', { name: 'Game levels' }).click();
    for (const [item, title, actions] of [
      ['keys', 'LS20', 13],
      ['clicks', 'VC33', 3],
    ] as const) {
      const section = page.getByRole('region', { name: `Game ${item}` });
      // Each row names the code its runs were opened on: <game id>@<code hash>.
      await expect(section.getByRole('heading', { level: 2 })).toHaveText(
        new RegExp(`^${title} ${item === 'keys' ? LS20 : VC33}@[0-9a-f]{12} · item ${item} · 1 first-time players`),
      );
      await expect(section.getByTestId('funnel').locator('.recharts-bar-rectangle').first()).toBeVisible();
      const table = section.getByRole('table', { name: `Human baselines, ${title}` });
      const row1 = table.getByRole('row').nth(1);
      // Level, reached, completed, then the second-best, upper-median, best and median baselines.
      await expect(row1.getByRole('cell')).toHaveText([
        'Level 1',
        '1',
        '1',
        '– (n=1)',
        `${actions} (n=1)`,
        `${actions} (n=1)`,
        `${actions} (n=1)`,
      ]);
      await expect(table.getByRole('row')).toHaveCount(1 + 7);
      await expect(table.getByRole('row').nth(2).getByRole('cell').nth(1)).toHaveText('1');
      await expect(table.getByRole('row').nth(2).getByRole('cell').nth(2)).toHaveText('0');
      await expect(section.getByTestId('baseline-best-1')).toHaveText(`${actions} (n=1)`);
      await expect(section.getByTestId('baseline-second-best-1')).toHaveText('– (n=1)');
      await expect(section.getByText('Level 1: actions (first run)').locator('..')).toContainText(
        `n=1 · median ${actions} actions`,
      );
    }
    // LS20 offers the keys only (as the engine reports its actions): no empty click heatmap for it.
    await expect(page.getByRole('region', { name: 'Game keys' }).getByTestId('no-clicks')).toHaveText(
      /^LS20 has no clicks: its players use the keys only/,
    );
    await expect(page.getByRole('region', { name: 'Game keys' }).getByTestId('heatmap')).toHaveCount(0);
    // The heatmap of vc33 level 1: 3 clicks on (60, 32), over the level's first frame (dimmed).
    const clicks = page.getByRole('region', { name: 'Game clicks' });
    const heatmap = clicks.getByTestId('heatmap');
    await expect(heatmap).toHaveAttribute('data-clicks', '3');
    await expect(clicks.getByText('No stored run reached this level')).toHaveCount(0);
    const frameRes = await fetch(`${server.base}/api/admin/studies/${STUDY}/games/${VC33}/levels/0/frame`, {
      headers: ADMIN,
    });
    expect(frameRes.status).toBe(200);
    const [first] = decodeFrames(((await frameRes.json()) as { frames: string }).frames);
    const vc33Steps = events.filter((e) => e.kind === 'game.action' && e.data.game === VC33);
    expect(hashGrid(first)).toBe(vc33Steps[0].data.frameHash);
    // Drawn once the frame has come (a canvas not drawn on yet has no width set in its style).
    await expect.poll(() => heatmap.evaluate((c: HTMLCanvasElement) => c.style.width)).toBe('320px');
    const heat = await canvasCells(heatmap);
    const differ: string[] = [];
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 64; x++) {
        if (Math.hypot(x - 60, y - 32) < 3) continue;
        const dim = RGB[first[y][x]].map((c, k) => c * 0.55 + [2, 6, 23][k] * 0.45);
        if (heat[y][x].some((c, k) => Math.abs(c - dim[k]) > 2)) differ.push(`(${x}, ${y})`);
      }
    }
    expect(differ, 'heatmap cells that are not the dimmed first frame').toEqual([]);
    // The clicked cell is drawn in the heat colour, not the frame's.
    expect(heat[32][60][0]).toBeGreaterThan(200);
    // The whole Game levels tab (the page scrolls inside its own pane), then the heatmap alone.
    await page.setViewportSize({ width: 1280, height: 2300 });
    await picture(page, 'arc3-research-results');
    await picture(heatmap, 'arc3-research-heatmap');
    await page.setViewportSize({ width: 1280, height: 800 });

    // 2. The replay: step through the ls20 run; each step shows the stored frame the log names.
    await page.goto(`${server.base}/studies/${STUDY}/sessions/${sessionId}`);
    await expect(page.getByRole('list', { name: 'Items' }).getByRole('button')).toHaveCount(2);
    const keys = eventsByItem(events as never).get('keys') as unknown as StoredEventRow[];
    await expect(page.getByTestId('replay-position')).toHaveText(`${keys.length} / ${keys.length}`);
    await page.getByTestId('scrubber').fill('0');
    await expect(page.getByTestId('replay-view')).toContainText('The game is not open yet at this point.');
    const frame = page.getByTestId('replay-frame');
    let checked = 0;
    for (let pos = 1; pos <= keys.length; pos++) {
      await page.getByRole('button', { name: 'Forward one event' }).click();
      await expect(page.getByTestId('replay-position')).toHaveText(`${pos} / ${keys.length}`);
      const e = keys[pos - 1];
      if (e.kind !== 'game.action') continue;
      await expect(frame).toHaveAttribute('data-step', String(e.data.step));
      await expect(frame).toHaveAttribute('data-frame-hash', String(e.data.frameHash));
      await expect(frame).toHaveAttribute('data-level', String(e.data.level));
      await expect(page.getByTestId('replay-event')).toHaveText(
        `${String(e.data.action)} → level ${Number(e.data.level) + 1}, ${String(e.data.state)}`,
      );
      // What the canvas draws is that frame, cell for cell.
      expect(hashGrid(paletteGrid(await canvasCells(frame))), `the frame drawn at step ${String(e.data.step)}`).toBe(
        e.data.frameHash,
      );
      checked++;
    }
    expect(checked).toBe(LS20_LEVEL1_KEYS.length + 1);
    await expect(frame).toHaveAttribute('data-level', '1');
    await page.getByRole('button', { name: 'Verify with the engine' }).click();
    const report = page.getByTestId('verify-report');
    await expect(report).toHaveAttribute('data-ok', 'true', { timeout: 60_000 });
    await expect(report).toContainText(
      new RegExp(`keys ${LS20}@[0-9a-f]{12} run \\S+ \\(seed \\d+, 14 steps\\): every step matches`),
    );
    await expect(report).toContainText(
      new RegExp(`clicks ${VC33}@[0-9a-f]{12} run \\S+ \\(seed \\d+, 4 steps\\): every step matches`),
    );
    await expect(page.getByTestId('verify-runs')).toContainText('Every stored step matches the engine.');
    // The frame fits the view above the controls.
    const view = (await page.getByTestId('replay-view').boundingBox())!;
    const drawnBox = (await frame.boundingBox())!;
    expect(drawnBox.y).toBeGreaterThanOrEqual(view.y);
    expect(drawnBox.y + drawnBox.height).toBeLessThanOrEqual(view.y + view.height);
    await picture(page, 'arc3-research-replay');

    // 3. The official recordings, downloaded from the results page.
    await page.goto(`${server.base}/studies/${STUDY}`);
    await page.getByRole('tab', { name: 'Exports' }).click();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download ARC-AGI-3 recordings (ZIP)' }).click();
    const zip = path.join(work, 'recordings.zip');
    await (await download).saveAs(zip);
    const dir = path.join(work, 'recordings');
    execFileSync('unzip', ['-q', zip, '-d', dir]);
    const files = readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.recording.jsonl'))
      .sort();
    expect(files.map((f) => path.basename(f))).toEqual([
      `${sessionId}-clicks-1.recording.jsonl`,
      `${sessionId}-keys-1.recording.jsonl`,
    ]);
    const paths = files.map((f) => path.join(dir, f));
    // Each file: the run's RESET and every action, line for line the steps the log holds.
    for (const [file, game] of [
      [paths[1], LS20],
      [paths[0], VC33],
    ] as const) {
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { data: RecordingData }).data);
      const logged = events.filter((e) => e.kind === 'game.action' && e.data.game === game);
      expect(
        lines.map((d) => ({
          game: d.game_id,
          action: d.action_input.id,
          xy: d.action_input.data,
          state: d.state,
          level: d.levels_completed,
          frameHash: hashGrid(d.frame[d.frame.length - 1]),
        })),
      ).toEqual(
        logged.map((e) => ({
          game,
          action: e.data.action,
          xy: e.data.action === 'ACTION6' ? { x: e.data.x, y: e.data.y } : {},
          state: e.data.state,
          level: e.data.level,
          frameHash: e.data.frameHash,
        })),
      );
      expect(lines.map((d) => d.full_reset)).toEqual(lines.map((_, i) => i === 0));
    }
    const metadata = path.join(work, 'metadata.json');
    writeFileSync(
      metadata,
      JSON.stringify(
        [LS20, VC33].map((g) => {
          const [name, version] = g.split('-');
          return JSON.parse(readFileSync(path.join(OFFICIAL_GAMES, name, version, 'metadata.json'), 'utf8')) as unknown;
        }),
      ),
    );
    const studio = JSON.parse(
      execFileSync(
        process.execPath,
        arcStudioArgs(['score', ...paths, '--baselines', metadata, '--preset', 'toolkit-2026-04', '--json']),
        { encoding: 'utf8', timeout: 180_000 },
      ),
    ) as StudioScore;
    // The official scorecard, fed the recorded lines as the toolkit's wrapper does, and playing the actions again on the engine.
    const byLines = officialScore('lines', metadata, paths);
    const byReplay = officialScore('replay', metadata, paths);
    expect(byLines).toEqual(byReplay);
    expect(byLines.environments.map((e) => e.runs.map((r) => r.levels_completed))).toEqual([[1], [1]]);
    expectSameScore(studio.result, byLines);
    // The figures themselves: level 1 beaten in fewer actions than the baseline scores 100% of it.
    expect(byLines.environments.map((e) => e.runs[0].level_actions[0])).toEqual([3, 13]);

    // 4. The study's baselines file holds the arcengine games too, and scores those recordings.
    const ticket = await fetch(`${server.base}/api/admin/studies/${STUDY}/exports`, {
      method: 'POST',
      headers: { ...ADMIN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ format: 'baselines-json' }),
    });
    expect(ticket.status).toBe(201);
    const baselinesText = await (await fetch(`${server.base}${((await ticket.json()) as { url: string }).url}`)).text();
    const baselines = JSON.parse(baselinesText) as {
      games: Record<
        string,
        { participants: number; version?: string; levels: { level: number; completers: number; actions?: number[] }[] }
      >;
    };
    for (const [game, actions] of [
      ['ls20', 13],
      ['vc33', 3],
    ] as const) {
      // The figures name the code the runs were opened on.
      const g = Object.values(baselines.games).find((x) => x.version?.startsWith(`${game === 'ls20' ? LS20 : VC33}@`));
      expect(g, game).toMatchObject({ participants: 1 });
      expect(g!.levels[0]).toMatchObject({ level: 1, completers: 1, actions: [actions] });
    }
    const file = path.join(work, 'baselines.json');
    writeFileSync(file, baselinesText);
    const own = JSON.parse(
      execFileSync(
        process.execPath,
        arcStudioArgs(['score', ...paths, '--baselines', file, '--preset', 'toolkit-2026-04', '--json']),
        { encoding: 'utf8', timeout: 180_000 },
      ),
    ) as StudioScore;
    // Each recording beat level 1 in exactly the human baseline's actions (the same run, one
    // player: the upper median is that player's count): full marks for level 1.
    expect(own.result.games.map((g) => [g.game, g.runs[0].levels[0].agentActions, g.runs[0].levels[0].score])).toEqual([
      [VC33, 3, 1],
      [LS20, 13, 1],
    ]);
  });
});
