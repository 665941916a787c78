/**
 * A study's results from its sessions' digests (`core/analysis`): each digest is computed from
 * the stored log and submissions once, on the digest threads (`pool.ts`) when the study's games
 * allow, and kept in the database while they do not change. The results routes (`results/routes.ts`),
 * the background maintainer (`maintainer.ts`), campaigns, the CLI and the benches read them here.
 */
import {
  studyResults,
  type QuestionFacts,
  type ResultsInput,
  type SessionData,
  type StudyResults,
} from '../../core/analysis/results';
import { questionFacts, type GradeLookup, type QuestionGrade } from '../../core/analysis/questions';
import { resultsToWire } from '../../core/analysis/resultsWire';
import { joinCrossSignals, withCrossSignals } from '../../core/analysis/signals';
import type { SessionDigest } from '../../core/analysis/results';
import { answerKey } from '../../core/grading/agreement';
import { finalGrades, type FinalGrade } from '../grading/grading';
import type { StudyDefinition } from '../../core/study/schema';
import type { ReplayGame } from '../../core/study/rules';
import { versionedGameId } from '../../core/game';
import { games } from '../../games';
import type { TaskLibrary } from '../collections/collections';
import { definitionOf } from '../study/studies';
import type { DigestPool } from './pool';
import type { ThreadReplay } from '../arc3/replayCheck';
import { isFinalState } from '../../core/study/rules';
import type { GameRunStore, Store, StudyStore } from '../store/types';
import { MAIN_STAGE, inStage } from '../../core/study/stages';
import { firstRunVersions } from '../campaign/versions';
import {
  digestSessions,
  type DigestingStore,
  startDigestReads,
  type DigestProgressFn,
  type EarlyDigestReads,
  type StudyBasis,
} from './sessions';

export type { DigestProgressFn } from './sessions';

/**
 * What the digests need of the maintainer (`maintainer.ts`, which imports this module): one run on
 * a study's digests at a time, with its progress reported.
 */
export interface DigestRunner {
  run<T>(studyId: string, reason: 'results', work: (progress: DigestProgressFn) => Promise<T>): Promise<T>;
  /** Whether a run on the study is under way or waiting: a request then reads the digests after it. */
  busy(studyId: string): boolean;
}

/** The early reads of a study's digests, unless a run on it is under way (its digests are then read after it). */
const earlyReads = (deps: ResultsDeps, id: string): EarlyDigestReads | undefined =>
  deps.maintainer?.busy(id) ? undefined : startDigestReads(deps.store, id);

/**
 * What a study's results read: its versions, its sessions and everything digested of them (answers,
 * events, stored digests), the game versions their runs were opened on, and the final grades.
 */
export type ResultsStore = StudyStore &
  DigestingStore &
  Pick<GameRunStore, 'listStudyFirstRuns'> &
  Pick<Store, 'grading'>;

export interface ResultsDeps {
  readonly store: ResultsStore;
  readonly library: TaskLibrary;
  /** SHA-256 of the researcher token. */
  readonly adminTokenHash: string;
  /** The server's game-log verification; null leaves every game log unverified (no game figures). */
  readonly replay: ReplayGame | null;
  /** Every game's title, level count and current version; the built-in games when absent. */
  readonly gameInfo?: () => ResultsInput['games'];
  /** The clock, in ms since the epoch. */
  readonly now?: () => number;
  /** A question's subset, choices and key; the library's mounted question collections when absent. */
  readonly questionFacts?: (collection: string, question: string) => QuestionFacts | null;
  /**
   * Worker threads that compute cold digests off the main thread. Used for study versions whose
   * games are all built-in (verified there by the engine, `replayWithEngine`, as `replay` does
   * for them on the server); the others are digested here.
   */
  readonly digests?: DigestPool;
  /**
   * What the digest threads need to check server-run games' logs as `replay` does
   * (`arc3/replayCheck.ts`): with it, study versions with arcengine or remote games are digested
   * on the threads too.
   */
  readonly threadReplay?: () => ThreadReplay;
  /**
   * Keeps the digests of ended sessions up to date in the background and reports progress; the
   * results request then waits for a background run on the same study instead of repeating it.
   */
  readonly maintainer?: DigestRunner;
}

