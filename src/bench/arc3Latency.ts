/**
 * Input-to-paint latency of ARC-AGI-3 games on the official engine, as a participant feels it:
 * Chromium plays ls20 (keys) and vc33 (clicks) through a study link against `arc-studio serve
 * --arc3-games` on loopback, so every input is a POST to the server, a step of the engine in a
 * Python worker, and the answer drawn on the canvas, with the session's log written as usual.
 * Goal: p95 input-to-draw under 30 ms.
 *
 * Per game (`arc3.<game>.browser.*`), over a few rounds of level 1's solution then Reset twice
 * (which starts the game again), after one round of warm-up:
 * - `input_to_draw`: from the input event's timestamp (keydown, or pointerdown for a click or the
 *   Reset button) until the canvas shows a different frame; p50, p95, p99.
 * - `input_to_next_frame`: until the next animation frame after that, which presents it.
 * - `action_http`: the action's request alone, from the page's Resource Timing (how much of the
 *   above is the network and the engine); p50, p95.
 * - `input_samples`, `unchanged_inputs` (answered inputs whose frame was the one already shown,
 *   e.g. a Reset at the start of a level), `frames_drawn` (every draw, animation frames included).
 *
 * Each input waits for the previous one's answer and paint, as the controller would make a quicker
 * one wait in its queue. `arc3.browser.machine.load_1m_per_core` is the machine's load when the
 * suite starts: other work moves these figures.
 *
 * Needs the built app (`npm run build`), Chromium (`CHROMIUM_PATH`, /usr/bin/chromium, or
 * `npx playwright install chromium`), and the engine and games: `ARC_STUDIO_PYTHONPATH` and
 * `ARC_STUDIO_ARC3_GAMES`, which default to the official files vendored in ../shared/vendor/arc-agi-3
 * beside the checkout. Without one of them the suite says what is missing and yields nothing.
 */
import type { Browser, Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BenchResult } from './result';
import { ROOT } from '../server/host/root';
import { NODE_FLAGS } from '../server/host/nodeFlags';
import { benchPort, launchChromium, takeLatencies } from './browser';
import { percentile } from './measure';

const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const CANVAS = '[data-testid="game-canvas"]';

type Input = { key: string } | { cell: [number, number] } | { button: 'Reset' };

interface GamePlan {
  readonly game: string;
  readonly short: string;
  /** One round: level 1's solution, then Reset twice, which starts the game again. */
  readonly round: readonly Input[];
  readonly rounds: number;
}

const keys = (...ks: string[]): Input[] => ks.map((key) => ({ key }));
const RESET_TWICE: Input[] = [{ button: 'Reset' }, { button: 'Reset' }];
const PLANS: readonly GamePlan[] = [
  {
    game: 'ls20-9607627b',
    short: 'ls20',
    rounds: 5,
    round: [
      ...keys(
        'ArrowLeft',
        'ArrowLeft',
        'ArrowLeft',
        'ArrowUp',
        'ArrowUp',
        'ArrowUp',
        'ArrowUp',
        'ArrowRight',
        'ArrowRight',
        'ArrowRight',
        'ArrowUp',
        'ArrowUp',
        'ArrowUp',
      ),
      ...RESET_TWICE,
    ],
  },
  {
    game: 'vc33-5430563c',
    short: 'vc33',
    rounds: 12,
    round: [{ cell: [60, 32] }, { cell: [60, 32] }, { cell: [60, 32] }, ...RESET_TWICE],
  },
];

// A plain string, as in browser.ts: the CLI's TypeScript loader rewrites functions in ways that do
// not survive being sent into the page. The answer to an input comes after an HTTP round trip, so
// the probe watches the canvas's `data-frame-hash` instead of looking right after the handler.
const PROBE = `(sel, types) => {
  const canvas = () => document.querySelector(sel);
  const probe = window.__arc3Probe = { pending: null, unchanged: 0 };
  window.__latencies = { draw: [], frame: [] };
  // Capture phase on window: before the app sees the input.
  const start = (e) => {
    if (probe.pending) probe.unchanged++;
    probe.pending = { t: e.timeStamp, before: null };
  };
  // Bubbling phase on window: after the app's handler. A frame it drew at once (the end of an
  // animation cut short by the new input) is not the answer; only a change from here on is.
  const arm = (e) => {
    if (probe.pending && probe.pending.t === e.timeStamp) probe.pending.before = canvas().dataset.frameHash;
  };
  // Mutation records are delivered in a microtask of the task that drew the frame.
  new MutationObserver(() => {
    const p = probe.pending;
    if (!p || p.before === null || canvas().dataset.frameHash === p.before) return;
    probe.pending = null;
    window.__latencies.draw.push(performance.now() - p.t);
    requestAnimationFrame(() => window.__latencies.frame.push(performance.now() - p.t));
  }).observe(canvas(), { attributes: true, attributeFilter: ['data-frame-hash'] });
  for (const type of types) {
    window.addEventListener(type, start, true);
    window.addEventListener(type, arm);
  }
}`;

