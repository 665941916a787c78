/**
 * An export's worker thread (`thread.ts`): writes one export from the job in `workerData`, with a
 * store whose calls are made by the main thread, and posts the file in chunks of about 64 KB, at
 * most four ahead of what the main thread has taken.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { replayWithEngine } from '../study/studies';
import { threadStudioReplay } from '../arc3/replayCheck';
import type { GameStepRecord, Store } from '../store/types';
import type { StoredEvent } from '../../core/study/rules';
import type { ExportContext } from './context';
import { EXPORT_FORMATS } from './formats';
import type { FromWorker, ThreadJob, ToWorker } from './thread';

const CHUNK_BYTES = 64 * 1024;

const port = parentPort!;
const job = workerData as ThreadJob;
const calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextCall = 1;
let pulled: (() => void) | null = null;
/** Chunks posted ahead of the download: the thread writes on while the main thread sends. */
let credit = 4;

port.on('message', (m: ToWorker) => {
  if (m.type === 'pull') {
    credit++;
    const p = pulled;
    pulled = null;
    p?.();
    return;
  }
  const c = calls.get(m.id);
  if (!c) return;
  calls.delete(m.id);
  if (m.type === 'result') c.resolve(m.value);
  else c.reject(new Error(m.message));
});

const ask = (path: readonly string[], args: readonly unknown[]) =>
  new Promise<unknown>((resolve, reject) => {
    const id = nextCall++;
    calls.set(id, { resolve, reject });
    port.postMessage({ type: 'call', id, path, args } satisfies FromWorker);
  });

/**
 * The bundle's files each read every session again (its events, submissions, runs, answers):
 * answers are kept here, up to `KEPT_CHARS` of events' JSON and `KEPT_ANSWERS` other answers, the
 * oldest dropped first, so that a study that fits is read once (every file then sees the same
 * reads) and a larger one costs no more memory than that. Each read is a round trip to the main
 * thread, which answers it between participants' writes: fewer of them is what makes the thread fast.
 */
const KEPT_CHARS = 64 * 1024 * 1024;
const KEPT_ANSWERS = 20_000;
const PER_SESSION = new Set(['eventsPage', 'listSubmissions', 'listResponses', 'listGameRuns']);
const kept = new Map<string, Promise<unknown>>();
let keptChars = 0;
const keptSize = new Map<string, number>();

/** Where each session is in the export's order, to read the next ones ahead. */
const order = new Map(job.sessions.map((s, i) => [s.id, i]));
/** Sessions whose reads are asked for ahead of the one being written: the round trips overlap. */
const AHEAD = 4;

/**
 * Per-session lists read for many sessions at once (one round trip, one statement): the session
 * asked for and the next ones not yet kept, up to `MANY_SESSIONS`.
 */
const MANY: Readonly<Record<string, string>> = {
  listSubmissions: 'listSubmissionsOf',
  listResponses: 'listResponsesOf',
  listGameRuns: 'listGameRunsOf',
};
const MANY_SESSIONS = 32;

const keyOf = (method: string, args: readonly unknown[]) => JSON.stringify([method, args]);

const call = (path: readonly string[], args: readonly unknown[]): Promise<unknown> => {
  if (path.length !== 1 || !PER_SESSION.has(path[0])) return ask(path, args);
  const hit = kept.get(keyOf(path[0], args));
  if (hit) return copied(hit);
  const at = order.get(args[0] as string);
  const many = MANY[path[0]];
  if (many && at !== undefined) {
    const ids = [args[0] as string];
    for (const s of job.sessions.slice(at + 1)) {
      if (ids.length >= MANY_SESSIONS) break;
      if (!kept.has(keyOf(path[0], [s.id]))) ids.push(s.id);
    }
    const answers = ask([many], [ids]) as Promise<Map<string, unknown[]>>;
    for (const id of ids)
      keepAnswer(
        keyOf(path[0], [id]),
        answers.then((m) => m.get(id) ?? []),
      );
    return copied(kept.get(keyOf(path[0], args))!);
  }
  // The same read of the next sessions (a first page of events, a whole list), unless kept already.
  if (at !== undefined && (path[0] !== 'eventsPage' || args[1] === -1))
    for (const s of job.sessions.slice(at + 1, at + 1 + AHEAD)) {
      const ahead = [s.id, ...args.slice(1)];
      if (!kept.has(keyOf(path[0], ahead))) void keep(path[0], ahead).catch(() => undefined);
    }
  return copied(keep(path[0], args));
};

