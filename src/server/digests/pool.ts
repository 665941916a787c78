/**
 * Session digests computed in worker threads (`worker.ts`), so that a results request on a study
 * whose digests are cold (thousands of logs to replay) leaves the main thread free to acknowledge
 * participants' events and answer `/api/health`. At most `size` threads, each one digest at a
 * time; jobs wait in order. Threads start on first use and end after a minute idle.
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { ResultsSession, ResultsSubmission, SessionDigest } from '../../core/analysis/results';
import type { DigestFold } from '../../core/analysis/fold';
import type { StudyDefinition } from '../../core/study/schema';
import type { StoredEvent } from '../../core/study/rules';
import type { SessionSummary } from '../../core/study/summary';
import type { GameStepRecord, SubmissionRecord } from '../store/types';
import type { FrameGrid } from '../../core/formats/frames';
import type { ThreadReplay } from '../arc3/replayCheck';
import type { StepViewsJson } from '../arc3/steps';
import type { StudySurveySummaries, SurveySummaryInput } from '../../core/analysis/surveys';
import type { StudyResults } from '../../core/analysis/results';
import type { ResultsWire } from '../../core/analysis/resultsWire';
import type { SessionPrints } from '../../core/analysis/signals';

/** One session to digest. The replay is the studio's (`verify`, with `serverRuns` for server-run games) or none. */
export interface DigestJob {
  readonly id: number;
  readonly kind?: 'digest';
  readonly definition: StudyDefinition;
  readonly session: ResultsSession;
  readonly events: readonly StoredEvent[];
  readonly submissions: readonly ResultsSubmission[];
  /** `[collection + "\0" + task, test count]` of the version's task items. */
  readonly testCounts: readonly (readonly [string, number | null])[];
  readonly verify: boolean;
  /** With `verify`: the check of server-run games' logs (arcengine, remote) as the server does it; absent: built-in games only. */
  readonly serverRuns?: ThreadReplay;
}

/** One session's summary (`summarizeSession`: items, actions, flags, game verification). */
export interface SummaryJob {
  readonly id: number;
  readonly kind: 'summary';
  readonly definition: StudyDefinition;
  readonly order: readonly number[];
  readonly events: readonly StoredEvent[];
  /** The log as pages of JSON text (`JSON.stringify` of each page), read after `events`: cheap to hand over, however long. */
  readonly eventPages?: readonly string[];
  readonly submissions: readonly SubmissionRecord[];
  /** `[item id, test indices]` of the task items. */
  readonly testIndices: readonly (readonly [string, number[]])[];
  readonly verify: boolean;
  /** With `verify`: the check of server-run games' logs (arcengine, remote) as the server does it; absent: built-in games only. */
  readonly serverRuns?: ThreadReplay;
}

/**
 * One session's digest as a fold (`core/analysis/fold.ts`): `fold` (a new one when null) extended
 * by `events` and finished with the submissions; answers the digest and the extended fold.
 */
export interface FoldJob {
  readonly id: number;
  readonly kind: 'fold';
  readonly definition: StudyDefinition;
  readonly order: readonly number[];
  readonly fold: DigestFold | null;
  readonly events: readonly StoredEvent[];
  readonly submissions: readonly ResultsSubmission[];
  /** `[collection + "\0" + task, test count]` of the version's task items. */
  readonly testCounts: readonly (readonly [string, number | null])[];
  readonly verify: boolean;
  /** With `verify`: the check of server-run games' logs (arcengine, remote) as the server does it; absent: built-in games only. */
  readonly serverRuns?: ThreadReplay;
}

/** A study's survey answers summarised per question (`surveySummaries`). */
export interface SurveysJob extends SurveySummaryInput {
  readonly id: number;
  readonly kind: 'surveys';
}

/**
 * A page of a server-run game's stored steps made into the researcher's replay view
 * (`stepViewsJson`): frames decoded from the page before's last frame and encoded to stand alone.
 */
export interface StepsJob {
  readonly id: number;
  readonly kind: 'steps';
  readonly steps: readonly GameStepRecord[];
  /** The last frame on screen before the page (null before the first step). */
  readonly last: FrameGrid | null;
}

/** A study's results added up from its sessions' digests, with the signals across sessions (`studyResults`). */
export interface ResultsJob extends ResultsWire {
  readonly id: number;
  readonly kind: 'results';
}

/** The signals across sessions (`crossSessionSignals`) of sessions' prints, for the campaign view and payments. */
export interface CrossSignalsJob {
  readonly id: number;
  readonly kind: 'cross';
  readonly sessions: readonly { readonly id: string; readonly prints?: SessionPrints }[];
}

export type PoolJob = DigestJob | SummaryJob | FoldJob | SurveysJob | StepsJob | ResultsJob | CrossSignalsJob;

export type DigestReply =
  | { readonly id: number; readonly value: unknown; readonly threadId: number }
  | { readonly id: number; readonly error: string };

type Distribute<T> = T extends unknown ? Omit<T, 'id'> : never;

const IDLE_MS = 60_000;

interface Thread {
  worker: Worker;
  busy: boolean;
  idle: NodeJS.Timeout | null;
}

/** Threads a server uses for digests (`ARC_STUDIO_DIGEST_THREADS`): the cores but one, at most 4, at least 1. */
export function digestThreadsFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ARC_STUDIO_DIGEST_THREADS;
  if (raw === undefined || raw === '') return Math.max(1, Math.min(4, availableParallelism() - 1));
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new Error(
      `ARC_STUDIO_DIGEST_THREADS=${raw} is not a number of threads from 1 to 64; unset it or give one, e.g. ARC_STUDIO_DIGEST_THREADS=2.`,
    );
  return n;
}

