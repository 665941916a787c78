import { describe, expect, it } from 'vitest';
import { extractMcpbrAnswer, judgeResponse, judgeSubmission, lastNumber, parseNumber, withinTolerance } from './judge';
import type { QuestionItem } from './schema';

const choiceItem: QuestionItem = {
  id: 'q',
  format: 'ai2-arc',
  prompt: 'Which?',
  choices: [
    { label: 'A', text: 'one' },
    { label: 'B', text: 'two' },
    { label: 'C', text: 'three' },
    { label: 'D', text: 'four' },
  ],
  answer: { kind: 'choice', label: 'B' },
};
const digitItem: QuestionItem = {
  ...choiceItem,
  choices: [
    { label: '1', text: 'x' },
    { label: '2', text: 'y' },
    { label: '3', text: 'z' },
  ],
  answer: { kind: 'choice', label: '3' },
};
const numberItem: QuestionItem = {
  id: 'n',
  format: 'arb',
  prompt: 'How far?',
  answer: { kind: 'number', value: 19.6, tolerance: 0.01 },
};

describe('extractMcpbrAnswer (mcpbr: the last standalone A-E or 1-5, case-insensitive)', () => {
  it.each([
    ['B', 'B'],
    ['b', 'B'],
    ['(c)', 'C'],
    ['Answer: D.', 'D'],
    ['**E**', 'E'],
    ['I would pick 3', '3'],
    // Several letters: the last one wins, even when the model changes its mind the wrong way.
    ['A or C? After thinking, C.', 'C'],
    ['The answer is B, not D', 'D'],
    // Lower case counts, so a one-letter word is read as a label.
    ['The answer is b', 'B'],
    ['the answer is a mitochondrion', 'A'],
    ['B, because a cell needs energy', 'A'],
    ['B, e.g. because of friction', 'E'],
    // Letters inside words and digits inside numbers do not count; digits beside a dot do.
    ['Because energy is conserved', undefined],
    ['It takes 12 or 60 seconds', undefined],
    ['about 3.5 metres', '5'],
    ['6 is too big; the label is 2', '2'],
    // Beyond A-E and 1-5 nothing is read.
    ['F', undefined],
    ['0 or 6', undefined],
    // A letter joined to a non-ASCII letter is part of a word, as Python's \b has it.
    ['Bé', undefined],
    ['A_1', undefined],
    ['', undefined],
    ['I do not know.', undefined],
  ])('%j -> %s', (response, expected) => {
    expect(extractMcpbrAnswer(response)).toBe(expected);
  });
});

describe('judgeResponse', () => {
  it('compares the extracted label with the key, upper-cased', () => {
    expect(judgeResponse(choiceItem, 'b')).toEqual({ verdict: 'correct', extracted: 'B' });
    expect(judgeResponse(choiceItem, 'It is B, since a lever multiplies force')).toEqual({
      verdict: 'wrong',
      extracted: 'A',
    });
    expect(judgeResponse(digitItem, 'Option 3')).toEqual({ verdict: 'correct', extracted: '3' });
    expect(judgeResponse(choiceItem, 'none of them')).toEqual({
      verdict: 'wrong',
      note: 'no standalone letter A-E or digit 1-5 in the response',
    });
  });

  it('reads the last number for numerical items', () => {
    expect(judgeResponse(numberItem, 'With g = 9.8 and t = 2, d = 19.7 m')).toEqual({
      verdict: 'correct',
      extracted: '19.7',
    });
    expect(judgeResponse(numberItem, 'd = 19.6, so about 20')).toEqual({ verdict: 'wrong', extracted: '20' });
    expect(judgeResponse(numberItem, 'far')).toEqual({ verdict: 'wrong', note: 'no number in the response' });
  });

  it('leaves symbolic and rubric-only items ungraded', () => {
    expect(
      judgeResponse({ id: 's', format: 'arb', prompt: 'p', answer: { kind: 'symbolic', expression: 'x^2' } }, 'x^2')
        .verdict,
    ).toBe('ungraded');
    expect(
      judgeResponse({ id: 'r', format: 'arb', prompt: 'p', rubric: { criteria: [{ text: 't', points: 1 }] } }, 'B')
        .verdict,
    ).toBe('ungraded');
  });
});

