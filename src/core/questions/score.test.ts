import { describe, expect, it } from 'vitest';
import { formatQuestionProblem, parseQuestionFile } from './parse';
import { parseAnswersFile, scoreAnswers } from './score';

const line = (o: unknown) => JSON.stringify(o);
const columns = { label: ['A', 'B', 'C', 'D'], text: ['w', 'x', 'y', 'z'] };
const questions = parseQuestionFile(
  'set.jsonl',
  [
    line({ id: 'e1', question: 'q', choices: columns, answerKey: 'A', subset: 'Easy' }),
    line({ id: 'e2', question: 'q', choices: columns, answerKey: 'B', subset: 'Easy' }),
    line({ id: 'c1', question: 'q', choices: columns, answerKey: 'C', subset: 'Challenge' }),
    line({ id: 'c2', question: 'q', choices: columns, answerKey: 'D', subset: 'Challenge' }),
    line({ id: 'n1', prompt: 'p', answer: 19.6 }),
    line({ id: 'f1', prompt: 'p', rubric: { criteria: [{ text: 't', points: 1 }] } }),
  ].join('\n'),
).items;

describe('scoreAnswers', () => {
  it('counts accuracy per subset; a missing answer is wrong and listed; free responses are left out', () => {
    const r = scoreAnswers(questions, [
      { id: 'e1', response: 'A' },
      { id: 'e2', response: 'I think it is b' },
      { id: 'c1', response: 'C, since a rock sinks' },
      { id: 'n1', response: 'about 19.5 m' },
      { id: 'f1', response: 'a proof' },
      { id: 'zz', response: 'A' },
    ]);
    expect(r.subsets).toEqual([
      { subset: 'Easy', questions: 2, judged: 2, correct: 2, missing: 0, ungraded: 0, accuracy: 1 },
      { subset: 'Challenge', questions: 2, judged: 2, correct: 0, missing: 1, ungraded: 0, accuracy: 0 },
      { subset: '(no subset)', questions: 2, judged: 1, correct: 1, missing: 0, ungraded: 1, accuracy: 1 },
    ]);
    expect(r.overall).toEqual({
      subset: 'all',
      questions: 6,
      judged: 5,
      correct: 3,
      missing: 1,
      ungraded: 1,
      accuracy: 0.6,
    });
    expect(r.missing).toEqual(['c2']);
    expect(r.unknown).toEqual(['zz']);
    expect(r.questions.find((q) => q.id === 'c1')).toEqual({
      id: 'c1',
      subset: 'Challenge',
      missing: false,
      verdict: 'wrong',
      extracted: 'A',
    });
  });

  it('has no accuracy where nothing could be judged', () => {
    const r = scoreAnswers(
      questions.filter((q) => q.id === 'f1'),
      [],
    );
    expect(r.overall).toMatchObject({ judged: 0, accuracy: null, missing: 1, ungraded: 1 });
  });
});

describe('parseAnswersFile', () => {
  it('reads id and response, ignoring other fields; numeric ids become strings', () => {
    const text = [line({ id: 'e1', response: 'A', model: 'm' }), '', line({ id: 7, response: '3' })].join('\n');
    expect(parseAnswersFile('a.jsonl', text)).toEqual({
      answers: [
        { id: 'e1', response: 'A' },
        { id: '7', response: '3' },
      ],
      problems: [],
    });
  });

  it('names each broken line', () => {
    const text = [
      line({ id: 'e1', response: 'A' }),
      'not json',
      line({ id: 'e2' }),
      line({ id: 'e1', response: 'B' }),
    ].join('\n');
    const r = parseAnswersFile('a.jsonl', text);
    expect(r.answers).toEqual([{ id: 'e1', response: 'A' }]);
    expect(r.problems.map(formatQuestionProblem)).toEqual([
      expect.stringMatching(/^a\.jsonl:2: is not valid JSON/),
      'a.jsonl:3 response: is missing',
      'a.jsonl:4 id: "e1" is already answered at line 1; give one response per question',
    ]);
    expect(parseAnswersFile('a.jsonl', '').problems.map(formatQuestionProblem)).toEqual([
      'a.jsonl: holds no answers; each line holds {"id", "response"}',
    ]);
  });
});
