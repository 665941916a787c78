/**
 * The PGlite folder lock under real contention: separate Node processes, released at the same
 * instant, each try to open the store on one folder.
 */
import { build } from 'esbuild';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from './open';
import { lockFolder, processStartTicks } from './folderLock';
import { seedDataDir } from './testing';
import { SERVER_BUILD } from '../../../scripts/serverBuildOptions.mjs';

const ROOT = path.resolve(__dirname, '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-lock-'));
/**
 * The store's code for the processes below, compiled once as the server's build compiles it
 * (`SERVER_BUILD`): each process then starts in a quarter of the CPU it takes to load the
 * TypeScript through tsx. In the project's `.tmp/`, so that the npm packages it imports resolve.
 */
mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
const compiled = mkdtempSync(path.join(ROOT, '.tmp', 'folder-lock-'));
const compiledUrl = (name: string) => JSON.stringify(pathToFileURL(path.join(compiled, `${name}.mjs`)).href);
beforeAll(async () => {
  await build({
    ...SERVER_BUILD,
    absWorkingDir: ROOT,
    entryPoints: { open: 'src/server/store/open.ts', folderLock: 'src/server/store/folderLock.ts' },
    outdir: compiled,
  });
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(compiled, { recursive: true, force: true });
});

// A contender: loads the store code, says READY, waits for "go" on stdin, opens the store and
// reports; the winner holds the store until a second line arrives, then closes it.
const CONTENDER = path.join(dir, 'contender.mjs');
writeFileSync(
  CONTENDER,
  `
import { createInterface } from 'node:readline';
const { openStore } = await import(${compiledUrl('open')});
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
console.log('READY');
await lines.next();
let store;
try {
  store = await openStore({ dataDir: process.argv[2] });
} catch (e) {
  console.log('REFUSED ' + JSON.stringify(e.message));
  process.exit(3);
}
console.log('OPENED');
await lines.next();
await store.close();
console.log('CLOSED');
process.exit(0);
`,
);

// A worker of the mutual-exclusion test: takes the lock ROUNDS times (retrying while another
// holds it), each time adds one to a counter file by read-then-write, and releases it; on its
// last round it exits holding the lock, as a killed server would, so the others must take over.
const WORKER = path.join(dir, 'worker.mjs');
writeFileSync(
  WORKER,
  `
const { lockFolder, FolderLockedError } = await import(${compiledUrl('folderLock')});
const { readFileSync, writeFileSync } = await import('node:fs');
const { createInterface } = await import('node:readline');
const [dataDir, rounds] = [process.argv[2], Number(process.argv[3])];
const counter = dataDir + '/counter';
// Start together: say ready, then wait for the test's go on stdin (a process that starts late on
// a busy machine would otherwise find the others gone and never contend).
writeFileSync(dataDir + '/ready-' + process.pid, '');
await createInterface({ input: process.stdin })[Symbol.asyncIterator]().next();
let waits = 0;
for (let i = 0; i < rounds; i++) {
  let release;
  while (!release) {
    try {
      release = await lockFolder(dataDir);
    } catch (e) {
      if (!(e instanceof FolderLockedError) || !e.owner) throw e;
      waits++;
      await new Promise((r) => setTimeout(r, Math.random() * 3));
    }
  }
  const n = Number(readFileSync(counter, 'utf8'));
  writeFileSync(counter, String(n + 1));
  if (i === rounds - 1) {
    console.log(JSON.stringify({ waits }));
    process.exit(0);
  }
  release();
}
`,
);

interface Contender {
  readonly proc: ChildProcess;
  out: string;
  readonly exit: Promise<number | null>;
}

function startContender(dataDir: string): Contender {
  const proc = spawn(process.execPath, [CONTENDER, dataDir], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const c: Contender = { proc, out: '', exit: new Promise((resolve) => proc.on('exit', (code) => resolve(code))) };
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
    c.out += d;
  });
  return c;
}

async function until(check: () => boolean, what: string): Promise<void> {
  await expect.poll(check, { message: what, timeout: 180_000 }).toBe(true);
}