/** A session without an event for this long is digested in the background like an ended one. */
export const SETTLED_AFTER_MS = 10 * 60_000;

/** The registered games' titles, level counts and current versions, as the results need them. */
const gameInfo: ResultsInput['games'] = Object.fromEntries(
  Object.values(games).map((g) => [g.id, { title: g.title, levels: g.levels.length, version: versionedGameId(g) }]),
);

/**
 * Every version of a study with its definition; `{error}` for an unknown study, or a `version`
 * (null: every version) it does not have.
 */
export async function studyVersions(
  store: Pick<StudyStore, 'getStudy'>,
  id: string,
  version: number | null,
): Promise<{ version: number; definition: StudyDefinition }[] | { error: string }> {
  const latest = await store.getStudy(id);
  if (!latest) return { error: `No study "${id}". GET /api/admin/studies lists the studies there are.` };
  if (version !== null && version > latest.version)
    return { error: `Study "${id}" has no version ${version}; its versions are 1 to ${latest.version}.` };

  const versions: { version: number; definition: StudyDefinition }[] = [];
  for (let n = 1; n <= latest.version; n++) {
    const rec = n === latest.version ? latest : await store.getStudy(id, n);
    if (rec) versions.push({ version: n, definition: definitionOf(rec) });
  }
  if (version !== null && !versions.some((x) => x.version === version)) {
    return {
      error: `Study "${id}" has no version ${version}; its versions are ${versions.map((x) => x.version).join(', ')}.`,
    };
  }
  return versions;
}

async function studyBasis(
  deps: ResultsDeps,
  id: string,
  version: number | null,
): Promise<StudyBasis | { error: string }> {
  const versions = await studyVersions(deps.store, id, version);
  if ('error' in versions) return versions;

  // Every task file read at once, not one after another.
  const tasks = new Map<string, { collection: string; task: string }>();
  for (const { definition } of versions)
    for (const item of definition.items)
      if (item.kind === 'task') tasks.set(`${item.collection}\u0000${item.task}`, item);
  const testCounts = new Map(
    await Promise.all(
      [...tasks].map(
        async ([key, { collection, task }]) => [key, await deps.library.testCount(collection, task)] as const,
      ),
    ),
  );
  const testCount = (collection: string, task: string) => testCounts.get(`${collection}\u0000${task}`) ?? null;
  return { versions, testCount, games: deps.gameInfo?.() ?? gameInfo, now: (deps.now ?? Date.now)() };
}

/**
 * Brings the stored digests of a study's settled sessions up to date (finished, timed out,
 * withdrawn, abandoned, or without an event for `SETTLED_AFTER_MS`), so that the next results
 * request only reads them back. Sessions still under way are left to the request: their logs
 * grow. How many were out of date; `{error}` for a study that is gone.
 */
export async function refreshSettledDigests(
  deps: ResultsDeps,
  id: string,
  progress?: DigestProgressFn,
): Promise<{ digested: number } | { error: string }> {
  const early = earlyReads(deps, id);
  const basis = await studyBasis(deps, id, null);
  if ('error' in basis) return basis;
  const settled = (early?.sessions ?? deps.store.listSessions(id)).then((all) =>
    all.filter((s) => isFinalState(s.state) || basis.now - (s.lastEventAt ?? s.createdAt) > SETTLED_AFTER_MS),
  );
  let digested = 0;
  await digestSessions(
    deps,
    id,
    basis,
    settled,
    (done, total) => {
      digested = total;
      progress?.(done, total);
    },
    early,
  );
  return { digested };
}

/**
 * The results of a study (every version, or one; the sessions of one stage, `main` unless
 * asked, or of every stage: null), as `GET /api/admin/studies/:studyId/results` answers them; `{error}` for an unknown study or version. The agents' scorecards read their
 * human baselines from here (agents/baselines.ts). With a maintainer, the digests are brought up
 * to date under its watch: after any background run on the same study, with progress shown.
 */
