/**
 * ARC-AGI-3 games on the official engine, in Chromium against the real server: a participant
 * plays ls20 (keys) and vc33 (clicks) from a study link, the researcher reads the runs back; a
 * designer's hot reload; a worker killed mid-run; a server without Python.
 */
import { expect, test, type Page } from './studio-test';
import { seriousViolations } from './axe';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hashGrid } from '../src/core/game/serverGame';
import { PALETTE } from '../src/core/game/types';
import { ownPort, setWindowSize, picture } from './helpers';
import {
  ADMIN,
  LS20,
  OFFICIAL_GAMES,
  PYTHONPATH,
  TG01,
  VC33,
  clickFrame,
  createStudy,
  fixtureCopy,
  frameColour,
  giveUpItem,
  joinStudy,
  logIn,
  LS20_LEVEL1_KEYS,
  rgb,
  startServer,
  type TestServer,
  VC33_LEVEL1_CLICKS,
} from './arc3-helpers';

// The tests share nothing but the worker's server: the workers split them (`playwright.config.ts`).
test.describe.configure({ mode: 'parallel' });

async function stored(base: string, sessionId: string) {
  const res = await fetch(`${base}/api/admin/sessions/${sessionId}/events`, { headers: ADMIN });
  return ((await res.json()) as { events: { seq: number; kind: string; data: Record<string, unknown> }[] }).events;
}

async function sessionIdOf(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open('arc-studio');
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const all = await new Promise<{ id: string; studyId?: string }[]>((res, rej) => {
      const r = db.transaction('sessions').objectStore('sessions').getAll();
      r.onsuccess = () => res(r.result as never);
      r.onerror = () => rej(r.error);
    });
    return all.filter((s) => s.studyId)[0].id;
  });
}

