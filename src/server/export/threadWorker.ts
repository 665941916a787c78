/**
 * An export's worker thread (`thread.ts`): writes one export from the job in `workerData`, with a
 * store whose calls are made by the main thread, and posts the file in chunks of about 64 KB, at
 * most four ahead of what the main thread has taken.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { replayWithEngine } from '../study/studies';
import { threadStudioReplay } from '../arc3/replayCheck';
import type { GameRunRecord, GameStepRecord, Store } from '../store/types';
import { gameStepOfRow, type GameStepRow } from '../store/stepRows';
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
 *
 * A page of events is kept decoded (`frozenPage`), so that the files after the first one take
 * the same objects instead of parsing its JSON again; its size is counted as its JSON's length.
 */
const KEPT_CHARS = 64 * 1024 * 1024;
const KEPT_ANSWERS = 20_000;
const PER_SESSION = new Set(['eventsPage', 'listSubmissions', 'listResponses', 'listGameRuns']);
/** A kept answer, and the characters of JSON it was made from (0 for answers that were not text). */
interface KeptAnswer {
  readonly value: unknown;
  readonly size: number;
}
const kept = new Map<string, Promise<KeptAnswer>>();
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
    if (many === 'listGameRunsOf')
      void answers.then(
        (m) => ids.forEach((id) => listRuns(m.get(id) as GameRunRecord[] | undefined)),
        () => undefined,
      );
    for (const id of ids)
      keepAnswer(
        keyOf(path[0], [id]),
        answers.then((m) => ({ value: m.get(id) ?? [], size: 0 })),
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

/**
 * A kept answer as a caller may use it: a page of events as it is (frozen: every file reads the
 * same objects), a list copied (a writer may sort or change the list it is given).
 */
const copied = (answer: Promise<KeptAnswer>) =>
  answer.then(({ value }) => (Object.isFrozen(value) ? value : structuredClone(value)));

/**
 * A page of events from its JSON, frozen with each event and its `data`, so that a writer that
 * changed what another file reads next would fail at once rather than write another file.
 */
function frozenPage(json: string): readonly StoredEvent[] {
  const page = JSON.parse(json) as StoredEvent[];
  for (const e of page) {
    Object.freeze(e.data);
    Object.freeze(e);
  }
  return Object.freeze(page);
}

/** Asks the main thread for a per-session read and keeps the answer. */
const keep = (method: string, args: readonly unknown[]): Promise<KeptAnswer> => {
  const answer = ask([method], args).then((v) =>
    method === 'eventsPage' ? { value: frozenPage(v as string), size: (v as string).length } : { value: v, size: 0 },
  );
  keepAnswer(keyOf(method, args), answer);
  return answer;
};

/** Keeps an answer under its key, dropping the oldest kept while over the bounds. */
const keepAnswer = (key: string, answer: Promise<KeptAnswer>): void => {
  kept.set(key, answer);
  answer.then(
    ({ size }) => {
      if (!kept.has(key)) return;
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

/**
 * The first steps of a run are read with those of the runs after it (`readGameStepsJsonOf`): one
 * statement and one round trip for several runs, made while the run before them is written.
 * The stored runs are listed here in the export's order, as their sessions' lists arrive.
 */
const runsInOrder: string[] = [];
const runIndex = new Map<string, number>();
const listRuns = (runs: readonly GameRunRecord[] | undefined) => {
  for (const r of runs ?? [])
    if (!runIndex.has(r.runId)) {
      runIndex.set(r.runId, runsInOrder.length);
      runsInOrder.push(r.runId);
    }
};
/** Runs in one statement at most. */
const MAX_RUNS_READ = 16;
/** First steps asked for, by run, until the run's recording takes them. */
const stepsAhead = new Map<string, Promise<{ steps: GameStepRecord[]; more: boolean; below: number }>>();
/** The last run (by `runsInOrder`) whose first steps were asked for. */
let readUpTo = -1;
/** Steps of the longest run of the last statement: how many runs the next one reads. */
let runLength = 0;

/**
 * Asks for the first steps of `runId` and of the runs after it in one statement, as many runs as
 * keep it at most `limit` steps (judged by the runs read before), each up to `limit / runs`.
 */
function readRunsAhead(runId: string, limit: number): void {
  const at = runIndex.get(runId);
  const count = Math.max(1, Math.min(MAX_RUNS_READ, Math.floor(limit / Math.max(1, runLength))));
  const ids = at === undefined ? [runId] : runsInOrder.slice(at, at + count).filter((id) => !stepsAhead.has(id));
  if (at !== undefined) readUpTo = Math.max(readUpTo, at + ids.length - 1);
  const below = Math.max(1, Math.floor(limit / ids.length));
  const read = (ask(['stepsOfRuns'], [ids, below]) as Promise<string>).then((json) => {
    const runs = JSON.parse(json) as { run: string; steps: GameStepRow[]; more: boolean }[];
    runLength = runs.some((r) => r.more) ? limit : Math.max(1, ...runs.map((r) => r.steps.length));
    return new Map(runs.map((r) => [r.run, { more: r.more, steps: r.steps.map((row) => gameStepOfRow(r.run, row)) }]));
  });
  for (const id of ids)
    stepsAhead.set(
      id,
      read.then((m) => ({ steps: m.get(id)?.steps ?? [], more: m.get(id)?.more ?? false, below })),
    );
}

/** A run's steps from 0, at most `limit`: its first steps as read ahead, the rest read after them. */
async function firstSteps(runId: string, limit: number): Promise<GameStepRecord[]> {
  if (!stepsAhead.has(runId)) readRunsAhead(runId, limit);
  const ahead = stepsAhead.get(runId)!;
  stepsAhead.delete(runId);
  // The next runs' statement is asked for while this one is written.
  const at = runIndex.get(runId);
  if (at !== undefined && at + 1 > readUpTo && at + 1 < runsInOrder.length) readRunsAhead(runsInOrder[at + 1], limit);
  const { steps, more, below } = await ahead;
  if (!more || steps.length >= limit) return steps;
  const rest = JSON.parse((await ask(['stepsPage'], [runId, below, limit - steps.length])) as string);
  return steps.concat(rest as GameStepRecord[]);
}

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
              const page = (await call(['eventsPage'], [sessionId, after, size])) as readonly StoredEvent[];
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
            if ((opts.from ?? 0) === 0) return firstSteps(runId, opts.limit);
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
