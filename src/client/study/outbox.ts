/**
 * The study session's outbox: every event is written to IndexedDB first, then sent to the
 * server in batches, retried with exponential backoff and jitter until the server acknowledges
 * it. Nothing is dropped: a closed tab, a dropped network or a restarted server only delay
 * delivery, and a reloaded page sends what is left. The server stores each `(session, seq)` once,
 * so resending is always safe.
 */
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { LogEvent } from '../../core/log/events';
import type { EventSink } from '../player/controller';
import { putEvents, putSession, sessionEvents, type StoredSession } from '../log/idb';

export interface OutboxStatus {
  /** Events not yet acknowledged by the server. */
  readonly pending: number;
  /** True after a failed send, until one succeeds. */
  readonly offline: boolean;
  /** A failure that retrying cannot fix (the session was refused), with what to do. */
  readonly fatal: string | null;
  readonly ackedThrough: number;
}

/** What the browser keeps about a study session so that a reload resumes it. */
export interface StudySessionRecord extends StoredSession {
  readonly studyId: string;
  readonly token: string;
  /** Wall-clock ms at the session's start in this browser: `t` of later page loads counts from it. */
  readonly startedAtMs: number;
  readonly ackedThrough: number;
}

export interface OutboxOptions {
  readonly batchSize?: number;
  /** How long an event may wait for companions before a batch is sent, ms. */
  readonly delayMs?: number;
  readonly maxBackoffMs?: number;
}

const KEEPALIVE_BYTES = 60_000;

export class Outbox implements EventSink {
  readonly status: UseBoundStore<StoreApi<OutboxStatus>>;
  private nextSeq: number;
  private lastT: number;
  private readonly pageT0 = performance.now();
  private readonly tBase: number;
  private unacked: LogEvent[];
  private unsaved: LogEvent[] = [];
  private saving: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inflight = false;
  private failures = 0;
  private waiters: (() => void)[] = [];
  private readonly batchSize: number;
  private readonly delayMs: number;
  private readonly maxBackoffMs: number;

  private constructor(private record: StudySessionRecord, history: readonly LogEvent[], opts: OutboxOptions) {
    this.batchSize = opts.batchSize ?? 50;
    this.delayMs = opts.delayMs ?? 1000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    const last = history[history.length - 1];
    this.nextSeq = last ? last.seq + 1 : 0;
    this.lastT = last ? last.t : 0;
    this.tBase = Math.max(this.lastT, Date.now() - record.startedAtMs);
    this.unacked = history.filter((e) => e.seq > record.ackedThrough);
    this.status = create<OutboxStatus>(() => ({ pending: this.unacked.length, offline: false, fatal: null, ackedThrough: record.ackedThrough }));
    const wake = () => { this.failures = 0; this.schedule(0); };
    window.addEventListener('online', wake);
    window.addEventListener('pagehide', () => this.sendKeepalive());
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') this.sendKeepalive(); });
    if (this.unacked.length) this.schedule(0);
  }

  /** Opens the outbox of a session: its earlier events come from this browser's storage. */
  static async open(record: StudySessionRecord, opts: OutboxOptions = {}): Promise<{ outbox: Outbox; history: LogEvent[] }> {
    const history = await sessionEvents(record.id);
    return { outbox: new Outbox(record, history, opts), history };
  }

  /** Starts a new session record in this browser. */
  static async create(init: Omit<StudySessionRecord, 'ackedThrough' | 'startedAt' | 'label' | 'startedAtMs'>, opts: OutboxOptions = {}): Promise<Outbox> {
    const now = Date.now();
    const record: StudySessionRecord = { ...init, label: `study ${init.studyId}`, startedAt: new Date(now).toISOString(), startedAtMs: now, ackedThrough: -1 };
    await putSession(record);
    return new Outbox(record, [], opts);
  }

  get sessionId(): string {
    return this.record.id;
  }

  /** What this browser keeps about the session (its token included). */
  get session(): StudySessionRecord {
    return this.record;
  }

  /** The seq of the last event appended (-1 before any). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Milliseconds since the session started, on the clock that stamps events. */
  now(): number {
    return Math.max(this.lastT, Math.round((this.tBase + performance.now() - this.pageT0) * 1000) / 1000);
  }

