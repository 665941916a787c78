/**
 * Session digests brought up to date for the results (`studyDigests.ts` adds them up, `results/routes.ts` routes):
 *
 * - a digest whose key holds (same analysis version, log, submissions, study version's tasks and
 *   games) is read back;
 * - a digest stored with its fold (`core/analysis/fold.ts`) under the same analysis version and
 *   study version's tasks and games is extended by the events that arrived after it: many
 *   sessions' new events read in one query, folded, and the digests saved in one statement;
 * - any other is computed from the whole log (on the digest threads when the study version's
 *   games are all built-in) and stored with its fold for next time; a log with a gap (events
 *   stored past a missing seq) is folded whole a page at a time too and stored without a fold.
 *
 * So during a live study a results request costs the events that arrived since the last one,
 * not the study's logs.
 */
import { createHash } from 'node:crypto';
import { ANALYSIS_VERSION, type ResultsInput, type SessionData, type SessionDigest } from '../../core/analysis/results';
import { finishDigest, foldEvents, newDigestFold, type DigestFold } from '../../core/analysis/fold';
import type { StudyDefinition } from '../../core/study/schema';
import type { StoredEvent } from '../../core/study/rules';
import { builtInGamesOnly } from '../study/studies';
import type { ReplayGame } from '../../core/study/rules';
import type { DigestPool } from './pool';
import { digestCache } from './cache';
import { participantWrites, participantsFirst } from '../load';
import type { ThreadReplay } from '../arc3/replayCheck';
import type {
  AnswerStore,
  DigestStore,
  EventStore,
  SessionRecord,
  SessionStore,
  StoredDigest,
  SubmissionRecord,
} from '../store/types';

/** What digesting reads and stores: sessions, their answers and events, and their digests. */
export type DigestingStore = SessionStore & AnswerStore & EventStore & DigestStore;

/** What digesting needs of the results' dependencies (`ResultsDeps` in `studyDigests.ts`). */
export interface DigestDeps {
  readonly store: DigestingStore;
  /** The server's game-log verification; null leaves every game log unverified. */
  readonly replay: ReplayGame | null;
  /** Threads that compute cold digests off the main thread (study versions with built-in games only, unless `threadReplay`). */
  readonly digests?: DigestPool;
  /**
   * What the digest threads need to check server-run games' logs (arcengine, remote) as `replay`
   * does here (`arc3/replayCheck.ts`): with it, study versions with those games are digested
   * on the threads too.
   */
  readonly threadReplay?: () => ThreadReplay;
}

/** What the digests of a study's sessions are computed against: its versions, tasks and games. */
export interface StudyBasis {
  readonly versions: readonly { version: number; definition: StudyDefinition }[];
  readonly testCount: (collection: string, task: string) => number | null;
  readonly games: ResultsInput['games'];
  readonly now: number;
}

/**
 * The reads of a study's digests that need only its id, started before its versions are read:
 * on PGlite every round of statements of a live refresh waits behind the participants' writes,
 * so a refresh takes one round less. Read early, they may be older than the digests a background
 * run stores meanwhile: a digest's key tells, so an older one only costs its extension.
 */
export interface EarlyDigestReads {
  readonly sessions: Promise<readonly SessionRecord[]>;
  /** Null when every stored digest of the study is in memory already (`cache.ts`). */
  readonly stored: Promise<Map<string, { key: string; digest: unknown }> | null>;
  readonly submissionCounts: Promise<Map<string, number>>;
}

/** Starts the early reads of study `studyId`'s digests; a caller that ends up not using them leaves no unhandled rejection. */
export function startDigestReads(store: SessionStore & AnswerStore & DigestStore, studyId: string): EarlyDigestReads {
  const reads = {
    sessions: store.listSessions(studyId),
    stored: digestCache(store).isComplete(studyId) ? Promise.resolve(null) : store.readDigests(studyId),
    submissionCounts: store.submissionCounts(studyId),
  };
  for (const p of Object.values(reads)) p.catch(() => undefined);
  return reads;
}

