import { describe, expect, it } from 'vitest';
import { studyFieldProblems, surveyFieldProblems } from './fieldProblems';

const valid = {
  title: 'Pilot',
  consent: 'You agree.',
  completion: { code: 'DONE' },
  items: [{ kind: 'task', id: 't1', collection: 'samples', task: 'mirror-across-wall' }],
};

describe('studyFieldProblems', () => {
  it('has nothing to say about a valid study', () => {
    expect(studyFieldProblems(valid)).toEqual([]);
  });

  it("ties each problem to its field, in plain words rather than the schema's", () => {
    const problems = studyFieldProblems({
      ...valid,
      title: '',
      completion: { code: '', redirectUrl: 'prolific' },
      trials: 0,
      limits: { sessionMinutes: 0 },
    });
    expect(problems).toEqual([
      { path: 'title', message: 'Give the study a title: participants see it at the top of every page.' },
      { path: 'trials', message: 'Must be at least 1.' },
      { path: 'limits.sessionMinutes', message: 'Must be more than 0.' },
      {
        path: 'completion.code',
        message: 'Give the code participants get at the end, to enter on the recruitment platform.',
      },
      { path: 'completion.redirectUrl', message: 'Must be a web address starting with https:// (or http://).' },
    ]);
    for (const p of problems) expect(p.message).not.toMatch(/expected|>=|Too small|Invalid/);
  });

  it("names an item's field by the item's place in the list, and keeps the schema's own sentences", () => {
    expect(studyFieldProblems({ ...valid, items: [] })).toEqual([
      { path: 'items', message: 'Add at least one item: a task, a game, a page, a question or a survey.' },
    ]);
    expect(
      studyFieldProblems({
        ...valid,
        items: [valid.items[0], { kind: 'task', id: 'bad id', collection: 'samples', task: '' }],
      }),
    ).toEqual([
      {
        path: 'items[1].id',
        message: 'Must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
      },
      { path: 'items[1].task', message: 'Choose a task.' },
    ]);
  });
});

describe('surveyFieldProblems', () => {
  const survey = { kind: 'survey', id: 'about', questions: [{ id: 'age', prompt: 'Age?', type: 'number' }] };

  it('has nothing to say about a valid survey', () => {
    expect(surveyFieldProblems(survey, 0)).toEqual([]);
  });

  it("puts each question's problem at the path the whole study's check gives it, in plain words", () => {
    const item = {
      ...survey,
      questions: [
        { id: 'age', prompt: '', type: 'number' },
        { id: 'age', prompt: 'Hand?', type: 'choice', options: ['Left', ''] },
        { id: 'ease', prompt: 'Hard?', type: 'scale', min: 5, max: 1 },
        { id: 'sport', prompt: 'Sport?', type: 'choice' },
      ],
    };
    const problems = surveyFieldProblems(item, 3);
    expect(problems).toEqual([
      { path: 'items[3].questions[0].prompt', message: 'Write the question participants answer.' },
      { path: 'items[3].questions[1].options[1]', message: 'Write the option, or remove it.' },
      {
        path: 'items[3].questions[2].max',
        message: 'A scale runs over whole numbers from min to max (2-21 points, default 1-7).',
      },
      { path: 'items[3].questions[3].options', message: 'A choice question needs options (2-50).' },
      { path: 'items[3].questions[1].id', message: '"age" is used by an earlier question of this survey.' },
    ]);
    // The same paths and words as the study's check, so the editor shows each problem once.
    const study = {
      ...valid,
      items: [valid.items[0], valid.items[0], valid.items[0], item].map((x, i) => (i < 3 ? { ...x, id: `t${i}` } : x)),
    };
    expect(studyFieldProblems(study)).toEqual(problems);
  });
});
