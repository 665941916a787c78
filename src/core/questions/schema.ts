/**
 * Question items: multiple-choice, numerical, symbolic and rubric-graded problems, read from two
 * file formats and turned into one {@link QuestionItem}.
 *
 * **AI2 ARC** (the AI2 Reasoning Challenge), as published: one JSON object per line with `id`,
 * `question` (a string, or an object with `stem` and possibly `choices`), `choices` (either
 * `{"label": [...], "text": [...]}` or a list of `{"label", "text"}`) and `answerKey`. Extra
 * fields are ignored, except `subject`, `subset` and `split`, which are kept. Labels are
 * usually A-E, sometimes 1-5.
 *
 * **ARB-style items** (the format of this project, for graduate-level problems):
 *
 * ```json
 * {"id": "kin-3", "prompt": "A ball falls for $t = 2\\,\\mathrm{s}$ ...", "images": ["fall.png"],
 *  "answer": {"number": 19.6, "tolerance": 0.01}, "subject": "physics", "subset": "numerical",
 *  "rubric": {"criteria": [{"text": "uses $v = gt$", "points": 2}], "solution": "..."}}
 * ```
 *
 * - `prompt`: Markdown; math between `$...$` (inline) or `$$...$$` (display) is LaTeX.
 * - `images`: optional paths (relative to the question file) or `{"src", "alt"}` objects.
 * - `choices`: optional, as in AI2 ARC (either shape).
 * - `answer`, one of
 *   - `{"choice": "B"}`, or just `"B"` when the item has `choices`;
 *   - `{"number": 19.6, "tolerance": 0.01}` or just `19.6`: correct within a relative error of
 *     `tolerance` (default 1e-2, as ARB judges numerical answers);
 *   - `{"expression": "\\frac{mg}{k}"}`, or just a string when the item has no `choices`:
 *     a symbolic answer, kept for grading (never judged automatically).
 * - `rubric`: optional `criteria` (each `text` and `points`), a reference `solution`, and an
 *   optional `pass`: the points an answer needs to pass when graded (default: half the total).
 *   An item needs an `answer`, a `rubric`, or both.
 *
 * Unknown fields are refused in this format, so that a misspelt `anwser` is caught.
 */
import { z } from 'zod';

/** A choice as shown to a participant: its label (`A`, `3`) and its text. */
export interface Choice {
  readonly label: string;
  readonly text: string;
}

export type Answer =
  | { readonly kind: 'choice'; readonly label: string }
  | { readonly kind: 'number'; readonly value: number; readonly tolerance: number }
  | { readonly kind: 'symbolic'; readonly expression: string };

export interface RubricCriterion {
  readonly text: string;
  readonly points: number;
}

export interface Rubric {
  readonly criteria: readonly RubricCriterion[];
  readonly solution?: string;
  /** Points an answer needs to pass; half the criteria's total when absent (core/grading). */
  readonly pass?: number;
}

export interface QuestionImage {
  readonly src: string;
  readonly alt: string;
}

/** One question, whichever format it came from. */
export interface QuestionItem {
  readonly id: string;
  readonly format: 'ai2-arc' | 'arb';
  /** Markdown with LaTeX math between `$` signs. */
  readonly prompt: string;
  readonly choices?: readonly Choice[];
  readonly images?: readonly QuestionImage[];
  readonly answer?: Answer;
  readonly rubric?: Rubric;
  /** e.g. `Easy` / `Challenge` for AI2 ARC; results are reported per subset. */
  readonly subset?: string;
  readonly subject?: string;
}

/**
 * What a participant's browser may see of an item: no answer, no rubric (its reference
 * solution would give the answer away).
 */
export type PublicQuestion = Omit<QuestionItem, 'answer' | 'rubric'> & {
  readonly answerKind: 'choice' | 'number' | 'text';
};

/** Default relative tolerance of numerical answers (ARB's 10^-2). */
export const DEFAULT_TOLERANCE = 1e-2;

const Id = z.string().trim().min(1, 'is empty; every question needs an id').max(200, 'is longer than 200 characters');
const Label = z
  .string()
  .trim()
  .min(1, 'is an empty label')
  .max(8, 'is longer than 8 characters; labels are short, like A or 3');
