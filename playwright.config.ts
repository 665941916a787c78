import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';

/** The full browser, where one is installed: `CHROMIUM_PATH`, else the system's. */
export function chromiumPath(): string | undefined {
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

/**
 * Chromium's headless shell (Debian's `chromium-headless-shell`, what Playwright itself runs
 * headless tests in) when installed, else the full browser: the same Blink without the browser's
 * own interface, whose pages run beside every page of the full browser even headless (three spec
 * files, one run each on an idle 2-core machine: 103 CPU-seconds against 133, 58 s against 72 s).
 * `CHROMIUM_PATH` runs every spec in the browser it names.
 */
function headlessShellPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  const shell = '/usr/bin/chromium-headless-shell';
  return existsSync(shell) ? shell : chromiumPath();
}

/**
 * Specs that need the full browser: the shell has no windows, so bringing another tab to the
 * front never takes the focus from the page (`presence.spec.ts` switches tabs for real).
 */
const FULL_BROWSER = ['presence.spec.ts'];

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/** The researcher token of the test servers; tests read it from the environment. */
process.env.E2E_ADMIN_TOKEN ??= 'e2e-researcher-token-0123456789abcdef';
/**
 * A busy machine slows every write and every event loop of the servers under test (spawned ones
 * too): they refuse a standing queue only past a minute of wait, and count as overloaded only past
 * a minute of event-loop lag (as `vitest.config.ts` sets for Vitest; writes are shed early at a quarter of that); `load.test.ts` tests the
 * refusals with its own limits.
 */
process.env.ARC_STUDIO_MAX_WAIT_MS ??= '60000';
process.env.ARC_STUDIO_MAX_LAG_MS ??= '60000';

/**
 * Spec files run in parallel, each worker with a server of its own (`e2e/studio-test.ts`); the
 * tests of one file run in order in one worker. ARC_STUDIO_E2E_WORKERS sets another number (1 runs
 * one file at a time). Each worker owns ten ports from E2E_PORT (default 4399) up
 * (`e2e/helpers.ts` `ownPort`), so 5 workers fit in a block of 50.
 */
const WORKERS = Number(process.env.ARC_STUDIO_E2E_WORKERS) || 2;
if (WORKERS > 5)
  throw new Error(`ARC_STUDIO_E2E_WORKERS=${WORKERS}: at most 5 workers fit in the 50 ports from E2E_PORT.`);

export default defineConfig({
  testDir: 'e2e',
  // The PGlite template every test server's data folder starts from (`e2e/global-setup.ts`).
  globalSetup: './e2e/global-setup.ts',
  // Limits for a busy machine: a wait ends as soon as what it waits for happens, so a long limit
  // costs nothing when the machine is idle (a server's acknowledgement took over 10 s under load).
  timeout: 240_000,
  expect: { timeout: 60_000 },
  fullyParallel: false,
  workers: WORKERS,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    viewport: { width: 1280, height: 800 },
    // Recording a trace costs a third of a spec's time (grid-player and grid-tools: 21 s without,
    // 29-31 s with, idle machine): a failing test keeps its screenshot, and
    // `--trace retain-on-failure` records traces when a failure needs one.
    trace: 'off',
    screenshot: 'only-on-failure',
    acceptDownloads: true,
  },
  projects: [
    {
      name: 'chromium',
      testIgnore: FULL_BROWSER,
      use: { launchOptions: { executablePath: headlessShellPath(), args: CHROMIUM_ARGS } },
    },
    {
      name: 'chromium-windows',
      testMatch: FULL_BROWSER,
      use: { launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS } },
    },
  ],
});
