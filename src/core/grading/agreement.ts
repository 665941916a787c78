/**
 * Agreement between graders, disagreements to adjudicate, and final grades.
 *
 * - **Pearson's r** of the total points between two graders, over the answers both graded.
 *   Per item the points are compared as they are; overall, as shares of each item's total, so
 *   that items worth 1 and 10 points mix. Several graders: every pair of graders contributes its
 *   common answers to one pooled figure (and each pair is listed too).
 * - **Cohen's kappa** on pass/fail (the pass rule is in `grade.ts`), pooled and per pair the same way:
 *   `(po - pe) / (1 - pe)`, with `po` the share of answers where both agree and `pe` the agreement
 *   chance would give from each grader's own pass rate. Undefined (null) when `pe` is 1 (both
 *   graders gave every answer the same mark), as Pearson's r is when either side does not vary.
 * - A **disagreement**: two grades of one answer that differ on pass/fail, or whose totals differ
 *   by more than {@link POINTS_SHARE} of the item's total points. It waits for the researcher's
 *   adjudication, which is then the final grade.
 * - A **final grade**: the adjudication when there is one; else, when the grades do not disagree,
 *   the one grade, or the mean of the agreeing grades (criterion by criterion; pass by the same
 *   rule, which the mean of agreeing passes or fails keeps).
 */
import { type CriterionScore, type Grade, passes, round2 } from './grade';

/** Totals further apart than this share of the item's total points are a disagreement. */
export const POINTS_SHARE = 0.25;

/** One grader's grade of one answer. */
export interface GradeRow extends Grade {
  /** The answer: `session|item|testIndex` (see {@link answerKey}). */
  readonly answer: string;
  /** The study item the answer is to. */
  readonly item: string;
  readonly grader: string;
}

/** The key of an answer: a session's answer to an item (a question's position in a block: `testIndex`). */
export const answerKey = (sessionId: string, item: string, testIndex: number): string =>
  `${sessionId}|${item}|${testIndex}`;

/** Pearson's correlation of paired values; null with fewer than 2 pairs or when either side does not vary. */
export function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += xs[i];
    my += ys[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i] - mx;
    const dy = ys[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx < 1e-12 || syy < 1e-12) return null;
  return sxy / Math.sqrt(sxx * syy);
}

/** Cohen's kappa of paired pass/fail marks; null without pairs or when chance agreement is 1. */
export function cohensKappa(a: readonly boolean[], b: readonly boolean[]): number | null {
  const n = Math.min(a.length, b.length);
  if (n === 0) return null;
  let agree = 0;
  let pa = 0;
  let pb = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    if (a[i]) pa++;
    if (b[i]) pb++;
  }
  const po = agree / n;
  pa /= n;
  pb /= n;
  const pe = pa * pb + (1 - pa) * (1 - pb);
  if (pe > 1 - 1e-12) return null;
  return (po - pe) / (1 - pe);
}

/** Agreement between two graders, or pooled over every pair. */
export interface Agreement {
  /** Pairs of grades compared (answers both graded, summed over pairs when pooled). */
  readonly n: number;
  readonly pearson: number | null;
  readonly kappa: number | null;
  /** Share of the pairs that agree on pass/fail; null without pairs. */
  readonly passAgreement: number | null;
}

export interface PairAgreement extends Agreement {
  readonly a: string;
  readonly b: string;
}

export interface AgreementReport extends Agreement {
  readonly pairs: readonly PairAgreement[];
}

/** Two grades of one answer disagree: pass/fail differs, or the totals are more than {@link POINTS_SHARE} of the total apart. */
export function disagree(a: Grade, b: Grade, share = POINTS_SHARE): boolean {
  return a.pass !== b.pass || Math.abs(a.points - b.points) > share * Math.max(a.maxPoints, b.maxPoints) + 1e-9;
}

/**
 * Agreement of graded answers: each pair of graders (in the order of `graders`) over the answers
 * both graded, and pooled. `relative` compares points as shares of the item's total.
 */