describe('numerical tolerance', () => {
  it('is relative: 1% of 19.6 is 0.196', () => {
    const a = { value: 19.6, tolerance: 0.01 };
    expect(withinTolerance(19.6, a)).toBe(true);
    expect(withinTolerance(19.79, a)).toBe(true);
    expect(withinTolerance(19.41, a)).toBe(true);
    expect(withinTolerance(19.8, a)).toBe(false);
    expect(withinTolerance(19.4, a)).toBe(false);
    expect(withinTolerance(-19.6, a)).toBe(false);
  });

  it('scales with the answer, and is symmetric for negative answers', () => {
    expect(withinTolerance(6.05e23, { value: 6.022e23, tolerance: 0.01 })).toBe(true);
    expect(withinTolerance(6.1e23, { value: 6.022e23, tolerance: 0.01 })).toBe(false);
    expect(withinTolerance(-0.0101, { value: -0.01, tolerance: 0.02 })).toBe(true);
    expect(withinTolerance(-0.0103, { value: -0.01, tolerance: 0.02 })).toBe(false);
  });

  it('is absolute when the answer is 0; a tolerance of 0 asks for the exact value', () => {
    expect(withinTolerance(0.005, { value: 0, tolerance: 0.01 })).toBe(true);
    expect(withinTolerance(-0.02, { value: 0, tolerance: 0.01 })).toBe(false);
    expect(withinTolerance(2, { value: 2, tolerance: 0 })).toBe(true);
    expect(withinTolerance(2.0000001, { value: 2, tolerance: 0 })).toBe(false);
  });
});

describe('parseNumber and lastNumber', () => {
  it.each([
    ['19.6', 19.6],
    [' -0.5 ', -0.5],
    ['.25', 0.25],
    ['1,250', 1250],
    ['6.02e23', 6.02e23],
    ['\u22123', -3],
    ['+4', 4],
    ['', undefined],
    ['abc', undefined],
    ['19.6 m', undefined],
    ['1,25', undefined],
    ['e5', undefined],
    ['1.2.3', undefined],
    ['-', undefined],
  ])('parseNumber(%j) is %s', (text, expected) => {
    expect(parseNumber(text)).toBe(expected);
  });

  it('takes the last number of a response, with signs, separators and exponents', () => {
    expect(lastNumber('x = 3, so y = -1,250.5')).toBe(-1250.5);
    expect(lastNumber('about 1.5e-3 kg')).toBe(0.0015);
    expect(lastNumber('rule B2 has no number')).toBeUndefined();
    expect(lastNumber('nothing')).toBeUndefined();
  });
});

describe('judgeSubmission (a participant)', () => {
  it('judges a picked label exactly', () => {
    expect(judgeSubmission(choiceItem, { choice: 'B' }).verdict).toBe('correct');
    expect(judgeSubmission(choiceItem, { choice: 'b' }).verdict).toBe('wrong');
    expect(judgeSubmission(choiceItem, { text: 'B' })).toEqual({ verdict: 'wrong', note: 'no choice was picked' });
  });

  it('judges a typed number by tolerance and refuses text that is not one', () => {
    expect(judgeSubmission(numberItem, { text: '19.7' })).toEqual({ verdict: 'correct', extracted: '19.7' });
    expect(judgeSubmission(numberItem, { text: '21' }).verdict).toBe('wrong');
    expect(judgeSubmission(numberItem, { text: 'twenty' })).toEqual({
      verdict: 'wrong',
      note: 'the answer is not a number',
    });
  });

  it('keeps free responses for grading', () => {
    expect(
      judgeSubmission(
        { id: 'r', format: 'arb', prompt: 'p', rubric: { criteria: [{ text: 't', points: 1 }] } },
        { text: 'my proof' },
      ),
    ).toEqual({ verdict: 'ungraded' });
  });
});
