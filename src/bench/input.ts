/**
 * Input-to-paint latency per input kind and screen, as a person feels it: Chromium drives the
 * built app at 1280x800 (mouse and keyboard) and at 390x844 (a touch phone: taps), and for each
 * input measures the time from the input event's timestamp (keydown, or pointerdown of a click
 * or tap) until the screen's canvas shows the change (`input_to_draw`: the DOM and canvas are
 * updated), and until the next animation frame after that (`input_to_next_frame`, which adds the
 * wait for the display's refresh, up to 16.7 ms at 60 Hz, that no app change can remove).
 *
 * What is played:
 * - a built-in game (flux level 1: keys or pad taps, and a click on a mirror; glow level 1:
 *   clicks on the frame), in the browser;
 * - server-run arcengine games through a study link (ls20 level 1 by keys or pad, vc33 by clicks
 *   on the frame), each input a request to the server and a step of the official engine;
 * - a grid task's output (30x30 where the screen shows the size field): paint clicks or taps,
 *   flood fills, and the keyboard (a colour key, then Space paints the cell at the cursor).
 *
 * Goals (the p95 of `input_to_draw`): 30 ms for server-run games, 8 ms for built-in games and grid
 * tools; each figure's unit says its goal and whether it was met. A phone has no keys, so keyboard
 * inputs are measured at 1280 only. Taps are sent as a touch screen sends them (`fingerTap`, see
 * tap.ts): Playwright's own taps hold each touch back for a frame after stamping it, which the
 * figures would count as the app's time. `tap_delivery` shows that wait beside the benchmark's
 * taps: the time from a pad tap's timestamp to a `pointerdown` listener, by either way.
 *
 * Needs the built app (`npm run build`), Chromium, and for the arcengine games the engine and
 * games (see arc3Latency.ts; without them that part is skipped with the reason).
 */
import type { Browser, BrowserContext, Page } from '@playwright/test';
import os from 'node:os';
import type { BenchResult } from './result';
import { parseActions, type ActionInput } from '../core/game';
import { solutions } from '../games';
import { locate, startArcServer, type ArcServer } from './arc3Latency';
import { launchChromium, openBrowserBench } from './browser';
import { percentile } from './measure';
import { fingerTap, fingerTapOn } from './tap';

/** The goals of the issue: p95 of input_to_draw, ms. */
const GOAL_SERVER = 30;
const GOAL_LOCAL = 8;

interface Screen {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly touch: boolean;
}
const SCREENS: readonly Screen[] = [
  { name: '1280', width: 1280, height: 800, touch: false },
  { name: '390_touch', width: 390, height: 844, touch: true },
];

type Kind = 'key' | 'pad' | 'frame' | 'paint' | 'fill' | 'keyboard';

// A plain string, as in browser.ts. From the input event (capture phase, before the app) to the
// change of the canvas's mirrored attribute (a MutationObserver's microtask in the task that drew
// it), then to the next animation frame. The kind of input is set by the driver before each input.
const PROBE = `(sel, attr) => {
  const canvas = () => document.querySelector(sel);
  const probe = window.__inputProbe = { kind: null, pending: null, unchanged: 0, draw: {}, frame: {} };
  const start = (e) => {
    if (!probe.kind) return;
    if (probe.pending) probe.unchanged++;
    probe.pending = { t: e.timeStamp, kind: probe.kind, before: canvas().getAttribute(attr) };
  };
  new MutationObserver(() => {
    const p = probe.pending;
    if (!p || canvas().getAttribute(attr) === p.before) return;
    probe.pending = null;
    (probe.draw[p.kind] ??= []).push(performance.now() - p.t);
    requestAnimationFrame(() => (probe.frame[p.kind] ??= []).push(performance.now() - p.t));
  }).observe(document.body, { attributes: true, subtree: true, attributeFilter: [attr] });
  for (const type of ['keydown', 'pointerdown']) window.addEventListener(type, start, true);
}`;

const KEYS: Record<string, string> = {
  ACTION1: 'ArrowUp',
  ACTION2: 'ArrowDown',
  ACTION3: 'ArrowLeft',
  ACTION4: 'ArrowRight',
  ACTION5: 'Space',
};
const PAD: Record<string, string> = {
  ACTION1: 'Up (ACTION1)',
  ACTION2: 'Down (ACTION2)',
  ACTION3: 'Left (ACTION3)',
  ACTION4: 'Right (ACTION4)',
  ACTION5: 'Action (ACTION5)',
};
const CANVAS = '[data-testid="game-canvas"]';