/** Reports how many of the sessions whose digests are out of date have been digested. */
export type DigestProgressFn = (done: number, total: number) => void;

/** Sessions read and digested at once when the digests are computed on worker threads. */
const DIGESTS_IN_FLIGHT_PER_THREAD = 2;
/**
 * Folds extended together: their folds, submissions and new events are read in one round of
 * queries, their digests saved in one statement. Why this many: on PGlite every statement of a
 * live refresh waits behind the participants' writes queued before it, so a refresh of a live
 * study costs its rounds of statements more than their size (1,000 sessions took 5 rounds of 4
 * at 200).
 */
const TAIL_BATCH_SESSIONS = 1_000;
/** At most this many new events in one query; a longer tail is read and folded a page at a time. */
export const TAIL_BATCH_EVENTS = 5_000;
/**
 * New events of many sessions read in one query when folds are extended: the tails of a live
 * refresh are short (a few events a session), and a thousand sessions' ten events each in one
 * round instead of two spares the refresh a round of waiting behind the participants' writes.
 */
const EXTEND_BATCH_EVENTS = 10_000;

/** The parts of a digest's key: a fold is extended while the first two and the last hold. */
const digestKey = (analysis: number, s: SessionRecord, submissions: number, fingerprint: string) =>
  [analysis, s.studyVersion, s.ackedThrough, s.eventCount, submissions, fingerprint].join('|');
const keyBasis = (key: string) => {
  const p = key.split('|');
  return `${p[0]}|${p[1]}|${p[5]}`;
};

/** Every stored event of the session is at or before its `ackedThrough` (no gap): its log can be folded. */
const contiguous = (s: SessionRecord) => s.eventCount === s.ackedThrough + 1;

/**
 * The digests of these sessions of a study (see the module comment), stored for next time; a
 * session whose study version is missing is given with its log instead. `list`: the sessions, or
 * their list being read (read beside the stored digests: one round of statements less).
 */
export function digestSessions(...args: Parameters<typeof digestSessionsNow>): Promise<SessionData[]> {
  // One refresh of a study at a time: an extension folds the kept fold in place (`cache.ts`).
  const [deps, studyId] = args;
  return digestCache(deps.store).exclusive(studyId, () => digestSessionsNow(...args));
}

