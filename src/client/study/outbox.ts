/**
 * The study session's outbox: every event is written to the browser's storage first, then sent
 * to the server in batches, retried with exponential backoff and jitter until the server
 * acknowledges it. Nothing is dropped: a closed tab, a dropped network or a restarted server only
 * delay delivery, and a reloaded page sends what is left. The server stores each `(session, seq)`
 * once, so resending is always safe.
 *
 * Lifecycle: `open` or `create` makes an outbox that is idle; `start()` adds its page listeners
 * (`online`, `pagehide`, a hidden tab) and begins sending; `dispose()` removes them, stops every
 * timer and rejects whoever still waits in `drained()`. Events appended after `dispose()` are
 * still stored, and a later page load sends them.
 *
 * WARNING: when the server refuses the session (a 4xx other than 408/429), retrying cannot help:
 * the outbox becomes fatal, stops sending and `drained()` rejects with an `OutboxFatalError`.
 * The events stay in storage; `log()` gives them to the participant.
 */
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { LogEvent } from '../../core/log/events';
import type { EventBatchBody } from '../../core/protocol/requests';
import type { EventSink } from '../player/controller';
import { deleteSession, putEvents, putSession, sessionEvents, type StoredSession } from '../log/idb';

export interface OutboxStatus {
  /** Events not yet acknowledged by the server. */
  readonly pending: number;
  /** True after a failed send, until one succeeds. */
  readonly offline: boolean;
  /** A failure that retrying cannot fix (the session was refused), with what to do. */
  readonly fatal: string | null;
  /**
   * Why the server takes no events for now although it is reachable (the study's storage budget
   * is used up: 507), in its own words; sending goes on until it takes them again.
   */
  readonly notice?: string | null;
  readonly ackedThrough: number;
}

/** What the browser keeps about a study session so that a reload resumes it. */
export interface StudySessionRecord extends StoredSession {
  readonly studyId: string;
  readonly token: string;
  /** Wall-clock ms at the session's start in this browser: `t` of later page loads counts from it. */
  readonly startedAtMs: number;
  readonly ackedThrough: number;
  /**
   * The participant the study link named when the session began (`PROLIFIC_PID`, else
   * `workerId`; empty when it named none); a link naming someone else starts a session of its own.
   */
  readonly participant?: string;
}

/** Where the outbox keeps sessions and events: IndexedDB in the browser (`indexedDbStorage`). */
export interface OutboxStorage {
  putSession(record: StudySessionRecord): Promise<void>;
  putEvents(sessionId: string, events: readonly LogEvent[]): Promise<void>;
  /** The session's stored events in seq order. */
  sessionEvents(sessionId: string): Promise<LogEvent[]>;
  /** Deletes the session's record and events (`Outbox.forget`). */
  deleteSession(sessionId: string): Promise<void>;
}

export const indexedDbStorage: OutboxStorage = {
  putSession,
  putEvents: (sessionId, events) => putEvents(events.map((e) => ({ ...e, session: sessionId }))),
  sessionEvents,
  deleteSession,
};

/** The page events the outbox listens to; the page's own `window` and `document` by default. */
export interface OutboxPage {
  readonly window: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  readonly document: Pick<EventTarget, 'addEventListener' | 'removeEventListener'> & {
    readonly visibilityState: DocumentVisibilityState;
  };
}

export interface OutboxOptions {
  readonly batchSize?: number;
  /** How long an event may wait for companions before a batch is sent, ms. */
  readonly delayMs?: number;
  readonly maxBackoffMs?: number;
  readonly storage?: OutboxStorage;
  readonly page?: OutboxPage;
  /** Prefix of the API's URLs: empty in the browser (same origin), `http://host:port` elsewhere. */
  readonly baseUrl?: string;
}

/** What a page knows of a session it has just created on the server. */
export type NewSession = Omit<StudySessionRecord, 'ackedThrough' | 'startedAt' | 'label' | 'startedAtMs'>;

/** `drained()` rejects with this once the server has refused the session. */
export class OutboxFatalError extends Error {
  override readonly name = 'OutboxFatalError';
}

/** `drained()` rejects with this when the outbox is disposed before the server has everything. */
export class OutboxDisposedError extends Error {
  override readonly name = 'OutboxDisposedError';
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
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private started = false;
  private disposed = false;
  private readonly batchSize: number;
  private readonly delayMs: number;
  private readonly maxBackoffMs: number;
  private readonly storage: OutboxStorage;
  private readonly page: OutboxPage | null;
  private readonly baseUrl: string;

