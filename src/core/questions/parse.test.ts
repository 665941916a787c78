import { describe, expect, it } from 'vitest';
import { formatQuestionProblem, parseQuestionFile, publicQuestion, subsetFromFileName } from './parse';

const line = (o: unknown) => JSON.stringify(o);
const columns = { label: ['A', 'B', 'C', 'D'], text: ['ice', 'steam', 'water', 'fog'] };

describe('AI2 ARC lines', () => {
  it('reads the nested shape: question.stem with a list of {label, text} choices', () => {
    const text = line({
      id: 'q1',
      question: {
        stem: 'Which is a gas?',
        choices: [
          { text: 'ice', label: 'A' },
          { text: 'steam', label: 'B' },
        ],
      },
      answerKey: 'B',
    });
    expect(parseQuestionFile('x.jsonl', text)).toEqual({
      items: [
        {
          id: 'q1',
          format: 'ai2-arc',
          prompt: 'Which is a gas?',
          choices: [
            { label: 'A', text: 'ice' },
            { label: 'B', text: 'steam' },
          ],
          answer: { kind: 'choice', label: 'B' },
        },
      ],
      problems: [],
    });
  });

  it('reads the flat shape: a question string with label and text columns, and keeps subset fields', () => {
    const text = line({
      id: 'q2',
      question: 'Which is a gas?',
      choices: columns,
      answerKey: 'B',
      subject: 'physics',
      split: 'test',
      grade: 5,
    });
    const { items, problems } = parseQuestionFile('x.jsonl', text);
    expect(problems).toEqual([]);
    expect(items[0]).toMatchObject({
      id: 'q2',
      prompt: 'Which is a gas?',
      subset: 'test',
      subject: 'physics',
      answer: { kind: 'choice', label: 'B' },
    });
    expect(items[0].choices).toHaveLength(4);
  });

  it('accepts digit labels, also written as numbers', () => {
    const text = line({
      id: 'q3',
      question: 'Pick',
      choices: { label: [1, 2, 3], text: ['a', 'b', 'c'] },
      answerKey: 2,
    });
    expect(parseQuestionFile('x.jsonl', text).items[0]).toMatchObject({
      choices: [{ label: '1' }, { label: '2' }, { label: '3' }],
      answer: { label: '2' },
    });
  });

  it('takes the subset from a published file name, unless the line has its own', () => {
    expect(subsetFromFileName('data/ARC-Easy-Test.jsonl')).toBe('Easy');
    expect(subsetFromFileName('ARC-Challenge-Dev.jsonl')).toBe('Challenge');
    expect(subsetFromFileName('science.jsonl')).toBeUndefined();
    const text = [
      line({ id: 'a', question: 'q', choices: columns, answerKey: 'A' }),
      line({ id: 'b', question: 'q', choices: columns, answerKey: 'A', subset: 'Hard' }),
    ].join('\n');
    expect(parseQuestionFile('ARC-Challenge-Test.jsonl', text).items.map((i) => i.subset)).toEqual([
      'Challenge',
      'Hard',
    ]);
  });

  it('skips blank lines, CRLF endings and a byte order mark, and numbers lines as an editor does', () => {
    const text =
      '\uFEFF' +
      line({ id: 'a', question: 'q', choices: columns, answerKey: 'A' }) +
      '\r\n\r\n' +
      line({ id: 'b', question: 'q', choices: columns, answerKey: 'Z' }) +
      '\r\n';
    const { items, problems } = parseQuestionFile('f.jsonl', text);
    expect(items.map((i) => i.id)).toEqual(['a']);
    expect(problems.map(formatQuestionProblem)).toEqual([
      'f.jsonl:3 answerKey: "Z" is not one of the labels A, B, C, D',
    ]);
  });
});

