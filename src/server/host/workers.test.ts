/**
 * `arc-studio serve --workers N`: the real command, as a user starts it. On PostgreSQL the
 * workers share the port and a worker that dies is started again; on the embedded database the
 * option is refused with what to do instead.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../store/pgCluster';
import { postgresUrl } from '../store/testing';
import { workersProblem } from './workers';
import { arcStudioArgs } from '../testing/command';

const ROOT = path.resolve(__dirname, '../../..');

function serve(args: string[], env: NodeJS.ProcessEnv): { proc: ChildProcess; output: () => string } {
  const proc = spawn(process.execPath, arcStudioArgs(['serve', '--host', '127.0.0.1', ...args]), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (d) => {
    out += d;
  });
  proc.stderr!.on('data', (d) => {
    out += d;
  });
  return { proc, output: () => out };
}

/** Waits until `ok` holds (polled by vitest); a failure names what was awaited. */
const until = (what: string, ok: () => boolean | Promise<boolean>, ms = 180_000) =>
  expect.poll(ok, { timeout: ms, message: `waiting for ${what}` }).toBe(true);

const children = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

/** A new, empty database on the test PostgreSQL, dropped by `cleanups`. */
async function freshDatabase(cleanups: (() => Promise<void> | void)[]): Promise<{ url: string; name: string }> {
  const base = postgresUrl();
  const name = `workers_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`).finally(() => admin.end());
  cleanups.push(async () => {
    const c = new pg.Client({ connectionString: base });
    await c.connect();
    await c.query(`DROP DATABASE ${name} WITH (FORCE)`).finally(() => c.end());
  });
  const u = new URL(base);
  u.pathname = `/${name}`;
  return { url: u.toString(), name };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('serve --workers', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('needs PostgreSQL for more than one worker', () => {
    expect(workersProblem(1, undefined)).toBeNull();
    expect(workersProblem(4, 'postgres://x')).toBeNull();
    expect(workersProblem(2, undefined)).toMatch(/--workers 2 needs PostgreSQL.*Set DATABASE_URL/);
  });

  it('refuses --workers 2 on the embedded database, saying what to do', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-workers-'));
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const env = { ...process.env };
    delete env.DATABASE_URL;
    const s = serve(['--workers', '2', '--port', '0', '--data-dir', tmp], env);
    const code = await new Promise<number | null>((r) => s.proc.once('exit', r));
    expect(code).not.toBe(0);
    expect(s.output()).toContain('--workers 2 needs PostgreSQL');
  });

  it('shares one port among N processes on PostgreSQL, restarts a worker that dies, and stops them all', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-workers-'));
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const dist = path.join(tmp, 'dist');
    mkdirSync(dist);
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>test</title>');
    const { url, name } = await freshDatabase(cleanups);
    const port = await freePort();
    const s = serve(['--workers', '2', '--port', String(port), '--data-dir', tmp], {
      ...process.env,
      DATABASE_URL: url,
      ARC_STUDIO_DIST: dist,
      ARC_STUDIO_DB_POOL: '3',
    });
    cleanups.push(() => {
      for (const pid of [s.proc.pid!, ...children(s.proc.pid!)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    // The two lines of the start are two writes: the pipe may hand them over one at a time.
    await until(
      'the servers to start',
      () => s.output().includes('ARC Studio is running') && s.output().includes('login#token='),
    );
    expect(s.output()).toContain(`ARC Studio is running at http://127.0.0.1:${port} (2 worker processes`);
    // The token was generated once (by the primary) and shown once.
    expect(s.output().match(/login#token=/g)?.length).toBe(1);
    const workers = children(s.proc.pid!);
    expect(workers.length).toBe(2);

    // Each worker holds its own pool of ARC_STUDIO_DB_POOL connections at most.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    cleanups.push(() => c.end());
    const conns = async () =>
      Number(
        (
          await c.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [
            name,
          ])
        ).rows[0].n,
      );
    await Promise.all(
      Array.from({ length: 40 }, () =>
        fetch(`http://127.0.0.1:${port}/api/studies/sample`, { headers: { Connection: 'close' } }).then((r) =>
          r.text(),
        ),
      ),
    );
    expect(await conns()).toBeLessThanOrEqual(6);

    // A worker killed outright is replaced; the port answers throughout.
    process.kill(workers[0], 'SIGKILL');
    await until('a new worker', () => children(s.proc.pid!).some((pid) => !workers.includes(pid)));
    // The primary's line comes through a pipe: the new worker's process can show before it.
    await until('the restart in the log', () =>
      s.output().includes(`Server worker ${workers[0]} exited (SIGKILL); starting another`),
    );
    for (let i = 0; i < 6; i++)
      expect((await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { Connection: 'close' } })).status).toBe(
        200,
      );

    const all = children(s.proc.pid!);
    s.proc.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => s.proc.once('exit', r));
    expect(code).toBe(0);
    expect(all.filter(alive)).toEqual([]);
  });

  it('workers stop when the primary is killed', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'arc-studio-workers-'));
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const dist = path.join(tmp, 'dist');
    mkdirSync(dist);
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>test</title>');
    const s = serve(['--workers', '2', '--port', '0', '--data-dir', tmp], {
      ...process.env,
      DATABASE_URL: (await freshDatabase(cleanups)).url,
      ARC_STUDIO_DIST: dist,
      ARC_STUDIO_DB_POOL: '2',
    });
    cleanups.push(() => {
      for (const pid of [s.proc.pid!, ...children(s.proc.pid!)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    await until('the servers to start', () => s.output().includes('ARC Studio is running'));
    const workers = children(s.proc.pid!);
    expect(workers.length).toBe(2);
    s.proc.kill('SIGKILL');
    await until('the workers to stop', () => workers.every((pid) => !alive(pid)));
  });
});