async function digestSessionsNow(
  deps: DigestDeps,
  studyId: string,
  basis: StudyBasis,
  list: readonly SessionRecord[] | Promise<readonly SessionRecord[]>,
  progress?: DigestProgressFn,
  early?: EarlyDigestReads,
): Promise<SessionData[]> {
  const { store } = deps;
  const { testCount, games, now } = basis;
  const cache = digestCache(store);
  const [sessions, readBack, submissionCounts] = await Promise.all([
    list,
    early ? early.stored : cache.isComplete(studyId) ? null : store.readDigests(studyId),
    early?.submissionCounts ?? store.submissionCounts(studyId),
  ]);
  // Read early while the cache was complete, but a failed refresh has emptied it since: read now.
  const stored = readBack ?? (cache.isComplete(studyId) ? null : await store.readDigests(studyId));
  if (stored) cache.setStored(studyId, stored);
  /** The digest kept for a session: the one in memory, else the stored one read back. */
  const keptOf = (id: string): { key: string; digest: unknown; fold: DigestFold | null } | undefined => {
    const inMemory = cache.get(id);
    if (inMemory) return inMemory;
    const row = stored?.get(id);
    return row && { ...row, fold: null };
  };
  /** A computed digest, once stored, kept in memory with its fold (null: none is kept for it). */
  const keep = (session: SessionRecord, key: string, digest: SessionDigest, fold: DigestFold | null) =>
    cache.set(session.id, studyId, key, digest, fold);
  const defs = new Map(basis.versions.map((v) => [v.version, v.definition]));
  const fingerprints = new Map<number, string>();
  const fingerprint = (v: number) => {
    let f = fingerprints.get(v);
    if (f === undefined)
      fingerprints.set(v, (f = versionFingerprint(defs.get(v), testCount, games, deps.replay !== null)));
    return f;
  };
  const keyOf = (s: SessionRecord) =>
    digestKey(ANALYSIS_VERSION, s, submissionCounts.get(s.id) ?? 0, fingerprint(s.studyVersion));
  const data: SessionData[] = new Array(sessions.length);
  const extend: number[] = [];
  const whole: number[] = [];
  const keptAt: ({ key: string; digest: unknown; fold: DigestFold | null } | undefined)[] = new Array(sessions.length);
  for (const [i, session] of sessions.entries()) {
    const kept = (keptAt[i] = keptOf(session.id));
    const key = keyOf(session);
    if (kept && kept.key === key) data[i] = { session, digest: kept.digest as SessionDigest };
    else if (kept && keyBasis(kept.key) === keyBasis(key) && contiguous(session) && defs.has(session.studyVersion))
      extend.push(i);
    else whole.push(i);
  }

  const pool = deps.digests;
  const { offThread, threadCheck, countsOf, foldAndFinish } = digestFolding(deps, testCount);

  let done = 0;
  const total = extend.length + whole.length;
  progress?.(0, total);

  // Folds extended by what arrived since, many sessions a query; a fold that cannot be read back
  // (deleted, of another version) is computed whole instead. A stored fold ends where its key's
  // acknowledged end does, so the new events are read beside the folds, not after them.
  const keptThrough = (i: number) => Number(keptAt[i]!.key.split('|')[2]);
  for (let from = 0; from < extend.length;) {
    const batch: number[] = [];
    let events = 0;
    for (; from < extend.length && batch.length < TAIL_BATCH_SESSIONS; from++) {
      const tail = sessions[extend[from]].ackedThrough - keptThrough(extend[from]);
      if (batch.length > 0 && events + tail > EXTEND_BATCH_EVENTS) break;
      batch.push(extend[from]);
      events += Math.max(0, tail);
    }
    const ids = batch.map((i) => sessions[i].id);
    const small = batch.filter((i) => sessions[i].ackedThrough - keptThrough(i) <= TAIL_BATCH_EVENTS);
    const [folds, subs, tails] = await Promise.all([
      // Only the folds not in memory are read back.
      store.readDigestFolds(batch.filter((i) => keptAt[i]!.fold === null).map((i) => sessions[i].id)),
      store.listSubmissionsOf(ids),
      store.readEventTails(
        small.map((i) => ({
          sessionId: sessions[i].id,
          afterSeq: Math.max(-1, keptThrough(i)),
          throughSeq: sessions[i].ackedThrough,
        })),
      ),
    ]);
    const ready: { i: number; fold: DigestFold }[] = [];
    for (const i of batch) {
      const session = sessions[i];
      const inMemory = keptAt[i]!.fold;
      const f = folds.get(session.id);
      const fold = inMemory ?? (f && keyBasis(f.key) === keyBasis(keyOf(session)) ? (f.fold as DigestFold) : null);
      if (fold && fold.analysis === ANALYSIS_VERSION && fold.seq <= session.ackedThrough) ready.push({ i, fold });
      else whole.push(i);
    }
    const rows: StoredDigest[] = [];
    for (const { i, fold } of ready) {
      const session = sessions[i];
      const def = defs.get(session.studyVersion)!;
      // The tail read beside the fold, when the fold ends where its key said; else read from the fold on.
      let tail = fold.seq === keptThrough(i) ? tails.get(session.id) : undefined;
      let f = fold;
      if (!tail) {
        // A long tail: folded a page at a time, the acknowledgements waiting going first between pages.
        for await (const page of participantsFirst(
          store.streamEvents(session.id, { afterSeq: f.seq, batchSize: TAIL_BATCH_EVENTS }),
        )) {
          const upTo = page.filter((e) => e.seq <= session.ackedThrough);
          f = foldEvents(def, session.order, f, upTo);
          if (upTo.length < page.length) break;
        }
        tail = [];
      }
      const r = await foldAndFinish(session, def, f, tail, subs.get(session.id) ?? []);
      rows.push({ sessionId: session.id, key: keyOf(session), digest: r.digest, fold: r.fold });
      data[i] = { session, digest: r.digest };
      progress?.(++done, total);
    }
    await store.saveDigests(rows, now);
    for (const [k, { i }] of ready.entries())
      keep(sessions[i], rows[k].key, rows[k].digest as SessionDigest, rows[k].fold as DigestFold);
    // Between two batches the participants' writes go first (after the last, the caller's next read does).
    if (from < extend.length || whole.length > 0) await participantWrites.turn();
  }

  // Whole logs of contiguous sessions, many sessions a query as the tails above: their events and
  // submissions read in one query each and their digests saved in one statement, folded on the
  // digest threads a few sessions per thread at once. Why: a cold view of thousands of sessions
  // spent its time on three statements per session, not on folding.
  const inFlight = pool ? pool.size * DIGESTS_IN_FLIGHT_PER_THREAD : 1;
  const batched = whole.filter(
    (i) => contiguous(sessions[i]) && defs.has(sessions[i].studyVersion) && sessions[i].eventCount <= TAIL_BATCH_EVENTS,
  );
  for (let from = 0; from < batched.length;) {
    const batch: number[] = [];
    let events = 0;
    for (; from < batched.length && batch.length < TAIL_BATCH_SESSIONS; from++) {
      const n = sessions[batched[from]].eventCount;
      if (batch.length > 0 && events + n > TAIL_BATCH_EVENTS) break;
      batch.push(batched[from]);
      events += n;
    }
    const [logs, subs] = await Promise.all([
      store.readEventTails(
        batch.map((i) => ({ sessionId: sessions[i].id, afterSeq: -1, throughSeq: sessions[i].ackedThrough })),
      ),
      store.listSubmissionsOf(batch.map((i) => sessions[i].id)),
    ]);
    const rows: StoredDigest[] = new Array(batch.length);
    let next = 0;
    const lane = async () => {
      while (next < batch.length) {
        const k = next++;
        const session = sessions[batch[k]];
        const r = await foldAndFinish(
          session,
          defs.get(session.studyVersion)!,
          null,
          logs.get(session.id) ?? [],
          subs.get(session.id) ?? [],
        );
        rows[k] = { sessionId: session.id, key: keyOf(session), digest: r.digest, fold: r.fold };
        data[batch[k]] = { session, digest: r.digest };
        progress?.(++done, total);
        // Folded here (no threads): the acknowledgements waiting on this thread go first.
        if (!pool) await participantWrites.turn();
      }
    };
    await Promise.all(Array.from({ length: Math.min(batch.length, inFlight) }, lane));
    await store.saveDigests(rows, now);
    for (const [k, i] of batch.entries())
      keep(sessions[i], rows[k].key, rows[k].digest as SessionDigest, rows[k].fold as DigestFold);
    await participantWrites.turn();
  }

  // The other whole logs (a gap, a missing study version, a long log), one session at a time per
  // lane: on the digest threads a few sessions per thread at once, else one at a time (either
  // way a few logs in memory and connections of the pool).
  const inBatches = new Set(batched);
  const rest = whole.filter((i) => !inBatches.has(i));
  const digestWhole = async (i: number) => {
    const session = sessions[i];
    const def = defs.get(session.studyVersion);
    const submissions = await store.listSubmissions(session.id);
    if (def) {
      // Folded a page at a time as it is read, so that neither the reading nor the folding of a
      // long log holds the thread, and a digest thread is handed the fold, never the log; the
      // finishing (game replays) goes to a digest thread if it can. A log with a gap folds the
      // same way (every stored event, in seq order) but keeps no fold: the events past the gap
      // are not after its acknowledged end, where the next extension would start.
      let fold = newDigestFold();
      for await (const page of participantsFirst(store.streamEvents(session.id, { batchSize: TAIL_BATCH_EVENTS })))
        fold = foldEvents(def, session.order, fold, page);
      const r = offThread(def)
        ? await pool!.fold({
            definition: def,
            order: session.order,
            fold,
            events: [],
            submissions,
            testCounts: countsOf(session.studyVersion, def),
            ...threadCheck(def),
          })
        : await foldAndFinish(session, def, fold, [], submissions);
      const kept = contiguous(session) ? r.fold : null;
      await store.saveDigest(session.id, keyOf(session), r.digest, now, kept);
      keep(session, keyOf(session), r.digest, kept);
      data[i] = { session, digest: r.digest };
    } else {
      // No definition of the session's study version: the results read its log itself.
      const events: StoredEvent[] = [];
      for await (const page of participantsFirst(store.streamEvents(session.id, { batchSize: TAIL_BATCH_EVENTS })))
        events.push(...page);
      data[i] = { session, events, submissions };
    }
    progress?.(++done, total);
    await participantWrites.turn();
  };
  let next = 0;
  const lane = async () => {
    while (next < rest.length) await digestWhole(rest[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(rest.length, inFlight) }, lane));
  return data;
}

