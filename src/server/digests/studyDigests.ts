/**
 * A study's results from its sessions' digests (`core/analysis`): each digest is computed from
 * the stored log and submissions once, on the digest threads (`pool.ts`) when the study's games
 * allow, and kept in the database while they do not change. The results routes (`resultsApi.ts`),
 * the background maintainer (`maintainer.ts`), campaigns, the CLI and the benches read them here.
 */
import { createHash } from 'node:crypto';
import { ANALYSIS_VERSION, digestSession, studyResults, type QuestionFacts, type ResultsInput, type SessionData, type SessionDigest, type StudyResults } from '../../core/analysis/results';
import { questionFacts, type GradeLookup } from '../../core/analysis/questions';
import { answerKey } from '../../core/grading/agreement';
import { finalGrades } from '../grading/grading';
import type { StudyDefinition } from '../../core/study/schema';
import type { ReplayGame } from '../../core/study/rules';
import { versionedGameId } from '../../core/game';
import { games } from '../../games';
import type { TaskLibrary } from '../collections';
import { builtInGamesOnly, definitionOf } from '../studies';
import type { DigestPool } from './pool';
import { isFinalState } from '../../core/study/rules';
import type { SessionRecord, Store } from '../store/types';

/**
 * What the digests need of the maintainer (`maintainer.ts`, which imports this module): one run on
 * a study's digests at a time, with its progress reported.
 */
export interface DigestRunner {
  run<T>(studyId: string, reason: 'results', work: (progress: DigestProgressFn) => Promise<T>): Promise<T>;
}

export interface ResultsDeps {
  readonly store: Store;
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
   * Keeps the digests of ended sessions up to date in the background and reports progress; the
   * results request then waits for a background run on the same study instead of repeating it.
   */
  readonly maintainer?: DigestRunner;
}

/** Sessions read and digested at once when the digests are computed on worker threads. */
const DIGESTS_IN_FLIGHT_PER_THREAD = 2;

/** A session without an event for this long is digested in the background like an ended one. */
export const SETTLED_AFTER_MS = 10 * 60_000;

/** The registered games' titles, level counts and current versions, as the results need them. */
const gameInfo: ResultsInput['games'] = Object.fromEntries(Object.values(games).map((g) => [g.id, { title: g.title, levels: g.levels.length, version: versionedGameId(g) }]));

/** What the digests of a study's sessions are computed against: its versions, tasks and games. */
interface StudyBasis {
  readonly versions: readonly { version: number; definition: StudyDefinition }[];
  readonly testCount: (collection: string, task: string) => number | null;
  readonly games: ResultsInput['games'];
  readonly now: number;
}

async function studyBasis(deps: ResultsDeps, id: string, version: number | null): Promise<StudyBasis | { error: string }> {
  const { store } = deps;
  const latest = await store.getStudy(id);
  if (!latest) return { error: `No study "${id}". GET /api/admin/studies lists the studies there are.` };
  if (version !== null && version > latest.version) return { error: `Study "${id}" has no version ${version}; its versions are 1 to ${latest.version}.` };

  const versions: { version: number; definition: StudyDefinition }[] = [];
  for (let n = 1; n <= latest.version; n++) {
    const rec = n === latest.version ? latest : await store.getStudy(id, n);
    if (rec) versions.push({ version: n, definition: definitionOf(rec) });
  }
  if (version !== null && !versions.some((x) => x.version === version)) {
    return { error: `Study "${id}" has no version ${version}; its versions are ${versions.map((x) => x.version).join(', ')}.` };
  }

  const testCounts = new Map<string, number | null>();
  for (const { definition } of versions) {
    for (const item of definition.items) {
      if (item.kind !== 'task') continue;
      const key = `${item.collection}\u0000${item.task}`;
      if (testCounts.has(key)) continue;
      const found = await deps.library.task(item.collection, item.task);
      testCounts.set(key, found.ok ? found.task.test.length : null);
    }
  }
  const testCount = (collection: string, task: string) => testCounts.get(`${collection}\u0000${task}`) ?? null;
  return { versions, testCount, games: deps.gameInfo?.() ?? gameInfo, now: (deps.now ?? Date.now)() };
}

