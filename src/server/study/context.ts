/**
 * What the study routers share: their dependencies, error replies and body readers (from
 * `../http`), and caches of study versions, tasks and sessions by token.
 */
import type { ResultsInput } from '../../core/analysis/results';
import type { Context } from 'hono';
import { type StudyDefinition, type TaskItem, testIndicesOf } from '../../core/study/schema';
import type { ReplayGame, StoredEvent } from '../../core/study/rules';
import type { Pseudonym } from '../../core/study/retention';
import { summarizeSession } from '../../core/study/summary';
import { bearer, hashToken, tokenMatches } from '../people/auth';
import { fail } from '../http';
import { builtInGamesOnly, definitionOf } from './studies';
import { games } from '../../games';
import type { TaskLibrary } from '../collections/collections';
import type { SessionRecord, Store, StudyRecord } from '../store/types';
import { DEFAULT_LIMITS, type IngestLimits } from './limits';
import type { Arc3RouteInfo } from '../arc3/runs';
import type { DigestPool } from '../digests/pool';
import type { DigestMaintainer } from '../digests/maintainer';
import { participantsFirst } from '../load';
import type { ThreadReplay } from '../arc3/replayCheck';

export interface StudyDeps {
  readonly store: Store;
  readonly library: TaskLibrary;
  /** SHA-256 of the researcher token. */
  readonly adminTokenHash: string;
  /**
   * Whether the request comes from a person who may design (start playtests): set by the app
   * from the people's credentials; absent, the researcher token alone.
   */
  readonly mayDesign?: (c: Context) => Promise<boolean>;
  /** Replays a game item's events with the engine; null leaves game logs unverified. */
  readonly replay: ReplayGame | null;
  /** Registered game ids, to check studies against; null skips the check. */
  readonly games: ReadonlySet<string> | null;
  /** The clock, in ms since the epoch. */
  readonly now?: () => number;
  /** What one participant may send (docs/api.md, "Limits"); the defaults when absent. */
  readonly limits?: IngestLimits;
  /** Server-run ARC-AGI-3 games (arcengine folders, remote servers); absent: none. */
  readonly arc3?: Arc3RouteInfo;
  /**
   * The file that defines a study and would re-create it at the next start (`data/studies/<id>.json`),
   * or null; absent: no study comes from a file. Deleting such a study is refused.
   */
  readonly studyFile?: (id: string) => Promise<string | null>;
  /** Every game's title, level count and current version, for the results; the built-in games when absent. */
  readonly gameInfo?: () => ResultsInput['games'];
  /** Worker threads for the results' cold session digests (`digests/pool.ts`); absent: on the main thread. */
  readonly digests?: DigestPool;
  /**
   * What those threads need to check server-run games' logs as `replay` does (`arc3/replayCheck.ts`):
   * with it, the digests and summaries of studies with arcengine or remote games go to the threads too.
   */
  readonly threadReplay?: () => ThreadReplay;
  /** Digests ended sessions in the background (`digests/maintainer.ts`); absent: on request only. */
  readonly maintainer?: DigestMaintainer;
  /** Write export downloads on worker threads (`export/thread.ts`); absent: on the main thread. */
  readonly exportThreads?: boolean;
  /**
   * The pseudonym the retention job gives an identifier (`study/retention.ts`), so that a
   * participant whose earlier sessions were pseudonymised is still known: a repeat participant, a
   * candidate met before. Absent: identifiers are matched as sent.
   */
  readonly pseudonym?: Pseudonym;
}

export { fail, readBody, readJson, zodFail, type ErrorStatus } from '../http';

export function itemLimitsOf(study: StudyDefinition, item: { softMinutes?: number; hardMinutes?: number }) {
  return {
    softMinutes: item.softMinutes ?? study.limits.itemSoftMinutes,
    hardMinutes: item.hardMinutes ?? study.limits.itemHardMinutes,
  };
}

/**
 * An item of this session by id: one of the study's items in the session's order. A campaign's
 * study holds every candidate of its pools; a session has only those it drew.
 */
export function sessionItem(
  study: StudyDefinition,
  order: readonly number[],
  itemId: string,
): StudyDefinition['items'][number] | undefined {
  const index = order.find((i) => study.items[i]?.id === itemId);
  return index === undefined ? undefined : study.items[index];
}

export { testIndicesOf };

export type StudyContext = ReturnType<typeof studyContext>;

/** Events per page when a session is read for its summary. */
const SUMMARY_PAGE = 2_000;

