/**
 * One process per PGlite data folder. PGlite is one process's database: two servers writing
 * one folder corrupt it and lose committed rows. `<dataDir>/db.lock` names the owner:
 *
 * ```json
 * {"pid": 4242, "host": "lab-1", "started": "2026-04-01T09:00:00.000Z", "startTicks": 123456, "token": "…"}
 * ```
 *
 * - **Taken atomically.** The owner's record is written to a private temporary file, then
 *   hard-linked to `db.lock`. `link` fails when `db.lock` exists, so of any number of processes
 *   starting at once exactly one creates it, and nobody ever reads a half-written lock.
 *   (On a file system without hard links the lock is created with `open(..., 'wx')`, O_EXCL.)
 * - **A live owner's lock is never removed.** A lock is stale only when its process is gone on
 *   this machine: no process with that pid, a zombie, or (Linux) one that started at another
 *   time, i.e. the pid was reused. A lock from another host is always treated as live.
 * - **One winner per stale lock.** Removing a stale lock needs a second exclusive file,
 *   `db.lock.takeover`; its holder re-reads `db.lock` and removes it only if it is still the
 *   stale lock it saw (same token). Everyone then competes again by exclusive create, so two
 *   processes that saw the same stale lock cannot both win.
 *
 * WARNING: a process killed inside the takeover (a few microseconds between creating and
 * removing `db.lock.takeover`) leaves that file behind; it is removed once its pid is dead, and
 * two processes doing that at the very same moment could both remove a fresh takeover file.
 * That needs a crash inside the takeover and a race right after it; the lock itself stays exclusive
 * in every other case.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

/** Who holds a data folder. */
export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** When the owner process started (ISO 8601), for people. */
  readonly started: string | null;
  /** The process's start time in clock ticks since boot (Linux `/proc/<pid>/stat`), to tell a reused pid. */
  readonly startTicks: number | null;
  /** Unique to this acquisition: a lock is removed only by whoever can name its token. */
  readonly token: string;
}

/** The data folder is held by a live process (or its lock cannot be read). */
export class FolderLockedError extends Error {
  override readonly name = 'FolderLockedError';
  constructor(
    message: string,
    readonly owner: LockOwner | null,
  ) {
    super(message);
  }
}

const HOST = hostname();
/** How long to keep retrying while locks come and go under contention. */
const ACQUIRE_TIMEOUT_MS = 10_000;
/** An empty lock this young is being written (the O_EXCL path), not abandoned. */
const WRITING_GRACE_MS = 2_000;

/** What /proc says of process `pid` (Linux), or null where /proc is not available. */
function procStat(pid: number): { state: string; startTicks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const startTicks = Number(fields[19]);
    return Number.isSafeInteger(startTicks) ? { state: fields[0], startTicks } : null;
  } catch {
    return null;
  }
}

/** The start time of process `pid` in clock ticks since boot, or null where /proc is not available. */
export function processStartTicks(pid: number): number | null {
  return procStat(pid)?.startTicks ?? null;
}

/** The tokens of the locks this process holds. */
const held = new Set<string>();

/**
 * Whether `owner` may still be using the folder. Unknown counts as alive. A lock naming this
 * process's pid but not one of its locks was left by an earlier process with the same pid
 * (a container's pid 1, say).
 */
export function ownerAlive(owner: LockOwner): boolean {
  if (owner.host !== HOST) return true;
  if (owner.pid === process.pid) return held.has(owner.token);
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = procStat(owner.pid);
  if (now === null) return true;
  // A zombie (killed, not yet reaped by its parent) holds nothing any more.
  if (now.state === 'Z' || now.state === 'X') return false;
  return owner.startTicks === null || now.startTicks === owner.startTicks;
}

type Read = LockOwner | 'missing' | 'writing' | { readonly corrupt: string };

function readOwner(file: string): Read {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return { corrupt: (e as Error).message };
  }
  if (text === '') {
    const age = Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    return age < WRITING_GRACE_MS ? 'writing' : { corrupt: 'the file is empty' };
  }
  // Earlier versions wrote the bare pid.
  if (/^\d+\s*$/.test(text)) return { pid: Number(text), host: HOST, started: null, startTicks: null, token: text };
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isSafeInteger(o.pid) && typeof o.host === 'string' && typeof o.token === 'string') {
      return {
        pid: o.pid!,
        host: o.host,
        started: typeof o.started === 'string' ? o.started : null,
        startTicks: Number.isSafeInteger(o.startTicks) ? o.startTicks! : null,
        token: o.token,
      };
    }
  } catch {
    /* reported below */
  }
  return { corrupt: 'it is not an arc-studio lock record' };
}

