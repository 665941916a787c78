#!/usr/bin/env node
// `npm test`: lint, type-check, build, unit and integration tests, and browser tests against the
// built app and the real server. Lint, type-check and both builds run at once; then Vitest and
// Playwright run at once; stops after the first failing stage; at the end (or at the failure)
// prints each step's time and the slowest test files, so a slow new test shows.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

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

/**
 * Stages run one after another; the steps of a stage run at the same time. Lint, type-check and
 * the builds each keep one core busy for a few seconds and need nothing from each other. The unit
 * tests and the browser tests mostly wait (on databases, child processes, Python workers, the
 * browser and the servers under test), so on two cores they share the machine well: together they
 * take little more than the browser tests alone. The output of a step that shares its stage is
 * printed line by line with the step's name in front.
 */
const build = [
  // ESLint, the import-cycle check and Prettier's check of the formatting.
  ['lint', 'npm', ['run', '--silent', 'lint']],
  ['typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']],
  ['build', 'npx', ['vite', 'build', '--logLevel', 'warn']],
  // The servers the tests start run compiled, as in production (`bin/arc-studio.mjs` falls back to
  // the sources through tsx for any file changed after this build).
  ['server build', 'node', ['scripts/build-server.mjs']],
  [
    'development build',
    'npx',
    ['vite', 'build', '--mode', 'development', '--logLevel', 'warn', '--emptyOutDir', '--outDir', DEV_DIST],
    { NODE_ENV: 'development' },
  ],
];
const unit = [
  'unit and integration tests',
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${VITEST_JSON}`],
];
const browser = [
  'browser tests',
  'npx',
  ['playwright', 'test', '--reporter=list,json'],
  { PLAYWRIGHT_JSON_OUTPUT_FILE: PLAYWRIGHT_JSON, E2E_DEV_DIST: path.resolve(DEV_DIST) },
];
const stages = SERIAL ? [build, [unit], [browser]] : [build, [unit, browser]];

/** Seconds per test file, slowest first: [file, seconds][]. */
function vitestFiles() {
  const report = JSON.parse(readFileSync(VITEST_JSON, 'utf8'));
  return report.testResults.map((t) => [path.relative(process.cwd(), t.name), (t.endTime - t.startTime) / 1000]);
}

function playwrightFiles() {
  const report = JSON.parse(readFileSync(PLAYWRIGHT_JSON, 'utf8'));
  const seconds = new Map();
  const walk = (suite, file) => {
    const f = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests) for (const r of t.results) seconds.set(f, (seconds.get(f) ?? 0) + r.duration / 1000);
    }
    for (const s of suite.suites ?? []) walk(s, f);
  };
  for (const s of report.suites) walk(s, s.file);
  return [...seconds];
}

function printSlowest(name, file, read) {
  if (!existsSync(file)) return;
  try {
    const files = read()
      .sort((a, b) => b[1] - a[1])
      .slice(0, SLOWEST);
    console.log(`\nSlowest ${name} files:`);
    for (const [f, s] of files) console.log(`  ${s.toFixed(1).padStart(7)} s  ${f}`);
  } catch (e) {
    console.log(`\n(${name} timings unreadable: ${e.message})`);
  }
}

const times = [];
function summary() {
  console.log('\nSteps:');
  const order = stages.flat().map(([name]) => name);
  times.sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]));
  for (const [name, s] of times) console.log(`  ${s.toFixed(1).padStart(7)} s  ${name}`);
  printSlowest('Vitest', VITEST_JSON, vitestFiles);
  printSlowest('Playwright', PLAYWRIGHT_JSON, playwrightFiles);
}

// The browser tests' servers keep their data in .tmp/e2e-data-<port>-<worker>; a run that was killed leaves them behind.
if (existsSync('.tmp'))
  for (const f of readdirSync('.tmp'))
    if (f.startsWith('e2e-data-')) rmSync(path.join('.tmp', f), { recursive: true, force: true });
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });
/** Steps whose output is printed as it comes, each line with the step's name in front, when they share a stage. */
const STREAMED = new Set([unit[0], browser[0]]);

/** Writes each whole line of `chunk` with `prefix`; returns the unfinished rest. */
function prefixed(prefix, held, chunk) {
  const lines = (held + chunk).split('\n');
  const rest = lines.pop();
  for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
  return rest;
}

/**
 * Runs one step; a step alone in its stage prints as it goes, a streamed one prints its lines with
 * its name in front, any other prints its output whole when it ends (so it never interleaves).
 */
function run([name, cmd, args, env = {}], alone) {
  const t0 = performance.now();
  const streamed = !alone && STREAMED.has(name);
  if (alone || streamed) console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const child = spawn(cmd, args, {
    stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let out = '';
  const prefix = `[${name === unit[0] ? 'vitest' : 'playwright'}] `;
  const held = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr']) {
    child[stream]?.on('data', (d) => {
      if (streamed) held[stream] = prefixed(prefix, held[stream], d.toString());
      else out += d;
    });
  }
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - t0) / 1000;
      times.push([name, seconds]);
      if (streamed) {
        for (const rest of Object.values(held)) if (rest) process.stdout.write(`${prefix}${rest}\n`);
        console.log(`\n=== ${name} ended (${seconds.toFixed(1)} s)`);
      } else if (!alone) {
        console.log(`\n=== ${name}: ${cmd} ${args.join(' ')} (${seconds.toFixed(1)} s)`);
        if (out) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
      }
      resolve({ name, code, signal });
    }),
  );
}

const t0 = performance.now();
rmSync(DEV_DIST, { recursive: true, force: true });
for (const stage of stages) {
  const results = await Promise.all(stage.map((step) => run(step, stage.length === 1)));
  const failed = results.find((r) => r.code !== 0);
  if (failed) {
    summary();
    console.error(`\n${failed.name} failed (exit ${failed.code ?? failed.signal}).`);
    process.exit(failed.code || 1);
  }
}
summary();
console.log(`\nAll test steps passed in ${((performance.now() - t0) / 60_000).toFixed(1)} min.`);