/** Starts `n` contenders on `dataDir`, releases them together and returns them once all but the winner have exited. */
async function race(dataDir: string, n: number): Promise<{ winner: Contender; losers: Contender[] }> {
  const all = Array.from({ length: n }, () => startContender(dataDir));
  await until(() => all.every((c) => c.out.includes('READY')), 'every contender to load');
  for (const c of all) c.proc.stdin!.write('go\n');
  await until(
    () => all.every((c) => c.out.includes('OPENED') || c.proc.exitCode !== null),
    'every contender to open or give up',
  );
  const winners = all.filter((c) => c.out.includes('OPENED'));
  const losers = all.filter((c) => !c.out.includes('OPENED'));
  expect(winners).toHaveLength(1);
  for (const l of losers) expect(await l.exit).toBe(3);
  return { winner: winners[0], losers };
}

async function finish(winner: Contender): Promise<void> {
  winner.proc.stdin!.write('close\n');
  expect(await winner.exit).toBe(0);
  expect(winner.out).toContain('CLOSED');
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

function readLock(dataDir: string) {
  return JSON.parse(readFileSync(path.join(dataDir, 'db.lock'), 'utf8')) as {
    pid: number;
    host: string;
    token: string;
    startTicks: number | null;
  };
}

const N = 6;

describe('PGlite folder lock', () => {
  it(`lets exactly one of ${N} processes started at the same instant open a fresh folder; the others name it`, async () => {
    const dataDir = path.join(dir, 'fresh');
    const { winner, losers } = await race(dataDir, N);
    const lock = readLock(dataDir);
    expect(lock.pid).toBe(winner.proc.pid);
    for (const l of losers) {
      expect(l.out).toContain(
        `REFUSED "The data folder ${dataDir} is in use by another arc-studio process (pid ${winner.proc.pid} on this machine, started `,
      );
      expect(l.out).toContain(
        `lock file ${path.join(dataDir, 'db.lock')}). One process at a time can use a PGlite data folder. Stop that server (Ctrl-C in its terminal, or kill ${winner.proc.pid}) and try again, or give this one another --data-dir`,
      );
    }
    // The losers left the winner's lock alone.
    expect(readLock(dataDir).token).toBe(lock.token);
    await finish(winner);
    expect(existsSync(path.join(dataDir, 'db.lock'))).toBe(false);
    expect(readdirSync(dataDir).filter((f) => f.startsWith('db.lock'))).toEqual([]);
  }, 300_000);

  it(`lets exactly one of ${N} processes take over a lock left by a dead process`, async () => {
    const dataDir = path.join(dir, 'stale');
    // A folder with a database already in it (a copy of the template, where a new one would start
    // PGlite cold): the winner opens it once it holds the lock.
    seedDataDir(dataDir);
    const dead = deadPid();
    writeFileSync(
      path.join(dataDir, 'db.lock'),
      JSON.stringify({
        pid: dead,
        host: hostname(),
        started: null,
        startTicks: null,
        token: 'left-by-a-killed-server',
      }),
    );
    const { winner, losers } = await race(dataDir, N);
    expect(readLock(dataDir).pid).toBe(winner.proc.pid);
    for (const l of losers)
      expect(l.out).toContain(`in use by another arc-studio process (pid ${winner.proc.pid} on this machine`);
    expect(
      readdirSync(dataDir)
        .filter((f) => f.startsWith('db.lock'))
        .sort(),
    ).toEqual(['db.lock']);
    await finish(winner);
    expect(existsSync(path.join(dataDir, 'db.lock'))).toBe(false);
  }, 300_000);

  it('keeps a read-then-write counter exact across 4 processes taking the lock 400 times, each exiting once while holding it', async () => {
    const dataDir = path.join(dir, 'mutex');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'counter'), '0');
    const ROUNDS = 100;
    const workers = Array.from({ length: 4 }, () =>
      spawn(process.execPath, [WORKER, dataDir, String(ROUNDS)], {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const finished = Promise.all(
      workers.map(
        (w) =>
          new Promise<{ code: number | null; out: string }>((resolve) => {
            let out = '';
            w.stdout!.setEncoding('utf8').on('data', (d: string) => {
              out += d;
            });
            w.on('exit', (code) => resolve({ code, out }));
          }),
      ),
    );
    await until(() => readdirSync(dataDir).filter((f) => f.startsWith('ready-')).length === 4, 'every worker ready');
    for (const w of workers) w.stdin!.write('go\n');
    const results = await finished;
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    // Every increment survived: no two workers were ever inside the lock together.
    expect(readFileSync(path.join(dataDir, 'counter'), 'utf8')).toBe(String(4 * ROUNDS));
    // The workers did contend (they waited for each other), and the last one left a stale lock.
    expect(results.reduce((n, r) => n + (JSON.parse(r.out) as { waits: number }).waits, 0)).toBeGreaterThan(0);
    expect(workers.map((w) => w.pid)).toContain(readLock(dataDir).pid);
  });

  it('takes over a lock in the format of earlier versions (a bare pid) when that process is gone', async () => {
    const dataDir = path.join(dir, 'legacy');
    seedDataDir(dataDir);
    writeFileSync(path.join(dataDir, 'db.lock'), String(deadPid()));
    const store = await openStore({ dataDir });
    expect(readLock(dataDir).pid).toBe(process.pid);
    await store.close();
    expect(existsSync(path.join(dataDir, 'db.lock'))).toBe(false);
  });

  it('never removes the lock of a live process, and says who holds it', async () => {
    const dataDir = path.join(dir, 'live');
    mkdirSync(dataDir, { recursive: true });
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      const text = JSON.stringify({
        pid: sleeper.pid,
        host: hostname(),
        started: '2026-04-01T09:00:00.000Z',
        startTicks: processStartTicks(sleeper.pid!),
        token: 'live',
      });
      writeFileSync(path.join(dataDir, 'db.lock'), text);
      await expect(openStore({ dataDir })).rejects.toThrow(
        `The data folder ${dataDir} is in use by another arc-studio process (pid ${sleeper.pid} on this machine, started 2026-04-01T09:00:00.000Z; lock file ${path.join(dataDir, 'db.lock')}).`,
      );
      expect(readFileSync(path.join(dataDir, 'db.lock'), 'utf8')).toBe(text);
      expect(existsSync(path.join(dataDir, 'db'))).toBe(false);
    } finally {
      sleeper.kill();
    }
  });

  it('treats a live pid that started at another time as a reused pid, so the lock is stale', async () => {
    const ticks = processStartTicks(process.pid);
    expect(ticks, 'this test needs /proc (Linux)').not.toBeNull();
    const dataDir = path.join(dir, 'reused');
    mkdirSync(dataDir, { recursive: true });
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      writeFileSync(
        path.join(dataDir, 'db.lock'),
        JSON.stringify({
          pid: sleeper.pid,
          host: hostname(),
          started: null,
          startTicks: processStartTicks(sleeper.pid!)! - 1,
          token: 'old',
        }),
      );
      const release = await lockFolder(dataDir);
      expect(readLock(dataDir).pid).toBe(process.pid);
      release();
    } finally {
      sleeper.kill();
    }
  });

  it('keeps a lock from another host, telling how to clear it if that server is gone', async () => {
    const dataDir = path.join(dir, 'remote');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      path.join(dataDir, 'db.lock'),
      JSON.stringify({ pid: deadPid(), host: 'another-host', started: null, startTicks: null, token: 't' }),
    );
    await expect(lockFolder(dataDir)).rejects.toThrow(
      /on host another-host; lock file .*If that server is no longer running, delete .*db\.lock and start again\.$/,
    );
    expect(readLock(dataDir).host).toBe('another-host');
  });

  it('refuses a second open in the same process, and an unreadable lock file', async () => {
    const dataDir = path.join(dir, 'twice');
    mkdirSync(dataDir, { recursive: true });
    const first = await lockFolder(dataDir);
    await expect(lockFolder(dataDir)).rejects.toThrow(`The data folder ${dataDir} is already open in this process`);
    first();
    const again = await lockFolder(dataDir);
    again();
    writeFileSync(path.join(dataDir, 'db.lock'), 'not a lock');
    await expect(lockFolder(dataDir)).rejects.toThrow(
      `The lock file ${path.join(dataDir, 'db.lock')} cannot be read (it is not an arc-studio lock record). If no arc-studio server is using ${dataDir}, delete that file and start again.`,
    );
  });
});
