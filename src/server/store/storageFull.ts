/**
 * A full disk is a state of the server, not a hang: writes are answered 503 `storage_full` with
 * `Retry-After` (the participant's page keeps its data and sends it again), `/api/health` reports
 * it, the log says it once with what to do, and writing resumes by itself when space returns.
 *
 * WARNING: PGlite must never meet a full disk while it writes its write-ahead log. Creating a WAL
 * segment (16 MiB) on a full disk fails with "could not write to file pg_wal/xlogtemp...", and the
 * next statement then spins inside the WebAssembly engine for good: the event loop stops, so no
 * request, not even `/api/health`, is answered again, and freeing space does not bring it back
 * (measured with PGlite 0.5 on a small tmpfs). So on PGlite the server keeps a reserve free on its
 * data folder's disk ({@link DEFAULT_RESERVE_BYTES}): once the free space is under it, statements
 * that write are refused before they reach PGlite, and a room of more than a WAL segment is left
 * for what was under way. PostgreSQL answers a full disk itself (SQLSTATE 53100 `disk_full`,
 * "could not extend file ... No space left on device"), and its refusals are answered the same way.
 */
import { statfs } from 'node:fs/promises';

/** Seconds a client waits before sending again a request refused because the disk was full. */
export const STORAGE_RETRY_AFTER_S = 10;

/** Space kept free on PGlite's disk by default: four WAL segments. */
export const DEFAULT_RESERVE_BYTES = 64 * 1024 * 1024;

/** On PostgreSQL, how long writes must have stopped failing for want of space before the disk counts as having room, ms. */
const QUIET_MS = 5_000;

/** How often the free space of PGlite's disk is measured, ms. */
const MEASURE_EVERY_MS = 250;