/** The caches and lookups the study routers share; one per app. */
export function studyContext(deps: StudyDeps) {
  const { store } = deps;
  const now = deps.now ?? Date.now;
  const limits = deps.limits ?? DEFAULT_LIMITS;

  // Versions are immutable once stored under a session, so parsed definitions are cached by id@version.
  const defs = new Map<string, StudyDefinition>();
  const studyAt = async (id: string, version: number): Promise<StudyDefinition> => {
    const key = `${id}@${version}`;
    let d = defs.get(key);
    if (!d) {
      const rec = await store.getStudy(id, version);
      if (!rec) throw new Error(`Study ${key} is missing from the database.`);
      d = definitionOf(rec);
      defs.set(key, d);
    }
    return d;
  };
  // A stored record's definition, parsed once: keyed by when it was saved too, since a version no
  // session has run yet may be replaced in place (by this server or another).
  const parsedRecords = new Map<string, StudyDefinition>();
  const studyOfRecord = (rec: StudyRecord): StudyDefinition => {
    const key = `${rec.id}@${rec.version}@${rec.createdAt}`;
    let d = parsedRecords.get(key);
    if (!d) {
      if (parsedRecords.size >= 1000) parsedRecords.clear();
      parsedRecords.set(key, (d = definitionOf(rec)));
    }
    return d;
  };
  const forgetStudy = (id: string, version?: number) => {
    if (version !== undefined) defs.delete(`${id}@${version}`);
    else for (const key of [...defs.keys()]) if (key.startsWith(`${id}@`)) defs.delete(key);
  };

  // The library keeps parsed tasks while their files do not change: an edited file is the task's next version.
  const loadTask = (item: TaskItem) => deps.library.task(item.collection, item.task);

  // Token hash -> session. Only fields that never change are read from it (id, study version,
  // creation time; acked_through and the counts only grow, so a stale value is a lower bound);
  // bounded size.
  const sessionsByToken = new Map<string, SessionRecord>();
  const remember = (s: SessionRecord): void => {
    if (sessionsByToken.size >= 50_000) sessionsByToken.clear();
    sessionsByToken.set(s.tokenHash, s);
  };
  /**
   * Drops sessions from the cache: deleted ones, so their tokens are refused at once, and ones
   * this server just withdrew or finished, so that a game action, admitted on the cached row and
   * answered before its step is stored, is decided on the change.
   */
  const forgetSessions = (tokenHashes: readonly string[]): void => {
    for (const h of tokenHashes) sessionsByToken.delete(h);
  };
  const sessionOfToken = async (hash: string, fresh: boolean): Promise<SessionRecord | null> => {
    const hit = fresh ? undefined : sessionsByToken.get(hash);
    if (hit) return hit;
    const s = await store.getSessionByTokenHash(hash);
    if (s) remember(s);
    return s;
  };

  /**
   * The session of the request's token, or an error response: 401 without a valid token, 403 for
   * another session. `fresh` reads the session's current row (state, acked mark, flags).
   */
  const participant = async (
    c: Context,
    fresh = true,
  ): Promise<{ ok: true; session: SessionRecord; study: StudyDefinition } | { ok: false; res: Response }> => {
    const token = bearer(c.req.header('Authorization'));
    if (!token)
      return {
        ok: false,
        res: fail(
          c,
          401,
          'unauthorized',
          'This request needs the session token: send "Authorization: Bearer <token>" as given when the session was created.',
        ),
      };
    const session = await sessionOfToken(hashToken(token), fresh);
    if (!session || !tokenMatches(token, session.tokenHash))
      return {
        ok: false,
        res: fail(
          c,
          401,
          'unauthorized',
          'The token is not valid for any session. Open the study link again to start a session.',
        ),
      };
    if (session.id !== c.req.param('sessionId'))
      return {
        ok: false,
        res: fail(c, 403, 'forbidden', 'This token belongs to another session; a token opens its own session only.'),
      };
    return { ok: true, session, study: await studyAt(session.studyId, session.studyVersion) };
  };

  /**
   * A session's summary (core/study/summary), its events read a page at a time; for a researcher
   * (`forResearcher`), with participants' writes going first between pages (`participantsFirst`:
   * never for a participant's own request, which would wait for itself).
   */
  const summarize = async (session: SessionRecord, study: StudyDefinition, opts: { forResearcher?: boolean } = {}) => {
    // The game replays run on a digest thread, off the thread that acknowledges events, when
    // the thread can check the logs as `replay` does here: built-in games on their engine,
    // server-run games with the signing key and game list it is handed (`threadReplay`).
    const pool = deps.digests;
    const builtIn = builtInGamesOnly(study);
    const onThread = pool !== undefined && (builtIn || deps.threadReplay !== undefined);
    // For a thread the log is kept as each page's JSON text, as the database made it: handing
    // the thread a long log as objects would copy them all at once on this thread.
    const inTurn = <T>(pages: AsyncIterable<T>) => (opts.forResearcher ? participantsFirst(pages) : pages);
    const events: StoredEvent[] = [];
    const eventPages: string[] = [];
    if (onThread)
      for await (const page of inTurn(store.streamEventsJson(session.id, { batchSize: SUMMARY_PAGE })))
        eventPages.push(page.json);
    else
      for await (const page of inTurn(store.streamEvents(session.id, { batchSize: SUMMARY_PAGE })))
        events.push(...page);
    const subs = await store.listSubmissions(session.id);
    const counts = new Map<string, number[]>();
    // The session's own items only: a campaign's study holds every candidate of its pools.
    for (const item of session.order.map((i) => study.items[i])) {
      if (item.kind !== 'task') continue;
      const found = await loadTask(item);
      counts.set(item.id, testIndicesOf(item, found.ok ? found.task.test.length : 0));
    }
    if (onThread) {
      const serverRuns = deps.replay !== null && !builtIn ? { serverRuns: deps.threadReplay!() } : {};
      return pool.summary({
        definition: study,
        order: session.order,
        events: [],
        eventPages,
        submissions: subs,
        testIndices: [...counts.entries()],
        verify: deps.replay !== null,
        ...serverRuns,
      });
    }
    return summarizeSession(study, session.order, events, subs, (id) => counts.get(id) ?? [], deps.replay);
  };

  // A game's level count, to tell a full solve of a campaign's game candidate.
  const builtIn = Object.fromEntries(Object.values(games).map((g) => [g.id, { levels: g.levels.length }]));
  const gameLevels = (game: string): number | null => (deps.gameInfo?.() ?? builtIn)[game]?.levels ?? null;

  return {
    deps,
    store,
    now,
    limits,
    gameLevels,
    studyAt,
    studyOfRecord,
    forgetStudy,
    loadTask,
    remember,
    forgetSessions,
    participant,
    summarize,
  };
}
