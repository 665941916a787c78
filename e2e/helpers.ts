/** What the browser tests share: real ARC tasks from ../shared, and a person's clicks on grid cells. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { seedDataDir as seedFromTemplate } from '../src/server/store/pgliteTemplate';
import type { ArcTask } from '../src/core/formats/arcTask';
import type { Grid } from '../src/core/grid/grid';
import type { ActionInput } from '../src/core/game';

export const ARC_AGI_1 = path.resolve('../shared/data/arc-agi-1');

/** Ports each Playwright worker has, from E2E_PORT up: 50 ports in all make room for 5 workers. */
export const PORTS_PER_WORKER = 10;

/**
 * A port of this worker's block: worker `n` (its parallel index) owns the ten ports from
 * E2E_PORT + 10·n. Slot 0 is the worker's test server (`studio-test.ts`); a spec that starts a
 * server of its own names a slot 1-9 that no other spec uses (`arc3-helpers.ts` cycles through
 * 6-9), so two specs never share a port, in one worker or across workers, and the suite stays in
 * its block beside other runs on the machine.
 */
export function ownPort(slot: number): number {
  if (!Number.isInteger(slot) || slot < 0 || slot >= PORTS_PER_WORKER)
    throw new Error(`ownPort: slot ${slot} is outside 0-${PORTS_PER_WORKER - 1}`);
  const worker = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
  return Number(process.env.E2E_PORT ?? 4399) + PORTS_PER_WORKER * worker + slot;
}

/**
 * Puts a database with the migrations applied in a test server's new data folder (a copy of the
 * template `global-setup.ts` made), so the server starts as it would on its second day, without
 * PGlite's initdb and the migrations. Returns the folder.
 */
export function seedDataDir(dataDir: string): string {
  const template = process.env.E2E_PGLITE_TEMPLATE;
  if (!template)
    throw new Error('No PGlite template: run the browser tests with playwright.config.ts (its global setup makes it).');
  seedFromTemplate(template, dataDir);
  return dataDir;
}

/**
 * A picture of the page (or of one element) for a person to look at, written beside the test's
 * other output as `<name>.png`, when E2E_SCREENSHOTS=1 (`E2E_SCREENSHOTS=1 npx playwright test
 * e2e/campaign.spec.ts`). Nothing in the suite reads them, so an ordinary run takes none: the
 * suite's 70-odd pictures cost a tenth of a second each. A failing test keeps its screenshot
 * either way (`playwright.config.ts`).
 */
export async function picture(
  target: Page | Locator,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  if (process.env.E2E_SCREENSHOTS !== '1') return;
  await target.screenshot({ path: test.info().outputPath(`${name}.png`), ...options });
}

export function arcTask(id: string): ArcTask {
  return JSON.parse(readFileSync(path.join(ARC_AGI_1, `${id}.json`), 'utf8')) as ArcTask;
}

export type GridId = 'input-grid' | 'output-grid';

/** The grid on screen, as the canvas reports it. */
export async function screenGrid(page: Page, id: GridId): Promise<Grid> {
  return JSON.parse((await page.getByTestId(id).getAttribute('data-grid'))!) as Grid;
}

/** Where a grid's canvas is on the page and how many cells it has: what turns a cell into a point. */
export interface GridGeometry {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly rows: number;
  readonly cols: number;
}

/**
 * The canvas's box and size in cells, read in one trip to the page (a box and two attributes
 * read apart are three trips, the most of a painted cell's time on a busy machine).
 */
export async function gridGeometry(page: Page, id: GridId): Promise<GridGeometry> {
  return page.getByTestId(id).evaluate((el) => {
    const box = el.getBoundingClientRect();
    return {
      x: box.x,
      y: box.y,
      width: box.width,
      height: box.height,
      rows: Number(el.getAttribute('data-rows')),
      cols: Number(el.getAttribute('data-cols')),
    };
  });
}

