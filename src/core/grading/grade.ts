/**
 * One grader's grade of one answer, and the rules that make it: the points per rubric criterion
 * (each from 0 to the criterion's points, in steps of 0.01), their total, and whether the answer
 * passes.
 *
 * **Pass rule.** An answer passes when its total reaches the rubric's pass mark (`rubric.pass`,
 * in points) when the rubric states one, else half of the rubric's total points. An item without
 * a rubric is marked correct (1 point of 1, a pass) or incorrect (0 of 1).
 */
import type { Rubric } from '../questions/schema';

/** Points and an optional note for one rubric criterion. */
export interface CriterionScore {
  readonly points: number;
  readonly note: string;
}

/** A grade as the grader sends it: criterion scores for a rubric, or correct / incorrect without one. */
export type GradeInput =
  | { readonly criteria: readonly CriterionScore[]; readonly note: string }
  | { readonly correct: boolean; readonly note: string };

/** A grade, checked against its item and added up. */
export interface Grade {
  /** Per rubric criterion, in the rubric's order; empty for an item without a rubric. */
  readonly criteria: readonly CriterionScore[];
  readonly points: number;
  readonly maxPoints: number;
  readonly pass: boolean;
  readonly note: string;
}

/** Longest note, per criterion and overall. */
export const MAX_NOTE = 2000;

/** The rubric's total points. */
export function rubricTotal(rubric: Rubric): number {
  return round2(rubric.criteria.reduce((n, c) => n + c.points, 0));
}

/** The points an answer needs to pass: the rubric's pass mark, else half its total. */
export function passMark(rubric: Rubric): number {
  return rubric.pass ?? rubricTotal(rubric) / 2;
}

/** Whether `points` of `maxPoints` pass, by the pass mark `mark` (half of `maxPoints` when absent). */
export function passes(points: number, maxPoints: number, mark?: number): boolean {
  return points >= (mark ?? maxPoints / 2) - 1e-9;
}

export const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * Checks a grade against its item's rubric (null: the item has none) and adds it up; the
 * problems name the field and say what would be right.
 *
 * @example
 * makeGrade({ criteria: [{ text: 'states it', points: 2 }] }, { criteria: [{ points: 1.5, note: '' }], note: '' });
 * // { ok: true, grade: { points: 1.5, maxPoints: 2, pass: true, ... } }
 */
export function makeGrade(
  rubric: Rubric | null,
  input: GradeInput,
): { ok: true; grade: Grade } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const note = input.note.trim();
  if (note.length > MAX_NOTE) problems.push(`note is ${note.length} characters; at most ${MAX_NOTE}`);
  if (!rubric) {
    if (!('correct' in input))
      return {
        ok: false,
        problems: ['this item has no rubric: send {"correct": true} or {"correct": false}, not criterion scores'],
      };
    if (problems.length) return { ok: false, problems };
    const points = input.correct ? 1 : 0;
    return { ok: true, grade: { criteria: [], points, maxPoints: 1, pass: input.correct, note } };
  }
  if (!('criteria' in input))
    return {
      ok: false,
      problems: [
        `this item has a rubric of ${rubric.criteria.length} criteria: send "criteria", one {"points", "note"} per criterion`,
      ],
    };
  if (input.criteria.length !== rubric.criteria.length) {
    problems.push(
      `criteria has ${input.criteria.length} scores; the rubric has ${rubric.criteria.length} criteria, give one score per criterion`,
    );
  }
  const criteria: CriterionScore[] = [];
  input.criteria.slice(0, rubric.criteria.length).forEach((s, i) => {
    const max = rubric.criteria[i].points;
    if (!Number.isFinite(s.points) || s.points < 0 || s.points > max)
      problems.push(`criteria[${i}].points is ${s.points}; it must be from 0 to ${max}`);
    else if (Math.abs(s.points * 100 - Math.round(s.points * 100)) > 1e-6)
      problems.push(`criteria[${i}].points is ${s.points}; use at most two decimals`);
    const n = s.note.trim();
    if (n.length > MAX_NOTE) problems.push(`criteria[${i}].note is ${n.length} characters; at most ${MAX_NOTE}`);
    criteria.push({ points: round2(s.points), note: n });
  });
  if (problems.length) return { ok: false, problems };
  const points = round2(criteria.reduce((n, c) => n + c.points, 0));
  const maxPoints = rubricTotal(rubric);
  return { ok: true, grade: { criteria, points, maxPoints, pass: passes(points, maxPoints, passMark(rubric)), note } };
}
