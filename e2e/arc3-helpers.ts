/**
 * Browser tests of ARC-AGI-3 games on the official engine: a test that changes games or needs
 * other flags starts its own server with the game folders it needs (a copy of the fixture game it
 * may change; the tests of one describe share one when none changes what another uses), so that
 * tests never share a worker or a file; the tests that only play and read
 * the vendored official games, each in a study of its own, share the worker's server with them
 * (the `officialGames` fixture of `studio-test.ts`).
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ownPort, seedDataDir } from './helpers';
import { arcStudioArgs } from '../src/server/testing/command';

export const VENDOR = path.resolve('../shared/vendor/arc-agi-3');
export const OFFICIAL_GAMES = path.join(VENDOR, 'environment_files');
export const PYTHONPATH = path.join(VENDOR, 'python');
export const FIXTURE_GAMES = path.resolve('e2e/fixtures/arc3-games');
export const TOKEN = process.env.E2E_ADMIN_TOKEN!;
export const ADMIN = { Authorization: `Bearer ${TOKEN}` };
export const LS20 = 'ls20-9607627b';
export const VC33 = 'vc33-5430563c';
export const TG01 = 'tg01-5e1f0a27';

export interface TestServer {
  readonly base: string;
  readonly child: ChildProcess;
  /** What the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** A copy of the fixture games in a temporary folder (a test may change its files). */
export function fixtureCopy(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arc3-games-'));
  cpSync(FIXTURE_GAMES, dir, { recursive: true });
  return dir;
}

/** The servers this worker started so far: each takes the next of the worker's slots 6-9 (`ownPort`). */
let nextServer = 0;

/** How long a server may take to start on a busy machine; added to the running test's or hook's time limit. */
const START_TIMEOUT_MS = 300_000;

/** The slot of the worker's shared server with the official games (`officialGamesServer`). */
const OFFICIAL_SLOT = 4;

/**
 * Starts `arc-studio serve` on a port of its own with these flags; resolves once it answers.
 * The wait does not eat into the test's own time limit, and a server that does not come up is
 * killed (its port free for the next) and its output shown. `shared` is for the worker's server
 * with the official games, started by a worker fixture (which has a time limit of its own).
 */