/** Reports how many of the sessions whose digests are out of date have been digested. */
export type DigestProgressFn = (done: number, total: number) => void;

/**
 * The digests of these sessions of a study: each one read back while its key holds (same
 * analysis, log, submissions and study version's tasks and games), the others computed from their
 * logs and stored for next time: on the digest threads a few sessions per thread at once, else
 * one at a time (either way a few logs in memory and connections of the pool).
 */
async function digestSessions(deps: ResultsDeps, studyId: string, basis: StudyBasis, sessions: readonly SessionRecord[], progress?: DigestProgressFn): Promise<SessionData[]> {
  const { store } = deps;
  const { testCount, games, now } = basis;
  const [stored, submissionCounts] = await Promise.all([store.readDigests(studyId), store.submissionCounts(studyId)]);
  const defs = new Map(basis.versions.map((v) => [v.version, v.definition]));
  const fingerprints = new Map<number, string>();
  const fingerprint = (v: number) => {
    let f = fingerprints.get(v);
    if (f === undefined) fingerprints.set(v, (f = versionFingerprint(defs.get(v), testCount, games, deps.replay !== null)));
    return f;
  };
  const digestKey = (session: SessionRecord) => [ANALYSIS_VERSION, session.studyVersion, session.ackedThrough, session.eventCount, submissionCounts.get(session.id) ?? 0, fingerprint(session.studyVersion)].join('|');
  const data: SessionData[] = new Array(sessions.length);
  const cold: number[] = [];
  for (const [i, session] of sessions.entries()) {
    const kept = stored.get(session.id);
    if (kept && kept.key === digestKey(session)) data[i] = { session, digest: kept.digest as SessionDigest };
    else cold.push(i);
  }
  const pool = deps.digests;
  const offThread = (def: StudyDefinition) => pool !== undefined && builtInGamesOnly(def);
  const versionCounts = new Map<number, [string, number | null][]>();
  const countsOf = (v: number, def: StudyDefinition) => {
    let c = versionCounts.get(v);
    if (!c) versionCounts.set(v, (c = def.items.flatMap((item) => (item.kind === 'task' ? [[`${item.collection}\u0000${item.task}`, testCount(item.collection, item.task)] as [string, number | null]] : []))));
    return c;
  };
  let done = 0;
  progress?.(0, cold.length);
  const digestOne = async (i: number) => {
    const session = sessions[i];
    const def = defs.get(session.studyVersion);
    const [events, submissions] = await Promise.all([store.readEvents(session.id), store.listSubmissions(session.id)]);
    if (!def) {
      data[i] = { session, events, submissions };
    } else {
      const digest = offThread(def)
        ? await pool!.digest({ definition: def, session, events, submissions, testCounts: countsOf(session.studyVersion, def), verify: deps.replay !== null })
        : digestSession(def, session, events, submissions, testCount, deps.replay);
      await store.saveDigest(session.id, digestKey(session), digest, now);
      data[i] = { session, digest };
    }
    progress?.(++done, cold.length);
    // Between two sessions the participants' acknowledgements waiting on this thread go first.
    await new Promise((r) => setImmediate(r));
  };
  if (pool) {
    // A few sessions at a time per thread: the threads stay busy, the logs in memory stay few.
    let next = 0;
    const lane = async () => { while (next < cold.length) await digestOne(cold[next++]); };
    await Promise.all(Array.from({ length: Math.min(cold.length, pool.size * DIGESTS_IN_FLIGHT_PER_THREAD) }, lane));
  } else {
    for (const i of cold) await digestOne(i);
  }
  return data;
}

/**
 * Brings the stored digests of a study's settled sessions up to date (finished, timed out,
 * withdrawn, abandoned, or without an event for `SETTLED_AFTER_MS`), so that the next results
 * request only reads them back. Sessions still under way are left to the request: their logs
 * grow. How many were out of date; `{error}` for a study that is gone.
 */