  private constructor(
    private record: StudySessionRecord,
    history: readonly LogEvent[],
    opts: OutboxOptions,
  ) {
    this.batchSize = opts.batchSize ?? 50;
    this.delayMs = opts.delayMs ?? 1000;
    this.maxBackoffMs = opts.maxBackoffMs ?? 30_000;
    this.storage = opts.storage ?? indexedDbStorage;
    this.page = opts.page ?? (typeof window === 'undefined' ? null : { window, document });
    this.baseUrl = opts.baseUrl ?? '';
    const last = history[history.length - 1];
    this.nextSeq = last ? last.seq + 1 : 0;
    this.lastT = last ? last.t : 0;
    this.tBase = Math.max(this.lastT, Date.now() - record.startedAtMs);
    this.unacked = history.filter((e) => e.seq > record.ackedThrough);
    this.status = create<OutboxStatus>(() => ({
      pending: this.unacked.length,
      offline: false,
      fatal: null,
      ackedThrough: record.ackedThrough,
    }));
  }

  /** Opens the outbox of a session: its earlier events come from storage. Call `start()` to send. */
  static async open(
    record: StudySessionRecord,
    opts: OutboxOptions = {},
  ): Promise<{ outbox: Outbox; history: LogEvent[] }> {
    const history = await (opts.storage ?? indexedDbStorage).sessionEvents(record.id);
    return { outbox: new Outbox(record, history, opts), history };
  }

  /** Keeps a new session's record in storage, for `open` to open now and after any reload. */
  static async saveNew(init: NewSession, storage: OutboxStorage = indexedDbStorage): Promise<StudySessionRecord> {
    const now = Date.now();
    const record: StudySessionRecord = {
      ...init,
      label: `study ${init.studyId}`,
      startedAt: new Date(now).toISOString(),
      startedAtMs: now,
      ackedThrough: -1,
    };
    await storage.putSession(record);
    return record;
  }

  /** Starts a new session record in storage and its outbox. Call `start()` to send. */
  static async create(init: NewSession, opts: OutboxOptions = {}): Promise<Outbox> {
    return new Outbox(await Outbox.saveNew(init, opts.storage), [], opts);
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

  /**
   * What the server holds, as its session view says (`ackedThrough`): events sent as the last page
   * closed may have reached it without this browser keeping them (the page went before storage
   * wrote them). They count as acknowledged, and new events are numbered after them, so a seq the
   * server already holds is never given to another event. Call before appending on a page load.
   */
  adoptServerAck(ackedThrough: number): void {
    this.acknowledge(ackedThrough);
    if (ackedThrough >= this.nextSeq) this.nextSeq = ackedThrough + 1;
  }

  /** Milliseconds since the session started, on the clock that stamps events. */
  now(): number {
    return Math.max(this.lastT, Math.round((this.tBase + performance.now() - this.pageT0) * 1000) / 1000);
  }

  /** Adds the page listeners and begins sending. Does nothing if started or disposed. */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    if (this.page) {
      this.page.window.addEventListener('online', this.onOnline);
      this.page.window.addEventListener('pagehide', this.onPageHide);
      this.page.document.addEventListener('visibilitychange', this.onVisibility);
    }
    if (this.unacked.length) this.schedule(0);
  }

