import { defineConfig } from 'vitest/config';
import LongestFirst from './scripts/vitest-sequencer.ts';

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

/** Tests of code with no server, database or child process in reach (the `pure` project below). */
const PURE = ['src/core/**/*.test.ts', 'src/games/**/*.test.ts', 'src/client/**/*.test.ts'];

/**
 * Server and command tests that leave no state in their process once their own hooks have run:
 * what they change of the process (an environment variable, `console`, a process handler, fake
 * timers) they put back in a `finally` or an `afterAll` (`runCli` does it for the commands), and
 * they close what they open (their stores, servers, Python pools, threads; the file's PGlite is
 * closed by `store/testFileSetup.ts`). They share processes (the `server-shared` project below):
 * a file then costs no process start, no import of the server's modules again and no compiling
 * of PGlite's WebAssembly again (it opens in about half the time in a process that opened one
 * before). Every server and command file is listed; a new one goes to the `server` project, one
 * process per file, until it is checked (run here shuffled with the others) and listed.
 */
const SHARED = [
  'scripts/cycles.test.ts',
  'src/cli/args.test.ts',
  'src/cli/compiled.test.ts',
  'src/cli/export.arc3.test.ts',
  'src/cli/export.test.ts',
  'src/cli/games.arc3.test.ts',
  'src/cli/games.test.ts',
  'src/cli/loginLink.test.ts',
  'src/cli/questions.test.ts',
  'src/cli/score.official.test.ts',
  'src/cli/score.test.ts',
  'src/cli/scoreBeside.test.ts',
  'src/cli/tasks.test.ts',
  'src/cli/validate.test.ts',
  'src/cli/validateArc3.test.ts',
  'src/server/host/accept.test.ts',
  'src/server/agents/agents.test.ts',
  'src/server/agents/protocol.test.ts',
  'src/server/agents/service.test.ts',
  'src/server/agents/shared.test.ts',
  'src/server/app.test.ts',
  'src/server/arc3/crash.arc3.test.ts',
  'src/server/arc3/determinism.test.ts',
  'src/server/arc3/frameDifferences.test.ts',
  'src/server/arc3/gameCode.test.ts',
  'src/server/arc3/graph.test.ts',
  'src/server/arc3/graphRoute.test.ts',
  'src/server/arc3/officialCounts.test.ts',
  'src/server/arc3/protocol.test.ts',
  'src/server/arc3/remote.test.ts',
  'src/server/arc3/routes.test.ts',
  'src/server/arc3/runLimits.test.ts',
  'src/server/arc3/serve.arc3.test.ts',
  'src/server/arc3/storedRuns.test.ts',
  'src/server/arc3/worker.test.ts',
  'src/server/arc3/fixture.test.ts',
  'src/server/campaign/campaign.test.ts',
  'src/server/campaign/simulation.test.ts',
  'src/server/collections/routes.test.ts',
  'src/server/serve.crash.test.ts',
  'src/server/digests/cache.test.ts',
  'src/server/digests/gap.test.ts',
  'src/server/digests/maintainer.test.ts',
  'src/server/digests/pool.test.ts',
  'src/server/digests/serverRuns.test.ts',
  'src/server/export/export.test.ts',
  'src/server/export/gameVersions.test.ts',
  'src/server/export/robust.test.ts',
  'src/server/export/schemas.test.ts',
  'src/server/export/surveys.test.ts',
  'src/server/export/thread.test.ts',
  'src/server/export/zip.test.ts',
  'src/server/http.fail.test.ts',
  'src/server/results/gameBaselines.test.ts',
  'src/server/grading/routes.test.ts',
  'src/server/study/hostile.test.ts',
  'src/server/http.test.ts',
  'src/server/load.test.ts',
  'src/server/study/longReads.test.ts',
  'src/server/load.participantsFirst.test.ts',
  'src/server/serve.pgRestart.test.ts',
  'src/server/questions/results.test.ts',
  'src/server/questions/questions.test.ts',
  'src/server/study/responses.test.ts',
  'src/server/results/routes.test.ts',
  'src/server/results/digest.test.ts',
  'src/server/results/grades.test.ts',
  'src/server/collections/sealing.test.ts',
  'src/server/store/curation.test.ts',
  'src/server/store/folderLock.test.ts',
  'src/server/store/gamePins.test.ts',
  'src/server/store/groupCommit.test.ts',
  'src/server/store/migrate.test.ts',
  'src/server/store/store.test.ts',
  'src/server/store/unavailable.test.ts',
  'src/server/study/studies.test.ts',
  'src/server/study/admission.test.ts',
  'src/server/study/curation.test.ts',
  'src/server/study/sessionLimits.test.ts',
  'src/server/study/storageBudget.test.ts',
  'src/server/study/routes.test.ts',
  'src/server/results/surveySummary.test.ts',
  'src/server/serve.twoServers.test.ts',
  'src/server/host/workers.test.ts',
];

export default defineConfig({
  test: {
    // Starts a throwaway PostgreSQL for the store and API suites that run on both databases, in a
    // temporary folder of the run's own (on tmpfs where there is one).
    globalSetup: ['src/server/store/testGlobalSetup.ts'],
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
    projects: [
      {
        test: {
          ...testOptions,
          name: 'server',
          include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'],
          exclude: [...PURE, ...SHARED],
          // Each file in a process of its own (forks): tests set process.env and start servers and threads.
          pool: 'forks',
        },
      },
      {
        test: {
          ...testOptions,
          name: 'server-shared',
          include: SHARED,
          pool: 'forks',
          isolate: false,
          // The file's PGlite (store/testing.ts) is closed after each file, not once per process.
          setupFiles: ['src/server/store/testFileSetup.ts'],
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
