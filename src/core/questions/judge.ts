/**
 * Judging answers to question items: a participant's choice or typed number, and a model's
 * free-text response.
 *
 * - Choice items: correct when the label equals the answer key (participants pick a label, so
 *   the comparison is exact; model responses go through {@link extractMcpbrAnswer}).
 * - Numerical items: correct when the relative error is within the item's tolerance,
 *   `|x - v| <= tolerance * |v|`; when the answer `v` is 0 the tolerance is absolute, `|x| <= tolerance`.
 * - Symbolic and free-response items are never judged here: their answers are kept for grading.
 */
import type { Answer, QuestionItem } from './schema';

export type Verdict = 'correct' | 'wrong' | 'ungraded';

export interface Judgement {
  readonly verdict: Verdict;
  /** What was read from the response: a label, a number, or nothing found. */
  readonly extracted?: string;
  /** Why nothing could be read, when that is the case. */
  readonly note?: string;
}

// "Standalone" means no letter, digit or underscore on either side, as `\b` in a Unicode
// regular expression (Python's `re` on str) has it; JavaScript's own `\b` only knows ASCII,
// so the sides are spelled out.
const MCPBR_TOKEN = /(?<![\p{L}\p{N}_])[A-E1-5](?![\p{L}\p{N}_])/giu;

/**
 * The answer-extraction rule mcpbr uses for AI2 ARC: the **last** standalone letter A-E or digit
 * 1-5 in the response, case-insensitive, returned upper-cased; `undefined` when there is none.
 *
 * WARNING: the rule is kept as it is so that scores compare with mcpbr's, and it has known blind
 * spots. Lower-case words of one letter count: "The answer is B, since a mitochondrion ..."
 * yields `A` (the article), and "B, e.g. because ..." yields `E` (from "e.g.").
 * A digit inside a decimal counts too ("3.5" yields `5`). Respond with the label alone, or
 * end with it, for a fair reading.
 *
 * @example
 * extractMcpbrAnswer('I think (c) is right'); // 'C'
 * extractMcpbrAnswer('B or D? Final answer: D'); // 'D'
 * extractMcpbrAnswer('the answer is a mitochondrion'); // 'A'
 * extractMcpbrAnswer('no idea'); // undefined
 */
export function extractMcpbrAnswer(response: string): string | undefined {
  const matches = response.match(MCPBR_TOKEN);
  return matches ? matches[matches.length - 1].toUpperCase() : undefined;
}

const NUMBER = String.raw`[+\-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+\-\u2212]?\d+)?`;
const WHOLE_NUMBER = new RegExp(`^${NUMBER}$`);
const NUMBER_TOKEN = new RegExp(
  `(?<![\\p{L}\\p{N}_.])(?:[+\\-\\u2212]?(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?|[+\\-\\u2212]?\\.\\d+)(?:[eE][+\\-\\u2212]?\\d+)?`,
  'gu',
);

/**
 * Reads typed text as one number: `19.6`, `-0.5`, `.25`, `1,250`, `6.02e23`, with `−` (U+2212)
 * accepted as a minus sign and surrounding spaces ignored. Anything else, including units,
 * is `undefined`.
 */
export function parseNumber(text: string): number | undefined {
  const t = text.trim();
  if (!/\d/.test(t) || !WHOLE_NUMBER.test(t)) return undefined;
  const n = Number(t.replace(/,/g, '').replace(/\u2212/g, '-'));
  return Number.isFinite(n) ? n : undefined;
}

/** The last number written in a response (for a model's answer to a numerical item). */
export function lastNumber(response: string): number | undefined {
  const matches = response.match(NUMBER_TOKEN);
  if (!matches) return undefined;
  return parseNumber(matches[matches.length - 1]);
}

/** Whether `x` is within the answer's relative tolerance (absolute when the answer is 0). */
export function withinTolerance(x: number, answer: { value: number; tolerance: number }): boolean {
  const { value, tolerance } = answer;
  if (value === 0) return Math.abs(x) <= tolerance;
  return Math.abs(x - value) <= tolerance * Math.abs(value);
}

/** A participant's submission: a picked label, or typed text (a number or a free response). */
export type Submission = { readonly choice: string } | { readonly text: string };

/** Judges a participant's submission to an item (on the server: the answer never leaves it). */
export function judgeSubmission(item: QuestionItem, submission: Submission): Judgement {
  const answer = item.answer;
  if (!answer || answer.kind === 'symbolic') return { verdict: 'ungraded' };
  if (answer.kind === 'choice') {
    if (!('choice' in submission)) return { verdict: 'wrong', note: 'no choice was picked' };
    return { verdict: submission.choice === answer.label ? 'correct' : 'wrong', extracted: submission.choice };
  }
  if (!('text' in submission)) return { verdict: 'wrong', note: 'no number was entered' };
  const x = parseNumber(submission.text);
  if (x === undefined) return { verdict: 'wrong', note: 'the answer is not a number' };
  return { verdict: withinTolerance(x, answer) ? 'correct' : 'wrong', extracted: String(x) };
}

/** Scoring rules for model responses, by name (`--rule`). */
export const RESPONSE_RULES = ['mcpbr'] as const;
export type ResponseRule = (typeof RESPONSE_RULES)[number];

/**
 * Judges a model's free-text response: choice items by `rule` (only `mcpbr`; the key is compared
 * upper-cased, as mcpbr does), numerical items by the last number written in the response.
 */
export function judgeResponse(item: QuestionItem, response: string, _rule: ResponseRule = 'mcpbr'): Judgement {
  const answer: Answer | undefined = item.answer;
  if (!answer || answer.kind === 'symbolic') return { verdict: 'ungraded' };
  if (answer.kind === 'choice') {
    const got = extractMcpbrAnswer(response);
    if (got === undefined) return { verdict: 'wrong', note: 'no standalone letter A-E or digit 1-5 in the response' };
    return { verdict: got === answer.label.toUpperCase() ? 'correct' : 'wrong', extracted: got };
  }
  const x = lastNumber(response);
  if (x === undefined) return { verdict: 'wrong', note: 'no number in the response' };
  return { verdict: withinTolerance(x, answer) ? 'correct' : 'wrong', extracted: String(x) };
}
