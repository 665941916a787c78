/**
 * The session digests this process last computed or read, with their folds, kept in memory per
 * store (`digestCache(store)`), so that a refresh of a live study reads neither the study's
 * stored digests nor their folds back from the database: on PGlite every statement of a refresh
 * waits behind the participants' writes, and reading back a thousand digests and folds cost the
 * refresh (and the participants) more than the events that arrived since.
 *
 * What is kept is only ever a copy of what was stored: an entry's key says which log, submissions
 * and study version it digests, exactly as the stored row's does, so an entry is used only where
 * the stored row would be (same key: read back; an older key of the same basis: extended by the
 * events after it). Another server may store newer digests of the same sessions meanwhile: an
 * older entry is still a true digest of the log up to its key, and extending it costs only the
 * longer tail.
 *
 * A study is `complete` once every stored digest of its sessions has been read into memory:
 * from then on a refresh does not read them again, and a session without an entry is one no
 * digest was stored for (or one another server digested: computed again from its log, which is
 * correct and only slower). Entries are dropped oldest-used first past the size budget
 * (`ARC_STUDIO_DIGEST_CACHE_MB`, default 256), and a study that loses an entry is no longer
 * complete. Refreshes of one study run one at a time (`exclusive`), since an extension folds
 * the kept fold in place; a refresh that fails drops the study's entries.
 */
import type { SessionDigest } from '../../core/analysis/results';
import type { DigestFold } from '../../core/analysis/fold';
import type { DigestStore } from '../store/types';

export interface CachedDigest {
  readonly studyId: string;
  readonly key: string;
  readonly digest: SessionDigest;
  /** The fold the digest was finished from, null when only the digest was read back. */
  readonly fold: DigestFold | null;
}

/** Default budget of the kept digests, in MiB of their estimated size. */
export const DIGEST_CACHE_MB = 256;

/** The budget from `ARC_STUDIO_DIGEST_CACHE_MB` (0 keeps nothing); throws a message naming a bad value. */
export function digestCacheBytesFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ARC_STUDIO_DIGEST_CACHE_MB;
  if (raw === undefined || raw === '') return DIGEST_CACHE_MB * 1024 * 1024;
  const mb = Number(raw);
  if (!Number.isInteger(mb) || mb < 0 || mb > 1_000_000)
    throw new Error(
      `ARC_STUDIO_DIGEST_CACHE_MB=${raw} is not a whole number of MiB from 0 to 1000000; unset it (${DIGEST_CACHE_MB} MiB) or give one, e.g. ARC_STUDIO_DIGEST_CACHE_MB=512 (0 keeps no digest in memory).`,
    );
  return mb * 1024 * 1024;
}

/**
 * A rough size of an entry in bytes: a fixed part for the digest and the fold's counters, plus
 * the events a fold keeps for game and question items (the part that grows with a log).
 */
function estimateBytes(digest: SessionDigest, fold: DigestFold | null): number {
  let events = 0;
  if (fold) for (const item of Object.values(fold.items)) events += item.events?.length ?? 0;
  const items =
    Object.keys(digest.tasks ?? {}).length +
    Object.keys(digest.games ?? {}).length +
    Object.keys(digest.questions ?? {}).length;
  return 2_048 + items * 1_024 + events * 320;
}

export class DigestCache {
  /** By session id, least recently used first (a Map keeps insertion order; a use moves an entry last). */
  private readonly entries = new Map<string, CachedDigest & { bytes: number }>();
  private readonly completeStudies = new Set<string>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  /** Whether every stored digest of the study is in memory (see the module comment). */
  isComplete(studyId: string): boolean {
    return this.completeStudies.has(studyId);
  }

  get(sessionId: string): CachedDigest | undefined {
    const e = this.entries.get(sessionId);
    if (!e) return undefined;
    this.entries.delete(sessionId);
    this.entries.set(sessionId, e);
    return e;
  }

  /** Keeps a digest (and its fold) just stored or read back for a session of `studyId`. */
  set(sessionId: string, studyId: string, key: string, digest: SessionDigest, fold: DigestFold | null): void {
    if (this.budget === 0) return;
    const old = this.entries.get(sessionId);
    if (old) {
      this.entries.delete(sessionId);
      this.bytes -= old.bytes;
    }
    const bytes = estimateBytes(digest, fold);
    this.entries.set(sessionId, { studyId, key, digest, fold, bytes });
    this.bytes += bytes;
    while (this.bytes > this.budget && this.entries.size > 0) {
      const [id, e] = this.entries.entries().next().value!;
      this.entries.delete(id);
      this.bytes -= e.bytes;
      this.completeStudies.delete(e.studyId);
    }
  }

  /**
   * Keeps every stored digest of a study read back from the database; the study is complete
   * when all of them fitted in the budget.
   */
  setStored(studyId: string, stored: ReadonlyMap<string, { key: string; digest: unknown }>): void {
    if (this.budget === 0) return;
    // An entry kept already is as new as anything this process stored (a newer row stored by
    // another server since only makes the entry's extension longer): it stays, with its fold.
    for (const [sessionId, { key, digest }] of stored)
      if (!this.entries.has(sessionId)) this.set(sessionId, studyId, key, digest as SessionDigest, null);
    // Entries dropped for the budget while these were added leave the study incomplete.
    if ([...stored.keys()].every((id) => this.entries.has(id))) this.completeStudies.add(studyId);
  }

  /** Forgets a study's entries (a refresh failed part-way, or its sessions were deleted). */
  dropStudy(studyId: string): void {
    this.completeStudies.delete(studyId);
    for (const [id, e] of this.entries) {
      if (e.studyId !== studyId) continue;
      this.entries.delete(id);
      this.bytes -= e.bytes;
    }
  }

  /** Runs `work` on a study's digests after every earlier one on the same study has ended; a failure drops the study's entries. */
  exclusive<T>(studyId: string, work: () => Promise<T>): Promise<T> {
    const before = this.locks.get(studyId) ?? Promise.resolve();
    const mine = before.then(async () => {
      try {
        return await work();
      } catch (e) {
        this.dropStudy(studyId);
        throw e;
      }
    });
    const tail = mine.catch(() => {});
    this.locks.set(studyId, tail);
    void tail.then(() => {
      if (this.locks.get(studyId) === tail) this.locks.delete(studyId);
    });
    return mine;
  }

  /** Entries and estimated bytes kept (for tests and benchmarks). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

const caches = new WeakMap<DigestStore, DigestCache>();

/** The digest cache of this store (one per store object, made on first use). */
export function digestCache(store: DigestStore): DigestCache {
  let c = caches.get(store);
  if (!c) caches.set(store, (c = new DigestCache(digestCacheBytesFromEnv(process.env))));
  return c;
}
