/**
 * Which Vitest project a test file runs in, decided by its path alone (read by vitest.config.ts,
 * and by eslint.config.js, which keeps the `pure` project free of I/O):
 *
 * - `pure`: tests under src/core, src/games and src/client. Code without I/O (no server, no
 *   database, no socket, no child process or thread): the files share processes and need no
 *   hygiene but their own.
 * - `own`: any `*.own.test.ts` — a process of its own for each file. For a test that cannot give
 *   back what it changes of its process, and for a browser module tested against the real server
 *   and database (so that it leaves `pure`).
 * - `shared`: every other test (the server, the command, the benchmarks, scripts/). The files share
 *   processes, so each puts back what it changes of its process (an environment variable,
 *   `console`, a process handler, fake timers) in a `finally` or an `afterAll`, and closes what it
 *   opens (stores, servers, Python pools, threads); the file's PGlite (`store/testing.ts`) is
 *   closed after each file by `store/testFileSetup.ts`.
 */

/** Every test file Vitest runs. */
export const TEST_FILES = ['src/**/*.test.ts', 'src/**/*.test.tsx', 'scripts/**/*.test.ts'];

/** Files with a process each. */
export const OWN_FILES = ['src/**/*.own.test.ts', 'src/**/*.own.test.tsx', 'scripts/**/*.own.test.ts'];

/** Files of code without I/O (but the `own` ones among them). */
export const PURE_FILES = [
  'src/core/**/*.test.ts',
  'src/core/**/*.test.tsx',
  'src/games/**/*.test.ts',
  'src/games/**/*.test.tsx',
  'src/client/**/*.test.ts',
  'src/client/**/*.test.tsx',
];

/** What a `pure` file may not import: sockets, servers, databases, processes, threads, and the server and command layers. */
export const PURE_FORBIDDEN_IMPORTS = [
  'node:net',
  'node:http',
  'node:https',
  'node:http2',
  'node:dgram',
  'node:child_process',
  'node:worker_threads',
  'node:cluster',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'child_process',
  'worker_threads',
  'cluster',
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  'pg',
  'pg/*',
  '@hono/node-server',
  '@hono/node-server/*',
  '**/server/**',
  '**/cli/**',
  '**/bench/**',
];