export class DigestPool {
  private readonly threads: Thread[] = [];
  private readonly queue: { job: Distribute<PoolJob>; resolve: (v: unknown) => void; reject: (e: Error) => void }[] =
    [];
  private readonly waiting = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; thread: Thread; kind: PoolJob['kind'] }
  >();
  private nextId = 1;
  private stopped = false;
  /** Digests computed so far (whole or as folds), by the worker threads' ids (never the main thread's 0). */
  readonly done = new Map<number, number>();
  /** Session summaries computed so far on the threads. */
  summaries = 0;
  /** Studies' survey summaries computed so far on the threads. */
  surveySummaries = 0;
  /** Pages of game steps made into replay views so far on the threads. */
  stepPages = 0;
  /** Studies' results added up so far on the threads. */
  resultsAdded = 0;
  /** Comparisons of sessions' prints (signals across sessions) made so far on the threads. */
  crossSignals = 0;

  constructor(readonly size: number) {}

  /** The digest of one session, computed on a worker thread. */
  digest(job: Omit<DigestJob, 'id'>): Promise<SessionDigest> {
    return this.submit({ ...job, kind: 'digest' }) as Promise<SessionDigest>;
  }

  /** The digest of one session as a fold extended by its new events, computed on a worker thread. */
  fold(job: Omit<FoldJob, 'id' | 'kind'>): Promise<{ digest: SessionDigest; fold: DigestFold }> {
    return this.submit({ ...job, kind: 'fold' }) as Promise<{ digest: SessionDigest; fold: DigestFold }>;
  }

  /** The summary of one session (a researcher's session read, a participant finishing), on a worker thread. */
  summary(job: Omit<SummaryJob, 'id' | 'kind'>): Promise<SessionSummary> {
    return this.submit({ ...job, kind: 'summary' }) as Promise<SessionSummary>;
  }

  /** A page of a run's steps as the replay view's JSON text, and the last frame after it, on a worker thread. */
  steps(job: Omit<StepsJob, 'id' | 'kind'>): Promise<StepViewsJson> {
    return this.submit({ ...job, kind: 'steps' }) as Promise<StepViewsJson>;
  }

  /** A study's survey summaries, computed on a worker thread. */
  surveys(job: Omit<SurveysJob, 'id' | 'kind'>): Promise<StudySurveySummaries> {
    return this.submit({ ...job, kind: 'surveys' }) as Promise<StudySurveySummaries>;
  }

  /** A study's results from its sessions' digests, added up on a worker thread. */
  results(job: ResultsWire): Promise<StudyResults> {
    return this.submit({ ...job, kind: 'results' }) as Promise<StudyResults>;
  }

  /** The signals across sessions by session id (only sessions with any), compared on a worker thread. */
  cross(sessions: CrossSignalsJob['sessions']): Promise<[string, string[]][]> {
    return this.submit({ kind: 'cross', sessions }) as Promise<[string, string[]][]>;
  }

  private submit(job: Distribute<PoolJob>): Promise<unknown> {
    if (this.stopped) return Promise.reject(new Error('the digest threads are stopped'));
    return new Promise<unknown>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  /** Jobs waiting for a thread or running. */
  get pending(): number {
    return this.queue.length + this.waiting.size;
  }

  private pump(): void {
    while (this.queue.length) {
      let thread = this.threads.find((t) => !t.busy);
      if (!thread && this.threads.length < this.size) thread = this.start();
      if (!thread) return;
      const { job, resolve, reject } = this.queue.shift()!;
      const id = this.nextId++;
      thread.busy = true;
      if (thread.idle) {
        clearTimeout(thread.idle);
        thread.idle = null;
      }
      this.waiting.set(id, { resolve, reject, thread, kind: job.kind ?? 'digest' });
      thread.worker.postMessage({ ...job, id } as PoolJob);
    }
  }

  private start(): Thread {
    const worker = new Worker(new URL('./worker.mjs', import.meta.url));
    const thread: Thread = { worker, busy: false, idle: null };
    worker.unref();
    worker.on('message', (reply: DigestReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      thread.busy = false;
      if ('error' in reply)
        w.reject(
          new Error(
            w.kind === 'results' || w.kind === 'cross'
              ? `Adding up the study's results failed: ${reply.error}`
              : `A session's digest failed: ${reply.error}`,
          ),
        );
      else {
        if (w.kind === 'summary') this.summaries++;
        else if (w.kind === 'surveys') this.surveySummaries++;
        else if (w.kind === 'steps') this.stepPages++;
        else if (w.kind === 'results') this.resultsAdded++;
        else if (w.kind === 'cross') this.crossSignals++;
        else this.done.set(reply.threadId, (this.done.get(reply.threadId) ?? 0) + 1);
        w.resolve(reply.value);
      }
      if (!this.queue.length) thread.idle = setTimeout(() => this.retire(thread), IDLE_MS).unref();
      this.pump();
    });
    // A thread that dies (out of memory) fails its job; the next job starts a new thread.
    const died = (e: Error) => {
      this.retire(thread);
      for (const [id, w] of this.waiting)
        if (w.thread === thread) {
          this.waiting.delete(id);
          w.reject(e);
        }
      this.pump();
    };
    worker.on('error', died);
    worker.on('exit', (code) => {
      if (this.threads.includes(thread)) died(new Error(`a digest thread exited (${code})`));
    });
    this.threads.push(thread);
    return thread;
  }

  private retire(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    this.threads.splice(at, 1);
    if (thread.idle) clearTimeout(thread.idle);
    void thread.worker.terminate();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const q of this.queue.splice(0)) q.reject(new Error('the server is stopping'));
    await Promise.all(
      [...this.threads].map((t) => {
        this.retire(t);
        return t.worker.terminate();
      }),
    );
  }
}