const ACTION_PATH = /\/runs\/[^/]+\/actions$/;

export async function* run(): AsyncIterable<BenchResult> {
  const where = locate();
  if ('missing' in where) {
    console.error(`bench arc3-latency: skipped: ${where.missing}`);
    return;
  }
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    console.error(
      `bench arc3-latency: skipped: Chromium did not start (${first}). Set CHROMIUM_PATH to a Chromium executable, or run "npx playwright install chromium".`,
    );
    return;
  }
  let server: ArcServer | null = null;
  try {
    server = await startArcServer(where);
    const found = await server.admin<{ engine: { ok: boolean; message: string }; games: { id: string }[] }>(
      'GET',
      '/api/admin/arc3/games',
    );
    if (!found.engine.ok) {
      console.error(`bench arc3-latency: skipped: the server found no usable engine: ${found.engine.message}`);
      return;
    }
    yield { name: 'arc3.browser.machine.load_1m_per_core', value: os.loadavg()[0] / os.cpus().length, unit: 'load' };
    for (const plan of PLANS) {
      if (!found.games.some((g) => g.id === plan.game)) {
        console.error(
          `bench arc3-latency: skipped ${plan.short}: ${plan.game} is not among the games in ${where.gamesDir} (${found.games.map((g) => g.id).join(', ') || 'none'}).`,
        );
        continue;
      }
      yield* measureGame(browser, server, plan);
    }
  } finally {
    await browser.close();
    await server?.stop();
  }
}

