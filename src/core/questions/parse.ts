/**
 * Reading question files: JSON Lines (one item per line, AI2 ARC or ARB-style, told apart per
 * line by `question` versus `prompt`) or a JSON list of items. Every problem names its place
 * (`file:line`, or `file[index]` inside a JSON list), the field and the reason; parsing goes on
 * past a bad item so that one run reports them all.
 */
import type { z } from 'zod';
import { formatPath } from '../study/schema';
import {
  Ai2ArcLine,
  ArbItem,
  DEFAULT_TOLERANCE,
  type Answer,
  type Choice,
  type PublicQuestion,
  type QuestionItem,
} from './schema';

export interface QuestionProblem {
  /** `science.jsonl:7`, or `arb.json[2]` for the third item of a JSON list. */
  readonly place: string;
  /** The field inside the item, e.g. `choices.label`; empty for the whole item or line. */
  readonly field: string;
  readonly reason: string;
}

export interface QuestionFileParse {
  readonly items: QuestionItem[];
  readonly problems: QuestionProblem[];
}

/** Largest question file accepted, in characters. */
export const MAX_QUESTION_FILE_CHARS = 50_000_000;
/** Problems reported per file at most; a file of 10,000 broken lines would drown its first. */
export const MAX_PROBLEMS_PER_FILE = 200;

/** Formats a problem as one line: `place field: reason`. */
export function formatQuestionProblem(p: QuestionProblem): string {
  return `${p.place}${p.field ? ` ${p.field}` : ''}: ${p.reason}`;
}

/**
 * Parses a question file's text. `name` is used in places (`name:line`) and, when it contains
 * `ARC-Easy` or `ARC-Challenge` as the published files' names do, gives lines without their own
 * `subset` that subset (`Easy` / `Challenge`). Text starting with `[` is a JSON list; anything
 * else is JSON Lines. Never throws.
 *
 * @example
 * parseQuestionFile('ARC-Easy-Test.jsonl', '{"id":"q1","question":"...","choices":{"label":["A","B"],"text":["x","y"]},"answerKey":"B"}')
 * // { items: [{ id: 'q1', format: 'ai2-arc', subset: 'Easy', answer: { kind: 'choice', label: 'B' }, ... }], problems: [] }
 */
export function parseQuestionFile(name: string, text: string): QuestionFileParse {
  const items: QuestionItem[] = [];
  const problems: QuestionProblem[] = [];
  const report = (place: string, field: string, reason: string) => {
    if (problems.length < MAX_PROBLEMS_PER_FILE) problems.push({ place, field, reason });
  };
  if (text.length > MAX_QUESTION_FILE_CHARS) {
    report(
      name,
      '',
      `is ${text.length} characters long; a question file may have at most ${MAX_QUESTION_FILE_CHARS}; split it into several files`,
    );
    return { items, problems };
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const fileSubset = subsetFromFileName(name);
  const firstLine = new Map<string, string>();
  const take = (place: string, json: unknown) => {
    const r = validateQuestion(json, fileSubset);
    if (!r.ok) {
      for (const p of r.problems) report(place, p.field, p.reason);
      return;
    }
    const earlier = firstLine.get(r.item.id);
    if (earlier !== undefined)
      return report(place, 'id', `"${r.item.id}" is already used at ${earlier}; ids must be unique within a file`);
    firstLine.set(r.item.id, place);
    items.push(r.item);
  };

  if (body.trim() === '') {
    report(name, '', 'is empty: a question file holds one JSON object per line (AI2 ARC or ARB-style items)');
  } else if (/\.json$/i.test(name) && !body.trimStart().startsWith('[')) {
    report(
      name,
      '',
      'does not start with "["; a .json question file holds one list of items, and a .jsonl file one item per line',
    );
  } else if (body.trimStart().startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (e) {
      report(name, '', `is not valid JSON (${(e as Error).message}); a .json question file is one list of items`);
      return { items, problems };
    }
    (json as unknown[]).forEach((item, i) => take(`${name}[${i}]`, item));
  } else {
    const lines = body.split(/\r?\n/);
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      const place = `${name}:${i + 1}`;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch (e) {
        return report(place, '', `is not valid JSON (${(e as Error).message}); each line holds one item`);
      }
      take(place, json);
    });
    if (items.length === 0 && problems.length === 0) report(name, '', 'holds no items');
  }
  return { items, problems };
}

/** `Easy` / `Challenge` when a file name carries the published split, e.g. `ARC-Challenge-Dev.jsonl`. */
export function subsetFromFileName(name: string): string | undefined {
  const m = /ARC[-_ ](Easy|Challenge)/i.exec(name);
  if (!m) return undefined;
  return m[1].toLowerCase() === 'easy' ? 'Easy' : 'Challenge';
}

type ItemParse = { ok: true; item: QuestionItem } | { ok: false; problems: { field: string; reason: string }[] };