export async function computeStudyResults(
  deps: ResultsDeps,
  id: string,
  version: number | null,
  stage: string | null = MAIN_STAGE,
): Promise<StudyResults | { error: string }> {
  const early = earlyReads(deps, id);
  const basis = await studyBasis(deps, id, version);
  if ('error' in basis) return basis;
  const { versions, testCount, games, now } = basis;
  const digestAll = (progress?: DigestProgressFn) => {
    const sessions = (early?.sessions ?? deps.store.listSessions(id)).then((all) =>
      all.filter((s) => (version === null || s.studyVersion === version) && inStage(s.stage, stage)),
    );
    return digestSessions(deps, id, basis, sessions, progress, early);
  };
  // The code each server-run game's first run was opened on, read beside the digests.
  const gameRuns = versions.some((v) => v.definition.items.some((item) => item.kind === 'game'))
    ? firstRunVersions(deps.store, id)
    : undefined;
  // Awaited below; a failure is reported there, not as an unhandled rejection meanwhile.
  gameRuns?.catch(() => undefined);
  const data = deps.maintainer ? await deps.maintainer.run(id, 'results', digestAll) : await digestAll();

  const facts =
    deps.questionFacts ??
    ((collection: string, question: string) => {
      const found = deps.library.questions.question(collection, question);
      return found.ok ? questionFacts(found.item) : null;
    });
  // Final grades change apart from the logs: applied to the summed digests, never kept in one.
  // (A study without question items has nothing to grade: no query.)
  const finals = versions.some((v) => v.definition.items.some((item) => item.kind === 'question'))
    ? await finalGrades(deps.store, id)
    : new Map<string, never>();
  const gradeOf = (g: FinalGrade): QuestionGrade => ({
    verdict: g.pass ? 'correct' : 'wrong',
    points: g.points,
    maxPoints: g.maxPoints,
  });
  const grades: GradeLookup = (sessionId, item, testIndex) => {
    const g = finals.get(answerKey(sessionId, item, testIndex));
    return g ? gradeOf(g) : null;
  };
  const input: ResultsInput = {
    study: { id },
    versions,
    version,
    stage,
    sessions: data,
    testCount,
    games,
    replay: deps.replay,
    ...(gameRuns ? { gameRuns: await gameRuns } : {}),
    now,
    questionFacts: facts,
    grades,
  };
  // Adding the digests up (and comparing their prints across sessions) is linear in the study's
  // sessions and quadratic in the worst case of the signals: a digest thread does it when there is one.
  const wire = deps.digests ? resultsToWire(input, new Map([...finals].map(([key, g]) => [key, gradeOf(g)]))) : null;
  return wire && deps.digests ? deps.digests.results(wire) : studyResults(input);
}

/**
 * Sessions with their signals across sessions joined to their flags (`withCrossSignals`), the
 * prints compared on a digest thread when there is one.
 */
export async function withCrossSignalsOff<
  T extends { readonly id: string; readonly flags: readonly string[]; readonly digest: SessionDigest | null },
>(deps: Pick<ResultsDeps, 'digests'>, sessions: readonly T[]): Promise<T[]> {
  if (!deps.digests) return withCrossSignals(sessions);
  return joinCrossSignals(
    sessions,
    new Map(await deps.digests.cross(sessions.map((s) => ({ id: s.id, prints: s.digest?.prints })))),
  );
}

/**
 * Every session of a study with its digest (brought up to date as the results do, under the
 * maintainer's watch when there is one), for figures that add digests up another way (campaigns).
 */
export async function studySessionDigests(
  deps: ResultsDeps,
  id: string,
): Promise<{ data: SessionData[]; now: number } | { error: string }> {
  const early = earlyReads(deps, id);
  const basis = await studyBasis(deps, id, null);
  if ('error' in basis) return basis;
  const work = async (progress?: DigestProgressFn) =>
    digestSessions(deps, id, basis, early?.sessions ?? deps.store.listSessions(id), progress, early);
  const data = deps.maintainer ? await deps.maintainer.run(id, 'results', work) : await work();
  return { data, now: basis.now };
}