async function install(page: Page, selector: string, attr: string): Promise<void> {
  await page.evaluate(`(${PROBE})(${JSON.stringify(selector)}, ${JSON.stringify(attr)})`);
}

/** Sets the kind of the next inputs (null: not measured). */
async function kind(page: Page, k: Kind | null): Promise<void> {
  await page.evaluate(`window.__inputProbe.kind = ${JSON.stringify(k)}`);
}

/** Waits until the last input's change was drawn and presented (or `ms` passed: an input that changed nothing). */
async function settle(page: Page, ms = 2_000): Promise<void> {
  // Polled in the page by animation frames (a waitForFunction string is an eval, which the app's CSP refuses on some pages).
  await page.evaluate(`new Promise((done) => {
    const until = performance.now() + ${ms};
    const look = () => (window.__inputProbe.pending === null || performance.now() > until) ? requestAnimationFrame(() => requestAnimationFrame(done)) : requestAnimationFrame(look);
    look();
  })`);
}

async function take(
  page: Page,
): Promise<{ draw: Record<string, number[]>; frame: Record<string, number[]>; unchanged: number }> {
  await settle(page, 100);
  return (await page.evaluate(
    '(() => { const p = window.__inputProbe; const out = { draw: p.draw, frame: p.frame, unchanged: p.unchanged }; p.draw = {}; p.frame = {}; p.unchanged = 0; p.pending = null; return out; })()',
  )) as { draw: Record<string, number[]>; frame: Record<string, number[]>; unchanged: number };
}

function* figures(
  prefix: string,
  m: { draw: Record<string, number[]>; frame: Record<string, number[]> },
  goal: number,
): Iterable<BenchResult> {
  for (const [k, draw] of Object.entries(m.draw)) {
    const p95 = percentile(draw, 95);
    yield { name: `${prefix}.${k}.input_to_draw.p50`, value: percentile(draw, 50), unit: 'ms' };
    yield {
      name: `${prefix}.${k}.input_to_draw.p95`,
      value: p95,
      unit: `ms (goal ${goal}: ${p95 <= goal ? 'met' : 'MISSED'})`,
    };
    yield { name: `${prefix}.${k}.input_to_next_frame.p95`, value: percentile(m.frame[k] ?? [], 95), unit: 'ms' };
    yield { name: `${prefix}.${k}.samples`, value: draw.length, unit: 'inputs' };
  }
}

async function newPage(browser: Browser, screen: Screen): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: screen.width, height: screen.height },
    hasTouch: screen.touch,
    isMobile: screen.touch,
    deviceScaleFactor: 1,
  });
  return { context, page: await context.newPage() };
}

/** One input of a game: a key or a pad tap for ACTION1-5, a click or tap on the frame for ACTION6. */
async function gameInput(page: Page, screen: Screen, input: ActionInput, keys: 'key' | 'pad'): Promise<void> {
  if (input.action === 'ACTION6') {
    await kind(page, 'frame');
    const box = (await page.locator(CANVAS).boundingBox())!;
    const x = box.x + (((input.x ?? 0) + 0.5) * box.width) / 64,
      y = box.y + (((input.y ?? 0) + 0.5) * box.height) / 64;
    if (screen.touch) await fingerTap(page, x, y);
    else await page.mouse.click(x, y);
    return;
  }
  await kind(page, keys);
  if (keys === 'key') await page.keyboard.press(KEYS[input.action]);
  else if (screen.touch) await fingerTapOn(page.getByRole('button', { name: PAD[input.action], exact: true }));
  else await page.getByRole('button', { name: PAD[input.action], exact: true }).click();
}

/**
 * From a tap's timestamp to a `pointerdown` listener on the pad, by Playwright's `locator.tap()`
 * (DevTools' `Input.dispatchTouchEvent`) and by `fingerTap`, taken in turn: the wait that
 * DevTools adds to its touches and that the benchmark's taps leave out (see tap.ts).
 */
