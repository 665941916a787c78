/**
 * Survey answers checked against the survey's definition (`SurveyItem` in ./schema.ts), on the
 * server before they are stored and in the browser before they are sent, with one rule.
 *
 * - `text`: one line, at most {@link SURVEY_TEXT_MAX} characters; `longtext`: at most
 *   {@link SURVEY_LONGTEXT_MAX}. Surrounding spaces are trimmed; an empty answer is no answer.
 * - `choice`: one of the options, as written; `multi`: a list of different options (an empty
 *   list is no answer).
 * - `scale`: a whole number from `min` to `max` (default 1 to 7).
 * - `number`: a finite number, within `min` and `max` when they are set.
 * - `required` questions must be answered; an answer to a question the survey does not have is refused.
 */
import type { SurveyQuestion } from './schema';

export const SURVEY_TEXT_MAX = 500;
export const SURVEY_LONGTEXT_MAX = 5000;

export type SurveyValue = string | number | readonly string[];

export type SurveyCheck =
  { ok: true; answers: Record<string, SurveyValue> } | { ok: false; problems: { question: string; message: string }[] };

/** The scale's ends, defaults filled in. */
export function scaleRange(q: SurveyQuestion): { min: number; max: number } {
  return { min: q.min ?? 1, max: q.max ?? 7 };
}

/** Why one answer is refused, or its normalised value (null: not answered). */
export function checkSurveyAnswer(
  q: SurveyQuestion,
  value: unknown,
): { ok: true; value: SurveyValue | null } | { ok: false; message: string } {
  if (value === undefined || value === null) return { ok: true, value: null };
  switch (q.type) {
    case 'text':
    case 'longtext': {
      if (typeof value !== 'string') return { ok: false, message: 'must be text' };
      const max = q.type === 'text' ? SURVEY_TEXT_MAX : SURVEY_LONGTEXT_MAX;
      const text = value.trim();
      if (text.length > max)
        return { ok: false, message: `is ${text.length} characters long; at most ${max} are kept` };
      if (q.type === 'text' && /[\r\n]/.test(text)) return { ok: false, message: 'must be one line' };
      return { ok: true, value: text === '' ? null : text };
    }
    case 'choice':
      if (typeof value !== 'string') return { ok: false, message: 'must be one of the options, as text' };
      if (!q.options?.includes(value))
        return {
          ok: false,
          message: `"${value.slice(0, 100)}" is not one of the options (${(q.options ?? []).join(', ')})`,
        };
      return { ok: true, value };
    case 'multi': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
        return { ok: false, message: 'must be a list of options' };
      const picked = value as string[];
      const unknown = picked.find((v) => !q.options?.includes(v));
      if (unknown !== undefined)
        return {
          ok: false,
          message: `"${unknown.slice(0, 100)}" is not one of the options (${(q.options ?? []).join(', ')})`,
        };
      if (new Set(picked).size !== picked.length) return { ok: false, message: 'names an option twice' };
      return { ok: true, value: picked.length === 0 ? null : picked };
    }
    case 'scale': {
      const { min, max } = scaleRange(q);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
        return { ok: false, message: `must be a whole number from ${min} to ${max}` };
      return { ok: true, value };
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return { ok: false, message: 'must be a number' };
      if (q.min !== undefined && value < q.min) return { ok: false, message: `must be at least ${q.min}` };
      if (q.max !== undefined && value > q.max) return { ok: false, message: `must be at most ${q.max}` };
      return { ok: true, value };
    }
  }
}

/**
 * Checks a survey's answers (`{questionId: value}`) against its definition: every problem, one per
 * question, or the answers normalised (trimmed text; unanswered questions left out).
 */
export function checkSurveyAnswers(
  survey: { readonly questions: readonly SurveyQuestion[] },
  answers: Readonly<Record<string, unknown>>,
): SurveyCheck {
  const problems: { question: string; message: string }[] = [];
  const known = new Set(survey.questions.map((q) => q.id));
  for (const id of Object.keys(answers)) {
    if (!known.has(id)) problems.push({ question: id.slice(0, 64), message: 'is not a question of this survey' });
  }
  const out: Record<string, SurveyValue> = {};
  for (const q of survey.questions) {
    const r = checkSurveyAnswer(q, answers[q.id]);
    if (!r.ok) problems.push({ question: q.id, message: r.message });
    else if (r.value === null) {
      if (q.required) problems.push({ question: q.id, message: 'needs an answer' });
    } else out[q.id] = r.value;
  }
  return problems.length ? { ok: false, problems } : { ok: true, answers: out };
}