  append(kind: string, data: Record<string, unknown>): LogEvent {
    const t = this.now();
    this.lastT = t;
    const e: LogEvent = { seq: this.nextSeq++, t, kind, data };
    this.unacked.push(e);
    this.unsaved.push(e);
    this.status.setState({ pending: this.unacked.length });
    void this.save();
    this.schedule(this.unacked.length >= this.batchSize ? 0 : this.delayMs);
    return e;
  }

  /** Resolves once every event appended so far is acknowledged by the server. */
  drained(): Promise<void> {
    if (this.unacked.length === 0) return Promise.resolve();
    this.schedule(0);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Writes unsaved events to IndexedDB; sending waits for this, so nothing is sent unsaved. */
  private save(): Promise<void> {
    if (this.saving) return this.saving.then(() => (this.unsaved.length ? this.save() : undefined));
    const batch = this.unsaved;
    if (!batch.length) return Promise.resolve();
    this.unsaved = [];
    this.saving = putEvents(batch.map((e) => ({ ...e, session: this.record.id })))
      .catch(() => {
        // Storage refused (private mode, quota): the events stay in memory and are still sent.
      })
      .finally(() => { this.saving = null; });
    return this.saving;
  }

  private schedule(ms: number): void {
    if (this.timer !== null) {
      if (ms > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => { this.timer = null; void this.pump(); }, ms);
  }

  private async pump(): Promise<void> {
    if (this.inflight || this.status.getState().fatal) return;
    if (this.unacked.length === 0) { this.resolveWaiters(); return; }
    this.inflight = true;
    try {
      await this.save();
      const batch = this.unacked.slice(0, this.batchSize);
      const res = await fetch(`/api/sessions/${encodeURIComponent(this.record.id)}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.record.token}` },
        body: JSON.stringify({ events: batch }),
      });
      if (res.ok) {
        const body = (await res.json()) as { ackedThrough: number };
        this.acknowledge(body.ackedThrough);
        this.failures = 0;
        this.status.setState({ offline: false });
      } else if (res.status >= 500 || res.status === 429 || res.status === 408) {
        throw new Error(`server answered ${res.status}`);
      } else {
        const body = (await res.json().catch(() => null)) as { message?: string } | null;
        this.status.setState({ fatal: `The server refused this session's data (${res.status}): ${body?.message ?? res.statusText}. Your actions are kept in this browser; contact the researcher.` });
        return;
      }
    } catch {
      this.failures++;
      this.status.setState({ offline: true });
    } finally {
      this.inflight = false;
    }
    if (this.unacked.length === 0) this.resolveWaiters();
    else if (this.failures === 0) this.schedule(this.unacked.length >= this.batchSize ? 0 : this.delayMs);
    else {
      // Exponential backoff with full jitter, so that many browsers do not retry in step.
      const cap = Math.min(this.maxBackoffMs, 500 * 2 ** Math.min(this.failures, 10));
      this.schedule(Math.max(200, Math.random() * cap));
    }
  }

  private acknowledge(ackedThrough: number): void {
    if (ackedThrough <= this.record.ackedThrough) return;
    this.record = { ...this.record, ackedThrough };
    this.unacked = this.unacked.filter((e) => e.seq > ackedThrough);
    this.status.setState({ pending: this.unacked.length, ackedThrough });
    void putSession(this.record).catch(() => {});
  }

  private resolveWaiters(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The page is going away: hand what fits to the browser to deliver even after unload. */
  private sendKeepalive(): void {
    void this.save();
    if (this.unacked.length === 0 || this.status.getState().fatal) return;
    const batch: LogEvent[] = [];
    let bytes = 20;
    for (const e of this.unacked) {
      const size = JSON.stringify(e).length + 1;
      if (bytes + size > KEEPALIVE_BYTES || batch.length >= 500) break;
      batch.push(e);
      bytes += size;
    }
    if (!batch.length) return;
    fetch(`/api/sessions/${encodeURIComponent(this.record.id)}/events`, {
      method: 'POST', keepalive: true,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.record.token}` },
      body: JSON.stringify({ events: batch }),
    }).then(async (res) => {
      if (res.ok) this.acknowledge(((await res.json()) as { ackedThrough: number }).ackedThrough);
    }).catch(() => {});
  }
}