async function* tapDelivery(page: Page, prefix: string): AsyncIterable<BenchResult> {
  await kind(page, null);
  await page.evaluate(`(() => {
    const d = window.__tapDelivery = { by: null, ms: {} };
    window.addEventListener('pointerdown', (e) => d.by && (d.ms[d.by] ??= []).push(performance.now() - e.timeStamp), true);
  })()`);
  const button = page.getByRole('button', { name: PAD.ACTION4, exact: true });
  const taps = { devtools_tap: () => button.tap(), finger_tap: () => fingerTapOn(button) };
  for (let i = 0; i < 24; i++) {
    for (const [by, tap] of Object.entries(taps)) {
      await page.evaluate(`window.__tapDelivery.by = ${JSON.stringify(by)}`);
      await tap();
      await settle(page);
    }
  }
  const ms = (await page.evaluate('window.__tapDelivery.ms')) as Record<string, number[]>;
  for (const by of Object.keys(taps)) {
    yield { name: `${prefix}.${by}.p50`, value: percentile(ms[by] ?? [], 50), unit: 'ms' };
    yield { name: `${prefix}.${by}.p95`, value: percentile(ms[by] ?? [], 95), unit: 'ms' };
  }
}

/** Resets until the game starts again at level 1 (not measured), answering the player's "Start over?" when it asks. */
async function restart(page: Page): Promise<void> {
  await kind(page, null);
  for (let i = 0; i < 4 && (await page.locator(CANVAS).getAttribute('data-level')) !== '0'; i++) {
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    const dialog = page.getByTestId('restart-dialog');
    await dialog.waitFor({ timeout: 500 }).then(
      () => dialog.getByRole('button', { name: 'Start over' }).click(),
      () => {},
    );
    await settle(page, 5_000);
  }
  await page.waitForSelector(`${CANVAS}[data-level="0"]`, { timeout: 10_000 });
}

/** Plays `line` (level 1's solution) `rounds` times with keys, then with the pad (keyboard rounds only with keys). */
async function playRounds(page: Page, screen: Screen, line: string, rounds: number): Promise<void> {
  const inputs = parseActions(line);
  const modes: ('key' | 'pad')[] = screen.touch ? ['pad'] : ['key', 'pad'];
  for (const mode of modes) {
    for (let r = 0; r < rounds; r++) {
      for (const input of inputs) {
        await gameInput(page, screen, input, mode);
        await settle(page);
      }
      await restart(page);
    }
  }
}

