/**
 * Vitest global setup: one PostgreSQL for every test file that runs the store and API suites
 * on PostgreSQL (each test then makes its own schema). `TEST_DATABASE_URL` uses an existing
 * server instead. A cluster that cannot start is reported by those suites, not skipped.
 * Meanwhile, a PGlite data folder with the migrations applied, which the PGlite suites copy
 * instead of starting a database cold (`pgliteTemplate.ts`); kept in `.tmp/` for the next run.
 * Before either, a temporary folder of the run's own, on tmpfs where there is one (`testTmpRoot`).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { type PgCluster, startPgCluster } from './pgCluster';
import { makeTemplate } from './pgliteTemplate';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string } | { error: string };
    /** The PGlite template's folder (`seedDataDir` copies it). */
    pgliteTemplate: string;
  }
}

const ROOT_PREFIX = 'arc-studio-vitest-';

/**
 * Makes the run's temporary folder and points `TMPDIR` at it, for this process and the test
 * processes Vitest starts after the global setup (and whatever they spawn): every test database,
 * data folder and PostgreSQL cluster goes there. It is on `/dev/shm` (tmpfs) when that exists:
 * the tests write hundreds of megabytes (a 40 MB copy of the PGlite template per file, servers'
 * data folders), which on a disk cost I/O wait and system time for files thrown away at the end.
 * `ARC_STUDIO_TEST_TMPDIR` names another place. The returned function removes the folder, with
 * anything a test left behind, and puts `TMPDIR` back; folders of earlier runs whose process is
 * gone (a killed run) are removed here.
 */
function testTmpRoot(): () => void {
  const previous = process.env.TMPDIR;
  const ordinary = os.tmpdir();
  const base =
    process.env.ARC_STUDIO_TEST_TMPDIR ?? (existsSync('/dev/shm') && isWritable('/dev/shm') ? '/dev/shm' : ordinary);
  for (const name of readdirSync(base)) {
    const pid = Number(name.slice(ROOT_PREFIX.length).split('-')[0]);
    if (name.startsWith(ROOT_PREFIX) && pid > 0 && !alive(pid))
      rmSync(path.join(base, name), { recursive: true, force: true });
  }
  const root = mkdtempSync(path.join(base, `${ROOT_PREFIX}${process.pid}-`));
  // Like /tmp: the test PostgreSQL runs as the postgres user when the tests run as root.
  chmodSync(root, 0o1777);
  // tsx (the spawned processes that run the sources) keeps its compiled files in <tmpdir>/tsx-<user>:
  // they keep using the ordinary temporary folder's, which outlives the run.
  const tsx = `tsx-${process.geteuid?.() ?? os.userInfo().username}`;
  mkdirSync(path.join(ordinary, tsx), { recursive: true });
  symlinkSync(path.join(ordinary, tsx), path.join(root, tsx));
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  };
}

function isWritable(dir: string): boolean {
  try {
    rmSync(mkdtempSync(path.join(dir, ROOT_PREFIX + 'probe-')), { recursive: true });
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `teardown` also when the run is stopped by SIGINT or SIGTERM (`npm test` ends Vitest so
 * when another step fails; Vitest itself then skips the teardown), then ends the process as the
 * signal would: otherwise the test PostgreSQL, a server of its own, would outlive the run.
 * Returns the teardown for Vitest, which removes the handlers first.
 */
function onStop(teardown: () => void): () => void {
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const handler = (signal: NodeJS.Signals) => {
    teardown();
    process.exit(128 + os.constants.signals[signal]);
  };
  for (const signal of signals) process.once(signal, handler);
  return () => {
    for (const signal of signals) process.off(signal, handler);
    teardown();
  };
}

export default async function setup(project: TestProject): Promise<() => void> {
  const removeTmp = testTmpRoot();
  const template = makeTemplate(path.resolve(project.config.root, '.tmp'));
  if (process.env.TEST_DATABASE_URL) {
    project.provide('postgres', { url: process.env.TEST_DATABASE_URL });
    project.provide('pgliteTemplate', await template);
    return onStop(removeTmp);
  }
  let cluster: PgCluster | null = null;
  const teardown = onStop(() => {
    cluster?.stop();
    removeTmp();
  });
  try {
    cluster = await startPgCluster();
    project.provide('postgres', { url: cluster.url });
  } catch (e) {
    project.provide('postgres', { error: (e as Error).message });
  }
  project.provide('pgliteTemplate', await template);
  return teardown;
}
