/**
 * Agents' steps written behind their answers, in batches a few times a second (a database not
 * shared with other servers; on a shared one each step is stored before it is answered).
 */
import type { AgentStepRecord, AgentStore } from '../store/types';

/** Steps wait at most this long before they are written. */
const FLUSH_MS = 200;

/** The steps waiting to be written, and the batch being written. */
export class AgentStepWriter {
  private pending: AgentStepRecord[] = [];

  private flushTimer: NodeJS.Timeout | null = null;

  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: AgentStore,
    private readonly log: (line: string) => void,
  ) {}

  /** Queues a step: it is written within `FLUSH_MS`. */
  add(step: AgentStepRecord): void {
    this.pending.push(step);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      void this.flush().catch((e: Error) => this.log(`Agent steps could not be stored: ${e.message}`));
    }, FLUSH_MS);
  }

  /** Writes the steps waiting to be stored. */
  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const next = this.flushing.then(async () => {
      for (let i = 0; i < batch.length; i += 2000) await this.store.addAgentSteps(batch.slice(i, i + 2000));
    });
    this.flushing = next.catch(() => undefined);
    return next;
  }

  /** Stops the timer and writes what waits. */
  async stop(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.flush().catch((e: Error) => this.log(`Agent steps could not be stored: ${e.message}`));
  }
}