export async function* run(): AsyncIterable<BenchResult> {
  yield { name: 'input.machine.load_1m_per_core', value: os.loadavg()[0] / os.cpus().length, unit: 'load' };
  yield { name: 'input.machine.cores', value: os.cpus().length, unit: 'cores' };
  const b = await openBrowserBench();
  const browser = await launchChromium();
  try {
    for (const screen of SCREENS) {
      // Built-in games, in the browser.
      const { context, page } = await newPage(browser, screen);
      try {
        for (const [id, rounds] of [
          ['flux', 6],
          ['glow', 6],
        ] as const) {
          await page.goto(`${b.url}/games/${id}`);
          await page.waitForSelector(`${CANVAS}[data-frame-hash]`);
          await install(page, CANVAS, 'data-frame-hash');
          await playRounds(page, screen, solutions[id][0], 1);
          await take(page);
          await playRounds(page, screen, solutions[id][0], rounds);
          yield* figures(`input.${screen.name}.builtin_${id}`, await take(page), GOAL_LOCAL);
          if (screen.touch && id === 'flux') yield* tapDelivery(page, `input.${screen.name}.tap_delivery`);
        }
        try {
          yield* await gridFigures(page, b.url, screen);
        } catch (e) {
          console.error(
            `bench input: the grid task at ${screen.name} was not measured: ${(e as Error).message.split('\n')[0]}`,
          );
        }
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await b.close();
  }
  yield* serverRun();
}

/** The grid task: paint clicks or taps, flood fills, the keyboard; on a 30x30 output. */
async function gridFigures(page: Page, url: string, screen: Screen): Promise<BenchResult[]> {
  const ids = (await (await fetch(`${url}/api/collections/warm-ups/tasks`)).json()) as { tasks: string[] };
  await page.goto(`${url}/tasks/warm-ups/${ids.tasks[0]}`);
  await page.getByTestId('input-grid').waitFor({ timeout: 15_000 });
  // A phone shows one grid at a time, the test input first: switch to the output, as a person does.
  const showOutput = page.getByRole('button', { name: /^Your output/ });
  if (screen.touch && (await showOutput.isVisible())) await showOutput.tap();
  const canvas = page.getByTestId('output-grid');
  await canvas.waitFor({ timeout: 15_000 });
  // The size field, where the screen shows it: a 30x30 output, the largest ARC grid.
  const sizeField = page.getByLabel('Size');
  if (await sizeField.isVisible()) {
    await sizeField.fill('30x30');
    await sizeField.press('Enter');
    await page.waitForSelector('[data-testid="output-grid"][data-rows="30"]', { state: 'attached' });
  }
  const rows = Number(await canvas.getAttribute('data-rows')),
    cols = Number(await canvas.getAttribute('data-cols'));
  await install(page, '[data-testid="output-grid"]', 'data-grid');
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  const at = (r: number, c: number) => ({
    x: box.x + (((c % cols) + 0.5) * box.width) / cols,
    y: box.y + (((r % rows) + 0.5) * box.height) / rows,
  });
  const press = async (r: number, c: number) => {
    const p = at(r, c);
    if (screen.touch) await fingerTap(page, p.x, p.y);
    else await page.mouse.click(p.x, p.y);
  };
  await kind(page, null);
  await page.keyboard.press('e');
  for (let i = 0; i < 80; i++) {
    await kind(page, null);
    await page.keyboard.press(String(1 + (i % 9)));
    await kind(page, 'paint');
    await press((i * 7) % 30, (i * 11) % 30);
    await settle(page);
  }
  await kind(page, null);
  await page.keyboard.press('f');
  for (let i = 0; i < 40; i++) {
    await kind(page, null);
    await page.keyboard.press(String(i % 2 === 0 ? 3 : 4));
    await kind(page, 'fill');
    await press((i * 7) % 30, (i * 13) % 30);
    await settle(page);
  }
  if (!screen.touch) {
    await kind(page, null);
    await page.keyboard.press('e');
    await canvas.focus();
    for (let i = 0; i < 80; i++) {
      await kind(page, null);
      await page.keyboard.press(String(1 + (i % 9)));
      await page.keyboard.press(i % 30 === 29 ? 'ArrowDown' : 'ArrowRight');
      await kind(page, 'keyboard');
      await page.keyboard.press('Space');
      await settle(page);
    }
  }
  return [...figures(`input.${screen.name}.grid_${rows}x${cols}`, await take(page), GOAL_LOCAL)];
}

/** ls20 (keys, pad) and vc33 (frame) on the official engine through a study link. */
async function* serverRun(): AsyncIterable<BenchResult> {
  const where = locate();
  if ('missing' in where) {
    console.error(`bench input: server-run games skipped: ${where.missing}`);
    return;
  }
  const browser = await launchChromium();
  let server: ArcServer | null = null;
  try {
    server = await startArcServer(where);
    const plans = [
      {
        game: 'ls20-9607627b',
        short: 'ls20',
        line: 'ACTION3,ACTION3,ACTION3,ACTION1,ACTION1,ACTION1,ACTION1,ACTION4,ACTION4,ACTION4,ACTION1,ACTION1,ACTION1',
        rounds: 3,
      },
      { game: 'vc33-5430563c', short: 'vc33', line: 'ACTION6:60:32,ACTION6:60:32,ACTION6:60:32', rounds: 8 },
    ];
    for (const screen of SCREENS) {
      for (const plan of plans) {
        const study = `bench-input-${plan.short}-${screen.name.replace('_', '-')}`;
        await server.admin('POST', `/api/admin/studies/${study}`, {
          definition: {
            title: `Input ${plan.short}`,
            consent: 'A benchmark run.',
            instructions: 'Play.',
            completion: { code: 'BENCH' },
            devices: 'any',
            items: [{ kind: 'game', id: 'game', game: plan.game }],
          },
        });
        const { context, page } = await newPage(browser, screen);
        try {
          await page.goto(`${server.url}/s/${study}?PROLIFIC_PID=bench-${study}`);
          await page.getByRole('button', { name: 'I agree, start' }).click();
          await page.getByRole('button', { name: 'Begin' }).click();
          await page.waitForSelector(`${CANVAS}[data-state="NOT_FINISHED"][data-frame-hash]`, { timeout: 60_000 });
          await install(page, CANVAS, 'data-frame-hash');
          await playRounds(page, screen, plan.line, 1);
          await take(page);
          await playRounds(page, screen, plan.line, plan.rounds);
          yield* figures(`input.${screen.name}.arc3_${plan.short}`, await take(page), GOAL_SERVER);
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
    await server?.stop();
  }
}
