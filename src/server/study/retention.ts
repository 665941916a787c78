/**
 * The retention job: every few minutes each server asks the database for the sessions whose
 * study's retention period is over (`store.retention`) and replaces their participant
 * identifiers by pseudonyms, one batch per transaction, one server at a time. A pseudonym is a
 * keyed hash (HMAC-SHA-256) of the identifier under a key kept outside the database (the data
 * folder, or `ARC_STUDIO_PSEUDONYM_KEY`), so the same person gets the same pseudonym in every
 * study and on every server that shares the key, and the database alone does not tell who it was.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Pseudonym } from '../../core/study/retention';
import type { SecretStore } from '../store/types';
import type { RetentionStore } from '../store/retentionStore';

/** How often the job looks for sessions due, by default: every 10 minutes. */
export const RETENTION_EVERY_MS = 10 * 60_000;
/** Sessions pseudonymised per transaction. */
const BATCH = 200;
/** The key file's name in the data folder. */
export const PSEUDONYM_KEY_FILE = 'pseudonym-key';

/**
 * The pseudonym key: `ARC_STUDIO_PSEUDONYM_KEY` (at least 32 characters), else the data folder's
 * `pseudonym-key`, made on first use. Servers sharing a database must share it (the env).
 * @throws Error for a key too short to keep identifiers from being guessed.
 */
export function pseudonymKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const fromEnv = env.ARC_STUDIO_PSEUDONYM_KEY?.trim();
  if (fromEnv) {
    if (fromEnv.length < 32)
      throw new Error(
        'ARC_STUDIO_PSEUDONYM_KEY is shorter than 32 characters; use a long random value (e.g. "openssl rand -hex 32").',
      );
    return Buffer.from(fromEnv, 'utf8');
  }
  const file = path.join(dataDir, PSEUDONYM_KEY_FILE);
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (key.length < 32)
      throw new Error(
        `${file} holds no usable pseudonym key. Put back the key it held (pseudonyms made since depend on it), or set ARC_STUDIO_PSEUDONYM_KEY.`,
      );
    return Buffer.from(key, 'utf8');
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('hex');
  writeFileSync(file, key + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return Buffer.from(key, 'utf8');
}

/**
 * The pseudonym of an identifier under `key`: `ps-` and 24 hex digits (96 bits) of its HMAC-SHA-256.
 * @example pseudonymOf(key)('5f0c...') // 'ps-9b1d3c...'
 */
export function pseudonymOf(key: Uint8Array): Pseudonym {
  return (identifier) => `ps-${createHmac('sha256', key).update(identifier, 'utf8').digest('hex').slice(0, 24)}`;
}

/** What tells two keys apart without telling either: the HMAC of a fixed text. */
const fingerprint = (key: Uint8Array) =>
  createHmac('sha256', key).update('arc-studio pseudonym key').digest('hex').slice(0, 16);

export interface RetentionOptions {
  /** How often to look for sessions due, ms (default {@link RETENTION_EVERY_MS}). */
  readonly everyMs?: number;
  readonly now?: () => number;
  readonly log?: (line: string) => void;
}

/** The job of one server; any number of servers on one database run it, and each batch is done by one. */
export class RetentionJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private refused = false;
  private readonly pseudonym: Pseudonym;

  constructor(
    private readonly store: { readonly retention: RetentionStore } & SecretStore,
    private readonly key: Uint8Array,
    private readonly opts: RetentionOptions = {},
  ) {
    this.pseudonym = pseudonymOf(key);
  }

  /** Runs now, then every `everyMs`. */
  start(): void {
    const every = this.opts.everyMs ?? RETENTION_EVERY_MS;
    this.timer = setInterval(() => void this.runOnce(), every);
    this.timer.unref();
    void this.runOnce();
  }

  /**
   * Pseudonymises every session due now, batch after batch: how many this server did. A run
   * already under way is waited for instead of starting another.
   */
  runOnce(): Promise<number> {
    if (this.running) return this.running.then(() => 0);
    let done = 0;
    const run = (async () => {
      if (!(await this.sameKey())) return;
      for (;;) {
        const n = await this.store.retention.pseudonymiseDue(this.now(), this.pseudonym, BATCH);
        // null: another server holds the job; it goes on where this one would have.
        if (n === null || n === 0) break;
        done += n;
      }
      if (done) this.log(`Retention: ${done} session${done === 1 ? '' : 's'} pseudonymised.`);
    })()
      .catch((e: unknown) => this.log(`Retention: the job failed and will try again: ${(e as Error).message}`))
      .finally(() => {
        this.running = null;
      });
    this.running = run;
    return run.then(() => done);
  }

  /** Stops the timer and waits for a run under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Whether this server's key is the one the database's first server recorded (else it does nothing, and says so once). */
  private async sameKey(): Promise<boolean> {
    const mine = fingerprint(this.key);
    const theirs = await this.store.secret('pseudonym-key-fingerprint', () => mine);
    if (theirs === mine) return true;
    if (!this.refused)
      this.log(
        'Retention: this server\'s pseudonym key is not the one the other servers of this database use, so it pseudonymises nothing (the same person would get two pseudonyms). Give every server the same ARC_STUDIO_PSEUDONYM_KEY (docs/deploy.md, "Retention").',
      );
    this.refused = true;
    return false;
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private log(line: string): void {
    this.opts.log?.(line);
  }
}

/** `ARC_STUDIO_RETENTION_EVERY_MS`: how often the job looks, from 100 ms; the default when unset. */
export function retentionEveryFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.ARC_STUDIO_RETENTION_EVERY_MS?.trim();
  if (!v) return RETENTION_EVERY_MS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 100)
    throw new Error(`ARC_STUDIO_RETENTION_EVERY_MS must be a whole number of milliseconds from 100, not "${v}".`);
  return n;
}
