/**
 * Scoring a model's answer file against a question set: one verdict per question, accuracy per
 * subset and overall. A question without an answer counts as wrong and is listed; answers to
 * ids the set does not have are listed and ignored. Symbolic and free-response items are
 * `ungraded` and left out of accuracy.
 */
import { z } from 'zod';
import { formatPath } from '../study/schema';
import { judgeResponse, type ResponseRule, type Verdict } from './judge';
import type { QuestionProblem } from './parse';
import type { QuestionItem } from './schema';

export interface ModelAnswer {
  readonly id: string;
  readonly response: string;
}

const AnswerLine = z.object({
  id: z.union([z.string().trim().min(1, 'is empty'), z.number().transform(String)]),
  response: z.string().max(1_000_000),
});

/**
 * Parses an answers file: JSON Lines, each `{"id", "response"}` (other fields ignored).
 * Problems name `file:line`, the field and the reason. Never throws.
 */
export function parseAnswersFile(name: string, text: string): { answers: ModelAnswer[]; problems: QuestionProblem[] } {
  const answers: ModelAnswer[] = [];
  const problems: QuestionProblem[] = [];
  const seen = new Map<string, number>();
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  body.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || problems.length >= 200) return;
    const place = `${name}:${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (e) {
      problems.push({
        place,
        field: '',
        reason: `is not valid JSON (${(e as Error).message}); each line holds {"id", "response"}`,
      });
      return;
    }
    const r = AnswerLine.safeParse(json);
    if (!r.success) {
      for (const issue of r.error.issues.slice(0, 5))
        problems.push({
          place,
          field: formatPath(issue.path),
          reason: /received undefined$/.test(issue.message)
            ? 'is missing'
            : issue.message.replace(/^Invalid input: /, ''),
        });
      return;
    }
    const earlier = seen.get(r.data.id);
    if (earlier !== undefined) {
      problems.push({
        place,
        field: 'id',
        reason: `"${r.data.id}" is already answered at line ${earlier}; give one response per question`,
      });
      return;
    }
    seen.set(r.data.id, i + 1);
    answers.push(r.data);
  });
  if (answers.length === 0 && problems.length === 0)
    problems.push({ place: name, field: '', reason: 'holds no answers; each line holds {"id", "response"}' });
  return { answers, problems };
}

export interface ScoredQuestion {
  readonly id: string;
  readonly subset: string;
  readonly verdict: Verdict;
  readonly missing: boolean;
  readonly extracted?: string;
  readonly note?: string;
}

export interface SubsetScore {
  readonly subset: string;
  readonly questions: number;
  /** Questions judged automatically (choice and numerical); the denominator of accuracy. */
  readonly judged: number;
  readonly correct: number;
  readonly missing: number;
  readonly ungraded: number;
  /** `correct / judged`, or `null` when nothing could be judged. */
  readonly accuracy: number | null;
}

export interface ScoreReport {
  readonly rule: ResponseRule;
  readonly overall: SubsetScore;
  readonly subsets: SubsetScore[];
  readonly questions: ScoredQuestion[];
  /** Ids of questions that have no answer (counted wrong). */
  readonly missing: string[];
  /** Ids answered that the question set does not have (ignored). */
  readonly unknown: string[];
}

/** The subset a question is reported under when it names none. */
export const NO_SUBSET = '(no subset)';

/** Scores `answers` against `items` with `rule`; subsets are listed in the order first met. */
export function scoreAnswers(
  items: readonly QuestionItem[],
  answers: readonly ModelAnswer[],
  rule: ResponseRule = 'mcpbr',
): ScoreReport {
  const byId = new Map(answers.map((a) => [a.id, a]));
  const ids = new Set(items.map((q) => q.id));
  const questions: ScoredQuestion[] = items.map((q) => {
    const subset = q.subset ?? NO_SUBSET;
    const a = byId.get(q.id);
    if (!a) {
      const ungraded = !q.answer || q.answer.kind === 'symbolic';
      return {
        id: q.id,
        subset,
        verdict: ungraded ? 'ungraded' : 'wrong',
        missing: true,
        note: 'no answer in the answers file',
      };
    }
    return { id: q.id, subset, missing: false, ...judgeResponse(q, a.response, rule) };
  });
  const order: string[] = [];
  for (const q of questions) if (!order.includes(q.subset)) order.push(q.subset);
  return {
    rule,
    overall: tally('all', questions),
    subsets: order.map((s) =>
      tally(
        s,
        questions.filter((q) => q.subset === s),
      ),
    ),
    questions,
    missing: questions.filter((q) => q.missing).map((q) => q.id),
    unknown: answers.filter((a) => !ids.has(a.id)).map((a) => a.id),
  };
}

function tally(subset: string, qs: readonly ScoredQuestion[]): SubsetScore {
  const ungraded = qs.filter((q) => q.verdict === 'ungraded').length;
  const correct = qs.filter((q) => q.verdict === 'correct').length;
  const judged = qs.length - ungraded;
  return {
    subset,
    questions: qs.length,
    judged,
    correct,
    missing: qs.filter((q) => q.missing).length,
    ungraded,
    accuracy: judged ? correct / judged : null,
  };
}
