import { describe, expect, it } from 'vitest';
import { parseStudy, type SurveyItem } from './schema';
import { checkSurveyAnswers } from './survey';
import { isLowEffort, type ItemProgress } from './rules';

const def = {
  title: 'T',
  consent: 'ok',
  completion: { code: 'X' },
  items: [
    {
      kind: 'survey',
      id: 'about',
      title: 'About you',
      questions: [
        { id: 'age', prompt: 'Age?', type: 'number', min: 18, max: 120, required: true },
        { id: 'hand', prompt: 'Hand?', type: 'choice', options: ['left', 'right'] },
        { id: 'langs', prompt: 'Languages?', type: 'multi', options: ['en', 'de', 'fr'] },
        { id: 'ease', prompt: 'Ease?', type: 'scale', min: 1, max: 5 },
        { id: 'name', prompt: 'Nickname?', type: 'text' },
        { id: 'notes', prompt: 'Anything else?', type: 'longtext' },
      ],
    },
  ],
};

function survey(): SurveyItem {
  const r = parseStudy(def);
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.study.items[0] as SurveyItem;
}

describe('survey definitions', () => {
  it('refuses choice questions without options, options on text, bad scales and repeated ids, naming the path', () => {
    const r = parseStudy({
      ...def,
      items: [
        {
          kind: 'survey',
          id: 's',
          questions: [
            { id: 'a', prompt: 'A', type: 'choice' },
            { id: 'b', prompt: 'B', type: 'text', options: ['x', 'y'] },
            { id: 'c', prompt: 'C', type: 'scale', min: 1, max: 1 },
            { id: 'a', prompt: 'D', type: 'longtext' },
            { id: 'e', prompt: 'E', type: 'date' },
          ],
        },
      ],
    });
    expect(r.ok).toBe(false);
    const text = (r as { problems: string[] }).problems.join('\n');
    expect(text).toContain('items[0].questions[0].options: a choice question needs options (2-50)');
    expect(text).toContain('items[0].questions[1].options: only choice and multi questions take options, not text');
    expect(text).toContain('items[0].questions[2].max: a scale runs over whole numbers');
    expect(text).toMatch(/items\[0\]\.questions\[4\]\.type: /);
    const twice = parseStudy({
      ...def,
      items: [
        {
          kind: 'survey',
          id: 's',
          questions: [
            { id: 'a', prompt: 'A', type: 'text' },
            { id: 'a', prompt: 'D', type: 'longtext' },
          ],
        },
      ],
    });
    expect((twice as { problems: string[] }).problems).toEqual([
      'items[0].questions[1].id: "a" is used by an earlier question of this survey',
    ]);
  });
});

describe('checkSurveyAnswers', () => {
  it('keeps valid answers, trimmed, and leaves out the unanswered', () => {
    expect(
      checkSurveyAnswers(survey(), { age: 34, hand: 'left', langs: ['en', 'fr'], ease: 4, name: '  Kim ', notes: '' }),
    ).toEqual({ ok: true, answers: { age: 34, hand: 'left', langs: ['en', 'fr'], ease: 4, name: 'Kim' } });
  });

  it('names every problem: missing required, unknown options and questions, out of range, wrong types, too long', () => {
    const r = checkSurveyAnswers(survey(), {
      hand: 'both',
      langs: ['en', 'en'],
      ease: 6,
      name: 'a\nb',
      notes: 'x'.repeat(5001),
      extra: 1,
    });
    expect(r.ok).toBe(false);
    expect((r as { problems: unknown[] }).problems).toEqual([
      { question: 'extra', message: 'is not a question of this survey' },
      { question: 'age', message: 'needs an answer' },
      { question: 'hand', message: '"both" is not one of the options (left, right)' },
      { question: 'langs', message: 'names an option twice' },
      { question: 'ease', message: 'must be a whole number from 1 to 5' },
      { question: 'name', message: 'must be one line' },
      { question: 'notes', message: 'is 5001 characters long; at most 5000 are kept' },
    ]);
    expect(checkSurveyAnswers(survey(), { age: '34' })).toEqual({
      ok: false,
      problems: [{ question: 'age', message: 'must be a number' }],
    });
    expect(checkSurveyAnswers(survey(), { age: 12 })).toEqual({
      ok: false,
      problems: [{ question: 'age', message: 'must be at least 18' }],
    });
    expect(checkSurveyAnswers(survey(), { age: 30, ease: 2.5 })).toEqual({
      ok: false,
      problems: [{ question: 'ease', message: 'must be a whole number from 1 to 5' }],
    });
  });
});

