/**
 * A study definition's problems in plain words, each tied to the field it is about, for the
 * study editor to show next to that field (the schema's own words, "title: Too small: expected
 * string to have >=1 characters", are for files and the API).
 */
import type { z } from 'zod';
import { StudyDefinition, SurveyItem, formatPath } from './schema';

export interface FieldProblem {
  /** The field, as `formatPath` writes it: `title`, `completion.code`, `items[2].task`. */
  readonly path: string;
  /** A sentence for the person filling in the field. */
  readonly message: string;
}

/** What to say when a field that must hold something is left empty, by field (the last part of its path). */
const EMPTY: Record<string, string> = {
  title: 'Give the study a title: participants see it at the top of every page.',
  'completion.code': 'Give the code participants get at the end, to enter on the recruitment platform.',
  items: 'Add at least one item: a task, a game, a page, a question or a survey.',
  task: 'Choose a task.',
  collection: 'Choose a collection.',
  game: 'Choose a game.',
  question: 'Choose a question.',
  questions: 'Add at least one question.',
  prompt: 'Write the question participants answer.',
  options: 'Write the option, or remove it.',
};

const sentence = (s: string) => {
  const t = s.trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
};

/** One issue of the schema, in words for a person; the field's own wording where there is one. */
export function plainMessage(issue: z.core.$ZodIssue, path: string): string {
  const field = path.replace(/^items\[\d+\]\./, '');
  // A survey question's field ("items[2].questions[0].prompt", "...options[1]") by its own name.
  const empty = EMPTY[field] ?? EMPTY[field.replace(/^.*\./, '').replace(/\[\d+\]$/, '')];
  switch (issue.code) {
    case 'too_small': {
      const min = Number(issue.minimum);
      if ((issue.origin === 'string' || issue.origin === 'array') && min <= 1)
        return empty ?? 'This cannot be left empty.';
      if (issue.origin === 'string') return `Write at least ${min} characters.`;
      if (issue.origin === 'array') return `Needs at least ${min}.`;
      return issue.inclusive === false ? `Must be more than ${min}.` : `Must be at least ${min}.`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `Too long: at most ${max} characters.`;
      if (issue.origin === 'array') return `Too many: at most ${max}.`;
      return issue.inclusive === false ? `Must be less than ${max}.` : `Must be at most ${max}.`;
    }
    case 'invalid_type':
      if (issue.expected === 'number' || issue.expected === 'int') return 'Must be a number.';
      return empty ?? 'This needs a value.';
    case 'invalid_format':
      if (issue.format === 'url') return 'Must be a web address starting with https:// (or http://).';
      // The schema's patterns carry their own words ("must be 1-64 letters, ...").
      return sentence(issue.message);
    case 'invalid_value':
      return `Must be one of: ${issue.values.map(String).join(', ')}.`;
    case 'unrecognized_keys':
      return `Not a setting of a study: ${issue.keys.join(', ')}.`;
    case 'not_multiple_of':
      return issue.divisor === 1 ? 'Must be a whole number.' : `Must be a multiple of ${String(issue.divisor)}.`;
    default:
      return sentence(issue.message);
  }
}

/**
 * The problems of a study definition, one per field, in the order the schema found them; empty
 * when the study is valid.
 *
 * @example
 * studyFieldProblems({ ...study, title: '' })
 * // [{ path: 'title', message: 'Give the study a title: participants see it at the top of every page.' }]
 */
export function studyFieldProblems(json: unknown): FieldProblem[] {
  return schemaFieldProblems(StudyDefinition, json, []);
}

/**
 * The problems of one survey item (`SurveyItem`), at the paths the study's own check gives them
 * (`items[2].questions[0].options`), so the survey builder can show them as they are edited.
 *
 * @example
 * surveyFieldProblems({ kind: 'survey', id: 's', questions: [{ id: 'q1', prompt: '', type: 'text' }] }, 2)
 * // [{ path: 'items[2].questions[0].prompt', message: 'Write the question participants answer.' }]
 */
export function surveyFieldProblems(item: unknown, index: number): FieldProblem[] {
  return schemaFieldProblems(SurveyItem, item, ['items', index]);
}

function schemaFieldProblems(schema: z.ZodType, json: unknown, at: readonly PropertyKey[]): FieldProblem[] {
  const r = schema.safeParse(json);
  if (r.success) return [];
  const out: FieldProblem[] = [];
  for (const issue of r.error.issues) {
    const path = formatPath([...at, ...issue.path]);
    if (out.some((p) => p.path === path)) continue;
    out.push({ path, message: plainMessage(issue, path) });
  }
  return out;
}