  /**
   * Removes the page listeners and timers; `drained()` waiters are rejected with
   * `OutboxDisposedError`. Events appended afterwards are stored, not sent. Idempotent.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.page && this.started) {
      this.page.window.removeEventListener('online', this.onOnline);
      this.page.window.removeEventListener('pagehide', this.onPageHide);
      this.page.document.removeEventListener('visibilitychange', this.onVisibility);
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.settleWaiters(
      new OutboxDisposedError(
        'The study page closed before every action reached the server; they are kept in this browser and sent when the study link is opened again.',
      ),
    );
  }

  /**
   * Sends what is left, then disposes: for a page that moves on from a session while it stays
   * open (a playtest recorded elsewhere). Disposes at once if the server refuses the session.
   */
  close(): Promise<void> {
    return this.drained()
      .catch(() => {})
      .finally(() => this.dispose());
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

  /**
   * Resolves once every event appended so far is acknowledged by the server. Rejects with
   * `OutboxFatalError` if the server refuses the session (at once if it already has), and with
   * `OutboxDisposedError` if the outbox is disposed first.
   */
  drained(): Promise<void> {
    const fatal = this.status.getState().fatal;
    if (fatal) return Promise.reject(new OutboxFatalError(fatal));
    if (this.unacked.length === 0) return Promise.resolve();
    if (this.disposed)
      return Promise.reject(new OutboxDisposedError('The outbox is closed; its events are kept in this browser.'));
    this.schedule(0);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * Deletes the session and its events from this browser, once the server has every one of them:
   * a shared machine (a testing centre's station) keeps nothing of a participant who has left.
   * Disposes the outbox. Refuses, keeping everything, while an event is not acknowledged.
   */
  async forget(): Promise<void> {
    if (this.unacked.length)
      throw new Error(
        `${this.unacked.length} events of this session are not on the server yet, so they are kept in this browser; they are sent when the connection returns.`,
      );
    this.dispose();
    await this.saving;
    await this.storage.deleteSession(this.record.id);
  }

  /** Every event of the session this browser has (stored, and any that storage refused). */
  async log(): Promise<LogEvent[]> {
    const stored = await this.storage.sessionEvents(this.record.id).catch(() => [] as LogEvent[]);
    const bySeq = new Map(stored.map((e) => [e.seq, e]));
    for (const e of [...this.unacked, ...this.unsaved]) bySeq.set(e.seq, e);
    return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }

  private readonly onOnline = () => {
    this.failures = 0;
    this.schedule(0);
  };
  private readonly onPageHide = () => this.sendKeepalive();
  private readonly onVisibility = () => {
    if (this.page?.document.visibilityState === 'hidden') this.sendKeepalive();
  };

  /** Writes unsaved events to storage; sending waits for this, so nothing is sent unsaved. */
  private save(): Promise<void> {
    if (this.saving) return this.saving.then(() => (this.unsaved.length ? this.save() : undefined));
    const batch = this.unsaved;
    if (!batch.length) return Promise.resolve();
    this.unsaved = [];
    this.saving = this.storage
      .putEvents(this.record.id, batch)
      .catch(() => {
        // Storage refused (private mode, quota): the events stay in memory and are still sent.
      })
      .finally(() => {
        this.saving = null;
      });
    return this.saving;
  }

  private schedule(ms: number): void {
    if (!this.started || this.disposed) return;
    if (this.timer !== null) {
      if (ms > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.pump();
    }, ms);
  }

  private async pump(): Promise<void> {
    if (this.inflight || this.disposed || this.status.getState().fatal) return;
    if (this.unacked.length === 0) {
      this.settleWaiters(null);
      return;
    }
    this.inflight = true;
    let retryAfterMs = 0;
    try {
      await this.save();
      const batch = this.unacked.slice(0, this.batchSize);
      const res = await fetch(this.eventsUrl(), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.record.token}` },
        body: JSON.stringify({ events: batch } satisfies EventBatchBody),
      });
      if (res.ok) {
        const body = (await res.json()) as { ackedThrough: number };
        this.acknowledge(body.ackedThrough);
        this.failures = 0;
        this.status.setState({ offline: false, notice: null });
      } else if (res.status >= 500 || res.status === 429 || res.status === 408) {
        // A server at capacity (503) or a session over its rate (429) says when to come back.
        retryAfterMs = 1000 * (Number(res.headers.get('Retry-After')) || 0);
        if (res.status === 507) {
          const body = (await res.json().catch(() => null)) as { message?: string } | null;
          this.status.setState({
            notice:
              body?.message ??
              'The server takes no more data of this study for now; your work is kept in this browser. Please tell the researcher.',
          });
        }
        throw new Error(`server answered ${res.status}`);
      } else {
        const body = (await res.json().catch(() => null)) as { message?: string } | null;
        const fatal = `The server refused this session's data (${res.status}: ${body?.message ?? res.statusText}). Everything you did is kept in this browser: download it (Download your actions) and send the file to the researcher.`;
        this.status.setState({ fatal, offline: false });
        this.settleWaiters(new OutboxFatalError(fatal));
        return;
      }
    } catch {
      this.failures++;
      this.status.setState({ offline: true });
    } finally {
      this.inflight = false;
    }
    if (this.unacked.length === 0) this.settleWaiters(null);
    else if (this.failures === 0) this.schedule(this.unacked.length >= this.batchSize ? 0 : this.delayMs);
    else {
      // Exponential backoff with full jitter, so that many browsers do not retry in step.
      const cap = Math.min(this.maxBackoffMs, 500 * 2 ** Math.min(this.failures, 10));
      this.schedule(Math.max(200, Math.random() * cap, retryAfterMs + Math.random() * 1000));
    }
  }

  private eventsUrl(): string {
    return `${this.baseUrl}/api/sessions/${encodeURIComponent(this.record.id)}/events`;
  }

  private acknowledge(ackedThrough: number): void {
    if (ackedThrough <= this.record.ackedThrough) return;
    this.record = { ...this.record, ackedThrough };
    this.unacked = this.unacked.filter((e) => e.seq > ackedThrough);
    this.status.setState({ pending: this.unacked.length, ackedThrough });
    void this.storage.putSession(this.record).catch(() => {});
  }

  /** Resolves every `drained()` waiter, or rejects them all with `error`. */
  private settleWaiters(error: Error | null): void {
    const w = this.waiters;
    this.waiters = [];
    for (const { resolve, reject } of w) {
      if (error) reject(error);
      else resolve();
    }
  }

  /**
   * The page is going away: hand what fits to the browser to deliver even after unload. Sent
   * after the current event's other listeners ran, so an event they log (a `visibility`) goes too.
   */
  private sendKeepalive(): void {
    queueMicrotask(() => {
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
      fetch(this.eventsUrl(), {
        method: 'POST',
        keepalive: true,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.record.token}` },
        body: JSON.stringify({ events: batch } satisfies EventBatchBody),
      })
        .then(async (res) => {
          if (res.ok) this.acknowledge(((await res.json()) as { ackedThrough: number }).ackedThrough);
        })
        .catch(() => {});
    });
  }
}