/** The centre of a cell in page coordinates, on a grid whose geometry is `g`. */
export function pointOf(g: GridGeometry, row: number, col: number): { x: number; y: number } {
  return { x: g.x + ((col + 0.5) * g.width) / g.cols, y: g.y + ((row + 0.5) * g.height) / g.rows };
}

/** The centre of a cell in page coordinates. */
export async function cellPoint(page: Page, id: GridId, row: number, col: number): Promise<{ x: number; y: number }> {
  return pointOf(await gridGeometry(page, id), row, col);
}

export async function clickCell(page: Page, id: GridId, row: number, col: number): Promise<void> {
  const p = await cellPoint(page, id, row, col);
  await page.mouse.click(p.x, p.y);
}

/** Presses on one cell, moves through the others and releases on the last: a drag. */
export async function dragCells(page: Page, id: GridId, cells: readonly [number, number][]): Promise<void> {
  const g = await gridGeometry(page, id);
  const first = pointOf(g, cells[0][0], cells[0][1]);
  await page.mouse.move(first.x, first.y);
  await page.mouse.down();
  for (const [r, c] of cells.slice(1)) {
    const p = pointOf(g, r, c);
    await page.mouse.move(p.x, p.y, { steps: 3 });
  }
  await page.mouse.up();
}

/**
 * Resizes the window and waits until the page has laid itself out for the new size. The app's
 * layout follows the window through CSS and media queries that listen for changes, so a page
 * resized is the page a screen of that size loads: a check at several sizes loads the page once.
 */
export async function setWindowSize(page: Page, size: { width: number; height: number }): Promise<void> {
  const now = page.viewportSize();
  if (now && now.width === size.width && now.height === size.height) return;
  await page.setViewportSize(size);
  // Resize observers and media-query listeners run before the next frame is drawn.
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

/** Opens a task in the practice player and waits until its grids are on screen. */
export async function openTask(page: Page, collection: string, taskId: string): Promise<void> {
  await page.goto(`/tasks/${collection}/${taskId}`);
  await expect(page.getByTestId('task-id')).toHaveText(taskId);
  await expect(page.getByTestId('output-grid')).toBeVisible();
}

/** Types a size into the resize field and presses Enter, as a person would. */
export async function resizeTo(page: Page, size: string): Promise<void> {
  const field = page.getByLabel('Size');
  await field.fill(size);
  await field.press('Enter');
}

export async function expectOutput(page: Page, grid: Grid): Promise<void> {
  await expect.poll(() => screenGrid(page, 'output-grid')).toEqual(grid);
}

const GAME_KEYS: Record<string, string> = {
  ACTION1: 'ArrowUp',
  ACTION2: 'ArrowDown',
  ACTION3: 'ArrowLeft',
  ACTION4: 'ArrowRight',
  ACTION5: 'Space',
  ACTION7: 'Control+z',
};

/**
 * Game actions as a person does them, one after another: key presses, clicks on the frame's cells,
 * the Reset button. The game takes input once its first frame is drawn (a key pressed before that
 * would be lost), and a drawn frame stays drawn while it is played: that is looked at once, not
 * before each action.
 */
export async function performGameActions(page: Page, inputs: readonly ActionInput[]): Promise<void> {
  const canvas = page.getByTestId('game-canvas');
  await expect(canvas).toHaveAttribute('data-frame-hash', /./);
  for (const input of inputs) {
    if (input.action === 'ACTION6') {
      const box = (await canvas.boundingBox())!;
      await page.mouse.click(box.x + ((input.x! + 0.5) * box.width) / 64, box.y + ((input.y! + 0.5) * box.height) / 64);
    } else if (input.action === 'RESET') {
      await page.getByRole('button', { name: 'Reset' }).click();
    } else {
      await page.keyboard.press(GAME_KEYS[input.action]);
    }
  }
}

/** One game action as a person does it (`performGameActions`). */
export async function performGameAction(page: Page, input: ActionInput): Promise<void> {
  await performGameActions(page, [input]);
}