/** A copy of a kept answer: a writer may sort or change the list it is given. */
const copied = (answer: Promise<unknown>) => answer.then((v) => (typeof v === 'string' ? v : structuredClone(v)));

/** Asks the main thread for a per-session read and keeps the answer. */
const keep = (method: string, args: readonly unknown[]): Promise<unknown> => {
  const answer = ask([method], args);
  keepAnswer(keyOf(method, args), answer);
  return answer;
};

/** Keeps an answer under its key, dropping the oldest kept while over the bounds. */
const keepAnswer = (key: string, answer: Promise<unknown>): void => {
  kept.set(key, answer);
  answer.then(
    (v) => {
      if (!kept.has(key)) return;
      const size = typeof v === 'string' ? v.length : 0;
      keptSize.set(key, size);
      keptChars += size;
      for (const [k] of kept) {
        if (keptChars <= KEPT_CHARS && kept.size <= KEPT_ANSWERS) break;
        kept.delete(k);
        keptChars -= keptSize.get(k) ?? 0;
        keptSize.delete(k);
      }
    },
    () => kept.delete(key),
  );
};

/** A store whose every method is the main thread's; `streamEvents` reads a page (as JSON text) per call. */
function remoteStore(path: readonly string[] = []): Store {
  return new Proxy(
    {},
    {
      get(_, key) {
        if (typeof key !== 'string' || key === 'then') return undefined;
        if (path.length === 0 && key === 'streamEvents') {
          return async function* streamEvents(sessionId: string, opts: { batchSize?: number; afterSeq?: number } = {}) {
            const size = Math.max(1, Math.floor(opts.batchSize ?? 5000));
            let after = opts.afterSeq ?? -1;
            for (;;) {
              const page = JSON.parse(
                (await call(['eventsPage'], [sessionId, after, size])) as string,
              ) as StoredEvent[];
              if (page.length === 0) return;
              after = page[page.length - 1].seq;
              yield page;
              if (page.length < size) return;
            }
          };
        }
        if (path.length === 0 && key === 'readGameSteps') {
          return async (runId: string, opts: { from?: number; limit?: number } = {}) => {
            if (opts.limit === undefined) return call(['readGameSteps'], [runId, opts]);
            return JSON.parse(
              (await ask(['stepsPage'], [runId, opts.from ?? 0, opts.limit])) as string,
            ) as GameStepRecord[];
          };
        }
        // The store's parts whose methods are the main thread's too.
        if (path.length === 0 && (key === 'grading' || key === 'campaigns' || key === 'archives'))
          return remoteStore([key]);
        return (...args: unknown[]) => call([...path, key], args);
      },
    },
  ) as Store;
}

async function main(): Promise<void> {
  const counts = new Map(job.testCounts);
  const ctx: ExportContext = {
    store: remoteStore(),
    studyId: job.studyId,
    version: job.version,
    versions: new Map(job.versions),
    sessions: job.sessions,
    stage: job.stage,
    testCount: (collection, task) => counts.get(`${collection}\u0000${task}`) ?? null,
    replay: !job.verify ? null : job.serverRuns ? threadStudioReplay(job.serverRuns) : replayWithEngine,
    games: job.games,
    now: job.now,
    pageSize: job.pageSize,
  };
  const enc = new TextEncoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  const flush = async () => {
    if (!size) return;
    while (credit === 0)
      await new Promise<void>((r) => {
        pulled = r;
      });
    credit--;
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    parts = [];
    size = 0;
    port.postMessage({ type: 'chunk', data: out } satisfies FromWorker, [out.buffer]);
  };
  for await (const c of EXPORT_FORMATS[job.format].write(ctx)) {
    const b = typeof c === 'string' ? enc.encode(c) : c;
    parts.push(b);
    size += b.length;
    if (size >= CHUNK_BYTES) await flush();
  }
  await flush();
  port.postMessage({ type: 'done' } satisfies FromWorker);
}

main().catch((e: unknown) => {
  port.postMessage({ type: 'failed', message: e instanceof Error ? e.message : String(e) } satisfies FromWorker);
});
