/**
 * The grading routes' wire types (docs/api.md, "Grading"): the researcher's overview and the
 * grader's queue. A grader's view names no session or participant, and no other grader.
 */
import type { AgreementReport, FinalSource } from '../grading/agreement';
import type { Grade } from '../grading/grade';
import type { Choice, QuestionImage, Rubric } from '../questions/schema';

/** A question as a grader sees it: the prompt, the rubric with its reference solution, the expected expression. */
export interface GradingQuestion {
  readonly collection: string;
  readonly id: string;
  readonly prompt: string;
  readonly choices?: readonly Choice[];
  readonly images?: readonly QuestionImage[];
  /** Null: the grader marks the answer correct or incorrect. */
  readonly rubric: Rubric | null;
  /** A symbolic answer's expected expression, when the item has one. */
  readonly expected?: string;
  /** The points an answer needs to pass, and the total. */
  readonly passMark: number;
  readonly maxPoints: number;
}

/** One answer in a grader's queue. `id` is this grader's own name for it (another grader's differs). */
export interface GraderAnswer {
  readonly id: string;
  readonly item: string;
  readonly question: GradingQuestion;
  /** What the participant wrote. */
  readonly answer: string;
  /** This grader's grade, once saved. */
  readonly grade: Grade | null;
}

/** `GET /api/grading/queue`. */
export interface GraderQueue {
  readonly study: string;
  readonly grader: string;
  /** In this grader's own order (shuffled per grader). */
  readonly answers: readonly GraderAnswer[];
  readonly graded: number;
  readonly total: number;
}

/** `POST /api/admin/studies/:id/graders`: the token appears here only, once. */
export interface NewGraderLink {
  readonly grader: GraderInfo;
  readonly token: string;
  /** The grader's page, relative to the server: `/grade/<token>`. */
  readonly path: string;
}

export interface GraderInfo {
  readonly id: string;
  readonly label: string;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  /** Answers this grader has graded, of `total`. */
  readonly graded: number;
  readonly total: number;
}

/** One grader's grade as the researcher sees it. */
export interface NamedGrade extends Grade {
  readonly graderId: string;
  readonly grader: string;
  readonly at: number;
}

/** An answer with its grades, for adjudication and the list of final grades. */
export interface GradedAnswerView {
  readonly sessionId: string;
  readonly item: string;
  readonly testIndex: number;
  readonly answer: string;
  readonly grades: readonly NamedGrade[];
  readonly status: 'ungraded' | 'disagreement' | 'final';
  readonly final: (Grade & { readonly source: FinalSource }) | null;
}

/** Per question (an item, or a question of a block): agreement, final grades and their distribution. */
export interface GradingItemView {
  readonly item: string;
  readonly testIndex: number;
  readonly question: GradingQuestion | null;
  /** Why the question could not be read (a collection no longer mounted), when so. */
  readonly problem?: string;
  readonly answers: number;
  readonly finals: number;
  readonly disagreements: number;
  /** Share of final grades that pass; null before any. */
  readonly passRate: number | null;
  readonly meanPoints: number | null;
  readonly distribution: readonly { readonly points: number; readonly count: number }[];
  readonly agreement: AgreementReport;
}

/** `GET /api/admin/studies/:id/grading`. */
export interface GradingOverview {
  readonly studyId: string;
  readonly graders: readonly GraderInfo[];
  /** The pooled agreement over every question, points as shares of each question's total. */
  readonly overall: AgreementReport;
  readonly items: readonly GradingItemView[];
  readonly answers: readonly GradedAnswerView[];
  /** The share of the total two grades' totals may differ by before they disagree. */
  readonly pointsShare: number;
}