describe('problems name the place, the field and the reason', () => {
  const broken = [
    '{"id": "ok", "question": "q", "choices": {"label": ["A", "B"], "text": ["x", "y"]}, "answerKey": "A"}',
    '{"id": "bad-json", "question": ',
    line({ id: 'no-key', question: 'q', choices: columns }),
    line({ id: 'ragged', question: 'q', choices: { label: ['A', 'B', 'C'], text: ['x', 'y'] }, answerKey: 'A' }),
    line({ id: 'one-choice', question: 'q', choices: [{ label: 'A', text: 'x' }], answerKey: 'A' }),
    line({
      id: 'twice',
      question: 'q',
      choices: [
        { label: 'A', text: 'x' },
        { label: 'A', text: 'y' },
      ],
      answerKey: 'A',
    }),
    line({ id: 'no-choices', question: 'q', answerKey: 'A' }),
    line({ id: 'ok', question: 'q', choices: columns, answerKey: 'A' }),
    line({ question: 'q', choices: columns, answerKey: 'A' }),
    line({ id: 'neither', text: 'q' }),
    '[1, 2]',
    line({ id: 'stemless', question: { choices: columns }, answerKey: 'A' }),
  ].join('\n');

  it('reports each broken line once, in order', () => {
    const { items, problems } = parseQuestionFile('broken.jsonl', broken);
    expect(items.map((i) => i.id)).toEqual(['ok']);
    expect(problems.map(formatQuestionProblem)).toEqual([
      expect.stringMatching(/^broken\.jsonl:2: is not valid JSON \(.+\); each line holds one item$/),
      'broken.jsonl:3 answerKey: is missing',
      'broken.jsonl:4 choices: has 3 labels and 2 texts; give one text per label',
      'broken.jsonl:5 choices: has 1 choice; a question needs at least 2',
      'broken.jsonl:6 choices: label "A" appears twice',
      'broken.jsonl:7 choices: is missing; give it at the top level or inside "question"',
      'broken.jsonl:8 id: "ok" is already used at broken.jsonl:1; ids must be unique within a file',
      'broken.jsonl:9 id: is missing (expected string)',
      'broken.jsonl:10: has neither "question" (AI2 ARC) nor "prompt" (ARB-style); see "Question items" in docs/researchers.md for the formats',
      'broken.jsonl:11: is a list; an item is an object with "question" (AI2 ARC) or "prompt" (ARB-style)',
      'broken.jsonl:12 question: must be the question text, or an object with "stem" (and "choices")',
    ]);
  });

  it('reports an empty file and one of blank lines', () => {
    expect(parseQuestionFile('e.jsonl', '').problems.map(formatQuestionProblem)).toEqual([
      'e.jsonl: is empty: a question file holds one JSON object per line (AI2 ARC or ARB-style items)',
    ]);
    expect(parseQuestionFile('e.jsonl', '\n\n').problems).toHaveLength(1);
  });
});