const Text = z.string().max(20_000);
const LabelOrNumber = z.union([Label, z.number().int().nonnegative().transform(String)]);

const ChoiceList = z.array(z.object({ label: LabelOrNumber, text: Text }));
const ChoiceColumns = z.object({ label: z.array(LabelOrNumber), text: z.array(Text) });
/** Choices in either shape AI2 ARC is published in, as one list. */
export const Choices = z
  .union([ChoiceList, ChoiceColumns], {
    error: 'must be a list of {"label", "text"} or {"label": [...], "text": [...]}',
  })
  .transform((c, ctx): Choice[] => {
    const problem = (message: string) => {
      ctx.addIssue({ code: 'custom', message, input: c });
      return z.NEVER;
    };
    if (!Array.isArray(c) && c.label.length !== c.text.length)
      return problem(`has ${c.label.length} labels and ${c.text.length} texts; give one text per label`);
    const list = Array.isArray(c) ? c : c.label.map((label, i) => ({ label, text: c.text[i] }));
    if (list.length < 2)
      return problem(`has ${list.length} choice${list.length === 1 ? '' : 's'}; a question needs at least 2`);
    if (list.length > 10) return problem(`has ${list.length} choices; at most 10 are allowed`);
    const seen = new Set<string>();
    for (const { label } of list) {
      if (seen.has(label)) return problem(`label "${label}" appears twice`);
      seen.add(label);
    }
    return list;
  });

/** One line of an AI2 ARC file. */
export const Ai2ArcLine = z.object({
  id: Id,
  question: z.union(
    [z.string().min(1, 'is empty'), z.object({ stem: z.string().min(1, 'is empty'), choices: Choices.optional() })],
    { error: 'must be the question text, or an object with "stem" (and "choices")' },
  ),
  choices: Choices.optional(),
  answerKey: LabelOrNumber,
  subject: z.string().max(200).optional(),
  subset: z.string().max(200).optional(),
  split: z.string().max(200).optional(),
});

const Tolerance = z.number().min(0, 'must be 0 or more').max(1, 'is a relative error and must be at most 1');
const AnswerSpec = z.union(
  [
    z.string().trim().min(1, 'is empty'),
    z.number(),
    z.strictObject({ choice: LabelOrNumber }),
    z.strictObject({ number: z.number(), tolerance: Tolerance.optional() }),
    z.strictObject({ expression: z.string().trim().min(1, 'is empty').max(5_000) }),
  ],
  { error: 'must be a choice label, a number, {"choice"}, {"number", "tolerance"} or {"expression"}' },
);

const Image = z.union([
  z
    .string()
    .min(1)
    .max(1000)
    .transform((src) => ({ src, alt: '' })),
  z.strictObject({ src: z.string().min(1).max(1000), alt: z.string().max(1000).default('') }),
]);

const RubricSpec = z
  .strictObject({
    criteria: z
      .array(
        z.strictObject({
          text: z.string().min(1, 'is empty').max(5_000),
          points: z.number().positive('must be more than 0').max(1000),
        }),
      )
      .min(1, 'is empty; a rubric needs at least one criterion')
      .max(50),
    solution: z.string().max(50_000).optional(),
    pass: z.number().positive('must be more than 0').max(50_000).optional(),
  })
  .refine((r) => r.pass === undefined || r.pass <= r.criteria.reduce((n, c) => n + c.points, 0) + 1e-9, {
    message: "is more than the criteria's total points; no answer could pass",
    path: ['pass'],
  });

/** One ARB-style item. */
export const ArbItem = z.strictObject({
  id: Id,
  prompt: z.string().min(1, 'is empty').max(50_000),
  images: z.array(Image).max(20).optional(),
  choices: Choices.optional(),
  answer: AnswerSpec.optional(),
  rubric: RubricSpec.optional(),
  subject: z.string().max(200).optional(),
  subset: z.string().max(200).optional(),
});

export type Ai2ArcLine = z.output<typeof Ai2ArcLine>;
export type ArbItem = z.output<typeof ArbItem>;
