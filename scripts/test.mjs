#!/usr/bin/env node
// `npm test`: lint, type-check, build, unit and integration tests, and browser tests against the
// built app and the real server. Each step starts as soon as the steps it needs have ended: the
// server build first (2 s), then everything else at once, the browser tests once the app's builds
// are there. A failing step stops the run: the others are ended, except that failing tests let
// the other test runner finish (so one run names every failing test); at the end (or at the
// failure) it prints each step's time and the slowest test files, so a slow new test shows.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { errorHead, playwrightFailures, playwrightFiles, vitestFailures, vitestFiles } from './testReports.mjs';

const REPORTS = '.tmp/test-reports';
const VITEST_JSON = path.join(REPORTS, 'vitest.json');
const PLAYWRIGHT_JSON = path.join(REPORTS, 'playwright.json');
const SLOWEST = 10;
/** The development build `e2e/strict-mode.spec.ts` serves. */
const DEV_DIST = '.tmp/dist-development';
/**
 * ARC_STUDIO_TEST_SERIAL=1 runs the browser tests after the unit tests instead of beside them
 * (each then has the machine to itself: slower in all, its output easier to read).
 */
const SERIAL = process.env.ARC_STUDIO_TEST_SERIAL === '1';

const UNIT = 'unit and integration tests';
const BROWSER = 'browser tests';
/**
 * The steps, each with the steps it waits for. Lint, type-check and the builds each keep one
 * core busy for a few seconds and need nothing from each other. The unit tests need only the
 * compiled server (the servers they spawn run it, as in production; made first, so that no test
 * server starts from a folder the build is replacing): they start beside lint and type-check
 * instead of after them, being the longest step. The unit tests and the browser tests mostly
 * wait (on databases, child processes, Python workers, the browser and the servers under test),
 * so on two cores they share the machine well: together they take little more than the browser
 * tests alone. The output of the unit and browser tests is printed line by line with the step's
 * name in front; any other step's is printed whole when it ends.
 */
