/**
 * The survey builder's edits that are rules rather than layout: changing a question's answer
 * type, and the id a new question gets. They write the study format's JSON (`SurveyItem`).
 */
import type { DefItem } from './pool';

export type SurveyInput = Extract<DefItem, { kind: 'survey' }>;
export type QuestionInput = SurveyInput['questions'][number];
export type QuestionType = QuestionInput['type'];

/**
 * The question with another answer type: options kept between choice and multi (two to start
 * with otherwise); a range kept for a number, and for a scale when it makes one (whole ends,
 * 2-21 points; else the default 1-7); labels kept for a scale only. What the new type does not
 * take is dropped, so a valid question stays valid.
 */
export function retype(q: QuestionInput, type: QuestionType): QuestionInput {
  const { options, min, max, labels, ...rest } = q;
  const out: QuestionInput = { ...rest, type };
  if (type === 'choice' || type === 'multi') out.options = options ?? ['Option 1', 'Option 2'];
  if (type === 'number') {
    if (min !== undefined) out.min = min;
    if (max !== undefined) out.max = max;
  }
  if (type === 'scale') {
    const lo = min ?? 1,
      hi = max ?? 7;
    if (Number.isInteger(lo) && Number.isInteger(hi) && hi > lo && hi - lo <= 20) {
      if (min !== undefined) out.min = min;
      if (max !== undefined) out.max = max;
    }
    if (labels) out.labels = labels;
  }
  return out;
}

/** An id no other question of the survey has: `q1`, `q2`, … */
export function freshQuestionId(questions: readonly QuestionInput[]): string {
  const used = new Set(questions.map((q) => q.id));
  let n = questions.length + 1;
  while (used.has(`q${n}`)) n++;
  return `q${n}`;
}
