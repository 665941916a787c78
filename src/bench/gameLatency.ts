/**
 * The game player in Chromium, per game: the time to draw one frame on the canvas, and the
 * input-to-paint latency of real key presses and clicks (from the input event's timestamp until
 * the new frame is drawn, and until the next browser frame presents it). The app and server are
 * the real ones; the inputs replay each game's recorded solutions.
 */
import type { BenchResult } from './result';
import { parseActions } from '../core/game';
import { games, solutions } from '../games';
import { percentile } from './measure';
import { installPaintProbe, openBrowserBench, takeLatencies } from './browser';

const KEYS: Record<string, string> = {
  ACTION1: 'ArrowUp',
  ACTION2: 'ArrowDown',
  ACTION3: 'ArrowLeft',
  ACTION4: 'ArrowRight',
  ACTION5: 'Space',
  ACTION7: 'Control+z',
};

export async function* run(): AsyncIterable<BenchResult> {
  const b = await openBrowserBench();
  try {
    const { page } = b;
    for (const id of Object.keys(games)) {
      await page.goto(`${b.url}/games/${id}`);
      await page.waitForSelector('[data-testid="game-canvas"][data-frame-hash]');
      await installPaintProbe(page, '[data-testid="game-canvas"]', 'frameHash', ['keydown', 'pointerdown']);
      await page.evaluate(`performance.clearMeasures('arc-studio:frame-render')`);
      for (let round = 0; round < 3; round++) {
        for (const line of solutions[id]) {
          for (const input of parseActions(line)) {
            if (input.action === 'ACTION6') {
              const box = (await page.locator('[data-testid="game-canvas"]').boundingBox())!;
              await page.mouse.click(
                box.x + ((input.x! + 0.5) * box.width) / 64,
                box.y + ((input.y! + 0.5) * box.height) / 64,
              );
            } else {
              await page.keyboard.press(KEYS[input.action]);
            }
          }
        }
        // Two RESETs in a row start the game again.
        await page.getByRole('button', { name: 'Reset' }).click();
        await page.getByRole('button', { name: 'Reset' }).click();
      }
      const m = {
        ...(await takeLatencies(page)),
        render: (await page.evaluate(
          `performance.getEntriesByName('arc-studio:frame-render').map((e) => e.duration)`,
        )) as number[],
      };
      yield { name: `game.${id}.render_frame.p50`, value: percentile(m.render, 50), unit: 'ms' };
      yield { name: `game.${id}.render_frame.p95`, value: percentile(m.render, 95), unit: 'ms' };
      yield { name: `game.${id}.input_to_paint.p50`, value: percentile(m.draw, 50), unit: 'ms' };
      yield { name: `game.${id}.input_to_paint.p95`, value: percentile(m.draw, 95), unit: 'ms' };
      yield { name: `game.${id}.input_to_next_frame.p95`, value: percentile(m.frame, 95), unit: 'ms' };
      yield { name: `game.${id}.input_samples`, value: m.draw.length, unit: 'events' };
    }
  } finally {
    await b.close();
  }
}