/**
 * How one call of `digestSessionsNow` folds and finishes a session's digest: on a digest thread
 * when the version's games can be replayed there, else here; the test counts of each study
 * version worked out once per call.
 */
function digestFolding(deps: DigestDeps, testCount: StudyBasis['testCount']) {
  const pool = deps.digests;
  const offThread = (def: StudyDefinition) =>
    pool !== undefined && (builtInGamesOnly(def) || deps.threadReplay !== undefined);
  /** The check of the version's game logs on a thread: whether there is one, and what it needs for server-run games. */
  const threadCheck = (def: StudyDefinition) => ({
    verify: deps.replay !== null,
    ...(deps.replay !== null && !builtInGamesOnly(def) ? { serverRuns: deps.threadReplay!() } : {}),
  });
  const versionCounts = new Map<number, [string, number | null][]>();
  const countsOf = (v: number, def: StudyDefinition) => {
    let c = versionCounts.get(v);
    if (!c)
      versionCounts.set(
        v,
        (c = def.items.flatMap((item) =>
          item.kind === 'task'
            ? [
                [`${item.collection}\u0000${item.task}`, testCount(item.collection, item.task)] as [
                  string,
                  number | null,
                ],
              ]
            : [],
        )),
      );
    return c;
  };
  /** The fold extended by `events` and finished: on a digest thread when the version has games to replay there. */
  const foldAndFinish = async (
    session: SessionRecord,
    def: StudyDefinition,
    fold: DigestFold | null,
    events: readonly StoredEvent[],
    submissions: readonly SubmissionRecord[],
  ) => {
    if (offThread(def) && (fold === null || def.items.some((item) => item.kind === 'game'))) {
      return pool!.fold({
        definition: def,
        order: session.order,
        fold,
        events,
        submissions,
        testCounts: countsOf(session.studyVersion, def),
        ...threadCheck(def),
      });
    }
    const f = foldEvents(def, session.order, fold ?? newDigestFold(), events);
    return { digest: finishDigest(def, session, f, submissions, testCount, deps.replay), fold: f };
  };
  return { offThread, threadCheck, countsOf, foldAndFinish };
}

/**
 * What a digest of a session of this study version depends on besides its log: its task items'
 * test counts and its games' current versions and levels (and whether game logs can be verified
 * here at all). A change of any of them computes the digests again.
 */
function versionFingerprint(
  def: StudyDefinition | undefined,
  testCount: (c: string, t: string) => number | null,
  games: ResultsInput['games'],
  verifies: boolean,
): string {
  if (!def) return 'missing';
  const parts: string[] = [verifies ? 'verify' : 'no-verify'];
  for (const item of def.items) {
    if (item.kind === 'task')
      parts.push(`t:${item.collection}/${item.task}=${testCount(item.collection, item.task) ?? '?'}`);
    if (item.kind === 'game')
      parts.push(`g:${item.game}=${games[item.game]?.version ?? '?'}/${games[item.game]?.levels ?? '?'}`);
  }
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
}
