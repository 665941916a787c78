import { defineConfig } from 'vitest/config';
import LongestFirst from './scripts/vitest-sequencer.ts';
import { OWN_FILES, PURE_FILES, TEST_FILES } from './scripts/testProjects.mjs';

/** Options the test projects share. */
const testOptions = {
  environment: 'node',
  // A timeout only ends a test that hangs: with three files at a time beside the browser tests on a
  // busy two-core machine, a test that takes 20 s alone can take over a minute.
  testTimeout: 180_000,
  hookTimeout: 180_000,
  // A poll waits for what it polls; on a busy machine that takes longer than vitest's 1 s default.
  expect: { poll: { timeout: 60_000 } },
} as const;

export default defineConfig({
  test: {
    // Makes the compiled server again when a source changed since (the tests' servers, commands and
    // threads run it, as production does), then starts a throwaway PostgreSQL for the store and API
    // suites that run on both databases, in a temporary folder of the run's own (on tmpfs where there is one).
    globalSetup: ['src/server/host/testGlobalSetup.ts', 'src/server/store/testGlobalSetup.ts'],
    // Files in parallel: on two cores Vitest would run one at a time, yet most server and CLI
    // files spend their time waiting on a database, a child process or a worker thread (a whole
    // `npm test` used about two thirds of two cores with two processes; with three it ended 48 s
    // sooner). ARC_STUDIO_TEST_WORKERS sets another number (1 runs one file at a time).
    maxWorkers: Number(process.env.ARC_STUDIO_TEST_WORKERS) || 3,
    // Longest files first, so both processes finish together (scripts/vitest-sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // A busy machine delays every event loop: servers under test (spawned ones too) refuse as
    // overloaded only past a minute of lag or of queue wait; load.test.ts tests the refusal with its own limits.
    env: { ARC_STUDIO_MAX_LAG_MS: '60000', ARC_STUDIO_MAX_WAIT_MS: '60000' },
    // Which project a file runs in is decided by its path (scripts/testProjects.mjs says how).
    projects: [
      {
        test: {
          ...testOptions,
          name: 'own',
          include: OWN_FILES,
          // Each file in a process of its own (forks).
          pool: 'forks',
        },
      },
      {
        test: {
          ...testOptions,
          name: 'shared',
          include: TEST_FILES,
          exclude: [...PURE_FILES, ...OWN_FILES],
          pool: 'forks',
          // Files share processes: a file then costs no process start, no import of the server's
          // modules again and no compiling of PGlite's WebAssembly again (it opens in about half
          // the time in a process that opened one before).
          isolate: false,
          // The file's PGlite (store/testing.ts) is closed after each file, not once per process.
          setupFiles: ['src/server/store/testFileSetup.ts'],
        },
      },
      {
        test: {
          ...testOptions,
          name: 'pure',
          include: PURE_FILES,
          exclude: OWN_FILES,
          // The engine, the games and the browser's own logic touch no process state: their files
          // share processes, which saves loading the same modules again for each file.
          pool: 'forks',
          isolate: false,
        },
      },
    ],
  },
});
