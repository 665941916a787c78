/**
 * A study's results input (`ResultsInput`) as plain data, so the adding-up of the digests and the
 * signals across sessions (`studyResults`) can run on a digest thread: the input's lookups become
 * the lists of what they answer for the study's items, and its sessions carry their digests
 * (a session with only its log needs the server's replay, which stays on the server).
 */
import { answerKey } from '../grading/agreement';
import { questionPlaces, type QuestionFacts, type QuestionGrade } from './questions';
import type { ResultsInput, SessionDigest, ResultsSession } from './resultTypes';

/** `ResultsInput` without functions or maps: what a thread is handed. */
export interface ResultsWire extends Omit<
  ResultsInput,
  'sessions' | 'testCount' | 'replay' | 'gameRuns' | 'questionFacts' | 'grades'
> {
  readonly sessions: readonly { readonly session: ResultsSession; readonly digest: SessionDigest }[];
  /** `[collection + "\0" + task, test count]` of every task item of the versions. */
  readonly testCounts: readonly (readonly [string, number | null])[];
  readonly gameRuns?: readonly (readonly [string, Readonly<Record<string, { readonly version: string }>>])[];
  /** `[collection + "\0" + question, facts]` of every question the versions' items show. */
  readonly questionFacts: readonly (readonly [string, QuestionFacts | null])[];
  /** `[answerKey, grade]` of every final grade of the study. */
  readonly grades: readonly (readonly [string, QuestionGrade])[];
}

const key = (a: string, b: string) => `${a}\u0000${b}`;

/**
 * The input as a thread takes it; null when a session has no digest (its log is then added up
 * where the replay is). `grades` are the study's final grades by `answerKey`.
 */
export function resultsToWire(input: ResultsInput, grades: ReadonlyMap<string, QuestionGrade>): ResultsWire | null {
  const sessions: { session: ResultsSession; digest: SessionDigest }[] = [];
  for (const s of input.sessions) {
    if (!('digest' in s)) return null;
    sessions.push({ session: s.session, digest: s.digest });
  }
  const tasks = new Map<string, number | null>();
  const facts = new Map<string, QuestionFacts | null>();
  for (const item of input.versions.flatMap((v) => v.definition.items)) {
    if (item.kind === 'task' && !tasks.has(key(item.collection, item.task)))
      tasks.set(key(item.collection, item.task), input.testCount(item.collection, item.task));
    if (item.kind === 'question')
      for (const p of questionPlaces(item))
        if (!facts.has(key(p.collection, p.question)))
          facts.set(key(p.collection, p.question), input.questionFacts?.(p.collection, p.question) ?? null);
  }
  return {
    study: input.study,
    versions: input.versions,
    version: input.version,
    ...(input.stage !== undefined ? { stage: input.stage } : {}),
    sessions,
    testCounts: [...tasks],
    games: input.games,
    ...(input.gameRuns ? { gameRuns: [...input.gameRuns] } : {}),
    now: input.now,
    questionFacts: [...facts],
    grades: [...grades],
  };
}

/** The `ResultsInput` a thread adds up, from what it was handed; no replay (every session has its digest). */
export function resultsFromWire(w: ResultsWire): ResultsInput {
  const tasks = new Map(w.testCounts);
  const facts = new Map(w.questionFacts);
  const grades = new Map(w.grades);
  return {
    study: w.study,
    versions: w.versions,
    version: w.version,
    ...(w.stage !== undefined ? { stage: w.stage } : {}),
    sessions: w.sessions,
    testCount: (collection, task) => tasks.get(key(collection, task)) ?? null,
    games: w.games,
    replay: null,
    ...(w.gameRuns ? { gameRuns: new Map(w.gameRuns) } : {}),
    now: w.now,
    questionFacts: (collection, question) => facts.get(key(collection, question)) ?? null,
    grades: (sessionId, item, testIndex) => grades.get(answerKey(sessionId, item, testIndex)) ?? null,
  };
}