export async function refreshSettledDigests(deps: ResultsDeps, id: string, progress?: DigestProgressFn): Promise<{ digested: number } | { error: string }> {
  const basis = await studyBasis(deps, id, null);
  if ('error' in basis) return basis;
  const settled = (await deps.store.listSessions(id)).filter((s) => isFinalState(s.state) || basis.now - (s.lastEventAt ?? s.createdAt) > SETTLED_AFTER_MS);
  let digested = 0;
  await digestSessions(deps, id, basis, settled, (done, total) => { digested = total; progress?.(done, total); });
  return { digested };
}

/**
 * The results of a study (every version, or one), as `GET /api/admin/studies/:studyId/results`
 * answers them; `{error}` for an unknown study or version. The agents' scorecards read their
 * human baselines from here (agents/baselines.ts). With a maintainer, the digests are brought up
 * to date under its watch: after any background run on the same study, with progress shown.
 */
export async function computeStudyResults(deps: ResultsDeps, id: string, version: number | null): Promise<StudyResults | { error: string }> {
  const basis = await studyBasis(deps, id, version);
  if ('error' in basis) return basis;
  const { versions, testCount, games, now } = basis;
  const digestAll = async (progress?: DigestProgressFn) => {
    const sessions = (await deps.store.listSessions(id)).filter((s) => version === null || s.studyVersion === version);
    return digestSessions(deps, id, basis, sessions, progress);
  };
  const data = deps.maintainer ? await deps.maintainer.run(id, 'results', digestAll) : await digestAll();

  const facts = deps.questionFacts ?? ((collection: string, question: string) => {
    const found = deps.library.questions.question(collection, question);
    return found.ok ? questionFacts(found.item) : null;
  });
  // Final grades change apart from the logs: applied to the summed digests, never kept in one.
  // (A study without question items has nothing to grade: no query.)
  const finals = versions.some((v) => v.definition.items.some((item) => item.kind === 'question')) ? await finalGrades(deps.store, id) : new Map<string, never>();
  const grades: GradeLookup = (sessionId, item, testIndex) => {
    const g = finals.get(answerKey(sessionId, item, testIndex));
    return g ? { verdict: g.pass ? 'correct' : 'wrong', points: g.points, maxPoints: g.maxPoints } : null;
  };
  return studyResults({ study: { id }, versions, version, sessions: data, testCount, games, replay: deps.replay, now, questionFacts: facts, grades });
}

/**
 * Every session of a study with its digest (brought up to date as the results do, under the
 * maintainer's watch when there is one), for figures that add digests up another way (campaigns).
 */
export async function studySessionDigests(deps: ResultsDeps, id: string): Promise<{ data: SessionData[]; now: number } | { error: string }> {
  const basis = await studyBasis(deps, id, null);
  if ('error' in basis) return basis;
  const work = async (progress?: DigestProgressFn) => digestSessions(deps, id, basis, await deps.store.listSessions(id), progress);
  const data = deps.maintainer ? await deps.maintainer.run(id, 'results', work) : await work();
  return { data, now: basis.now };
}

/**
 * What a digest of a session of this study version depends on besides its log: its task items'
 * test counts and its games' current versions and levels (and whether game logs can be verified
 * here at all). A change of any of them computes the digests again.
 */
function versionFingerprint(def: StudyDefinition | undefined, testCount: (c: string, t: string) => number | null, games: ResultsInput['games'], verifies: boolean): string {
  if (!def) return 'missing';
  const parts: string[] = [verifies ? 'verify' : 'no-verify'];
  for (const item of def.items) {
    if (item.kind === 'task') parts.push(`t:${item.collection}/${item.task}=${testCount(item.collection, item.task) ?? '?'}`);
    if (item.kind === 'game') parts.push(`g:${item.game}=${games[item.game]?.version ?? '?'}/${games[item.game]?.levels ?? '?'}`);
  }
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
}
