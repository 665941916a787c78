/**
 * The browser's own durable storage (IndexedDB): the practice sessions' event logs and the task
 * files a user imported. One small promise wrapper; no other code opens the database.
 *
 * Why not a library: `idb` (8.0) would replace the request-to-promise plumbing only, not the
 * stores and queries below, and adds 1.4 kB gzipped to the app where this whole file is 0.9 kB
 * (esbuild --minify, gzip -9). Two object stores and a handful of reads and writes do not need it.
 */
import type { LogEvent } from '../../core/log/events';

const DB_NAME = 'arc-studio';
const DB_VERSION = 1;

export interface StoredSession {
  readonly id: string;
  /** Wall-clock start, ISO 8601 UTC: the session's one clock anchor. */
  readonly startedAt: string;
  readonly label: string;
}

export interface StoredEvent extends LogEvent {
  readonly session: string;
}

export interface ImportedTask {
  readonly id: string;
  /** The task JSON text as imported, re-validated on every load. */
  readonly text: string;
  readonly source: string;
  readonly importedAt: string;
}

let dbPromise: Promise<IDBDatabase> | null = null;

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

export function openDb(): Promise<IDBDatabase> {
  dbPromise ??= new Promise((resolve, reject) => {
    if (typeof indexedDB === 'undefined') {
      reject(
        new Error(
          'This browser has no IndexedDB (a private window may disable it), so logs and imports cannot be kept.',
        ),
      );
      return;
    }
    const req = indexedDB.open(DB_NAME, DB_VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('sessions')) db.createObjectStore('sessions', { keyPath: 'id' });
      if (!db.objectStoreNames.contains('events')) db.createObjectStore('events', { keyPath: ['session', 'seq'] });
      if (!db.objectStoreNames.contains('tasks')) db.createObjectStore('tasks', { keyPath: 'id' });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
    req.onblocked = () =>
      reject(
        new Error(
          'Another ARC Studio tab holds an older version of the local database open. Close other tabs and reload.',
        ),
      );
  });
  return dbPromise;
}

export async function putSession(s: StoredSession): Promise<void> {
  const db = await openDb();
  const tx = db.transaction('sessions', 'readwrite');
  tx.objectStore('sessions').put(s);
  tx.commit();
  await done(tx);
}

export async function putEvents(events: readonly StoredEvent[]): Promise<void> {
  if (events.length === 0) return;
  const db = await openDb();
  const tx = db.transaction('events', 'readwrite');
  const store = tx.objectStore('events');
  for (const e of events) store.put(e);
  // Commit now rather than when this task ends: a page that unloads right after an action (a
  // reload, a closed tab) would otherwise abort the write.
  tx.commit();
  await done(tx);
}

export async function listSessions(): Promise<StoredSession[]> {
  const db = await openDb();
  const all = await request(db.transaction('sessions').objectStore('sessions').getAll() as IDBRequest<StoredSession[]>);
  return all.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** A session's events in seq order. */
export async function sessionEvents(session: string): Promise<LogEvent[]> {
  const db = await openDb();
  const range = IDBKeyRange.bound([session, 0], [session, Number.MAX_SAFE_INTEGER]);
  const rows = await request(db.transaction('events').objectStore('events').getAll(range) as IDBRequest<StoredEvent[]>);
  return rows.map(({ seq, t, kind, data }) => ({ seq, t, kind, data }));
}

/** Deletes a session's record and every event of it. */
export async function deleteSession(session: string): Promise<void> {
  const db = await openDb();
  const tx = db.transaction(['sessions', 'events'], 'readwrite');
  tx.objectStore('sessions').delete(session);
  tx.objectStore('events').delete(IDBKeyRange.bound([session, 0], [session, Number.MAX_SAFE_INTEGER]));
  await done(tx);
}

export async function putImportedTasks(tasks: readonly ImportedTask[]): Promise<void> {
  const db = await openDb();
  const tx = db.transaction('tasks', 'readwrite');
  for (const t of tasks) tx.objectStore('tasks').put(t);
  await done(tx);
}

export async function listImportedTasks(): Promise<ImportedTask[]> {
  const db = await openDb();
  const all = await request(db.transaction('tasks').objectStore('tasks').getAll() as IDBRequest<ImportedTask[]>);
  return all.sort((a, b) => a.id.localeCompare(b.id));
}

export async function deleteImportedTask(id: string): Promise<void> {
  const db = await openDb();
  const tx = db.transaction('tasks', 'readwrite');
  tx.objectStore('tasks').delete(id);
  await done(tx);
}
