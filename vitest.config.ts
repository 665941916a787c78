import { defineConfig } from 'vitest/config';
import LongestFirst from './scripts/vitest-sequencer.ts';

/** Options both test projects share. */
const testOptions = {
  environment: 'node',
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // A poll waits for what it polls; on a busy machine that takes longer than vitest's 1 s default.
  expect: { poll: { timeout: 30_000 } },
} as const;

/** Tests of code with no server, database or child process in reach (the `pure` project below). */
const PURE = ['src/core/**/*.test.ts', 'src/games/**/*.test.ts', 'src/client/**/*.test.ts'];

export default defineConfig({
  test: {
    // Starts a throwaway PostgreSQL for the store and API suites that run on both databases, in a
    // temporary folder of the run's own (on tmpfs where there is one).
    globalSetup: ['src/server/store/testGlobalSetup.ts'],
    // Files in parallel: on two cores Vitest would run one at a time, yet most server and CLI
    // files spend their time waiting on a database, a child process or a worker thread.
    // ARC_STUDIO_TEST_WORKERS sets another number (1 runs one file at a time).
    maxWorkers: Number(process.env.ARC_STUDIO_TEST_WORKERS) || 2,
    // Longest files first, so both processes finish together (scripts/vitest-sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // A busy machine delays every event loop: servers under test (spawned ones too) refuse as
    // overloaded only past a minute of lag or of queue wait; load.test.ts tests the refusal with its own limits.
    env: { ARC_STUDIO_MAX_LAG_MS: '60000', ARC_STUDIO_MAX_WAIT_MS: '60000' },
    projects: [
      {
        test: {
          ...testOptions,
          name: 'server',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
          exclude: PURE,
          // Each file in a process of its own (forks): tests set process.env and start servers and threads.
          pool: 'forks',
        },
      },
      {
        test: {
          ...testOptions,
          name: 'pure',
          include: PURE,
          // The engine, the games and the browser's own logic touch no process state: their files
          // share processes, which saves loading the same modules again for each file.
          pool: 'forks',
          isolate: false,
        },
      },
    ],
  },
});
