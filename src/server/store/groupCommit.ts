/**
 * Group commit: writes that arrive while the database is busy are merged into one statement per
 * group, so that under load the database sees few large statements instead of many small ones,
 * and each caller is still answered only once its own write is committed. The events of many
 * sessions (`appendEvents`) and the steps of many runs (`addGameSteps`) are written this way.
 */
import { databaseUnavailable } from './unavailable';

/** One caller's write waiting for its group. */
export interface GroupMember {
  /**
   * Members with the same key never share a group (one batch per session, one batch of steps
   * per run), and a member waits while a group holding its key is in flight: writes of one key are
   * committed in the order they arrived.
   */
  readonly key: string;
  reject(e: unknown): void;
}

export interface GroupCommitOptions<M extends GroupMember> {
  /** Groups in flight at once: PGlite runs one statement at a time anyway; PostgreSQL gets a few. */
  readonly parallel: number;
  /** Most members in one group. */
  readonly max: number;
  /** Writes one group in one statement and answers each member (resolving or rejecting it). */
  readonly run: (group: readonly M[]) => Promise<void>;
}

export class GroupCommit<M extends GroupMember> {
  private readonly pending: M[] = [];
  /** Keys of the members of the groups in flight. */
  private readonly busy = new Set<string>();
  private flushes = 0;
  private scheduled = false;

  constructor(private readonly opts: GroupCommitOptions<M>) {}

  add(member: M): void {
    this.pending.push(member);
    this.pump();
  }

  /**
   * Starts the next group on the next turn of the event loop, so that every request that arrived
   * meanwhile joins it. WARNING: PGlite runs a statement synchronously on this thread; flushing
   * at once would give each request a statement of its own and saturate the thread under load.
   */
  private pump(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.flushes < this.opts.parallel && this.pending.length) {
      const group: M[] = [];
      const taken = new Set<string>();
      for (let i = 0; i < this.pending.length && group.length < this.opts.max;) {
        const m = this.pending[i];
        if (taken.has(m.key) || this.busy.has(m.key)) {
          i++;
          continue;
        }
        taken.add(m.key);
        group.push(m);
        this.pending.splice(i, 1);
      }
      // Every member waiting has a write of its key in flight: the next group starts when one lands.
      if (group.length === 0) return;
      for (const key of taken) this.busy.add(key);
      this.flushes++;
      void this.flush(group).finally(() => {
        for (const key of taken) this.busy.delete(key);
        this.flushes--;
        this.pump();
      });
    }
  }

  /**
   * Runs one group. If the statement fails (a member the database refuses), each member is run
   * again alone, so that only the write at fault fails and every other caller gets its answer.
   */
  private async flush(group: readonly M[]): Promise<void> {
    try {
      await this.opts.run(group);
    } catch (e) {
      // Without a database no member can succeed alone: each caller gets the 503 at once.
      if (group.length === 1 || databaseUnavailable(e)) {
        for (const m of group) m.reject(e);
        return;
      }
      for (const m of group) await this.flush([m]);
    }
  }
}

/**
 * A group commit as the stores run theirs on a back end: PGlite runs one statement at a time, so
 * one group in flight; PostgreSQL gets a few. At most 256 members in a group.
 */
export function storeGroupCommit<M extends GroupMember>(
  kind: 'pglite' | 'postgres',
  run: (group: readonly M[]) => Promise<void>,
): GroupCommit<M> {
  return new GroupCommit({ parallel: kind === 'pglite' ? 1 : 4, max: 256, run });
}