test.describe('official ARC-AGI-3 games', () => {
  // Its tests share the study made below: they run together, in one worker.
  test.describe.configure({ mode: 'default' });
  let server: TestServer;
  test.beforeAll(async ({ officialGames }) => {
    server = officialGames;
    await createStudy(server.base, 'official', [
      { kind: 'game', id: 'keys', game: LS20 },
      { kind: 'game', id: 'clicks', game: VC33 },
    ]);
  });
  test('a participant plays level 1 of ls20 with keys and of vc33 with clicks; every step is logged and verified', async ({
    page,
  }) => {
    expect(server.output()).toMatch(/ARC-AGI-3 games: .* with arcengine 0\.9\.3 on Python 3/);
    await joinStudy(page, server.base, 'official');
    const canvas = page.getByTestId('game-canvas');
    await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
    await expect(page.getByRole('heading', { name: 'LS20' })).toBeVisible();
    for (const key of LS20_LEVEL1_KEYS) await page.keyboard.press(key);
    await expect(canvas).toHaveAttribute('data-level', '1');
    await expect(page.getByTestId('game-level')).toHaveText('2 / 7');
    await expect(page.getByTestId('game-actions')).toHaveText(String(LS20_LEVEL1_KEYS.length));
    // A key the game does not offer (ls20 has no ACTION5) is not sent, and logged as refused.
    await page.keyboard.press('f');
    await picture(page, 'arc3-ls20');
    await giveUpItem(page);

    await expect(page.getByRole('heading', { name: 'VC33' })).toBeVisible();
    await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
    for (const [x, y] of VC33_LEVEL1_CLICKS) await clickFrame(page, x, y);
    await expect(canvas).toHaveAttribute('data-level', '1');
    await picture(page, 'arc3-vc33');
    const sessionId = await sessionIdOf(page);
    await giveUpItem(page);

    // Every step the engine answered is in the log on the server, in order, with its signature.
    await expect
      .poll(async () => (await stored(server.base, sessionId)).filter((e) => e.kind === 'item.end').length)
      .toBe(2);
    const events = await stored(server.base, sessionId);
    const ls20 = events.filter((e) => e.kind === 'game.action' && e.data.game === LS20);
    expect(ls20.map((e) => e.data.step)).toEqual(ls20.map((_, i) => i));
    expect(ls20.map((e) => e.data.action)).toEqual([
      'RESET',
      'ACTION3',
      'ACTION3',
      'ACTION3',
      'ACTION1',
      'ACTION1',
      'ACTION1',
      'ACTION1',
      'ACTION4',
      'ACTION4',
      'ACTION4',
      'ACTION1',
      'ACTION1',
      'ACTION1',
    ]);
    expect(ls20[ls20.length - 1].data.level).toBe(1);
    expect(events.some((e) => e.kind === 'game.refused' && e.data.game === LS20 && e.data.action === 'ACTION5')).toBe(
      true,
    );
    const vc33 = events.filter((e) => e.kind === 'game.action' && e.data.game === VC33);
    expect(vc33.slice(1).map((e) => [e.data.x, e.data.y])).toEqual(VC33_LEVEL1_CLICKS);
    expect(events.find((e) => e.kind === 'game.open' && e.data.game === LS20)?.data).toMatchObject({
      source: 'arcengine',
      engine: 'arcengine 0.9.3',
    });

    // The researcher's results count the verified runs: level 1 of each, with its actions and clicks.
    const results = (await (
      await fetch(`${server.base}/api/admin/studies/official/results`, { headers: ADMIN })
    ).json()) as {
      games: {
        game: string;
        participants: number;
        unverified: number;
        levels: {
          level: number;
          completed: number;
          actions: { median: number | null };
          clicks: [number, number, number][];
        }[];
      }[];
    };
    const byGame = Object.fromEntries(results.games.map((g) => [g.game, g]));
    expect(byGame[LS20]).toMatchObject({ participants: 1, unverified: 0 });
    expect(byGame[LS20].levels[0]).toMatchObject({ level: 1, completed: 1, actions: { median: 13 } });
    expect(byGame[VC33].levels[0]).toMatchObject({ completed: 1, actions: { median: 3 }, clicks: [[60, 32, 3]] });
  });

  test("the study editor's game picker lists the ARC-AGI-3 games beside the built-in ones, with opening frames, levels, sources and tags", async ({
    page,
  }) => {
    await logIn(page, server.base);
    await page.goto(`${server.base}/studies/new`);
    await page.getByRole('button', { name: 'Add game' }).click();
    await page.getByRole('button', { name: /^Game .* Change$/ }).click();
    const picker = page.getByTestId('game-picker');
    const cards = picker.getByRole('list', { name: 'Games' }).getByRole('button');
    await expect(picker.getByTestId('game-picker-count')).toHaveText(/^\d+ of \d+ games$/);
    // Narrowed to the arcengine folder's games: each with its levels and tags, and the frame it opens on.
    await picker.getByRole('combobox', { name: 'Source' }).selectOption({ label: 'arcengine folder' });
    await expect(cards).toHaveText([
      /^FT09ft09-0d8bbf25\d+ levels · arcengine folder/,
      /^LS20ls20-9607627b7 levels · arcengine folder.*keyboard/,
      /^VC33vc33-5430563c\d+ levels · arcengine folder/,
    ]);
    // A drawn frame: the canvas takes the 64x64 frame's size (2 CSS pixels a cell).
    for (const k of [0, 1, 2])
      await expect
        .poll(() =>
          cards
            .nth(k)
            .locator('canvas')
            .evaluate((c) => (c as HTMLCanvasElement).style.width),
        )
        .toBe('128px');
    // Searched by tag.
    await picker.getByRole('combobox', { name: 'Source' }).selectOption({ label: 'All sources' });
    await picker.getByLabel('Search games by id, title or tag').fill('keyboard');
    await expect(cards).toHaveText([/^LS20/]);
    await cards.first().click();
    const chosen = picker.getByTestId('game-picker-chosen');
    await expect(chosen).toHaveAttribute('data-game', LS20);
    await expect(chosen).toContainText('arcengine folder (arcengine 0.9.3)');
    await picker.getByLabel('Search games by id, title or tag').fill('');
    for (const width of [1280, 768, 390]) {
      await setWindowSize(page, { width, height: width === 390 ? 844 : 800 });
      await picture(page, `game-picker-${width}`);
      expect(await seriousViolations(page)).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await picker.getByRole('button', { name: 'Use this game' }).click();
    await expect(page.getByRole('button', { name: `Game LS20 (${LS20}) · 7 levels Change` })).toBeVisible();
  });
});

test('the worker killed mid-run: the participant sees a short message and goes on from the same state, nothing lost', async ({
  page,
  officialGames: server,
}) => {
  await createStudy(server.base, 'faults', [{ kind: 'game', id: 'keys', game: LS20 }]);
  await joinStudy(page, server.base, 'faults');
  const canvas = page.getByTestId('game-canvas');
  await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
  for (const key of LS20_LEVEL1_KEYS.slice(0, 6)) await page.keyboard.press(key);
  await expect(page.getByTestId('game-actions')).toHaveText('6');
  const before = await canvas.getAttribute('data-frame-hash');
  // Kill every Python worker of this server.
  const workers = execFileSync('pgrep', ['-P', String(server.child.pid), '-f', 'worker.py'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean);
  expect(workers.length).toBeGreaterThan(0);
  for (const pid of workers) process.kill(Number(pid), 'SIGKILL');
  for (const key of LS20_LEVEL1_KEYS.slice(6)) await page.keyboard.press(key);
  await expect(canvas).toHaveAttribute('data-level', '1');
  await expect(page.getByTestId('game-actions')).toHaveText(String(LS20_LEVEL1_KEYS.length));
  expect(before).not.toBeNull();
  const sessionId = await sessionIdOf(page);
  await expect
    .poll(async () => (await stored(server.base, sessionId)).filter((e) => e.kind === 'game.action').length)
    .toBe(LS20_LEVEL1_KEYS.length + 1);
  const steps = (await stored(server.base, sessionId)).filter((e) => e.kind === 'game.action').map((e) => e.data.step);
  expect(steps).toEqual(steps.map((_, i) => i));
});

test('without Python the server says what is missing at start, and the built-in games play as usual', async ({
  page,
}) => {
  const server = await startServer(['--arc3-games', OFFICIAL_GAMES], { ARC_STUDIO_PYTHON: '/nonexistent/python3' });
  try {
    expect(server.output()).toMatch(
      /ARC-AGI-3 games in .* are not available: .*python3.*The built-in games work as usual/s,
    );
    await page.goto(`${server.base}/games/push`);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('game-actions')).toHaveText('1');
  } finally {
    await server.stop();
  }
});

/** The official toolkit in process: the frames, state and levels of every step for these actions. */
const TOOLKIT_STEPS = String.raw`
import json, logging, sys
logging.disable(logging.CRITICAL)
from arc_agi import Arcade, OperationMode
from arcengine import GameAction
env = Arcade(operation_mode=OperationMode.OFFLINE, environments_dir=sys.argv[1]).make(sys.argv[2])
out = []
def add(fd):
    out.append({"last": [r.tolist() if hasattr(r, "tolist") else r for r in fd.frame[-1]], "state": fd.state.name, "levels": fd.levels_completed})
add(env.observation_space)
for a in json.loads(sys.argv[3]):
    add(env.step(GameAction[a["action"]], data={"x": a["x"], "y": a["y"]} if "x" in a else None))
print(json.dumps(out))
`;

test("a remote ARC-AGI-3 server (the official toolkit's, on loopback) plays end to end with the same log as the official engine", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const port = ownPort(5);
  const toolkit = spawn(
    'python3',
    [
      '-c',
      'import logging,sys; logging.disable(logging.CRITICAL)\nfrom arc_agi import Arcade, OperationMode\nArcade(operation_mode=OperationMode.OFFLINE, environments_dir=sys.argv[1]).listen_and_serve(host="127.0.0.1", port=int(sys.argv[2]))',
      OFFICIAL_GAMES,
      String(port),
    ],
    {
      env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: 'ignore',
      cwd: mkdtempSync(path.join(os.tmpdir(), 'toolkit-')),
    },
  );
  let server: TestServer | null = null;
  try {
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${port}/api/games`).catch(() => null))?.status ?? 0, {
        // Python loading the toolkit is seconds of CPU: minutes on a busy machine.
        timeout: 180_000,
      })
      .toBe(200);
    server = await startServer(['--arc3-server', `http://127.0.0.1:${port}`]);
    expect(server.output()).toMatch(/ARC-AGI-3 games of the server at http:\/\/127\.0\.0\.1/);
    await createStudy(server.base, 'remote', [{ kind: 'game', id: 'clicks', game: VC33 }]);
    await joinStudy(page, server.base, 'remote');
    const canvas = page.getByTestId('game-canvas');
    await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
    for (const [x, y] of VC33_LEVEL1_CLICKS) await clickFrame(page, x, y);
    await expect(canvas).toHaveAttribute('data-level', '1');
    const sessionId = await sessionIdOf(page);
    await expect
      .poll(async () => (await stored(server!.base, sessionId)).filter((e) => e.kind === 'game.action').length)
      .toBe(VC33_LEVEL1_CLICKS.length + 1);
    const events = await stored(server.base, sessionId);
    expect(events.find((e) => e.kind === 'game.open')?.data).toMatchObject({ game: VC33, source: 'remote' });
    const logged = events.filter((e) => e.kind === 'game.action');
    // Step by step, what the browser logged is what the official engine answers for the same actions.
    const actions = VC33_LEVEL1_CLICKS.map(([x, y]) => ({ action: 'ACTION6', x, y }));
    const reference = JSON.parse(
      execFileSync('python3', ['-c', TOOLKIT_STEPS, OFFICIAL_GAMES, VC33, JSON.stringify(actions)], {
        encoding: 'utf8',
        env: { ...process.env, PYTHONPATH, PYTHONDONTWRITEBYTECODE: '1' },
        maxBuffer: 64 << 20,
      }),
    ) as { last: number[][]; state: string; levels: number }[];
    expect(logged.map((e) => ({ frameHash: e.data.frameHash, state: e.data.state, level: e.data.level }))).toEqual(
      reference.map((r) => ({ frameHash: hashGrid(r.last), state: r.state, level: r.levels })),
    );
    // The API key and the remote address never reach the browser.
    const html = await page.content();
    expect(html).not.toContain(String(port));
  } finally {
    await server?.stop();
    toolkit.kill('SIGKILL');
  }
});

