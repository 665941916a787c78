/**
 * A model's accuracy beside the human accuracy of a study, per subset of a question set.
 *
 * The model is scored on every question of the set (`scoreAnswers`). The humans are the
 * study's counted answers to the questions of the set it asked (`QuestionResult` rows of the
 * study results). Because a study usually asks only some of the questions, each subset also
 * shows the model's accuracy on the questions the people answered: the like-for-like figure.
 *
 * Human accuracy pools the answers to the subset's questions: correct / (correct + wrong), with
 * a 95% Wilson interval that treats answers as independent (see `core/analysis/questions.ts`).
 * Answers awaiting grading are counted apart, never in accuracy.
 */
import { wilsonInterval, type Interval } from '../analysis/wilson';
import { NO_SUBSET, type ScoreReport } from './score';
import type { QuestionItem } from './schema';

/** What the comparison needs of a study's results for one question (a `QuestionResult` fits). */
export interface HumanQuestion {
  readonly question: string;
  readonly correct: number;
  readonly wrong: number;
  readonly awaiting: number;
}

export interface Accuracy {
  readonly judged: number;
  readonly correct: number;
  /** `correct / judged`; null when nothing is judged. */
  readonly accuracy: number | null;
}

export interface HumanAccuracy extends Accuracy {
  /** Questions of the subset with at least one counted answer. */
  readonly questions: number;
  /** Answers kept for grading without a grade yet. */
  readonly awaiting: number;
  /** 95% Wilson interval of `accuracy`. */
  readonly ci: Interval | null;
}

/** One subset (or every question: `all`). */
export interface BesideRow {
  readonly subset: string;
  /** Questions of the set in the subset. */
  readonly questions: number;
  /** The model on every question of the subset (symbolic and free-response ones are not judged). */
  readonly model: Accuracy;
  /** The model on the questions people answered with a judged or graded answer. */
  readonly modelOnShared: Accuracy;
  readonly human: HumanAccuracy;
}

export interface BesideHumans {
  readonly overall: BesideRow;
  readonly subsets: BesideRow[];
  /** Question ids of the set that the study asked (with an answer or not). */
  readonly asked: string[];
}

const acc = (judged: number, correct: number): Accuracy => ({
  judged,
  correct,
  accuracy: judged ? correct / judged : null,
});

/**
 * The model's report beside the humans' answers, per subset in the report's order and overall.
 * `humans` are the study's rows for questions of the set (several rows of one question, as
 * when two items ask it, are added up); rows of other questions are ignored.
 */
export function besideHumans(
  items: readonly QuestionItem[],
  report: ScoreReport,
  humans: readonly HumanQuestion[],
): BesideHumans {
  const ids = new Set(items.map((q) => q.id));
  const byQuestion = new Map<string, { correct: number; wrong: number; awaiting: number }>();
  for (const h of humans) {
    if (!ids.has(h.question)) continue;
    const t = byQuestion.get(h.question) ?? { correct: 0, wrong: 0, awaiting: 0 };
    byQuestion.set(h.question, {
      correct: t.correct + h.correct,
      wrong: t.wrong + h.wrong,
      awaiting: t.awaiting + h.awaiting,
    });
  }
  const subsetOf = new Map(items.map((q) => [q.id, q.subset ?? NO_SUBSET]));
  const row = (subset: string, inSubset: (id: string) => boolean): BesideRow => {
    const scored = report.questions.filter((q) => inSubset(q.id));
    const judged = scored.filter((q) => q.verdict !== 'ungraded');
    let hCorrect = 0,
      hWrong = 0,
      hAwaiting = 0,
      hQuestions = 0;
    const shared = new Set<string>();
    for (const [id, t] of byQuestion) {
      if (!inSubset(id)) continue;
      hCorrect += t.correct;
      hWrong += t.wrong;
      hAwaiting += t.awaiting;
      if (t.correct + t.wrong + t.awaiting > 0) hQuestions++;
      if (t.correct + t.wrong > 0) shared.add(id);
    }
    const onShared = judged.filter((q) => shared.has(q.id));
    const hJudged = hCorrect + hWrong;
    return {
      subset,
      questions: scored.length,
      model: acc(judged.length, judged.filter((q) => q.verdict === 'correct').length),
      modelOnShared: acc(onShared.length, onShared.filter((q) => q.verdict === 'correct').length),
      human: {
        ...acc(hJudged, hCorrect),
        questions: hQuestions,
        awaiting: hAwaiting,
        ci: wilsonInterval(hCorrect, hJudged),
      },
    };
  };
  return {
    overall: row('all', () => true),
    subsets: report.subsets.map((s) => row(s.subset, (id) => subsetOf.get(id) === s.subset)),
    asked: [...byQuestion.keys()],
  };
}

const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toFixed(1)}%`);

/**
 * The comparison as a plain-text table (what `score-answers --study` prints):
 * subset, questions, the model's accuracy on all and on the shared questions, the humans'
 * accuracy with its interval and how many answers and questions it rests on.
 */
export function formatBeside(b: BesideHumans, study: string): string {
  const rows = [
    [
      'subset',
      'questions',
      'model',
      'model (same questions)',
      `people (${study})`,
      '95% CI',
      'answers',
      'asked',
      'awaiting grading',
    ],
  ];
  for (const r of [...b.subsets, b.overall]) {
    rows.push([
      r.subset,
      String(r.questions),
      `${pct(r.model.accuracy)} (${r.model.correct}/${r.model.judged})`,
      r.modelOnShared.judged
        ? `${pct(r.modelOnShared.accuracy)} (${r.modelOnShared.correct}/${r.modelOnShared.judged})`
        : '-',
      pct(r.human.accuracy),
      r.human.ci ? `${pct(r.human.ci.low)}-${pct(r.human.ci.high)}` : '-',
      String(r.human.judged),
      String(r.human.questions),
      String(r.human.awaiting),
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((x) => x[c].length)));
  return rows
    .map((x) => x.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '))
    .join('\n');
}