const steps = [
  // The servers, commands and threads the tests start run compiled, as in production
  // (`bin/arc-studio.mjs` refuses a build older than the sources: src/server/host/compiled.mjs).
  { name: 'server build', cmd: 'node', args: ['scripts/build-server.mjs'] },
  // ESLint, the import-cycle check and Prettier's check of the formatting: after the server build,
  // so that they never walk into its staging folder as it is swapped in.
  { name: 'lint', cmd: 'npm', args: ['run', '--silent', 'lint'], after: ['server build'], background: true },
  // TypeScript's native compiler (7), a quarter of the CPU of the JavaScript one (5.9), which
  // typescript-eslint still needs for parsing: both are installed, this step names the native one.
  { name: 'typecheck', cmd: 'npm', args: ['run', '--silent', 'typecheck'], background: true },
  { name: 'build', cmd: 'npx', args: ['vite', 'build', '--logLevel', 'warn'] },
  {
    name: 'development build',
    cmd: 'npx',
    args: ['vite', 'build', '--mode', 'development', '--logLevel', 'warn', '--emptyOutDir', '--outDir', DEV_DIST],
    env: { NODE_ENV: 'development' },
  },
  {
    name: UNIT,
    cmd: 'npx',
    args: ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${VITEST_JSON}`],
    after: ['server build'],
  },
  {
    name: BROWSER,
    cmd: 'npx',
    args: ['playwright', 'test', '--reporter=list,json'],
    env: { PLAYWRIGHT_JSON_OUTPUT_FILE: PLAYWRIGHT_JSON, E2E_DEV_DIST: path.resolve(DEV_DIST) },
    after: ['server build', 'build', 'development build', ...(SERIAL ? [UNIT] : [])],
  },
];

/** Prints the slowest files of a runner's report. */
function printSlowest(name, file, read) {
  if (!existsSync(file)) return;
  try {
    const files = read(JSON.parse(readFileSync(file, 'utf8')))
      .sort((a, b) => b[1] - a[1])
      .slice(0, SLOWEST);
    console.log(`\nSlowest ${name} files:`);
    for (const [f, s] of files) console.log(`  ${s.toFixed(1).padStart(7)} s  ${f}`);
  } catch (e) {
    console.log(`\n(${name} timings unreadable: ${e.message})`);
  }
}

/** Prints every failed test of a runner's report with its error's first lines (the whole error is in the log above). */
function printFailures(name, file, read) {
  if (!existsSync(file)) return;
  try {
    const failed = read(JSON.parse(readFileSync(file, 'utf8')));
    if (!failed.length) return;
    console.log(`\nFailed ${name} tests:`);
    for (const [where, title, error] of failed) {
      console.log(`  ${where}  ${title}`);
      for (const line of errorHead(error)) console.log(`      ${line}`);
    }
  } catch (e) {
    console.log(`\n(${name} failures unreadable: ${e.message})`);
  }
}

const times = [];
function summary() {
  console.log('\nSteps:');
  const order = steps.map((step) => step.name);
  times.sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]));
  for (const [name, s] of times) console.log(`  ${s.toFixed(1).padStart(7)} s  ${name}`);
  printSlowest('Vitest', VITEST_JSON, vitestFiles);
  printSlowest('Playwright', PLAYWRIGHT_JSON, playwrightFiles);
  printFailures('Vitest', VITEST_JSON, vitestFailures);
  printFailures('Playwright', PLAYWRIGHT_JSON, playwrightFailures);
}

/**
 * The tests start Python some 150 times (the engine's workers, the official toolkit beside them).
 * Where `python3` on the PATH is a version manager's shim (pyenv), each start first runs the
 * shim, which costs about 0.06 s of CPU to pick the interpreter; the folder of the interpreter it
 * picks goes first on the tests' PATH, so every start runs that same interpreter directly.
 */
function pythonFolderFirst() {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const exe = r.status === 0 ? r.stdout.trim() : '';
  if (exe && path.isAbsolute(exe)) process.env.PATH = `${path.dirname(exe)}${path.delimiter}${process.env.PATH ?? ''}`;
}
pythonFolderFirst();

// The browser tests' servers keep their data in .tmp/e2e-data-<port>-<worker>; a run that was killed leaves them behind.
if (existsSync('.tmp'))
  for (const f of readdirSync('.tmp'))
    if (f.startsWith('e2e-data-')) rmSync(path.join('.tmp', f), { recursive: true, force: true });
// This run's reports replace the last run's; the last run's Vitest report stays, as
// `vitest.last.json`, for the order of this run's files (scripts/vitest-sequencer.ts).
mkdirSync(REPORTS, { recursive: true });
if (existsSync(VITEST_JSON)) renameSync(VITEST_JSON, path.join(REPORTS, 'vitest.last.json'));
rmSync(PLAYWRIGHT_JSON, { force: true });
/** Steps whose output is printed as it comes, each line with the step's name in front. */
const STREAMED = new Set([UNIT, BROWSER]);

/** Writes each whole line of `chunk` with `prefix`; returns the unfinished rest. */
function prefixed(prefix, held, chunk) {
  const lines = (held + chunk).split('\n');
  const rest = lines.pop();
  for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
  return rest;
}

/** The steps running now, by name. */
const running = new Map();

/**
 * Runs one step, in a process group of its own (so that a failure elsewhere can end it with
 * everything it started); a streamed step prints its lines with its name in front, any other
 * prints its output whole when it ends (so it never interleaves).
 */
function run({ name, cmd, args, env = {}, background = false }) {
  const t0 = performance.now();
  const streamed = STREAMED.has(name);
  if (streamed) console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const child = spawn(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    detached: true,
  });
  // Lint and type-check need nothing from the tests and end long before them: they take the
  // cores the tests leave (a lower priority, inherited by what they start), never the tests'.
  if (background)
    try {
      setPriority(child.pid, 10);
    } catch {
      // Not allowed here: they share the cores as equals.
    }
  running.set(name, child);
  let out = '';
  const prefix = `[${name === UNIT ? 'vitest' : 'playwright'}] `;
  const held = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr']) {
    child[stream].on('data', (d) => {
      if (streamed) held[stream] = prefixed(prefix, held[stream], d.toString());
      else out += d;
    });
  }
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      running.delete(name);
      const seconds = (performance.now() - t0) / 1000;
      times.push([name, seconds]);
      if (streamed) {
        for (const rest of Object.values(held)) if (rest) process.stdout.write(`${prefix}${rest}\n`);
        console.log(`\n=== ${name} ended (${seconds.toFixed(1)} s)`);
      } else {
        console.log(`\n=== ${name}: ${cmd} ${args.join(' ')} (${seconds.toFixed(1)} s)`);
        if (out) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
      }
      resolve({ name, code, signal });
    }),
  );
}

/** Ends every running step (but those in `keep`) with what it started (its process group). */
function stopAll(signal = 'SIGTERM', keep = new Set()) {
  for (const [name, child] of running) {
    if (keep.has(name)) continue;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopAll(signal);
    process.exit(130);
  });

const t0 = performance.now();
rmSync(DEV_DIST, { recursive: true, force: true });
const done = new Set();
const started = new Set();
const pending = new Set();
/** The steps that failed, the first first (the others it stopped are not counted). */
const failures = [];
const stoppedBy = new Set();
/** Starts every step whose steps before it have ended. */
function startReady() {
  for (const step of steps) {
    if (started.has(step.name) || !(step.after ?? []).every((n) => done.has(n))) continue;
    started.add(step.name);
    const p = run(step).then((r) => {
      pending.delete(p);
      if (r.code === 0) done.add(r.name);
      else if (!stoppedBy.has(r.name)) {
        failures.push(r);
        // Failing tests leave the other runner's results to come; any other failure ends both.
        const keep = STREAMED.has(r.name) ? STREAMED : new Set();
        for (const name of running.keys()) if (!keep.has(name)) stoppedBy.add(name);
        stopAll('SIGTERM', keep);
      }
      if (!failures.length) startReady();
    });
    pending.add(p);
  }
}
startReady();
while (pending.size) await Promise.race(pending);
if (failures.length) {
  summary();
  const others = steps.filter((s) => !done.has(s.name) && !failures.some((f) => f.name === s.name));
  if (others.length)
    console.error(`\nNot finished, as ${failures[0].name} failed: ${others.map((s) => s.name).join(', ')}.`);
  for (const f of failures) console.error(`\n${f.name} failed (exit ${f.code ?? f.signal}).`);
  process.exit(failures[0].code || 1);
}
summary();
console.log(`\nAll test steps passed in ${((performance.now() - t0) / 60_000).toFixed(1)} min.`);