export async function startServer(
  flags: string[],
  env: NodeJS.ProcessEnv = {},
  { shared = false }: { shared?: boolean } = {},
): Promise<TestServer> {
  if (!shared) {
    const info = test.info();
    if (info.timeout > 0) info.setTimeout(info.timeout + START_TIMEOUT_MS);
  }
  const dataDir = seedDataDir(mkdtempSync(path.join(os.tmpdir(), 'arc3-e2e-')));
  const port = ownPort(shared ? OFFICIAL_SLOT : 6 + (nextServer++ % 4));
  const base = `http://127.0.0.1:${port}`;
  let out = '';
  const child = spawn(
    process.execPath,
    arcStudioArgs(['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir, ...flags]),
    {
      env: {
        ...process.env,
        ARC_STUDIO_ADMIN_TOKEN: TOKEN,
        ARC_STUDIO_PYTHONPATH: PYTHONPATH,
        PYTHONDONTWRITEBYTECODE: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr!.on('data', (b: Buffer) => {
    out += b.toString();
  });
  try {
    await expect
      .poll(async () => (await fetch(`${base}/api/health`).catch(() => null))?.status ?? 0, {
        timeout: START_TIMEOUT_MS,
        message: 'the server did not start',
      })
      .toBe(200);
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`The server on port ${port} did not start:\n${out}`, { cause: e });
  }
  return {
    base,
    child,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The worker's server with the official games: the tests that only play and read them, each in a
 * study of its own, share it instead of starting one each (a server with Python workers is seconds
 * of CPU to start). Use it through the `officialGames` worker fixture of `studio-test.ts`, which
 * stops it when the worker ends.
 */
export function startOfficialGamesServer(): Promise<TestServer> {
  return startServer(['--arc3-games', OFFICIAL_GAMES], {}, { shared: true });
}

/** Saves a study on the server through the researcher API. */
export async function createStudy(
  base: string,
  id: string,
  items: unknown[],
  settings: Record<string, unknown> = {},
): Promise<void> {
  const res = await fetch(`${base}/api/admin/studies/${id}`, {
    method: 'POST',
    headers: { ...ADMIN, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      definition: {
        title: `ARC-AGI-3 ${id}`,
        consent: 'You agree to play.',
        instructions: 'Play the games.',
        completion: { code: 'ARC3-OK' },
        items,
        ...settings,
      },
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** Opens the study link as a participant and goes past consent and instructions. */
export async function joinStudy(
  page: Page,
  base: string,
  studyId: string,
  pid = `p-${Math.random().toString(36).slice(2)}`,
): Promise<void> {
  await page.goto(`${base}/s/${studyId}?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree, start' }).click();
  await page.getByRole('button', { name: 'Begin' }).click();
}

/** The researcher's token in this browser, for the studio pages of `base`. */
export async function logIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.evaluate((t) => localStorage.setItem('arc-studio:researcher-token', t), TOKEN);
}

/** A palette colour (`#rrggbb`) as the canvas's pixel reads it. */
export const rgb = (hex: string): [number, number, number] =>
  [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

/** Clicks frame cell (x, y) of the game canvas. */
export async function clickFrame(page: Page, x: number, y: number): Promise<void> {
  const box = (await page.getByTestId('game-canvas').boundingBox())!;
  await page.mouse.click(box.x + ((x + 0.5) * box.width) / 64, box.y + ((y + 0.5) * box.height) / 64);
}

/** The colour (r, g, b) the canvas shows at frame cell (x, y). */
export async function frameColour(page: Page, x: number, y: number): Promise<[number, number, number]> {
  return page.getByTestId('game-canvas').evaluate(
    (canvas: HTMLCanvasElement, [cx, cy]) => {
      const ctx = canvas.getContext('2d')!;
      const px = Math.floor(((cx + 0.5) * canvas.width) / 64);
      const py = Math.floor(((cy + 0.5) * canvas.height) / 64);
      const d = ctx.getImageData(px, py, 1, 1).data;
      return [d[0], d[1], d[2]] as [number, number, number];
    },
    [x, y],
  );
}

/** Level 1 of ls20, found by a search over the official engine: left x3, up x4, right x3, up x3. */
export const LS20_LEVEL1_KEYS = [
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
];
/** Level 1 of vc33: three clicks on the right-hand control. */
export const VC33_LEVEL1_CLICKS: [number, number][] = [
  [60, 32],
  [60, 32],
  [60, 32],
];

/** A stored event of a session, as the researcher API sends it. */
export interface StoredEventRow {
  readonly seq: number;
  readonly t: number;
  readonly kind: string;
  readonly data: Record<string, unknown>;
}

/**
 * Leaves the current study item before its end, accepting the confirmation: "Finish and continue"
 * once a level is won, "Give up and continue" before.
 */
export async function giveUpItem(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^(Give up|Finish) and continue$/ }).click();
  await page
    .getByRole('dialog')
    .getByRole('button', { name: /^(Give up|Finish) and move on$/ })
    .click();
}

/** The id of the study session this browser holds (from its IndexedDB). */
export async function studySessionId(page: Page): Promise<string> {
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

/** Every event the server stored for a session, in order. */
export async function storedEvents(base: string, sessionId: string): Promise<StoredEventRow[]> {
  const res = await fetch(`${base}/api/admin/sessions/${sessionId}/events`, { headers: ADMIN });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { events: StoredEventRow[] }).events;
}

/** The colour (r, g, b) at the centre of every cell of a 64x64 frame canvas, by row then column. */
export async function canvasCells(canvas: Locator): Promise<[number, number, number][][]> {
  return canvas.evaluate((canvas: HTMLCanvasElement) => {
    const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    const k = canvas.width / 64;
    return Array.from({ length: 64 }, (_, y) =>
      Array.from({ length: 64 }, (_, x) => {
        const i = 4 * (Math.floor((y + 0.5) * k) * canvas.width + Math.floor((x + 0.5) * k));
        return [d[i], d[i + 1], d[i + 2]] as [number, number, number];
      }),
    );
  });
}