async function* measureGame(browser: Browser, server: ArcServer, plan: GamePlan): AsyncIterable<BenchResult> {
  const study = `bench-${plan.short}`;
  await server.admin('POST', `/api/admin/studies/${study}`, {
    definition: {
      title: `Latency ${plan.short}`,
      consent: 'A benchmark run.',
      instructions: 'Play.',
      completion: { code: 'BENCH' },
      items: [{ kind: 'game', id: 'game', game: plan.game }],
    },
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    await page.goto(`${server.url}/s/${study}?PROLIFIC_PID=bench-${plan.short}`);
    await page.getByRole('button', { name: 'I agree, start' }).click();
    await page.getByRole('button', { name: 'Begin' }).click();
    await page.waitForSelector(`${CANVAS}[data-state="NOT_FINISHED"][data-frame-hash]`, { timeout: 60_000 });
    await page.evaluate(`(${PROBE})(${JSON.stringify(CANVAS)}, ["keydown", "pointerdown"])`);
    await page.evaluate('performance.setResourceTimingBufferSize(100000)');

    await playRound(page, plan, 0);
    await takeLatencies(page);
    await page.evaluate(
      `(performance.clearMeasures('arc-studio:frame-render'), performance.clearResourceTimings(), window.__arc3Probe.unchanged = 0, window.__arc3Probe.pending = null)`,
    );
    for (let r = 1; r <= plan.rounds; r++) await playRound(page, plan, r);
    const unchanged = (await page.evaluate(
      'window.__arc3Probe.unchanged + (window.__arc3Probe.pending ? 1 : 0)',
    )) as number;
    const { draw, frame } = await takeLatencies(page);
    const frames = (await page.evaluate(`performance.getEntriesByName('arc-studio:frame-render').length`)) as number;
    const http = (
      (await page.evaluate(
        `performance.getEntriesByType('resource').map((e) => [e.name, e.responseEnd - e.startTime])`,
      )) as [string, number][]
    )
      .filter(([url]) => ACTION_PATH.test(new URL(url).pathname))
      .map(([, ms]) => ms);

    const name = `arc3.${plan.short}.browser`;
    for (const p of [50, 95, 99]) yield { name: `${name}.input_to_draw.p${p}`, value: percentile(draw, p), unit: 'ms' };
    for (const p of [50, 95, 99])
      yield { name: `${name}.input_to_next_frame.p${p}`, value: percentile(frame, p), unit: 'ms' };
    for (const p of [50, 95]) yield { name: `${name}.action_http.p${p}`, value: percentile(http, p), unit: 'ms' };
    yield { name: `${name}.input_samples`, value: draw.length, unit: 'events' };
    yield { name: `${name}.unchanged_inputs`, value: unchanged, unit: 'events' };
    yield { name: `${name}.frames_drawn`, value: frames, unit: 'frames' };
  } finally {
    await page.close();
  }
}

/** Plays one round, each input after the previous one's answer is drawn; checks that level 1 was completed. */
async function playRound(page: Page, plan: GamePlan, round: number): Promise<void> {
  const canvas = page.locator(CANVAS);
  const box = (await canvas.boundingBox())!;
  for (const [i, input] of plan.round.entries()) {
    if ('button' in input && plan.round[i - 1] && !('button' in plan.round[i - 1])) {
      const level = await canvas.getAttribute('data-level');
      if (level !== '1')
        throw new Error(
          `${plan.game}: round ${round} did not complete level 1 (levels completed: ${level}); the game's files may differ from the version this benchmark plays.`,
        );
    }
    const answered = page.waitForResponse(
      (r) => r.request().method() === 'POST' && ACTION_PATH.test(new URL(r.url()).pathname),
      { timeout: 15_000 },
    );
    if ('key' in input) await page.keyboard.press(input.key);
    else if ('cell' in input)
      await page.mouse.click(
        box.x + ((input.cell[0] + 0.5) * box.width) / 64,
        box.y + ((input.cell[1] + 0.5) * box.height) / 64,
      );
    else await page.getByRole('button', { name: input.button }).click();
    await (await answered).finished();
    // An answer that shows the same frame never resolves the probe: the next input counts it as unchanged.
    await page
      .waitForFunction('window.__arc3Probe.pending === null', undefined, { polling: 'raf', timeout: 500 })
      .catch(() => {});
  }
  await page.waitForSelector(`${CANVAS}[data-level="0"][data-state="NOT_FINISHED"]`, { timeout: 5000 }).catch(() => {
    throw new Error(`${plan.game}: Reset twice did not start the game again after round ${round}.`);
  });
}

export interface Located {
  pythonPath?: string;
  gamesDir: string;
}

/** Where the built app, the engine and the games are, or what is missing and what to set. */
export function locate(): Located | { missing: string } {
  if (!existsSync(path.join(ROOT, 'dist', 'index.html')))
    return { missing: 'the app is not built: run "npm run build" first.' };
  const vendored = path.join(VENDOR, 'python');
  const pythonPath =
    process.env.ARC_STUDIO_PYTHONPATH ?? (existsSync(path.join(vendored, 'arcengine')) ? vendored : undefined);
  const gamesDir =
    process.env.ARC_STUDIO_ARC3_GAMES?.split(path.delimiter)[0] ?? path.join(VENDOR, 'environment_files');
  if (!existsSync(gamesDir)) {
    return {
      missing: `no ARC-AGI-3 games folder at ${gamesDir}. Set ARC_STUDIO_ARC3_GAMES to a folder in the toolkit's layout (<game>/<version>/<game>.py + metadata.json), and ARC_STUDIO_PYTHONPATH to a folder holding arcengine (or \`pip install arc-agi\`).`,
    };
  }
  return { pythonPath, gamesDir };
}

export interface ArcServer {
  readonly url: string;
  admin<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts `arc-studio serve --arc3-games` as its own process, as it runs for a study, on a free
 * loopback port with an empty PGlite database (never the one DATABASE_URL names).
 */
export async function startArcServer(where: Located): Promise<ArcServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'arc-studio-bench-arc3-'));
  const token = randomBytes(24).toString('hex');
  // Every simulated player comes from this machine's one address.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ARC_STUDIO_ADMIN_TOKEN: token,
    PYTHONDONTWRITEBYTECODE: '1',
    ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000000',
  };
  delete env.DATABASE_URL;
  if (where.pythonPath) env.ARC_STUDIO_PYTHONPATH = where.pythonPath;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      path.join(ROOT, 'bin', 'arc-studio.mjs'),
      'serve',
      '--port',
      String(benchPort(1)),
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      '--no-samples',
      '--arc3-games',
      where.gamesDir,
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the server did not start within 60 s. It printed:\n${output}`)),
        60_000,
      );
      const read = (b: Buffer) => {
        output += b.toString();
        const m = /Researcher login: (http:\/\/\S+?)\/login/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the server stopped (exit code ${code}). It printed:\n${output}`));
      });
    });
    return {
      url,
      async admin<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
        const res = await fetch(`${url}${route}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as T;
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
