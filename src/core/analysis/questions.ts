/**
 * Question results: per question a study shows (keyed by item and the question's place in the
 * item, `testIndex`: 0 for a single question, the position in a block), how many answered, the
 * human accuracy with its 95% Wilson interval, time on the item, answer changes and which
 * options people picked; and the accuracy per subset, subject and answer type.
 *
 * Each session's log and answers are digested once (`questionItemDigest`, part of the session
 * digest in `results.ts`); the figures add the digests up. What a question is (its subset,
 * choices, answer key) comes from the mounted collection when the results are computed, so a
 * digest depends on the log and the stored answers only.
 *
 * Definitions:
 * - An answer is the server-judged submission of the question (one per question). Its verdict
 *   is `correct` or `wrong` for choice and numerical questions; symbolic and free-response
 *   answers are `ungraded` until a grade is given (`GradeLookup`), and are counted as
 *   **awaiting grading**, never in accuracy. A final grade (the server's `finalGrades`) counts
 *   the answer correct when it passes, wrong when not, and its points go into the question's
 *   score. Grades change apart from the logs, so they are applied when the digests are added
 *   up, never kept in a digest.
 * - Accuracy = correct / (correct + wrong) over the answers judged or graded.
 * - Time on the item: the item's `item.start` to its `item.end` by the log's `t`, or to the
 *   item's last logged event when the session stopped before `item.end`; per participant who
 *   answered. A block's questions share their item's time.
 * - Answer changes (`answerChanges`, core/study/actions.ts): picks (choice questions) or logged
 *   texts (typed answers, logged when typing pauses) that differ from the one before, after the
 *   first; so a participant who picked B, then C, then B made 2 changes.
 * - Subset, subject and type accuracy pool the answers to every question of the group. The
 *   interval treats answers as independent; answers by the same person or to the same question
 *   are not, so with few questions or people the real uncertainty is larger.
 */
import type { QuestionItem as QuestionFile } from '../questions/schema';
import type { QuestionItem as StudyQuestionItem } from '../study/schema';
import type { StoredEvent } from '../study/rules';
import { ITEM_END, ITEM_START } from '../study/rules';
import { answerChanges } from '../study/actions';
import { breaksWithin } from '../study/activeTime';
import { distribution, type Dist } from './dist';
import { wilsonInterval, type Interval } from './wilson';

export type { Interval } from './wilson';

/** One question of a study item: its place in the item and where it comes from. */
export interface QuestionPlace {
  readonly testIndex: number;
  readonly collection: string;
  readonly question: string;
}

/**
 * The questions a question item shows, in order: one (`collection` + `question`), or a block's
 * `questions` list, whose positions are the answers' test indices.
 */
export function questionPlaces(item: StudyQuestionItem): QuestionPlace[] {
  const loose = item as {
    collection?: string;
    question?: string;
    questions?: readonly { collection: string; question: string }[];
  };
  if (loose.questions)
    return loose.questions.map((q, testIndex) => ({ testIndex, collection: q.collection, question: q.question }));
  return [{ testIndex: 0, collection: loose.collection ?? '', question: loose.question ?? '' }];
}

/** The question of its item an event is about: a block's events carry `index`; a single question's none (0). */
function eventIndex(e: StoredEvent): number {
  const i = e.data.index;
  return typeof i === 'number' && Number.isInteger(i) && i >= 0 ? i : 0;
}

/** What one participant's log and answers give one question of an item. */
export interface QuestionPartDigest {
  readonly testIndex: number;
  /** The stored verdict of the answer; null: not answered. */
  readonly verdict: 'correct' | 'wrong' | 'ungraded' | null;
  /** The label picked, for an answered choice question. */
  readonly choice: string | null;
  /** Answer changes (see the module comment). */
  readonly changes: number;
}

/** What one participant's log gives one counted question item. */
export interface QuestionItemDigest {
  /** The item's `item.start` is logged, or an answer stored. */
  readonly opened: boolean;
  /** Time on the item (see the module comment); null when it has no `item.start`. */
  readonly timeMs: number | null;
  readonly parts: readonly QuestionPartDigest[];
}

/** A stored answer as the digest reads it (a `SubmissionRecord` fits). */
export interface AnswerRecord {
  readonly item: string;
  readonly testIndex: number;
  readonly verdict: string;
  /** The answer: `{choice}` or `{text}`. */
  readonly grid?: unknown;
}

/**
 * The digest of one question item from its events (`item.start` up to its `item.end`) and the
 * session's stored answers.
 */
