import { describe, expect, it } from 'vitest';
import { studyFieldProblems } from './fieldProblems';

const valid = {
  title: 'Pilot', consent: 'You agree.', completion: { code: 'DONE' },
  items: [{ kind: 'task', id: 't1', collection: 'samples', task: 'mirror-across-wall' }],
};

describe('studyFieldProblems', () => {
  it('has nothing to say about a valid study', () => {
    expect(studyFieldProblems(valid)).toEqual([]);
  });

  it('ties each problem to its field, in plain words rather than the schema\'s', () => {
    const problems = studyFieldProblems({ ...valid, title: '', completion: { code: '', redirectUrl: 'prolific' }, trials: 0, limits: { sessionMinutes: 0 } });
    expect(problems).toEqual([
      { path: 'title', message: 'Give the study a title: participants see it at the top of every page.' },
      { path: 'trials', message: 'Must be at least 1.' },
      { path: 'limits.sessionMinutes', message: 'Must be more than 0.' },
      { path: 'completion.code', message: 'Give the code participants get at the end, to enter on the recruitment platform.' },
      { path: 'completion.redirectUrl', message: 'Must be a web address starting with https:// (or http://).' },
    ]);
    for (const p of problems) expect(p.message).not.toMatch(/expected|>=|Too small|Invalid/);
  });

  it('names an item\'s field by the item\'s place in the list, and keeps the schema\'s own sentences', () => {
    expect(studyFieldProblems({ ...valid, items: [] })).toEqual([{ path: 'items', message: 'Add at least one item: a task, a game, a page, a question or a survey.' }]);
    expect(studyFieldProblems({ ...valid, items: [valid.items[0], { kind: 'task', id: 'bad id', collection: 'samples', task: '' }] })).toEqual([
      { path: 'items[1].id', message: 'Must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.' },
      { path: 'items[1].task', message: 'Choose a task.' },
    ]);
  });
});
