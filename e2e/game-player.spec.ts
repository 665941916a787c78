import { expect, test } from './studio-test';
import { readFile } from 'node:fs/promises';
import { parseActions, replayGameEvents, hashFrame } from '../src/core/game';
import { performGameActions, picture } from './helpers';
import { parseJsonl } from '../src/core/log/events';
import { games, solutions } from '../src/games';

for (const id of Object.keys(games)) {
  test(`${id}: level 1 is finished with real input, the level indicator advances, and the log replays to the frame on screen`, async ({
    page,
  }) => {
    const game = games[id];
    await page.goto(`/games/${id}`);
    await expect(page.getByTestId('game-level')).toHaveText(`1 / ${game.levels.length}`);
    const solution = parseActions(solutions[id][0]);
    await performGameActions(page, solution);
    await expect(page.getByTestId('game-level')).toHaveText(`2 / ${game.levels.length}`);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-level', '1');
    await expect(page.getByTestId('game-actions')).toHaveText(String(solution.length));

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download log' }).click();
    const { events, errors } = parseJsonl(await readFile(await (await download).path(), 'utf8'));
    expect(errors).toEqual([]);
    const replayed = replayGameEvents(game, events);
    expect(replayed.problems).toEqual([]);
    expect(replayed.steps).toHaveLength(1 + solution.length);
    const last = replayed.steps[replayed.steps.length - 1].response;
    expect(last.levels_completed).toBe(1);
    const settled = hashFrame(last.frame[last.frame.length - 1]);
    await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-frame-hash', settled);
  });
}

test('the on-screen pad and Reset work, a click-only game has no pad, and a second Reset restarts the game', async ({
  page,
}) => {
  await page.goto('/games/push');
  const pad = page.getByRole('group', { name: 'Game controls' });
  await expect(pad.getByRole('button', { name: 'Right (ACTION4)' })).toBeEnabled();
  await pad.getByRole('button', { name: 'Right (ACTION4)' }).click();
  await expect(page.getByTestId('game-actions')).toHaveText('1');
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByTestId('game-actions')).toHaveText('2');
  await page.getByRole('button', { name: 'Reset' }).click();
  // A level reset counts one action; a second RESET in a row starts a fresh run at zero.
  await expect(page.getByTestId('game-actions')).toHaveText('3');
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(page.getByTestId('game-actions')).toHaveText('0');

  // A game played with clicks only offers no keys: no pad, a hint to tap the frame, and key presses do nothing.
  await page.goto('/games/glow');
  await expect(page.getByText('Click or tap the frame to act on a cell.')).toBeVisible();
  await expect(page.getByRole('group', { name: 'Game controls' })).toHaveCount(0);
  await page.keyboard.press('ArrowUp');
  await expect(page.getByTestId('game-actions')).toHaveText('0');
});

test('Reset never throws away won levels by accident: a double-click asks first, and only "Start over" restarts', async ({
  page,
}) => {
  const game = games.push;
  await page.goto('/games/push');
  await performGameActions(page, parseActions(solutions.push[0]));
  await expect(page.getByTestId('game-level')).toHaveText(`2 / ${game.levels.length}`);
  const won = await page.getByTestId('game-actions').textContent();

  // Level 2 has just begun, so a Reset would start the game over: a double-click only asks.
  await page.getByRole('button', { name: 'Reset' }).dblclick();
  const dialog = page.getByRole('alertdialog', { name: 'Start the game over?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('You have completed 1 level');
  await picture(page, 'restart-dialog');
  await expect(dialog.getByRole('button', { name: 'Keep playing' })).toBeFocused();
  // Game keys do nothing while it asks.
  await page.keyboard.press('ArrowRight');
  await dialog.getByRole('button', { name: 'Keep playing' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('game-level')).toHaveText(`2 / ${game.levels.length}`);
  await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-level', '1');
  await expect(page.getByTestId('game-actions')).toHaveText(won!);

  // After a move, Reset resets the level at once; the next one asks again, and Escape keeps playing.
  await page.keyboard.press('ArrowRight');
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('game-actions')).toHaveText(String(Number(won) + 2));
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('game-canvas')).toHaveAttribute('data-level', '1');

  // Starting over is one deliberate choice away.
  await page.getByRole('button', { name: 'Reset' }).click();
  await dialog.getByRole('button', { name: 'Start over' }).click();
  await expect(page.getByTestId('game-level')).toHaveText(`1 / ${game.levels.length}`);
  await expect(page.getByTestId('game-actions')).toHaveText('0');
});