/** Validates one already-parsed item of either format. Never throws. */
export function validateQuestion(json: unknown, fileSubset?: string): ItemParse {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return fail(
      '',
      `is ${json === null ? 'null' : Array.isArray(json) ? 'a list' : typeof json}; an item is an object with "question" (AI2 ARC) or "prompt" (ARB-style)`,
    );
  }
  if ('prompt' in json) return fromArb(json);
  if ('question' in json) return fromAi2(json, fileSubset);
  return fail(
    '',
    'has neither "question" (AI2 ARC) nor "prompt" (ARB-style); see "Question items" in docs/researchers.md for the formats',
  );
}

function fromAi2(json: object, fileSubset: string | undefined): ItemParse {
  const r = Ai2ArcLine.safeParse(json);
  if (!r.success) return zodFail(r.error, json);
  const line = r.data;
  const q = line.question;
  const stem = typeof q === 'string' ? q : q.stem;
  const nested = typeof q === 'string' ? undefined : q.choices;
  if (line.choices && nested) return fail('choices', 'is given both at the top level and inside "question"; keep one');
  const choices = line.choices ?? nested;
  if (!choices) return fail('choices', 'is missing; give it at the top level or inside "question"');
  const key = line.answerKey.trim();
  const problem = choiceProblem(choices, key);
  if (problem) return fail('answerKey', problem);
  const subset = line.subset ?? line.split ?? fileSubset;
  return {
    ok: true,
    item: {
      id: line.id,
      format: 'ai2-arc',
      prompt: stem,
      choices,
      answer: { kind: 'choice', label: key },
      ...(subset !== undefined ? { subset } : {}),
      ...(line.subject !== undefined ? { subject: line.subject } : {}),
    },
  };
}

function fromArb(json: object): ItemParse {
  const r = ArbItem.safeParse(json);
  if (!r.success) return zodFail(r.error, json);
  const it = r.data;
  let answer: Answer | undefined;
  const a = it.answer;
  if (a === undefined) {
    if (!it.rubric)
      return fail(
        'answer',
        'is missing; give an answer (a choice label, a number or an expression), a rubric, or both',
      );
  } else if (typeof a === 'number') {
    answer = { kind: 'number', value: a, tolerance: DEFAULT_TOLERANCE };
  } else if (typeof a === 'string') {
    answer = it.choices ? { kind: 'choice', label: a } : { kind: 'symbolic', expression: a };
  } else if ('choice' in a) {
    answer = { kind: 'choice', label: a.choice.trim() };
  } else if ('number' in a) {
    answer = { kind: 'number', value: a.number, tolerance: a.tolerance ?? DEFAULT_TOLERANCE };
  } else {
    answer = { kind: 'symbolic', expression: a.expression };
  }
  if (answer?.kind === 'choice') {
    if (!it.choices) return fail('answer', 'is a choice label but the item has no "choices"');
    const problem = choiceProblem(it.choices, answer.label);
    if (problem) return fail('answer', problem);
  } else if (it.choices) {
    return fail(
      'answer',
      `is ${answer ? `a${answer.kind === 'number' ? ' number' : ' symbolic expression'}` : 'missing'} but the item has "choices"; give the correct choice's label`,
    );
  }
  return {
    ok: true,
    item: {
      id: it.id,
      format: 'arb',
      prompt: it.prompt,
      ...(it.choices ? { choices: it.choices } : {}),
      ...(it.images ? { images: it.images } : {}),
      ...(answer ? { answer } : {}),
      ...(it.rubric ? { rubric: it.rubric } : {}),
      ...(it.subset !== undefined ? { subset: it.subset } : {}),
      ...(it.subject !== undefined ? { subject: it.subject } : {}),
    },
  };
}

function choiceProblem(choices: readonly Choice[], label: string): string | undefined {
  if (choices.some((c) => c.label === label)) return undefined;
  return `"${label}" is not one of the labels ${choices.map((c) => c.label).join(', ')}`;
}

function fail(field: string, reason: string): ItemParse {
  return { ok: false, problems: [{ field, reason }] };
}

function zodFail(error: z.ZodError, json: object): ItemParse {
  const at = (path: readonly PropertyKey[]): unknown =>
    path.reduce<unknown>(
      (v, k) => (typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined),
      json,
    );
  return {
    ok: false,
    problems: error.issues.slice(0, 10).map((i) => ({
      field: formatPath(i.path),
      reason:
        i.code === 'invalid_union' && at(i.path) === undefined
          ? 'is missing'
          : i.code === 'unrecognized_keys'
            ? `has unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `"${k}"`).join(', ')}`
            : i.code === 'invalid_type' && /received undefined$/.test(i.message)
              ? `is missing (${i.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '')})`
              : i.message.replace(/^Invalid input: /, ''),
    })),
  };
}

/** The item as a participant's browser may see it: no answer, no rubric. */
export function publicQuestion(item: QuestionItem): PublicQuestion {
  const { answer, rubric: _rubric, ...rest } = item;
  const answerKind = item.choices ? 'choice' : answer?.kind === 'number' ? 'number' : 'text';
  return { ...rest, answerKind };
}