describe('ARB-style items', () => {
  const choices = [
    { label: 'A', text: 'tort' },
    { label: 'B', text: 'contract' },
  ];

  it('reads shorthand and explicit answers of every kind', () => {
    const text = [
      line({ id: 'mc', prompt: 'Which?', choices, answer: 'B', subset: 'law' }),
      line({ id: 'mc2', prompt: 'Which?', choices, answer: { choice: 'A' } }),
      line({ id: 'num', prompt: 'How far is $d = \\frac12 g t^2$?', answer: 19.6 }),
      line({ id: 'num2', prompt: 'p', answer: { number: 3e8, tolerance: 0.05 } }),
      line({ id: 'sym', prompt: 'p', answer: '\\frac{mg}{k}' }),
      line({
        id: 'sym2',
        prompt: 'p',
        answer: { expression: 'x^2' },
        images: ['fig.png', { src: 'b.png', alt: 'a spring' }],
      }),
      line({
        id: 'free',
        prompt: 'Prove it.',
        rubric: {
          criteria: [
            { text: 'states the lemma', points: 2 },
            { text: 'concludes', points: 1 },
          ],
          solution: 'By induction.',
        },
      }),
    ].join('\n');
    const { items, problems } = parseQuestionFile('arb.jsonl', text);
    expect(problems).toEqual([]);
    expect(items.map((i) => [i.id, i.format, i.answer])).toEqual([
      ['mc', 'arb', { kind: 'choice', label: 'B' }],
      ['mc2', 'arb', { kind: 'choice', label: 'A' }],
      ['num', 'arb', { kind: 'number', value: 19.6, tolerance: 0.01 }],
      ['num2', 'arb', { kind: 'number', value: 3e8, tolerance: 0.05 }],
      ['sym', 'arb', { kind: 'symbolic', expression: '\\frac{mg}{k}' }],
      ['sym2', 'arb', { kind: 'symbolic', expression: 'x^2' }],
      ['free', 'arb', undefined],
    ]);
    expect(items[5].images).toEqual([
      { src: 'fig.png', alt: '' },
      { src: 'b.png', alt: 'a spring' },
    ]);
    expect(items[6].rubric).toEqual({
      criteria: [
        { text: 'states the lemma', points: 2 },
        { text: 'concludes', points: 1 },
      ],
      solution: 'By induction.',
    });
  });

  it('reads a JSON list and places problems by index', () => {
    const text = JSON.stringify(
      [
        { id: 'a', prompt: 'p', answer: 1 },
        { id: 'b', prompt: 'p', anwser: 1 },
        { id: 'c', prompt: 'p', answer: { number: 1, tolerance: 2 } },
      ],
      null,
      2,
    );
    const { items, problems } = parseQuestionFile('arb.json', text);
    expect(items.map((i) => i.id)).toEqual(['a']);
    expect(problems.map(formatQuestionProblem)).toEqual([
      'arb.json[1]: has unknown field "anwser"',
      'arb.json[2] answer.tolerance: is a relative error and must be at most 1',
    ]);
  });

  it('asks for a list in a .json file', () => {
    expect(
      parseQuestionFile('arb.json', '{"id": "a", "prompt": "p", "answer": 1}').problems.map(formatQuestionProblem),
    ).toEqual([
      'arb.json: does not start with "["; a .json question file holds one list of items, and a .jsonl file one item per line',
    ]);
  });

  it('refuses items that cannot be judged or graded, and answers that do not fit the choices', () => {
    const text = [
      line({ id: 'nothing', prompt: 'p' }),
      line({ id: 'label-no-choices', prompt: 'p', answer: { choice: 'A' } }),
      line({ id: 'number-with-choices', prompt: 'p', choices, answer: 3 }),
      line({ id: 'wrong-label', prompt: 'p', choices, answer: 'C' }),
      line({ id: 'empty-rubric', prompt: 'p', rubric: { criteria: [] } }),
      line({ id: 'zero-points', prompt: 'p', rubric: { criteria: [{ text: 't', points: 0 }] } }),
      line({ id: 'empty', prompt: '', answer: 1 }),
      line({ id: 'odd', prompt: 'p', answer: [1] }),
    ].join('\n');
    expect(parseQuestionFile('arb.jsonl', text).problems.map(formatQuestionProblem)).toEqual([
      'arb.jsonl:1 answer: is missing; give an answer (a choice label, a number or an expression), a rubric, or both',
      'arb.jsonl:2 answer: is a choice label but the item has no "choices"',
      'arb.jsonl:3 answer: is a number but the item has "choices"; give the correct choice\'s label',
      'arb.jsonl:4 answer: "C" is not one of the labels A, B',
      'arb.jsonl:5 rubric.criteria: is empty; a rubric needs at least one criterion',
      'arb.jsonl:6 rubric.criteria[0].points: must be more than 0',
      'arb.jsonl:7 prompt: is empty',
      'arb.jsonl:8 answer: must be a choice label, a number, {"choice"}, {"number", "tolerance"} or {"expression"}',
    ]);
  });
});

describe('publicQuestion', () => {
  it('drops the answer and the rubric, and says what kind of answer to collect', () => {
    const text = [
      line({ id: 'mc', question: 'q', choices: columns, answerKey: 'C' }),
      line({ id: 'num', prompt: 'p', answer: 2 }),
      line({
        id: 'free',
        prompt: 'p',
        answer: 'x^2',
        rubric: { criteria: [{ text: 't', points: 1 }], solution: 'secret' },
      }),
    ].join('\n');
    const pub = parseQuestionFile('f.jsonl', text).items.map(publicQuestion);
    expect(pub.map((p) => p.answerKind)).toEqual(['choice', 'number', 'text']);
    for (const p of pub) {
      expect(p).not.toHaveProperty('answer');
      expect(p).not.toHaveProperty('rubric');
      expect(JSON.stringify(p)).not.toContain('secret');
    }
  });
});
