/**
 * What every export reads: a study's stored versions and its sessions (records only; events
 * are read page by page by each writer), with the task and game facts the summaries need.
 */
import { isPractice, type StudyDefinition, type TaskItem } from '../../core/study/schema';
import type { ReplayGame, StoredEvent } from '../../core/study/rules';
import { PLAYTEST_MODE } from '../../core/analysis/results';
import type { TaskLibrary } from '../collections/collections';
import { definitionOf } from '../study/studies';
import type { SessionRecord, Store } from '../store/types';
import { forAnalysis } from './safeJson';
import { versionedGameId } from '../../core/game';
import { games as builtinGames } from '../../games';
import type { ErrorCode } from '../../core/protocol/errors';
import { EVENTS_PAGE, participantWrites, participantsFirst } from '../load';
import { MAIN_STAGE } from '../../core/study/stages';

/** An export that cannot be made; `status` is the HTTP status the routes answer with. */
export class ExportError extends Error {
  override readonly name = 'ExportError';
  constructor(
    readonly status: 400 | 404,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Per game id: how many levels it has, the version the server runs (`push-<hash>`) and, for an
 * arcengine game, the content hash of the files it mounts now (`arc3/gameCode.ts`).
 */
export type ExportGames = Readonly<
  Record<string, { readonly levels: number; readonly version?: string; readonly codeHash?: string }>
>;

const BUILTIN_GAMES: ExportGames = Object.fromEntries(
  Object.values(builtinGames).map((g) => [g.id, { levels: g.levels.length, version: versionedGameId(g) }]),
);

/**
 * The reads an export makes: studies, sessions, their events, answers and game steps, grades and
 * campaign figures. An export never writes to the store.
 */
export type ExportStore = Pick<
  Store,
  | 'getStudy'
  | 'listStudies'
  | 'listSessions'
  | 'streamEvents'
  | 'streamEventsJson'
  | 'readEvents'
  | 'listSubmissions'
  | 'listStudyFirstRuns'
  | 'listResponses'
  | 'listGameRuns'
  | 'readGameSteps'
  | 'readGameStepsJson'
  | 'readGameStepsJsonOf'
  | 'studyGamePins'
  | 'getGameCode'
  | 'listStudyResponses'
  | 'grading'
  | 'campaigns'
  | 'archives'
>;

/** Everything an export writer needs. */
export interface ExportContext {
  readonly store: ExportStore;
  readonly studyId: string;
  /** Only sessions of this version; null: every version. */
  readonly version: number | null;
  /** Every stored version's definition. */
  readonly versions: ReadonlyMap<number, StudyDefinition>;
  /** The sessions exported, in order of creation: every stage's, each row saying its own (`stage`). */
  readonly sessions: readonly SessionRecord[];
  /**
   * The stage the files of counted figures take (baselines, the campaign's figures, payments):
   * `main` unless asked for another; null: every stage.
   */
  readonly stage: string | null;
  /** How many test inputs a task has; null when unknown. */
  readonly testCount: (collection: string, task: string) => number | null;
  /** The server's game-log verification; null leaves every game log unverified. */
  readonly replay: ReplayGame | null;
  /** The games the server runs (built-in and arcengine): level counts and current versions. */
  readonly games: ExportGames;
  /** Ms since the epoch, for session states (abandoned, timed out). */
  readonly now: number;
  /** Events per page read from the store. */
  readonly pageSize: number;
}

export interface ContextOptions {
  readonly store: ExportStore;
  readonly studyId: string;
  readonly version?: number | null;
  /** The stage counted figures take (default `main`; null: every stage). */
  readonly stage?: string | null;
  /** The task collections, to count a task's test inputs; null: from the study and the submissions. */
  readonly library: TaskLibrary | null;
  readonly replay: ReplayGame | null;
  /** The games the server runs; the built-in games when not given. */
  readonly games?: ExportGames;
  readonly now: number;
  /** Events per page read from the store (default `EVENTS_PAGE`). */
  readonly pageSize?: number;
}

/**
 * Loads a study for export.
 * @throws ExportError 404 for an unknown study or version, 400 for a version that is not a
 * whole number from 1.
 */
export async function exportContext(o: ContextOptions): Promise<ExportContext> {
  const latest = await o.store.getStudy(o.studyId);
  if (!latest) {
    const ids = (await o.store.listStudies()).map((s) => s.id);
    throw new ExportError(
      404,
      'not_found',
      `No study "${o.studyId}". ${ids.length ? `Studies: ${ids.join(', ')}.` : 'There are no studies yet.'}`,
    );
  }
  const version = o.version ?? null;
  if (version !== null && (!Number.isInteger(version) || version < 1)) {
    throw new ExportError(
      400,
      'malformed',
      `version must be a whole number from 1, not ${String(version)}; leave it out for every version.`,
    );
  }
  const versions = new Map<number, StudyDefinition>();
  for (let n = 1; n <= latest.version; n++) {
    const rec = n === latest.version ? latest : await o.store.getStudy(o.studyId, n);
    if (rec) versions.set(n, definitionOf(rec));
  }
  if (version !== null && !versions.has(version)) {
    throw new ExportError(
      404,
      'not_found',
      `Study "${o.studyId}" has no version ${version}; its versions are ${[...versions.keys()].join(', ')}.`,
    );
  }
  const counts = new Map<string, number | null>();
  for (const def of versions.values()) {
    for (const item of def.items) {
      if (item.kind !== 'task') continue;
      const key = `${item.collection}\u0000${item.task}`;
      if (counts.has(key)) continue;
      const found = o.library ? await o.library.task(item.collection, item.task) : null;
      counts.set(key, found && found.ok ? found.task.test.length : null);
    }
  }
  const sessions = (await o.store.listSessions(o.studyId))
    .filter((s) => version === null || s.studyVersion === version)
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  return {
    store: o.store,
    studyId: o.studyId,
    version,
    versions,
    sessions,
    stage: o.stage === undefined ? MAIN_STAGE : o.stage,
    testCount: (collection, task) => counts.get(`${collection}\u0000${task}`) ?? null,
    replay: o.replay,
    games: o.games ?? BUILTIN_GAMES,
    now: o.now,
    pageSize: o.pageSize ?? EVENTS_PAGE,
  };
}

/**
 * The store as an export reads it: before each page of events, each page of a run's steps and
 * each read of an archive's rows, the participants' writes go first (`participantsFirst`), so
 * that an export of a long log never holds up their acknowledgements (on PGlite every query runs
 * on their thread, in turn). An export never writes: an archive's restore is refused here.
 */
export function exportReads(store: ExportStore): ExportStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'streamEvents' || key === 'streamEventsJson')
        return (sessionId: string, opts?: { batchSize?: number; afterSeq?: number }) =>
          participantsFirst<unknown>(target[key](sessionId, opts));
      if (key === 'readGameSteps') {
        return async (runId: string, opts?: { from?: number; limit?: number }) => {
          await participantWrites.turn();
          return target.readGameSteps(runId, opts);
        };
      }
      if (key === 'readGameStepsJson') {
        return async (runId: string, opts: { from?: number; limit: number }) => {
          await participantWrites.turn();
          return target.readGameStepsJson(runId, opts);
        };
      }
      if (key === 'readGameStepsJsonOf') {
        return async (runIds: readonly string[], below: number) => {
          await participantWrites.turn();
          return target.readGameStepsJsonOf(runIds, below);
        };
      }
      if (key === 'archives') {
        const archives = target.archives;
        return {
          readArchivePage: async (...args: Parameters<typeof archives.readArchivePage>) => {
            await participantWrites.turn();
            return archives.readArchivePage(...args);
          },
          readArchiveRows: async (...args: Parameters<typeof archives.readArchiveRows>) => {
            await participantWrites.turn();
            return archives.readArchiveRows(...args);
          },
          restoreArchive: () => Promise.reject(new Error('an export does not write')),
        } satisfies ExportStore['archives'];
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The definition a session ran. */
export function definitionFor(ctx: ExportContext, s: SessionRecord): StudyDefinition {
  const def = ctx.versions.get(s.studyVersion);
  if (!def)
    throw new Error(`Session ${s.id} ran version ${s.studyVersion} of study ${ctx.studyId}, which is not stored.`);
  return def;
}

/** Whether a session is a designer's playtest (never counted). */
export function isPlaytestSession(s: Pick<SessionRecord, 'params' | 'flags'>): boolean {
  return s.params.mode === PLAYTEST_MODE || s.flags.includes('playtest');
}

/** Whether a researcher excluded the session: exported with `excluded`, never counted. */
export function isExcludedSession(s: Pick<SessionRecord, 'excludedAt'>): boolean {
  return s.excludedAt !== null;
}

/**
 * The participant's id: the recruitment platform's (`PROLIFIC_PID`, then MTurk's `workerId`),
 * else the session id. Used to tell first-time players from repeat ones.
 */
export function participantId(s: Pick<SessionRecord, 'id' | 'params'>): string {
  return s.params.PROLIFIC_PID || s.params.workerId || s.id;
}

/**
 * Every event of a session as the analyses read it (`forAnalysis`: damaged data reads as
 * empty), read page by page (one session's log at a time in memory).
 */
export async function sessionEvents(ctx: ExportContext, sessionId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const page of ctx.store.streamEvents(sessionId, { batchSize: ctx.pageSize }))
    for (const e of page) out.push(forAnalysis(e));
  return out;
}

/** The test indices of a task item: its own list, else all of the task's, else those judged, else [0]. */
export function testIndicesOf(
  ctx: ExportContext,
  item: TaskItem,
  judged: readonly { item: string; testIndex: number }[],
): number[] {
  if (item.tests) return [...item.tests];
  const count = ctx.testCount(item.collection, item.task);
  if (count !== null) return Array.from({ length: count }, (_, i) => i);
  const seen = [...new Set(judged.filter((s) => s.item === item.id).map((s) => s.testIndex))].sort((a, b) => a - b);
  return seen.length ? seen : [0];
}

/** Practice item ids of a definition. */
export function practiceItems(def: StudyDefinition): Set<string> {
  return new Set(def.items.filter(isPractice).map((i) => i.id));
}