/**
 * A designer's own games folder, one server for both tests: a copy of the fixture game, which the
 * hot reload test changes and puts back, and copies of ls20 (with an unseeded random call in its
 * rendering) and vc33 for the determinism check. A worker that replaces a failed one starts from
 * a fresh copy.
 */
test.describe("a designer's games folder", () => {
  test.describe.configure({ mode: 'default' });
  let games: string;
  let server: TestServer;
  test.beforeAll(async () => {
    games = fixtureCopy();
    cpSync(path.join(OFFICIAL_GAMES, 'ls20'), path.join(games, 'ls20'), { recursive: true });
    cpSync(path.join(OFFICIAL_GAMES, 'vc33'), path.join(games, 'vc33'), { recursive: true });
    const file = path.join(games, 'ls20/9607627b/ls20.py');
    const hook = '    def render_interface(self, frame: np.ndarray) -> np.ndarray:\n';
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(hook, `${hook}        frame[63, 63] = int(np.random.randint(0, 16))\n`),
    );
    server = await startServer(['--arc3-games', games]);
  });
  test.afterAll(async () => {
    await server?.stop();
    rmSync(games, { recursive: true, force: true });
  });

  test("a designer's hot reload: saving the game file changes the rules in the open playtest, and an error shows its traceback", async ({
    page,
  }) => {
    const file = path.join(games, 'tg01', '5e1f0a27', 'tg01.py');
    await logIn(page, server.base);
    await page.goto(`${server.base}/games`);
    await page.getByRole('link', { name: /Gatekeeper/ }).click();
    await expect(page).toHaveURL(new RegExp(`/games/${TG01}/playtest$`));
    const canvas = page.getByTestId('game-canvas');
    await expect(canvas).toHaveAttribute('data-state', 'NOT_FINISHED');
    // The playtest's controls sit above the state inspector: on screen at 1280x800 without scrolling.
    await expect(page.getByTestId('inspector')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Restart level' })).toBeInViewport();
    // The walker starts on cell (1, 1): display pixel (12, 12), colour 9.
    await expect.poll(() => frameColour(page, 12, 12)).toEqual(rgb(PALETTE[9]));
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => frameColour(page, 12, 20)).toEqual(rgb(PALETTE[9]));

    // The designer recolours the walker and saves: the level restarts on the new code, and the
    // version badge names the new code.
    const badge = page.getByTestId('code-version');
    await expect(badge).toHaveText(/^@[0-9a-f]+$/);
    const before = await badge.textContent();
    const source = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      source.replace(
        'FLOOR, WALL, WALKER, EXIT, TRAP, GATE, GATE_FADING, SWITCH = 0, 5, 9,',
        'FLOOR, WALL, WALKER, EXIT, TRAP, GATE, GATE_FADING, SWITCH = 0, 5, 8,',
      ),
    );
    await expect(page.getByTestId('reloaded')).toBeVisible();
    await expect(badge).not.toHaveText(before!);
    await expect(badge).toHaveText(/^@[0-9a-f]+$/);
    await expect.poll(() => frameColour(page, 12, 12)).toEqual(rgb(PALETTE[8]));
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => frameColour(page, 12, 20)).toEqual(rgb(PALETTE[8]));

    // A syntax error: the traceback shows in the page, the server keeps running.
    writeFileSync(file, source.replace('class Tg01(ARCBaseGame):', 'class Tg01(ARCBaseGame)'));
    await expect(page.getByTestId('game-failure')).toBeVisible();
    await expect(page.getByTestId('traceback')).toContainText('SyntaxError');
    // The green "Reloaded" notice is gone: the file on disk is not running.
    await expect(page.getByTestId('reloaded')).toHaveCount(0);
    await picture(page, 'arc3-hot-reload-error');
    writeFileSync(file, source);
    await expect(page.getByTestId('game-failure')).toBeHidden();
    await expect(page.getByTestId('reloaded')).toBeVisible();
    await expect(badge).toHaveText(before!);
    await expect.poll(() => frameColour(page, 12, 12)).toEqual(rgb(PALETTE[9]));
    expect((await fetch(`${server.base}/api/health`)).status).toBe(200);
  });

  test("a designer plays the playtest's actions twice: the public vc33 is deterministic; a copy of ls20 with an unseeded random call is not, shown with both frames", async ({
    page,
  }) => {
    await logIn(page, server.base);
    await page.goto(`${server.base}/games/${VC33}/playtest`);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
    for (const [x, y] of VC33_LEVEL1_CLICKS.slice(0, 2)) await clickFrame(page, x, y);
    await expect(page.getByTestId('game-actions')).toHaveText('2');
    const check = page.getByTestId('determinism');
    await check.getByRole('button', { name: 'Play these actions twice' }).click();
    await expect(check).toHaveAttribute('data-deterministic', 'true');
    await expect(check.getByTestId('determinism-result')).toHaveText(
      'Deterministic: the same 2 actions, played again in the same engine process and in 2 fresh ones with other hash seeds, gave the same frames at every step.',
    );

    await page.goto(`${server.base}/games/${LS20}/playtest`);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-state', 'NOT_FINISHED');
    for (const key of ['ArrowLeft', 'ArrowLeft', 'ArrowLeft']) await page.keyboard.press(key);
    await expect(page.getByTestId('game-actions')).toHaveText('3');
    await check.getByRole('button', { name: 'Play these actions twice' }).click();
    await expect(check).toHaveAttribute('data-deterministic', 'false');
    const result = check.getByTestId('determinism-result');
    await expect(result).toContainText(
      /Not deterministic: step [0-3] \((RESET \(opening\)|ACTION3)\) gave different frames in the same engine process\./,
    );
    await expect(result).toContainText(/differs in 1 cell, the first at x=63, y=63/);
    await expect(result).toContainText('Verification of its recorded sessions cannot be exact');
    await expect(result.getByRole('img', { name: /^First play, step [0-3], animation frame \d+$/ })).toBeVisible();
    await expect(result.getByRole('img', { name: /^Second play, step [0-3], animation frame \d+$/ })).toBeVisible();
    for (const width of [1280, 768, 390]) {
      await setWindowSize(page, { width, height: width === 390 ? 844 : 800 });
      await check.scrollIntoViewIfNeeded();
      await picture(page, `determinism-${width}`);
      expect(await seriousViolations(page)).toEqual([]);
    }
    // A restart is another run, with other actions: the last run's result goes.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Restart level' }).click();
    await expect(check.getByTestId('determinism-result')).toHaveCount(0);
  });
});
