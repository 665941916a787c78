/**
 * Playwright's `test` with one real `arc-studio serve` per worker: every worker has a server and
 * a data folder of its own, so spec files run in parallel and no spec sees another's sessions
 * (`studio.spec.ts` compares a study's results before and after; a spec in another worker adding
 * sessions to the same study would change them). `baseURL`, hence `page.goto('/…')`, `request`
 * and contexts from `browser.newContext()`, points at the worker's server.
 *
 * Specs import `test` and `expect` from here instead of `@playwright/test`; everything else of
 * `@playwright/test` is re-exported unchanged.
 */
import { test as base } from '@playwright/test';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ownPort, seedDataDir } from './helpers';
import { startOfficialGamesServer, type TestServer } from './arc3-helpers';
import { NODE_FLAGS } from '../src/server/host/nodeFlags';

export * from '@playwright/test';

/** How long a server may take to start on a busy machine (100 s was seen at a load of 40 on 2 cores). */
const START_TIMEOUT_MS = 300_000;

interface WorkerServer {
  readonly url: string;
}

export const test = base.extend<object, { studioServer: WorkerServer; officialGames: TestServer }>({
  studioServer: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern.
    async ({}, use, workerInfo) => {
      // Slot 0 of the worker's block of ports (see `ownPort`); the folder is named by the worker
      // index, which is new for a worker started after a failure, so a new worker starts clean.
      const port = ownPort(0);
      const dataDir = path.resolve(`.tmp/e2e-data-${port}-${workerInfo.workerIndex}`);
      rmSync(dataDir, { recursive: true, force: true });
      seedDataDir(dataDir);
      const child = spawn(
        process.execPath,
        [
          ...NODE_FLAGS,
          'bin/arc-studio.mjs',
          'serve',
          '--port',
          String(port),
          '--host',
          '127.0.0.1',
          '--data-dir',
          dataDir,
          '--practice-tasks',
          'arc-agi-1=../shared/data/arc-agi-1',
        ],
        {
          // Every participant of the browser tests comes from this machine's one address.
          env: {
            ...process.env,
            ARC_STUDIO_ADMIN_TOKEN: process.env.E2E_ADMIN_TOKEN,
            ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: '100000',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const ready = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`The test server on port ${port} did not start within ${START_TIMEOUT_MS / 1000} s:\n${out}`),
            ),
          START_TIMEOUT_MS,
        );
        const onData = (d: Buffer) => {
          out += d.toString();
          if (out.includes('ARC Studio is running')) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout!.on('data', onData);
        child.stderr!.on('data', onData);
        void exited.then(() => {
          clearTimeout(timer);
          reject(
            new Error(
              `The test server on port ${port} exited before it was ready (is the port taken by another run? set E2E_PORT to a free block of 50 ports):\n${out}`,
            ),
          );
        });
      });
      await ready;
      await use({ url: `http://127.0.0.1:${port}` });
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
    { scope: 'worker', timeout: START_TIMEOUT_MS + 30_000 },
  ],
  /**
   * A second server of the worker's, with the official ARC-AGI-3 games (`--arc3-games`), started
   * by the first test or hook that asks for it and kept until the worker ends.
   */
  officialGames: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern.
    async ({}, use) => {
      const server = await startOfficialGamesServer();
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: START_TIMEOUT_MS + 30_000 },
  ],
  baseURL: async ({ studioServer }, use) => {
    await use(studioServer.url);
  },
  /**
   * Prolific is never reached from a test: a study whose completion sends the participant on to
   * Prolific (the sample study does, after 5 s) would otherwise leave for an error page, where
   * the page's own storage, which tests read after the end, is gone. Answered 204, the page stays;
   * a spec that follows the redirect (`prolific.spec.ts`) routes it on its page, which comes first.
   */
  context: async ({ context }, use) => {
    await context.route('https://app.prolific.com/**', (route) => route.fulfill({ status: 204 }));
    await use(context);
  },
});
