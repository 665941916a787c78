/**
 * An export written on a worker thread (`threadWorker.ts`), so that turning a million events
 * into JSON lines, CSV rows, recordings and deflated ZIP entries never runs on the thread that
 * acknowledges participants' events. The main thread keeps the database: the worker's store is a
 * stand-in whose every call (a page of events, a session's submissions, the grades) is made here
 * and its answer sent back. The file comes back in chunks of about 64 KB, at most four ahead of
 * what the download has taken (memory stays bounded whatever the size). Studies with server-run
 * games (arcengine, remote) are written there too: their recordings are read from the stored
 * steps and their frames decoded and written on the thread, and their logs checked by the
 * server's signatures (`ThreadReplay`), so nothing of an export but the database's reads runs on
 * the thread that acknowledges participants' events.
 */
import { Worker } from 'node:worker_threads';
import type { StudyDefinition } from '../../core/study/schema';
import type { SessionRecord } from '../store/types';
import type { ExportContext, ExportGames, ExportStore } from './context';
import type { ExportFormat } from './formats';
import type { ThreadReplay } from '../arc3/replayCheck';

/** What the worker needs to rebuild the export's context (all of it plain data). */
export interface ThreadJob {
  readonly format: ExportFormat;
  readonly studyId: string;
  readonly version: number | null;
  readonly versions: readonly (readonly [number, StudyDefinition])[];
  readonly sessions: readonly SessionRecord[];
  readonly stage: string | null;
  readonly testCounts: readonly (readonly [string, number | null])[];
  readonly games: ExportGames;
  readonly now: number;
  readonly pageSize: number;
  /** Verify game logs with the built-in games' engine (the server's own replay for them). */
  readonly verify: boolean;
  /** With `verify`: what checks server-run games' logs by their signatures, as the server does. */
  readonly serverRuns?: ThreadReplay;
}

/** Messages from the worker. */
export type FromWorker =
  | { readonly type: 'call'; readonly id: number; readonly path: readonly string[]; readonly args: readonly unknown[] }
  | { readonly type: 'chunk'; readonly data: Uint8Array }
  | { readonly type: 'done' }
  | { readonly type: 'failed'; readonly message: string };

/** Messages to the worker. */
export type ToWorker =
  | { readonly type: 'result'; readonly id: number; readonly value: unknown }
  | { readonly type: 'error'; readonly id: number; readonly message: string }
  | { readonly type: 'pull' };

let threadExports = 0;

/** Exports written on worker threads since this server started. */
export function exportsOnThreads(): number {
  return threadExports;
}

/**
 * The store call the worker asked for, made on the real store. A page of events, or of a run's
 * steps, or the first steps of several runs, goes over as the JSON text the database made of it
 * (`streamEventsJson`, `readGameStepsJson`, `readGameStepsJsonOf`), decoded on the worker: one
 * string to copy here, not thousands of objects to decode and clone.
 */
async function storeCall(store: ExportStore, path: readonly string[], args: readonly unknown[]): Promise<unknown> {
  if (path.length === 1 && path[0] === 'eventsPage') {
    const [sessionId, afterSeq, batchSize] = args as [string, number, number];
    const it = store.streamEventsJson(sessionId, { afterSeq, batchSize });
    try {
      const first = await it.next();
      return first.done ? '[]' : first.value.json;
    } finally {
      await it.return(undefined);
    }
  }
  if (path.length === 1 && path[0] === 'stepsPage') {
    const [runId, from, limit] = args as [string, number, number];
    return (await store.readGameStepsJson(runId, { from, limit })).json;
  }
  if (path.length === 1 && path[0] === 'stepsOfRuns') {
    const [runIds, below] = args as [string[], number];
    return store.readGameStepsJsonOf(runIds, below);
  }
  let target: unknown = store;
  for (const key of path.slice(0, -1)) target = (target as Record<string, unknown>)[key];
  const method = path[path.length - 1];
  const fn = (target as Record<string, unknown>)[method];
  const read =
    /^(list|read|get|gradable|submission|studyGamePins$)/.test(method) ||
    (path.length === 2 && path[0] === 'campaigns' && /^(viewClaims|counters|draws)$/.test(method));
  if (typeof fn !== 'function' || !read) throw new Error(`an export may not call store.${path.join('.')}`);
  return (fn as (...a: unknown[]) => Promise<unknown>).apply(target, args as unknown[]);
}

/** The job for a context: its plain data, with the test counts of every task it names. */
export function threadJob(
  format: ExportFormat,
  ctx: ExportContext,
  verify: boolean,
  serverRuns?: ThreadReplay,
): ThreadJob {
  const testCounts: [string, number | null][] = [];
  for (const def of ctx.versions.values()) {
    for (const item of def.items)
      if (item.kind === 'task')
        testCounts.push([`${item.collection}\u0000${item.task}`, ctx.testCount(item.collection, item.task)]);
  }
  return {
    format,
    studyId: ctx.studyId,
    version: ctx.version,
    versions: [...ctx.versions.entries()],
    sessions: ctx.sessions,
    stage: ctx.stage,
    testCounts,
    games: ctx.games,
    now: ctx.now,
    pageSize: ctx.pageSize,
    verify,
    ...(serverRuns ? { serverRuns } : {}),
  };
}

/**
 * The export's bytes, written on a new worker thread. Ending the iteration early (a download
 * the client gave up) ends the thread. A failure in the worker is thrown here, mid-stream.
 */
export async function* exportOnThread(job: ThreadJob, store: ExportStore): AsyncGenerator<Uint8Array> {
  threadExports++;
  const worker = new Worker(new URL('./threadWorker.mjs', import.meta.url), { workerData: job });
  const chunks: Uint8Array[] = [];
  let ended = false;
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  worker.on('message', (m: FromWorker) => {
    if (m.type === 'chunk') chunks.push(m.data);
    else if (m.type === 'done') ended = true;
    else if (m.type === 'failed') failure = new Error(m.message);
    else if (m.type === 'call') {
      storeCall(store, m.path, m.args).then(
        (value) => worker.postMessage({ type: 'result', id: m.id, value } satisfies ToWorker),
        (e: unknown) =>
          worker.postMessage({
            type: 'error',
            id: m.id,
            message: e instanceof Error ? e.message : String(e),
          } satisfies ToWorker),
      );
      return;
    }
    poke();
  });
  worker.on('error', (e) => {
    failure = e;
    poke();
  });
  worker.on('exit', (code) => {
    if (!ended && !failure) failure = new Error(`the export thread stopped (${code})`);
    poke();
  });
  try {
    for (;;) {
      while (!chunks.length && !ended && !failure)
        await new Promise<void>((r) => {
          wake = r;
        });
      if (chunks.length) {
        const chunk = chunks.shift()!;
        yield chunk;
        // Taken by the download: the worker may write the next one.
        worker.postMessage({ type: 'pull' } satisfies ToWorker);
        continue;
      }
      if (failure) throw failure;
      return;
    }
  } finally {
    await worker.terminate();
  }
}