describe('question blocks and descriptions in the study schema', () => {
  const base = { title: 'T', consent: 'ok', completion: { code: 'X' } };
  it('takes one question or a block, not both nor neither, and no question twice in a block', () => {
    const ok = parseStudy({
      ...base,
      items: [
        { kind: 'question', id: 'one', collection: 'science', question: 'sci-001' },
        {
          kind: 'question',
          id: 'block',
          questions: [
            { collection: 'science', question: 'sci-001' },
            { collection: 'arb-sample', question: 'arb-phys-1' },
          ],
        },
      ],
    });
    expect(ok.ok).toBe(true);
    const bad = parseStudy({
      ...base,
      items: [
        {
          kind: 'question',
          id: 'both',
          collection: 'science',
          question: 'sci-001',
          questions: [{ collection: 'science', question: 'sci-002' }],
        },
        { kind: 'question', id: 'neither' },
        {
          kind: 'question',
          id: 'twice',
          questions: [
            { collection: 'science', question: 'sci-001' },
            { collection: 'science', question: 'sci-001' },
          ],
        },
        { kind: 'question', id: 'empty', questions: [] },
      ],
    });
    expect((bad as { problems: string[] }).problems).toEqual([
      'items[0].questions: give either collection and question (one question) or questions (a block), not both',
      'items[1].collection: a question item needs collection and question, or a questions list for a block',
      'items[2].questions[1].question: "sci-001" is already in this block',
      'items[3].questions: Too small: expected array to have >=1 items',
    ]);
  });

  it('fills in the default prompt of a written description and refuses an empty one', () => {
    const r = parseStudy({
      ...base,
      items: [
        { kind: 'task', id: 'a', collection: 'c', task: 'a', describe: true },
        { kind: 'game', id: 'g', game: 'push', describe: { prompt: 'How do you win?' } },
        { kind: 'task', id: 'b', collection: 'c', task: 'b', describe: {} },
      ],
    });
    if (!r.ok) throw new Error(r.problems.join('\n'));
    expect(r.study.items.map((i) => (i.kind === 'task' || i.kind === 'game' ? i.describe : null))).toEqual([
      { prompt: 'Describe the rule in your own words' },
      { prompt: 'How do you win?' },
      { prompt: 'Describe the rule in your own words' },
    ]);
    expect(
      parseStudy({ ...base, items: [{ kind: 'task', id: 'a', collection: 'c', task: 'a', describe: { prompt: ' ' } }] })
        .ok,
    ).toBe(false);
  });
});

describe('surveys and low effort', () => {
  it('leaves surveys out of the low-effort rule: a survey has no actions, and answering it is full effort', () => {
    const r = parseStudy(def);
    if (!r.ok) throw new Error(r.problems.join('\n'));
    const item = (id: string, kind: ItemProgress['kind'], actions: number) =>
      ({
        id,
        kind,
        practice: false,
        started: true,
        startedAt: 0,
        finished: true,
        actions,
        durationMs: 1000,
        activeMs: 1000,
      }) as ItemProgress;
    const tasks = [item('a', 'task', 40), item('b', 'task', 40), item('c', 'task', 2)];
    expect(isLowEffort(r.study, [...tasks, item('s1', 'survey', 0), item('s2', 'survey', 0)])).toBe(false);
    expect(isLowEffort(r.study, [...tasks, item('d', 'task', 0)])).toBe(true);
  });
});
