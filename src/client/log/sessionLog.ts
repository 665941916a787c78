/**
 * The event log of one browser session: assigns `seq` and `t`, keeps the events in memory for the
 * page, and writes them to IndexedDB in small batches so that a closed tab loses nothing written.
 */
import type { LogEvent } from '../../core/log/events';
import { toJsonl } from '../../core/log/events';
import { putEvents, putSession, type StoredEvent } from './idb';

export type LogListener = (e: LogEvent) => void;

export class SessionLog {
  readonly id: string;
  /** `performance.now()` at the session's start: every `t` is measured from here. */
  readonly t0: number;
  readonly startedAt: string;
  private seq = 0;
  private readonly all: LogEvent[] = [];
  private pending: StoredEvent[] = [];
  private flushing: Promise<void> | null = null;
  private readonly listeners = new Set<LogListener>();
  /** The last storage error, shown to the user; events stay in memory and are retried. */
  storageError: string | null = null;

  constructor(label: string) {
    this.id = crypto.randomUUID();
    this.t0 = performance.now();
    this.startedAt = new Date().toISOString();
    putSession({ id: this.id, startedAt: this.startedAt, label }).catch((e: Error) => {
      this.storageError = e.message;
    });
  }

  /** Appends one event now and returns it. */
  append(kind: string, data: Record<string, unknown>): LogEvent {
    // Kept to the microsecond; the clock itself is coarser: performance.now() is rounded to
    // 100 µs in Chromium (the server sends no cross-origin isolation headers) and 1 ms in Firefox.
    const t = Math.round((performance.now() - this.t0) * 1000) / 1000;
    const e: LogEvent = { seq: this.seq++, t, kind, data };
    this.all.push(e);
    this.pending.push({ ...e, session: this.id });
    this.scheduleFlush();
    for (const l of this.listeners) l(e);
    return e;
  }

  events(): readonly LogEvent[] {
    return this.all;
  }

  subscribe(l: LogListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  toJsonl(): string {
    return toJsonl(this.all);
  }

  /** Writes what is pending; resolves once it is in IndexedDB. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.pending.length ? this.flush() : undefined));
    const batch = this.pending;
    if (batch.length === 0) return Promise.resolve();
    this.pending = [];
    this.flushing = putEvents(batch)
      .then(() => {
        this.storageError = null;
      })
      .catch((e: Error) => {
        this.pending = batch.concat(this.pending);
        this.storageError = `Could not save the action log in this browser (${e.message}). It is kept in memory: download it before closing the tab.`;
      })
      .finally(() => {
        this.flushing = null;
      });
    return this.flushing;
  }

  private scheduled = false;
  private scheduleFlush(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.flush();
    });
  }
}

/** Offers `text` as a file download. */
export function downloadText(fileName: string, text: string, type = 'application/x-ndjson'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