export function agreementOf(rows: readonly GradeRow[], graders: readonly string[], relative: boolean): AgreementReport {
  const byAnswer = new Map<string, Map<string, GradeRow>>();
  for (const r of rows) {
    let m = byAnswer.get(r.answer);
    if (!m) byAnswer.set(r.answer, (m = new Map()));
    m.set(r.grader, r);
  }
  const value = (g: GradeRow) => (relative ? g.points / g.maxPoints : g.points);
  const all = { x: [] as number[], y: [] as number[], pa: [] as boolean[], pb: [] as boolean[] };
  const pairs: PairAgreement[] = [];
  for (let i = 0; i < graders.length; i++) {
    for (let j = i + 1; j < graders.length; j++) {
      const p = { x: [] as number[], y: [] as number[], pa: [] as boolean[], pb: [] as boolean[] };
      for (const m of byAnswer.values()) {
        const ga = m.get(graders[i]);
        const gb = m.get(graders[j]);
        if (!ga || !gb) continue;
        for (const s of [p, all]) {
          s.x.push(value(ga));
          s.y.push(value(gb));
          s.pa.push(ga.pass);
          s.pb.push(gb.pass);
        }
      }
      if (p.x.length) pairs.push({ a: graders[i], b: graders[j], ...figures(p) });
    }
  }
  return { ...figures(all), pairs };
}

function figures(s: { x: number[]; y: number[]; pa: boolean[]; pb: boolean[] }): Agreement {
  const n = s.x.length;
  return {
    n,
    pearson: pearson(s.x, s.y),
    kappa: cohensKappa(s.pa, s.pb),
    passAgreement: n ? s.pa.filter((p, i) => p === s.pb[i]).length / n : null,
  };
}

/** The researcher's final grade of an answer, over the graders'. */
export interface Adjudication extends Grade {
  readonly answer: string;
}

export type FinalSource = 'single' | 'agreed' | 'adjudicated';

/** Where an answer stands. */
export type AnswerStatus =
  | { readonly status: 'ungraded' }
  | { readonly status: 'disagreement' }
  | { readonly status: 'final'; readonly source: FinalSource; readonly grade: Grade };

/** Where one answer stands, given its grades and the adjudication, if any. */
export function answerStatus(grades: readonly Grade[], adjudication: Grade | null, share = POINTS_SHARE): AnswerStatus {
  if (adjudication) return { status: 'final', source: 'adjudicated', grade: adjudication };
  if (grades.length === 0) return { status: 'ungraded' };
  for (let i = 0; i < grades.length; i++)
    for (let j = i + 1; j < grades.length; j++)
      if (disagree(grades[i], grades[j], share)) return { status: 'disagreement' };
  if (grades.length === 1) return { status: 'final', source: 'single', grade: grades[0] };
  return { status: 'final', source: 'agreed', grade: meanGrade(grades) };
}

/** The mean of grades of one answer, criterion by criterion; notes joined. */
export function meanGrade(grades: readonly Grade[]): Grade {
  const n = grades.length;
  const first = grades[0];
  const criteria: CriterionScore[] = first.criteria.map((_, i) => ({
    points: round2(grades.reduce((s, g) => s + (g.criteria[i]?.points ?? 0), 0) / n),
    note: '',
  }));
  const points = round2(grades.reduce((s, g) => s + g.points, 0) / n);
  const allPass = grades.every((g) => g.pass);
  const nonePass = grades.every((g) => !g.pass);
  // Agreeing grades share their pass/fail; when they do not (only with a share of 1 or more),
  // the mean's own standing under the default rule decides.
  const pass = allPass ? true : nonePass ? false : passes(points, first.maxPoints);
  return {
    criteria,
    points,
    maxPoints: first.maxPoints,
    pass,
    note: grades
      .map((g) => g.note)
      .filter(Boolean)
      .join(' | '),
  };
}

/** How often each final total occurs for one item, lowest total first. */
export function scoreDistribution(finals: readonly Grade[]): { points: number; count: number }[] {
  const counts = new Map<number, number>();
  for (const g of finals) counts.set(g.points, (counts.get(g.points) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => a[0] - b[0]).map(([points, count]) => ({ points, count }));
}
