/**
 * The outbox against the real API served over HTTP in this process (PGlite store), with its
 * storage in memory and its page events on plain EventTargets: the browser's IndexedDB and
 * window are the two parts Node lacks, and both sit behind the outbox's narrow interfaces.
 */
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogEvent } from '../../core/log/events';
import { createApi } from '../../server/app';
import { hashToken } from '../../server/people/auth';
import { TaskLibrary } from '../../server/collections/collections';
import { gameIds, loadStudyFiles, replayWithEngine, syncStudyFiles } from '../../server/study/studies';
import { backends } from '../../server/store/testing';
import { StorageWatch } from '../../server/store/storageFull';
import type { Store } from '../../server/store/types';
import {
  Outbox,
  OutboxDisposedError,
  OutboxFatalError,
  type OutboxPage,
  type OutboxStorage,
  type StudySessionRecord,
} from './outbox';
import { studyJudge } from './api';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-outbox-tests-0123456789';

/** Sessions and events kept in memory, as IndexedDB keeps them: one record per id, one event per (session, seq). */
class MemoryStorage implements OutboxStorage {
  readonly sessions = new Map<string, StudySessionRecord>();
  readonly events = new Map<string, Map<number, LogEvent>>();
  async putSession(record: StudySessionRecord): Promise<void> {
    this.sessions.set(record.id, record);
  }
  async putEvents(sessionId: string, events: readonly LogEvent[]): Promise<void> {
    const m = this.events.get(sessionId) ?? new Map<number, LogEvent>();
    for (const e of events) m.set(e.seq, e);
    this.events.set(sessionId, m);
  }
  async sessionEvents(sessionId: string): Promise<LogEvent[]> {
    return [...(this.events.get(sessionId)?.values() ?? [])].sort((a, b) => a.seq - b.seq);
  }
  async deleteSession(sessionId: string): Promise<void> {
    this.sessions.delete(sessionId);
    this.events.delete(sessionId);
  }
}

/** An EventTarget that counts its listeners, standing in for `window` or `document`. */
class Target extends EventTarget {
  listeners = 0;
  visibilityState: DocumentVisibilityState = 'visible';
  override addEventListener(
    type: string,
    l: EventListenerOrEventListenerObject | null,
    o?: AddEventListenerOptions | boolean,
  ): void {
    this.listeners++;
    super.addEventListener(type, l, o);
  }
  override removeEventListener(
    type: string,
    l: EventListenerOrEventListenerObject | null,
    o?: EventListenerOptions | boolean,
  ): void {
    this.listeners--;
    super.removeEventListener(type, l, o);
  }
}

/**
 * From here on, the outbox's clock and timers are the test's (the rest of the process keeps real
 * timers) and its requests are seen as it makes them: `posts()` lists the event posts made so far
 * with the test clock's time of each, `sent()` first runs every timer set. So "nothing is sent" is
 * checked at once, not by waiting a while.
 */
function watchSends(): { posts(): { url: string; at: number }[]; sent(): Promise<string[]> } {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const made: { url: string; at: number }[] = [];
  const send = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((url, init) => {
    made.push({ url: String(url), at: Date.now() });
    return send(url, init);
  });
  const posts = () => made.filter((p) => p.url.includes('/api/sessions/'));
  return {
    posts,
    async sent() {
      await vi.runAllTimersAsync();
      return posts().map((p) => p.url);
    },
  };
}

let library: TaskLibrary;
let store: Store;
let server: ServerType;
let baseUrl: string;
/** POSTs to an events route, counted as the server received them. */
let eventPosts: number;
/** How many POSTs to an events route to answer as a server at capacity does. */
let refuseNext = 0;
/**
 * Whether the server's disk is full: the server's own refusal (`storage_full`, app.ts) answers
 * while it is; the disk's measurement is stood in for (it is tested in store/diskFull.test.ts).
 */
let diskFull = false;
const disk = new StorageWatch({ log: () => {} });
Object.defineProperty(disk, 'refusing', { get: () => diskFull });

beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  store = await backends[0].open();
  await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), Date.now());
  const api = createApi({
    library,
    version: 'test',
    study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => Date.now() },
    storage: disk,
  });
  const outer = new Hono();
  outer.use('/api/sessions/:id/events', async (c, next) => {
    eventPosts++;
    if (refuseNext > 0) {
      refuseNext--;
      return c.json({ error: 'overloaded', message: 'at capacity', retryAfter: 1 }, 503, { 'Retry-After': '1' });
    }
    await next();
  });
  outer.route('/api', api);
  server = serve({ fetch: outer.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
});