/** Creates `file` holding `owner` only if it does not exist; false when it does. */
function createExclusive(file: string, owner: LockOwner): boolean {
  const text = JSON.stringify(owner);
  const tmp = `${file}.${owner.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, text, { flush: true });
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
  } finally {
    unlinkSync(tmp);
  }
  // No hard links here: O_EXCL, and readers wait out the moment before the record is written.
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Removes `file` if it still holds the lock with `token`. */
function removeIfToken(file: string, token: string): void {
  const now = readOwner(file);
  if (typeof now === 'object' && 'token' in now && now.token === token) unlinkSync(file);
}

function describeOwner(o: LockOwner): string {
  const where = o.host === HOST ? 'on this machine' : `on host ${o.host}`;
  return `pid ${o.pid} ${where}${o.started ? `, started ${o.started}` : ''}`;
}

function lockedError(dataDir: string, file: string, owner: LockOwner, me: LockOwner): FolderLockedError {
  if (owner.host === HOST && owner.pid === me.pid) {
    return new FolderLockedError(
      `The data folder ${dataDir} is already open in this process (lock file ${file}); close that store before opening the folder again.`,
      owner,
    );
  }
  const remote = owner.host !== HOST ? ` If that server is no longer running, delete ${file} and start again.` : '';
  const stop =
    owner.host === HOST ? `Stop that server (Ctrl-C in its terminal, or kill ${owner.pid})` : 'Stop that server';
  return new FolderLockedError(
    `The data folder ${dataDir} is in use by another arc-studio process (${describeOwner(owner)}; lock file ${file}). ` +
      `One process at a time can use a PGlite data folder. ${stop} and try again, or give this one another --data-dir ` +
      `(or set DATABASE_URL to share a PostgreSQL database between servers).${remote}`,
    owner,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Takes the lock of `dataDir` for this process, or throws {@link FolderLockedError} naming the
 * process that holds it. Resolves to the function that releases it.
 */
export async function lockFolder(dataDir: string): Promise<() => void> {
  const file = path.join(dataDir, 'db.lock');
  const guard = `${file}.takeover`;
  const me: LockOwner = {
    pid: process.pid,
    host: HOST,
    started: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    startTicks: processStartTicks(process.pid),
    token: randomBytes(16).toString('hex'),
  };
  const release = () => {
    held.delete(me.token);
    try {
      removeIfToken(file, me.token);
    } catch {
      /* the folder is gone: nothing to release */
    }
  };
  const deadline = Date.now() + ACQUIRE_TIMEOUT_MS;
  for (;;) {
    if (createExclusive(file, me)) {
      held.add(me.token);
      return release;
    }
    const owner = readOwner(file);
    if (owner === 'missing') continue; // released a moment ago: compete again
    if (owner === 'writing') {
      await sleep(10);
    } else if ('corrupt' in owner) {
      throw new FolderLockedError(
        `The lock file ${file} cannot be read (${owner.corrupt}). If no arc-studio server is using ${dataDir}, delete that file and start again.`,
        null,
      );
    } else if (ownerAlive(owner)) {
      throw lockedError(dataDir, file, owner, me);
    } else {
      await removeStale(file, guard, owner.token, me);
    }
    if (Date.now() > deadline) {
      throw new FolderLockedError(
        `Could not take the lock ${file} within ${ACQUIRE_TIMEOUT_MS / 1000} s: other processes keep taking and releasing it. Make sure one server at a time uses ${dataDir}.`,
        null,
      );
    }
  }
}

/** Removes the stale lock with `token`, under the takeover file so that one process does it. */
async function removeStale(file: string, guard: string, token: string, me: LockOwner): Promise<void> {
  if (!createExclusive(guard, me)) {
    const g = readOwner(guard);
    // A takeover file whose process died (inside the takeover) would block everyone: remove it.
    if (typeof g === 'object' && 'token' in g && !ownerAlive(g)) removeIfToken(guard, g.token);
    else if (typeof g === 'object' && 'corrupt' in g) {
      try {
        unlinkSync(guard);
      } catch {
        /* removed by another process */
      }
    }
    await sleep(5 + Math.random() * 20);
    return;
  }
  try {
    removeIfToken(file, token);
  } finally {
    unlinkSync(guard);
  }
}
