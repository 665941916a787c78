/**
 * Grading a study's free-response and symbolic answers: what there is to grade, where each
 * answer stands, and the final grades (`finalGrades`, for the results and the exports).
 *
 * **Assignment.** Every grader of a study grades every answer kept for grading (verdict
 * `ungraded`) of its counted sessions: excluded sessions, playtests and practice items are left
 * out. A revoked link stops working; the grades it saved stay.
 */
import { createHash } from 'node:crypto';
import { answerKey, answerStatus, type FinalSource } from '../../core/grading/agreement';
import { type Grade, passMark, rubricTotal } from '../../core/grading/grade';
import type { GradingQuestion } from '../../core/protocol/grading';
import type { QuestionItem } from '../../core/questions/schema';
import { questionRefs, type QuestionRef, type StudyDefinition } from '../../core/study/schema';
import type { TaskLibrary } from '../collections/collections';
import { definitionOf } from '../study/studies';
import type { AdjudicationRecord, GradableAnswer, GradeRecord, GraderRecord } from '../store/gradingStore';
import type { Store, StudyStore } from '../store/types';

/** The question an answer is to: its item's question at `testIndex` (`questionRefs`: 0 for a one-question item, the place in a block). */
export function questionRef(def: StudyDefinition, itemId: string, testIndex: number): QuestionRef | null {
  const item = def.items.find((i) => i.id === itemId);
  return item?.kind === 'question' ? (questionRefs(item)[testIndex] ?? null) : null;
}

/** A question as a grader may see it: everything but other answers (the rubric and reference solution included). */
export function gradingQuestion(collection: string, q: QuestionItem): GradingQuestion {
  const rubric = q.rubric ?? null;
  return {
    collection,
    id: q.id,
    prompt: q.prompt,
    ...(q.choices ? { choices: q.choices } : {}),
    ...(q.images
      ? {
          images: q.images.map((im) => ({
            ...im,
            src: `/api/question-collections/${encodeURIComponent(collection)}/images/${encodeURIComponent(im.src)}`,
          })),
        }
      : {}),
    rubric,
    ...(q.answer?.kind === 'symbolic' ? { expected: q.answer.expression } : {}),
    passMark: rubric ? passMark(rubric) : 1,
    maxPoints: rubric ? rubricTotal(rubric) : 1,
  };
}

/** What a participant wrote, as text. */
export function answerText(answer: unknown): string {
  if (answer && typeof answer === 'object') {
    const a = answer as { text?: unknown; choice?: unknown };
    if (typeof a.text === 'string') return a.text;
    if (typeof a.choice === 'string') return `Choice ${a.choice}`;
  }
  return '';
}

/** An answer to grade, with its question (or why it cannot be read). */
export interface AnswerToGrade extends GradableAnswer {
  readonly key: string;
  readonly question: { ok: true; item: QuestionItem; collection: string } | { ok: false; message: string };
}

/** Everything of a study's grading, read once. */
export interface GradingData {
  readonly answers: readonly AnswerToGrade[];
  readonly graders: readonly GraderRecord[];
  readonly grades: readonly GradeRecord[];
  readonly adjudications: readonly AdjudicationRecord[];
}

/** Reads a study's answers to grade (with their questions), graders, grades and adjudications. */
export async function loadGrading(
  store: StudyStore & Pick<Store, 'grading'>,
  library: TaskLibrary,
  studyId: string,
): Promise<GradingData> {
  const defs = new Map<number, StudyDefinition | null>();
  const defAt = async (v: number) => {
    if (!defs.has(v)) {
      const rec = await store.getStudy(studyId, v);
      defs.set(v, rec ? definitionOf(rec) : null);
    }
    return defs.get(v) ?? null;
  };
  const answers: AnswerToGrade[] = [];
  for (const a of await store.grading.gradableAnswers(studyId)) {
    const def = await defAt(a.studyVersion);
    const ref = def ? questionRef(def, a.item, a.testIndex) : null;
    let question: AnswerToGrade['question'];
    if (!ref)
      question = {
        ok: false,
        message: `item ${a.item} (question ${a.testIndex + 1}) is not a question of study version ${a.studyVersion}`,
      };
    else {
      const found = library.questions.question(ref.collection, ref.question);
      question = found.ok
        ? { ok: true, item: found.item, collection: ref.collection }
        : { ok: false, message: found.message };
    }
    answers.push({ ...a, key: answerKey(a.sessionId, a.item, a.testIndex), question });
  }
  const [graders, grades, adjudications] = await Promise.all([
    store.grading.listGraders(studyId),
    store.grading.listGrades(studyId),
    store.grading.listAdjudications(studyId),
  ]);
  return { answers, graders, grades, adjudications };
}

/** A grader's own name for an answer: the same for that grader every time, different for every other grader. */
export function graderAnswerId(grader: Pick<GraderRecord, 'tokenHash'>, key: string): string {
  return createHash('sha256').update(`${grader.tokenHash}\u0000${key}`).digest('base64url').slice(0, 22);
}

/** A final grade of an answer, and where it came from. */
export interface FinalGrade extends Grade {
  readonly sessionId: string;
  readonly item: string;
  readonly testIndex: number;
  readonly source: FinalSource;
}

const stripGrade = (g: Grade): Grade => ({
  criteria: g.criteria,
  points: g.points,
  maxPoints: g.maxPoints,
  pass: g.pass,
  note: g.note,
});

/** Where each answer stands (by `answerKey`): its grades, and its final grade when it has one. */
export function answerStatuses<A extends { readonly key: string }>(data: {
  answers: readonly A[];
  grades: readonly GradeRecord[];
  adjudications: readonly AdjudicationRecord[];
}) {
  const grades = new Map<string, GradeRecord[]>();
  for (const g of data.grades) {
    const k = answerKey(g.sessionId, g.item, g.testIndex);
    const list = grades.get(k);
    if (list) list.push(g);
    else grades.set(k, [g]);
  }
  const adj = new Map(data.adjudications.map((a) => [answerKey(a.sessionId, a.item, a.testIndex), a]));
  return new Map(
    data.answers.map((a) => {
      const gs = grades.get(a.key) ?? [];
      const ad = adj.get(a.key);
      return [
        a.key,
        { answer: a, grades: gs, status: answerStatus(gs.map(stripGrade), ad ? stripGrade(ad) : null) },
      ] as const;
    }),
  );
}

/**
 * The final grades of a study's answers kept for grading, by (session, item, test index) as
 * `answerKey` builds it: the researcher's adjudication, else the one grade, else the mean of
 * agreeing grades. Answers not graded yet, or whose grades disagree, are absent. Excluded
 * sessions and playtests have none.
 */
export async function finalGrades(store: Pick<Store, 'grading'>, studyId: string): Promise<Map<string, FinalGrade>> {
  const answers = (await store.grading.gradableAnswers(studyId)).map((a) => ({
    ...a,
    key: answerKey(a.sessionId, a.item, a.testIndex),
  }));
  const [grades, adjudications] = await Promise.all([
    store.grading.listGrades(studyId),
    store.grading.listAdjudications(studyId),
  ]);
  const out = new Map<string, FinalGrade>();
  for (const [key, { answer, status }] of answerStatuses({ answers, grades, adjudications })) {
    if (status.status === 'final')
      out.set(key, {
        ...status.grade,
        sessionId: answer.sessionId,
        item: answer.item,
        testIndex: answer.testIndex,
        source: status.source,
      });
  }
  return out;
}