/** A write was refused for want of disk space. Nothing of it was stored. */
export class StorageFullError extends Error {
  readonly code = 'storage_full';
  constructor(cause: unknown) {
    super(`The database's disk is full: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StorageFullError';
  }
}

/** True for an error that says a disk is full: ENOSPC, or PostgreSQL's SQLSTATE 53100 (`disk_full`). */
export function isDiskFull(e: unknown): boolean {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === '53100' || code === 'storage_full') return true;
    if (/No space left on device|could not extend file/.test(cur.message)) return true;
  }
  return false;
}

/** The `StorageFullError` in `e` or its causes, if any. */
export function storageFull(e: unknown): StorageFullError | null {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    if (cur instanceof StorageFullError) return cur;
  }
  return null;
}

/** What `/api/health` says of the database's disk. */
export interface StorageReport {
  /** Whether writes are being refused for want of space now. */
  readonly full: boolean;
  /** Since when (ms since the epoch), while full. */
  readonly since?: number;
  /** Free bytes on PGlite's disk as last measured, and the reserve kept free (PGlite only). */
  readonly freeBytes?: number;
  readonly reserveBytes?: number;
  /** What is wrong and what to do, while full. */
  readonly message?: string;
}

export interface StorageWatchOptions {
  /** PGlite's folder, whose disk is measured; absent for PostgreSQL, whose disk the server cannot see. */
  readonly dir?: string;
  /** Bytes kept free on `dir`'s disk. */
  readonly reserveBytes?: number;
  readonly log: (line: string) => void;
  readonly now?: () => number;
}

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;

/**
 * The state of the database's disk for one store. On PGlite it measures the data folder's disk
 * and refuses writes while its free space is under the reserve ({@link StorageWatch.guard}); on
 * PostgreSQL it learns of a full disk from a refused write and of space returned from the next
 * write that succeeds.
 *
 * @example
 * const watch = new StorageWatch({ dir: '/data/db', log: console.error });
 * await watch.start();
 * watch.guard(); // throws StorageFullError while the disk is full
 */
export class StorageWatch {
  private fullSince: number | null = null;
  private message = '';
  private freeBytes: number | undefined;
  private timer: NodeJS.Timeout | null = null;
  private measuring = false;
  private lastFailure = 0;
  readonly reserveBytes: number;
  private readonly now: () => number;

  constructor(private readonly opts: StorageWatchOptions) {
    this.reserveBytes = opts.reserveBytes ?? DEFAULT_RESERVE_BYTES;
    this.now = opts.now ?? Date.now;
  }

  /** Measures the disk now and then every {@link MEASURE_EVERY_MS} (PGlite); nothing for PostgreSQL. */
  async start(): Promise<void> {
    if (!this.opts.dir || this.timer) return;
    await this.measure();
    this.timer = setInterval(() => void this.measure(), MEASURE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Whether the disk is full now (writes refused, by the database or before it). */
  get full(): boolean {
    return this.fullSince !== null;
  }

  /** Whether writes are refused before they reach the database (PGlite under its reserve). */
  get refusing(): boolean {
    return this.opts.dir !== undefined && this.fullSince !== null;
  }

  /** Throws `StorageFullError` while {@link refusing}: called before a statement that writes. */
  guard(): void {
    if (this.refusing) throw new StorageFullError(new Error(this.message));
  }

  /** A statement failed for want of space: the state is full from now (logged once). Returns the error to throw. */
  failed(e: unknown): StorageFullError {
    this.lastFailure = this.now();
    this.enter(
      this.opts.dir
        ? `a write failed for want of space (${(e as Error).message})`
        : `PostgreSQL refused a write for want of space on its disk (${(e as Error).message})`,
    );
    return storageFull(e) ?? new StorageFullError(e);
  }

  /**
   * A statement that writes succeeded: on PostgreSQL, there is space again, once no write has
   * failed for want of it for {@link QUIET_MS} (a small write may fit in a page that has room while
   * the events' inserts still fail, and the state would flap).
   */
  wrote(): void {
    if (this.fullSince !== null && !this.opts.dir && this.now() - this.lastFailure >= QUIET_MS)
      this.leave('PostgreSQL stores writes again');
  }

  report(): StorageReport {
    const measured = this.opts.dir ? { freeBytes: this.freeBytes, reserveBytes: this.reserveBytes } : {};
    if (this.fullSince === null) return { full: false, ...measured };
    return { full: true, since: this.fullSince, ...measured, message: this.message };
  }

  private async measure(): Promise<void> {
    if (this.measuring || !this.opts.dir) return;
    this.measuring = true;
    try {
      const s = await statfs(this.opts.dir);
      const free = s.bavail * s.bsize;
      this.freeBytes = free;
      if (free < this.reserveBytes)
        this.enter(`${mib(free)} free on the disk of ${this.opts.dir}, under the ${mib(this.reserveBytes)} kept free`);
      // Back only with a little more than the reserve, so that writes do not flap at its edge.
      else if (this.fullSince !== null && free >= this.reserveBytes * 1.125)
        this.leave(`${mib(free)} free on the disk of ${this.opts.dir}`);
    } catch {
      // The folder cannot be measured (removed under the server): the next write says what is wrong.
    } finally {
      this.measuring = false;
    }
  }

  private enter(why: string): void {
    if (this.fullSince !== null) return;
    this.fullSince = this.now();
    const where = this.opts.dir
      ? `Free space on the disk of ${this.opts.dir} (or move the data folder to a larger disk), at least ${mib(this.reserveBytes)} (ARC_STUDIO_MIN_FREE_MB)`
      : "Free space on PostgreSQL's disk, or give it a larger one";
    this.message = `The database's disk is full: ${why}. Writes are refused with 503 storage_full and participants' pages keep their data and send it again. ${where}; writing resumes by itself.`;
    this.opts.log(this.message);
  }

  private leave(why: string): void {
    const since = this.fullSince ?? this.now();
    this.fullSince = null;
    this.message = '';
    this.opts.log(
      `The database's disk has room again (${why}): writing resumed after ${Math.round((this.now() - since) / 1000)} s.`,
    );
  }
}

/**
 * Whether a statement may write: anything but a plain read. Used to let reads through while the
 * disk is full; a read that is not recognised is treated as a write, which is safe.
 */
export function mayWrite(sql: string): boolean {
  const head = sql
    .replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)+/, '')
    .slice(0, 16)
    .toUpperCase();
  if (head.startsWith('SELECT') || head.startsWith('SHOW') || head.startsWith('EXPLAIN')) return false;
  if (head.startsWith('WITH')) return /\b(INSERT|UPDATE|DELETE|MERGE)\b/i.test(sql) || /\bFOR\s+UPDATE\b/i.test(sql);
  return true;
}

/** The reserve kept free on PGlite's disk, from `ARC_STUDIO_MIN_FREE_MB` (default 64). */
export function reserveFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ARC_STUDIO_MIN_FREE_MB;
  if (raw === undefined || raw === '') return DEFAULT_RESERVE_BYTES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 32)
    throw new Error(
      `ARC_STUDIO_MIN_FREE_MB=${raw} is not a whole number of MiB of at least 32 (two WAL segments); unset it (64) or give one, e.g. ARC_STUDIO_MIN_FREE_MB=256.`,
    );
  return n * 1024 * 1024;
}
