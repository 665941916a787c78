import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { errorHead, playwrightFailures, playwrightFiles, vitestFailures, vitestFiles } from './testReports.mjs';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.splice(0).map((f) => rm(f, { recursive: true, force: true })));
});

/** Runs a command that is meant to fail (the tests it runs do), and gives back nothing but that it ended. */
async function runFailing(cmd: string, args: string[], cwd: string): Promise<void> {
  await run(cmd, args, { cwd, env: { ...process.env, CI: '' } }).then(
    () => {
      throw new Error(`${cmd} ${args.join(' ')} passed, though a test in it fails.`);
    },
    () => undefined,
  );
}

it("names each failed test of both runners' real reports, with its file, title and error, and times each file", async () => {
  // Inside the project, so that the test files find vitest and Playwright in its node_modules.
  await mkdir(path.join(ROOT, '.tmp'), { recursive: true });
  const dir = await mkdtemp(path.join(ROOT, '.tmp', 'test-reports-'));
  folders.push(dir);
  // Two tests each, one failing; Playwright's needs no browser.
  await writeFile(
    path.join(dir, 'a.test.mjs'),
    "import { it, expect } from 'vitest';\nit('adds', () => expect(1 + 1).toBe(2));\nit('breaks', () => expect('one').toBe('two'));\n",
  );
  await writeFile(path.join(dir, 'vitest.config.mjs'), "export default { test: { include: ['a.test.mjs'] } };\n");
  await writeFile(
    path.join(dir, 'b.spec.mjs'),
    "import { test, expect } from '@playwright/test';\ntest.describe('group', () => {\n  test('passes', () => expect(1).toBe(1));\n  test('fails', () => expect('left').toBe('right'));\n});\n",
  );
  await writeFile(
    path.join(dir, 'playwright.config.mjs'),
    "export default { testDir: '.', testMatch: 'b.spec.mjs', reporter: [['json', { outputFile: 'pw.json' }]], workers: 1 };\n",
  );
  const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
  await runFailing(bin('vitest'), ['run', '--root', dir, '--reporter=json', '--outputFile.json=vt.json'], dir);
  await runFailing(bin('playwright'), ['test', '--config', path.join(dir, 'playwright.config.mjs')], dir);
  const vitest = JSON.parse(await readFile(path.join(dir, 'vt.json'), 'utf8'));
  const playwright = JSON.parse(await readFile(path.join(dir, 'pw.json'), 'utf8'));

  const vf = vitestFailures(vitest);
  expect(vf.map(([file, title]) => [path.basename(file), title])).toEqual([['a.test.mjs', 'breaks']]);
  expect(errorHead(vf[0][2]).join('\n')).toContain('two');
  const pf = playwrightFailures(playwright);
  expect(pf.map(([where, title]) => [where, title])).toEqual([['b.spec.mjs:4', 'group › fails']]);
  expect(errorHead(pf[0][2]).join('\n')).toContain('right');
  expect(vitestFiles(vitest).map(([f]) => path.basename(f))).toEqual(['a.test.mjs']);
  expect(playwrightFiles(playwright).map(([f]) => f)).toEqual(['b.spec.mjs']);
});

it('keeps the first lines of an error, without colour codes, each cut to a width', () => {
  expect(errorHead('\u001b[31mExpected\u001b[39m: 1\n\n  Received: 2\nat x\nat y', 2, 8)).toEqual([
    'Expected',
    '  Receiv',
  ]);
});