export function questionItemDigest(
  item: StudyQuestionItem,
  evs: readonly StoredEvent[],
  answers: readonly AnswerRecord[],
): QuestionItemDigest {
  const mine = answers.filter((a) => a.item === item.id);
  const start = evs[0]?.kind === ITEM_START ? evs[0] : undefined;
  const end = evs.find((e) => e.kind === ITEM_END);
  const last = end ?? evs[evs.length - 1];
  const parts = questionPlaces(item).map(({ testIndex }): QuestionPartDigest => {
    const answer = mine.find((a) => a.testIndex === testIndex);
    const picked =
      answer?.grid &&
      typeof answer.grid === 'object' &&
      'choice' in answer.grid &&
      typeof answer.grid.choice === 'string'
        ? answer.grid.choice
        : null;
    const values: string[] = [];
    for (const e of evs) {
      if (eventIndex(e) !== testIndex) continue;
      const value = e.kind === 'question.choice' ? e.data.label : e.kind === 'question.input' ? e.data.text : undefined;
      if (typeof value === 'string') values.push(value);
    }
    const changes = answerChanges(values);
    const verdict = !answer
      ? null
      : answer.verdict === 'correct'
        ? 'correct'
        : answer.verdict === 'ungraded'
          ? 'ungraded'
          : 'wrong';
    return { testIndex, verdict, choice: picked, changes };
  });
  // A proctor's break on the question is no part of its time.
  const timeMs = start && last ? last.t - start.t - breaksWithin(evs, start.t, last.t) : null;
  return { opened: start !== undefined || mine.length > 0, timeMs, parts };
}

/** A question's answer type, as the results group them. */
export type QuestionType = 'choice' | 'number' | 'symbolic' | 'free-response';

/** What the results need of a question from its collection (the server's, never a participant's). */
export interface QuestionFacts {
  readonly type: QuestionType;
  readonly subset?: string;
  readonly subject?: string;
  readonly choices?: readonly { readonly label: string; readonly text: string }[];
  /** The correct label of a choice question. */
  readonly answerLabel?: string;
}

/** The facts of a question read from its file. */
export function questionFacts(q: QuestionFile): QuestionFacts {
  const type: QuestionType =
    q.answer?.kind === 'choice'
      ? 'choice'
      : q.answer?.kind === 'number'
        ? 'number'
        : q.answer?.kind === 'symbolic'
          ? 'symbolic'
          : 'free-response';
  return {
    type,
    ...(q.subset !== undefined ? { subset: q.subset } : {}),
    ...(q.subject !== undefined ? { subject: q.subject } : {}),
    ...(q.choices ? { choices: q.choices.map((c) => ({ label: c.label, text: c.text })) } : {}),
    ...(q.answer?.kind === 'choice' ? { answerLabel: q.answer.label } : {}),
  };
}

/**
 * A grade given to an `ungraded` answer (rubric grading): whether it passes. Supplied to the
 * results as a `GradeLookup`; until then such answers are awaiting grading.
 */
export interface QuestionGrade {
  readonly verdict: 'correct' | 'wrong';
  /** The grade's points (a rubric's criteria summed; 1 or 0 for a correct/incorrect grade), and the most there are. */
  readonly points?: number;
  readonly maxPoints?: number;
}

/** The final grade of a session's answer to a question of an item, or null when there is none yet. */
export type GradeLookup = (sessionId: string, item: string, testIndex: number) => QuestionGrade | null;

/** How many picked one option of a choice question. */
export interface OptionCount {
  readonly label: string;
  readonly text: string;
  readonly count: number;
  /** The answer key. */
  readonly correct: boolean;
}

/** Results of one question of one item over the counted participants. */
export interface QuestionResult {
  readonly item: string;
  /** The question's place in its item: 0, or its position in a block. */
  readonly testIndex: number;
  readonly collection: string;
  readonly question: string;
  /** From the mounted collection; null when the question cannot be read now (its collection is not mounted). */
  readonly type: QuestionType | null;
  readonly subset: string | null;
  readonly subject: string | null;
  /** Counted sessions whose study version has the item. */
  readonly participants: number;
  /** Of those, the ones that opened the item. */
  readonly opened: number;
  /** Of those, the ones that answered this question. */
  readonly answered: number;
  readonly correct: number;
  readonly wrong: number;
  /** Answers kept for grading that have no grade yet. */
  readonly awaiting: number;
  /** Of `correct + wrong`, those decided by a grade (rubric grading) rather than by the server's judging. */
  readonly graded: number;
  /** The points of the graded answers (their final grades), per answer. */
  readonly points: Dist;
  /** The most points a graded answer can have (the rubric's total); null when none is graded. */
  readonly maxPoints: number | null;
  /** `correct / (correct + wrong)`; null when nothing is judged or graded yet. */
  readonly accuracy: number | null;
  /** The 95% Wilson interval of `accuracy`. */
  readonly ci: Interval | null;
  /** Per participant who answered: time on the item. */
  readonly timeMs: Dist;
  /** Per participant who answered: answer changes. */
  readonly changes: Dist;
  /** Participants who answered after changing their answer at least once. */
  readonly changed: number;
  /** Choice questions: every option in the question's order, with how many picked it; empty for other types. */
  readonly options: OptionCount[];
  /** Picks of labels the question does not have (now): the collection changed since they were made. */
  readonly otherPicks: number;
}

