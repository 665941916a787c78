/**
 * Code versions of an arcengine game in the studio: a participant's run opened before a change to
 * the game's file keeps its code, and the Games page shows both the version new runs get and the
 * one the open run keeps; the results page shows the study's storage use, the versions played and
 * the version the study started with beside the current one.
 */
import { expect, test } from './studio-test';
import { seriousViolations } from './axe';
import { setWindowSize, picture } from './helpers';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN, TG01, createStudy, fixtureCopy, logIn, startServer } from './arc3-helpers';

const WIDTHS = [1280, 768, 390] as const;

test("the Games page shows a game's current code and the older code an open run keeps; the results page the storage use", async ({
  page,
}) => {
  const games = fixtureCopy();
  const server = await startServer(['--arc3-games', games]);
  try {
    await createStudy(server.base, 'versions', [{ kind: 'game', id: 'g', game: TG01 }], { storage: { events: 1000 } });
    // A participant's session opens the game through the API (a run of the current code).
    const s = (await (
      await fetch(`${server.base}/api/studies/versions/sessions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ params: {} }),
      })
    ).json()) as { sessionId: string; token: string };
    const auth = { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json' };
    const start = await fetch(`${server.base}/api/sessions/${s.sessionId}/events`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        events: [
          {
            seq: 0,
            t: 0.1,
            kind: 'session.start',
            data: { mode: 'study', wallClock: '2026-11-26T10:00:00.000Z', userAgent: 'e2e' },
          },
          { seq: 1, t: 0.2, kind: 'item.start', data: { item: 'g' } },
        ],
      }),
    });
    expect(start.status, await start.clone().text()).toBe(200);
    const opened = await fetch(`${server.base}/api/sessions/${s.sessionId}/runs`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ item: 'g', lastSeq: 1 }),
    });
    expect(opened.status, await opened.clone().text()).toBe(200);
    const before = ((await opened.json()) as { game: { codeHash: string } }).game.codeHash;

    // The designer changes the game's file: the server reloads it, and the list shows a new version.
    const file = path.join(games, 'tg01/5e1f0a27/tg01.py');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n# a designer's change\n`);
    await expect
      .poll(
        async () => {
          const list = (await (await fetch(`${server.base}/api/admin/arc3/games`, { headers: ADMIN })).json()) as {
            games: { id: string; codeHash?: string }[];
          };
          return list.games.find((g) => g.id === TG01)?.codeHash;
        },
        { timeout: 60_000 },
      )
      .not.toBe(before);

    await logIn(page, server.base);
    await page.goto(`${server.base}/games`);
    await expect(page.getByTestId('code-version').first()).toContainText('@');
    await expect(page.getByTestId('older-version')).toHaveText(
      `1 open run keeps @${before}, the code it was opened on`,
    );
    for (const width of WIDTHS) {
      await setWindowSize(page, { width, height: 900 });
      await picture(page, `games-versions-${width}`, { fullPage: true });
    }
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${server.base}/studies/versions`);
    await expect(page.getByTestId('storage-use')).toContainText('Storage: 2 of 1,000 events');
    await page.getByRole('tab', { name: 'Game levels' }).click();
    await expect(page.getByTestId('game-versions')).toContainText(`${TG01}@${before} · 1 run`);
    // The study started with the code of its first session, and says the game changed since.
    await expect(page.getByTestId('game-pins')).toContainText(`Started with ${TG01}@${before}`);
    await expect(page.getByTestId('game-pins')).toContainText('(changed)');
    for (const width of WIDTHS) {
      await setWindowSize(page, { width, height: 900 });
      await picture(page, `results-versions-${width}`, { fullPage: true });
      await picture(page.getByRole('region', { name: 'Game versions' }), `results-game-versions-${width}`);
    }
    expect(await seriousViolations(page)).toEqual([]);
  } finally {
    await server.stop();
    rmSync(games, { recursive: true, force: true });
  }
});
