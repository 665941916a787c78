#!/usr/bin/env node
// `npm test`: lint, type-check, build, unit and integration tests, then browser tests against
// the built app and the real server. Lint, type-check and build run at once; stops after the first failing stage; at the end (or at the
// failure) prints each step's time and the slowest test files, so a slow new test shows.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const REPORTS = '.tmp/test-reports';
const VITEST_JSON = path.join(REPORTS, 'vitest.json');
const PLAYWRIGHT_JSON = path.join(REPORTS, 'playwright.json');
const SLOWEST = 10;
/** The development build `e2e/strict-mode.spec.ts` serves, made while the unit tests run. */
const DEV_DIST = '.tmp/dist-development';

/**
 * Stages run one after another; the steps of a stage run at the same time (lint, type-check and
 * the build each keep one core busy for a few seconds and need nothing from each other), their
 * output held back and printed whole when each ends, so it never interleaves.
 */
const stages = [
  [
    ['lint', 'npx', ['eslint', '.']],
    ['typecheck', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']],
    ['build', 'npx', ['vite', 'build', '--logLevel', 'warn']],
  ],
  [['unit and integration tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${VITEST_JSON}`]]],
  [['browser tests', 'npx', ['playwright', 'test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_FILE: PLAYWRIGHT_JSON, E2E_DEV_DIST: path.resolve(DEV_DIST) }]],
];

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
    const files = read().sort((a, b) => b[1] - a[1]).slice(0, SLOWEST);
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
if (existsSync('.tmp')) for (const f of readdirSync('.tmp')) if (f.startsWith('e2e-data-')) rmSync(path.join('.tmp', f), { recursive: true, force: true });
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });
/** The development build, started beside the unit tests (they mostly wait on databases and child processes). */
let devBuild = null;
function startDevBuild() {
  rmSync(DEV_DIST, { recursive: true, force: true });
  const child = spawn('npx', ['vite', 'build', '--mode', 'development', '--logLevel', 'warn', '--emptyOutDir', '--outDir', DEV_DIST], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_ENV: 'development' } });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, err })));
}

/** Runs one step; a step alone in its stage prints as it goes, one of several prints when it ends. */
function run([name, cmd, args, env = {}], alone) {
  const t0 = performance.now();
  if (alone) console.log(`\n=== ${name}: ${cmd} ${args.join(' ')}`);
  const child = spawn(cmd, args, { stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  child.stdout?.on('data', (d) => { out += d; });
  child.stderr?.on('data', (d) => { out += d; });
  return new Promise((resolve) => child.on('close', (code, signal) => {
    const seconds = (performance.now() - t0) / 1000;
    times.push([name, seconds]);
    if (!alone) {
      console.log(`\n=== ${name}: ${cmd} ${args.join(' ')} (${seconds.toFixed(1)} s)`);
      if (out) process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
    }
    resolve({ name, code, signal });
  }));
}

const t0 = performance.now();
for (const stage of stages) {
  if (stage.some(([name]) => name === 'unit and integration tests')) devBuild = startDevBuild();
  if (stage.some(([name]) => name === 'browser tests') && devBuild) {
    const { code, err } = await devBuild;
    if (code !== 0) {
      console.error(`\nThe development build failed (exit ${code}):\n${err}`);
      process.exit(1);
    }
  }
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