/** Accuracy over a group of questions: all of them, or one subset, subject or answer type. */
export interface QuestionGroupResult {
  readonly field: 'all' | 'subset' | 'subject' | 'type';
  readonly value: string;
  /** Questions (item and test index) in the group. */
  readonly questions: number;
  readonly answered: number;
  readonly correct: number;
  readonly wrong: number;
  readonly awaiting: number;
  readonly accuracy: number | null;
  readonly ci: Interval | null;
}

/** The running tally of one question while sessions are added. */
export interface QuestionAcc {
  readonly place: QuestionPlace & { readonly item: string };
  participants: number;
  opened: number;
  correct: number;
  wrong: number;
  awaiting: number;
  graded: number;
  points: number[];
  maxPoints: number | null;
  times: number[];
  changes: number[];
  picks: Map<string, number>;
}

export function newQuestionAcc(item: string, place: QuestionPlace): QuestionAcc {
  return {
    place: { item, ...place },
    participants: 0,
    opened: 0,
    correct: 0,
    wrong: 0,
    awaiting: 0,
    graded: 0,
    points: [],
    maxPoints: null,
    times: [],
    changes: [],
    picks: new Map(),
  };
}

/** Adds one counted session's digest of the item to the question's tally. */
export function addQuestion(
  acc: QuestionAcc,
  digest: QuestionItemDigest,
  sessionId: string,
  grades: GradeLookup | undefined,
): void {
  acc.participants++;
  if (digest.opened) acc.opened++;
  const part = digest.parts.find((p) => p.testIndex === acc.place.testIndex);
  if (!part || part.verdict === null) return;
  let verdict = part.verdict;
  if (verdict === 'ungraded') {
    const grade = grades?.(sessionId, acc.place.item, acc.place.testIndex) ?? null;
    if (grade) {
      verdict = grade.verdict;
      acc.graded++;
      if (grade.points !== undefined) acc.points.push(grade.points);
      if (grade.maxPoints !== undefined) acc.maxPoints = Math.max(acc.maxPoints ?? 0, grade.maxPoints);
    }
  }
  if (verdict === 'correct') acc.correct++;
  else if (verdict === 'wrong') acc.wrong++;
  else acc.awaiting++;
  if (digest.timeMs !== null) acc.times.push(digest.timeMs);
  acc.changes.push(part.changes);
  if (part.choice !== null) acc.picks.set(part.choice, (acc.picks.get(part.choice) ?? 0) + 1);
}

/** The question's figures from its tally and (when its collection is mounted) its facts. */
export function questionResult(acc: QuestionAcc, facts: QuestionFacts | null): QuestionResult {
  const judged = acc.correct + acc.wrong;
  const options = (facts?.choices ?? []).map((c): OptionCount => ({
    label: c.label,
    text: c.text,
    count: acc.picks.get(c.label) ?? 0,
    correct: c.label === facts?.answerLabel,
  }));
  const known = new Set(options.map((o) => o.label));
  return {
    item: acc.place.item,
    testIndex: acc.place.testIndex,
    collection: acc.place.collection,
    question: acc.place.question,
    type: facts?.type ?? null,
    subset: facts?.subset ?? null,
    subject: facts?.subject ?? null,
    participants: acc.participants,
    opened: acc.opened,
    answered: judged + acc.awaiting,
    correct: acc.correct,
    wrong: acc.wrong,
    awaiting: acc.awaiting,
    graded: acc.graded,
    points: distribution(acc.points),
    maxPoints: acc.maxPoints,
    accuracy: judged ? acc.correct / judged : null,
    ci: wilsonInterval(acc.correct, judged),
    timeMs: distribution(acc.times),
    changes: distribution(acc.changes),
    changed: acc.changes.filter((n) => n > 0).length,
    options,
    otherPicks: facts?.choices
      ? [...acc.picks].filter(([label]) => !known.has(label)).reduce((n, [, c]) => n + c, 0)
      : 0,
  };
}

/**
 * Accuracy over all questions, then per subset, subject and answer type (in the order first
 * met); questions whose field is unknown are in no group of that field.
 */
export function questionGroups(rows: readonly QuestionResult[]): QuestionGroupResult[] {
  const out: QuestionGroupResult[] = [group('all', 'All questions', rows)];
  for (const field of ['subset', 'subject', 'type'] as const) {
    const values: string[] = [];
    for (const r of rows) {
      const v = r[field];
      if (v !== null && !values.includes(v)) values.push(v);
    }
    for (const v of values)
      out.push(
        group(
          field,
          v,
          rows.filter((r) => r[field] === v),
        ),
      );
  }
  return out;
}

function group(
  field: QuestionGroupResult['field'],
  value: string,
  rows: readonly QuestionResult[],
): QuestionGroupResult {
  const correct = rows.reduce((n, r) => n + r.correct, 0);
  const wrong = rows.reduce((n, r) => n + r.wrong, 0);
  const awaiting = rows.reduce((n, r) => n + r.awaiting, 0);
  const judged = correct + wrong;
  return {
    field,
    value,
    questions: rows.length,
    answered: judged + awaiting,
    correct,
    wrong,
    awaiting,
    accuracy: judged ? correct / judged : null,
    ci: wilsonInterval(correct, judged),
  };
}