describe('study outbox', () => {
  let storage: MemoryStorage;
  let page: OutboxPage & { window: Target; document: Target };
  const made: Outbox[] = [];

  beforeEach(() => {
    storage = new MemoryStorage();
    page = { window: new Target(), document: new Target() };
    eventPosts = 0;
    refuseNext = 0;
    diskFull = false;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    for (const o of made.splice(0)) o.dispose();
  });

  const newSession = async () => {
    const res = await fetch(`${baseUrl}/api/studies/sample/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { sessionId: string; token: string };
  };
  const stored = async (sessionId: string) => {
    const res = await fetch(`${baseUrl}/api/admin/sessions/${sessionId}/events`, {
      headers: { Authorization: `Bearer ${ADMIN}` },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: LogEvent[] };
    return body.events.map((e) => `${e.seq}:${e.kind}`);
  };
  const outboxFor = async (s: { sessionId: string; token: string }, opts = {}) => {
    const o = await Outbox.create(
      { id: s.sessionId, studyId: 'sample', token: s.token },
      { storage, page, baseUrl, delayMs: 20, ...opts },
    );
    made.push(o);
    return o;
  };

  it('stores every event before sending, and drained() resolves once the server has them all', async () => {
    const s = await newSession();
    const o = await outboxFor(s, { batchSize: 2 });
    o.start();
    o.append('session.start', { mode: 'study' });
    o.append('consent', { agreed: true });
    o.append('instructions.done', {});
    await o.drained();
    expect(o.status.getState()).toMatchObject({ pending: 0, offline: false, fatal: null, ackedThrough: 2 });
    expect(await stored(s.sessionId)).toEqual(['0:session.start', '1:consent', '2:instructions.done']);
    expect((await storage.sessionEvents(s.sessionId)).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(storage.sessions.get(s.sessionId)?.ackedThrough).toBe(2);
  });

  it('forgets a session only once the server has every event, keeping it while one is on its way', async () => {
    const s = await newSession();
    const o = await outboxFor(s);
    o.append('session.start', { mode: 'study' });
    o.append('consent', { agreed: true });
    // Not started: nothing is sent, so nothing may be forgotten.
    await expect(o.forget()).rejects.toThrow(/2 events of this session are not on the server yet/);
    expect((await storage.sessionEvents(s.sessionId)).length).toBe(2);
    o.start();
    await o.drained();
    await o.forget();
    expect(storage.sessions.has(s.sessionId)).toBe(false);
    expect(await storage.sessionEvents(s.sessionId)).toEqual([]);
    // The server still holds them all.
    expect(await stored(s.sessionId)).toEqual(['0:session.start', '1:consent']);
  });

  it('settles drained() with a fatal error when the server refuses the session, and loses nothing', async () => {
    const s = await newSession();
    const o = await outboxFor({ ...s, token: 'not-the-session-token-000000000000000000000' });
    o.start();
    o.append('session.start', { mode: 'study' });
    o.append('consent', { agreed: true });
    const error = await o.drained().then(
      () => null,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(OutboxFatalError);
    expect(error!.message).toMatch(/refused this session's data \(40[13]/);
    expect(error!.message).toMatch(/kept in this browser/);
    expect(o.status.getState().fatal).toBe(error!.message);
    // Asked again: rejects at once, and the outbox sends nothing more.
    const sends = watchSends();
    o.append('item.start', { item: 'intro' });
    await expect(o.drained()).rejects.toBeInstanceOf(OutboxFatalError);
    page.window.dispatchEvent(new Event('online'));
    page.window.dispatchEvent(new Event('pagehide'));
    expect(await sends.sent()).toEqual([]);
    vi.useRealTimers();
    // Every event is still there, for the participant to download.
    expect((await o.log()).map((e) => e.kind)).toEqual(['session.start', 'consent', 'item.start']);
    expect(await stored(s.sessionId)).toEqual([]);
  });

  it('removes its page listeners and timers on dispose, and rejects whoever waits', async () => {
    const s = await newSession();
    const o = await outboxFor(s, { delayMs: 50 });
    expect(page.window.listeners + page.document.listeners).toBe(0);
    const sends = watchSends();
    o.start();
    o.start();
    expect(page.window.listeners).toBe(2);
    expect(page.document.listeners).toBe(1);
    o.append('session.start', { mode: 'study' });
    const waiting = o.drained().then(
      () => null,
      (e: Error) => e,
    );
    o.dispose();
    expect(page.window.listeners + page.document.listeners).toBe(0);
    expect(await waiting).toBeInstanceOf(OutboxDisposedError);
    // Neither the pending batch's timer nor the page's events send anything now.
    page.window.dispatchEvent(new Event('pagehide'));
    page.window.dispatchEvent(new Event('online'));
    page.document.visibilityState = 'hidden';
    page.document.dispatchEvent(new Event('visibilitychange'));
    // Started again after dispose: still nothing.
    o.start();
    expect(page.window.listeners).toBe(0);
    o.append('consent', { agreed: true });
    await expect(o.drained()).rejects.toBeInstanceOf(OutboxDisposedError);
    expect(await sends.sent()).toEqual([]);
    expect(eventPosts).toBe(0);
    vi.useRealTimers();
    // What it held is stored, and the next page load sends it.
    const { outbox: next, history } = await Outbox.open(storage.sessions.get(s.sessionId)!, {
      storage,
      page,
      baseUrl,
      delayMs: 20,
    });
    made.push(next);
    expect(history.map((e) => e.kind)).toEqual(['session.start', 'consent']);
    next.start();
    next.append('session.resume', {});
    await next.drained();
    expect(await stored(s.sessionId)).toEqual(['0:session.start', '1:consent', '2:session.resume']);
  });

  it('hands unsent events to a keepalive request when the page hides, including events its other listeners log', async () => {
    const s = await newSession();
    const o = await outboxFor(s, { delayMs: 60_000 });
    // A presence listener registered after the outbox's: its event still goes with the page's last request.
    o.start();
    page.document.addEventListener('visibilitychange', () =>
      o.append('visibility', { state: page.document.visibilityState }),
    );
    o.append('session.start', { mode: 'study' });
    page.document.visibilityState = 'hidden';
    page.document.dispatchEvent(new Event('visibilitychange'));
    await expect.poll(() => o.status.getState().ackedThrough).toBe(1);
    expect(eventPosts).toBe(1);
    expect(await stored(s.sessionId)).toEqual(['0:session.start', '1:visibility']);
    expect(o.status.getState()).toMatchObject({ pending: 0, ackedThrough: 1 });
  });

  it("numbers a reloaded page's events after those the server got as the last page closed, though this browser never stored them", async () => {
    const s = await newSession();
    const o = await outboxFor(s, { delayMs: 60_000 });
    o.start();
    o.append('session.start', { mode: 'study' });
    o.append('consent', { agreed: true });
    await o.drained();
    // The page closes while storage is still writing its last event: the keepalive request
    // delivers it, the browser's storage never gets it.
    const putEvents = storage.putEvents.bind(storage);
    storage.putEvents = () => new Promise<void>(() => {});
    o.append('question.blur', { item: 'q1' });
    page.window.dispatchEvent(new Event('pagehide'));
    await expect.poll(() => o.status.getState().ackedThrough).toBe(2);
    o.dispose();
    storage.putEvents = putEvents;
    const { outbox: next, history } = await Outbox.open(storage.sessions.get(s.sessionId)!, {
      storage,
      page,
      baseUrl,
      delayMs: 20,
    });
    made.push(next);
    expect(history.map((e) => e.seq)).toEqual([0, 1]);
    const view = (await (
      await fetch(`${baseUrl}/api/sessions/${s.sessionId}`, { headers: { Authorization: `Bearer ${s.token}` } })
    ).json()) as { session: { ackedThrough: number } };
    next.adoptServerAck(view.session.ackedThrough);
    next.start();
    expect(next.append('session.resume', {}).seq).toBe(3);
    await next.drained();
    expect(await stored(s.sessionId)).toEqual(['0:session.start', '1:consent', '2:question.blur', '3:session.resume']);
  });

  it('close() sends what is left, then removes its listeners', async () => {
    const s = await newSession();
    const o = await outboxFor(s, { delayMs: 60_000 });
    o.start();
    o.append('session.start', { mode: 'playtest' });
    o.append('item.start', { item: 'push' });
    await o.close();
    expect(await stored(s.sessionId)).toEqual(['0:session.start', '1:item.start']);
    expect(page.window.listeners + page.document.listeners).toBe(0);
  });

  it('waits as long as a server at capacity asks (Retry-After) before sending again, and loses nothing', async () => {
    const s = await newSession();
    refuseNext = 2;
    // Without Retry-After it would come back within 100 ms.
    const o = await outboxFor(s, { maxBackoffMs: 100 });
    const sends = watchSends();
    o.start();
    o.append('session.start', { mode: 'study' });
    let drained = false;
    const done = o.drained().then(() => (drained = true));
    // The test's clock moves a quarter second at a time until the outbox has sent everything; the
    // three sends are real requests, which a busy machine can keep for seconds of real time.
    await vi.waitFor(
      async () => {
        await vi.advanceTimersByTimeAsync(250);
        expect(drained).toBe(true);
      },
      { timeout: 60_000 },
    );
    await done;
    vi.useRealTimers();
    // Each try a second (Retry-After: 1) or more after the refused one, on the test's clock.
    const at = sends.posts().map((p) => p.at);
    expect(at).toHaveLength(3);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(1000);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(1000);
    expect(eventPosts).toBe(3);
    expect(await stored(s.sessionId)).toEqual(['0:session.start']);
  });

  it("keeps its events while the server's disk is full, and sends them by itself once there is room", async () => {
    const s = await newSession();
    const o = await outboxFor(s, { maxBackoffMs: 100 });
    const sends = watchSends();
    diskFull = true;
    o.start();
    o.append('session.start', { mode: 'study' });
    // Refused as retriable, never as fatal: the events stay in the outbox.
    await vi.waitFor(
      async () => {
        await vi.advanceTimersByTimeAsync(250);
        expect(eventPosts).toBeGreaterThanOrEqual(1);
      },
      { timeout: 60_000 },
    );
    expect(o.status.getState()).toMatchObject({ offline: true, pending: 1, fatal: null });
    expect(await stored(s.sessionId)).toEqual([]);
    diskFull = false;
    let drained = false;
    const done = o.drained().then(() => (drained = true));
    await vi.waitFor(
      async () => {
        await vi.advanceTimersByTimeAsync(250);
        expect(drained).toBe(true);
      },
      { timeout: 60_000 },
    );
    await done;
    vi.useRealTimers();
    expect(sends.posts().length).toBeGreaterThanOrEqual(2);
    expect(o.status.getState()).toMatchObject({ offline: false, pending: 0, fatal: null });
    expect(await stored(s.sessionId)).toEqual(['0:session.start']);
  });

  it('keeps events while the server cannot be reached, and resolves drained() once it can', async () => {
    const s = await newSession();
    // A port where nothing listens: every send fails, and the outbox backs off.
    const closed = serve({ fetch: () => new Response(null), port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => closed.once('listening', () => resolve()));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const o = await outboxFor(s, { baseUrl: deadUrl, maxBackoffMs: 100 });
    o.start();
    o.append('session.start', { mode: 'study' });
    await expect.poll(() => o.status.getState().offline).toBe(true);
    expect(o.status.getState()).toMatchObject({ offline: true, pending: 1, fatal: null });
    o.dispose();
    // The next page load, with the server back.
    const { outbox: next } = await Outbox.open(storage.sessions.get(s.sessionId)!, {
      storage,
      page,
      baseUrl,
      delayMs: 20,
    });
    made.push(next);
    next.start();
    await next.drained();
    expect(await stored(s.sessionId)).toEqual(['0:session.start']);
  });

  it('has the events a submission waits for sent at once, so the submission is judged long before the next batch', async () => {
    const s = await newSession();
    // A batch a minute: without being asked, the outbox would send these events far too late.
    const o = await outboxFor(s, { delayMs: 60_000 });
    o.start();
    o.append('item.start', { item: 'intro' });
    o.append('item.end', { item: 'intro' });
    o.append('item.start', { item: 'practice' });
    // The page's requests name paths on its own origin, as in the browser.
    const send = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation((url, init) => send(new URL(String(url), baseUrl), init));
    const judged = await studyJudge(s.sessionId, s.token, 'practice', [0], o).submit(0, [[1]]);
    expect(['correct', 'wrong']).toContain(judged.verdict);
    expect(await stored(s.sessionId)).toEqual(['0:item.start', '1:item.end', '2:item.start']);
    expect(eventPosts).toBe(1);
  });
});
