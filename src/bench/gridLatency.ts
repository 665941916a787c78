/**
 * Input-to-paint latency of the grid player in Chromium, on a 30x30 output grid: a paint stroke
 * (one sample per pointer event that paints) and flood fills. The app and server are the real
 * ones. `input_to_paint` ends when the canvas has been drawn; `input_to_next_frame` also waits
 * for the browser's next frame, which adds up to one display refresh.
 */
import type { BenchResult } from './result';
import { percentile } from './measure';
import { installPaintProbe, openBrowserBench, takeLatencies } from './browser';

export async function* run(): AsyncIterable<BenchResult> {
  const b = await openBrowserBench();
  try {
    const { page } = b;
    const ids = (await (await fetch(`${b.url}/api/collections/warm-ups/tasks`)).json()) as { tasks: string[] };
    await page.goto(`${b.url}/tasks/warm-ups/${ids.tasks[0]}`);
    await page.getByLabel('Size').fill('30x30');
    await page.getByLabel('Size').press('Enter');
    const canvas = page.getByTestId('output-grid');
    await page.waitForFunction(
      `document.querySelector('[data-testid="output-grid"]')?.getAttribute('data-rows') === '30'`,
    );
    await installPaintProbe(page, '[data-testid="output-grid"]');
    const box = (await canvas.boundingBox())!;
    const at = (r: number, c: number) => ({
      x: box.x + ((c + 0.5) * box.width) / 30,
      y: box.y + ((r + 0.5) * box.height) / 30,
    });

    // Paint strokes: zig-zag drags across the grid, alternating colours so every cell changes.
    for (let pass = 0; pass < 4; pass++) {
      await page.keyboard.press(String(1 + (pass % 9)));
      for (let r = 0; r < 30; r += 3) {
        const a = at(r, 0);
        await page.mouse.move(a.x, a.y);
        await page.mouse.down();
        for (let c = 1; c < 30; c++) {
          const p = at(r, c);
          await page.mouse.move(p.x, p.y);
        }
        await page.mouse.up();
      }
    }
    const stroke = await takeLatencies(page);

    await page.keyboard.press('f');
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press(String(i % 2 === 0 ? 3 : 4));
      const p = at(i % 30, (i * 7) % 30);
      await page.mouse.click(p.x, p.y);
    }
    const fill = await takeLatencies(page);

    for (const [name, l] of [
      ['paint_stroke', stroke],
      ['flood_fill_30x30', fill],
    ] as const) {
      yield { name: `grid.latency.${name}.input_to_paint.p50`, value: percentile(l.draw, 50), unit: 'ms' };
      yield { name: `grid.latency.${name}.input_to_paint.p95`, value: percentile(l.draw, 95), unit: 'ms' };
      yield { name: `grid.latency.${name}.input_to_next_frame.p95`, value: percentile(l.frame, 95), unit: 'ms' };
      yield { name: `grid.latency.${name}.samples`, value: l.draw.length, unit: 'events' };
    }
  } finally {
    await b.close();
  }
}
