/**
 * Runs the real built app and server in Chromium, for benchmarks that measure what a person
 * feels: the time from an input event to the next frame with its change drawn.
 */
import { chromium, type Browser, type Page } from '@playwright/test';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { ROOT, startServer } from '../server/serve';
import { bundledTaskDirs } from '../cli/serve';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserBench {
  readonly page: Page;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts headless Chromium: `CHROMIUM_PATH`, else the system's, else Playwright's own download.
 * WARNING: rejects with Playwright's long message when none is installed; suites that want to say
 * what to set catch it.
 */
export function launchChromium(): Promise<Browser> {
  const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (p) => p && existsSync(p),
  );
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

/**
 * The port of a server a benchmark starts: `ARC_STUDIO_BENCH_PORT` plus `offset` when it is set
 * (on a machine where each person has a range of ports), else any free port.
 */
export function benchPort(offset: number): number {
  const raw = process.env.ARC_STUDIO_BENCH_PORT;
  if (raw === undefined || raw === '') return 0;
  const base = Number(raw);
  if (!Number.isInteger(base) || base < 1 || base + offset > 65_535)
    throw new Error(
      `ARC_STUDIO_BENCH_PORT=${raw} is not a port; unset it (any free port) or give the first of a few free ones, e.g. ARC_STUDIO_BENCH_PORT=4700.`,
    );
  return base + offset;
}

export async function openBrowserBench(): Promise<BrowserBench> {
  if (!existsSync(path.join(ROOT, 'dist', 'index.html')))
    throw new Error('The app is not built: run "npm run build" before the browser benchmarks.');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'arc-studio-bench-'));
  const server = await startServer({
    port: benchPort(0),
    host: '127.0.0.1',
    dataDir,
    tasks: bundledTaskDirs('tasks'),
    practiceTasks: bundledTaskDirs('practice'),
    log: () => {},
  });
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    return {
      page,
      url: server.url,
      async close() {
        await browser?.close();
        await server.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await browser?.close();
    await server.close();
    throw e;
  }
}

// The page scripts are plain strings: the CLI's TypeScript loader rewrites functions (adding
// helpers such as __name) in ways that do not survive being sent into the page.
const PROBE = `(sel, key, types) => {
  window.__latencies = { draw: [], frame: [] };
  const canvas = () => document.querySelector(sel);
  let before = null;
  // Capture phase on window: runs before the app sees the event.
  const mark = () => { before = canvas().dataset[key]; };
  // Bubbling phase on window: runs after the app's handler. The app's render is flushed in a
  // microtask queued during its handler, so a microtask queued now runs after the canvas is drawn.
  const measure = (e) => {
    const was = before;
    queueMicrotask(() => {
      if (canvas().dataset[key] === was) return;
      window.__latencies.draw.push(performance.now() - e.timeStamp);
      requestAnimationFrame(() => window.__latencies.frame.push(performance.now() - e.timeStamp));
    });
  };
  for (const type of types) {
    window.addEventListener(type, mark, true);
    window.addEventListener(type, measure);
  }
}`;

/**
 * Installs a probe in the page: for every input event of `types` that changes what the canvas
 * `selector` shows (its `data-<key>` attribute, e.g. `grid` or `frameHash`), the time from the
 * event's timestamp until the canvas is drawn (`draw`) and until the next animation frame, which
 * presents it (`frame`), in ms.
 */
export async function installPaintProbe(
  page: Page,
  selector: string,
  key = 'grid',
  types: readonly string[] = ['pointerdown', 'pointermove', 'pointerrawupdate'],
): Promise<void> {
  await page.evaluate(`(${PROBE})(${JSON.stringify(selector)}, ${JSON.stringify(key)}, ${JSON.stringify(types)})`);
}

export async function takeLatencies(page: Page): Promise<{ draw: number[]; frame: number[] }> {
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  return (await page.evaluate(
    '(() => { const out = window.__latencies; window.__latencies = { draw: [], frame: [] }; return out; })()',
  )) as { draw: number[]; frame: number[] };
}
