import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';

/** An installed Chromium: Playwright's own browser download is not available everywhere. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
];

const PORT = Number(process.env.E2E_PORT ?? 4399);
/** The researcher token of the test server; tests read it from the environment. */
process.env.E2E_ADMIN_TOKEN ??= 'e2e-researcher-token-0123456789abcdef';
/**
 * A busy machine slows every write of the servers under test (spawned ones too): they refuse a
 * standing queue only past a minute of wait; `load.test.ts` tests the refusal with its own limits.
 */
process.env.ARC_STUDIO_MAX_WAIT_MS ??= '60000';

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: `http://localhost:${PORT}`,
    viewport: { width: 1280, height: 800 },
    launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
    trace: 'retain-on-failure',
    acceptDownloads: true,
  },
  webServer: {
    command: `node bin/arc-studio.mjs serve --port ${PORT} --host 127.0.0.1 --data-dir .tmp/e2e-data-${PORT} --practice-tasks arc-agi-1=../shared/data/arc-agi-1`,
    url: `http://localhost:${PORT}/api/health`,
    reuseExistingServer: false,
    // Every participant of the browser tests comes from this machine's one address.
    env: { ARC_STUDIO_ADMIN_TOKEN: process.env.E2E_ADMIN_TOKEN, ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000' },
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
