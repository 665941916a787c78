import { describe, expect, it } from 'vitest';
import { SurveyQuestion } from '../../core/study/schema';
import { freshQuestionId, retype, type QuestionInput, type QuestionType } from './surveyEdit';

const TYPES: QuestionType[] = ['text', 'longtext', 'choice', 'multi', 'scale', 'number'];

describe('retype', () => {
  const questions: QuestionInput[] = [
    { id: 'age', prompt: 'Age?', type: 'number', min: 18, max: 120, required: true },
    { id: 'w', prompt: 'Weight?', type: 'number', min: 0.5 },
    { id: 'hand', prompt: 'Hand?', type: 'choice', options: ['Left', 'Right'] },
    { id: 'ease', prompt: 'Hard?', type: 'scale', min: 1, max: 5, labels: ['Easy', 'Hard'] },
    { id: 'notes', prompt: 'Notes?', type: 'longtext' },
  ];

  it('keeps every valid question valid, whatever type it becomes', () => {
    for (const q of questions) {
      for (const type of TYPES)
        expect(SurveyQuestion.safeParse(retype(q, type)).success, `${q.id} as ${type}`).toBe(true);
    }
  });

  it('keeps what the new type takes: options between choice and multi, a range for numbers and scales that fit one, labels on a scale', () => {
    expect(retype(questions[2], 'multi')).toEqual({
      id: 'hand',
      prompt: 'Hand?',
      type: 'multi',
      options: ['Left', 'Right'],
    });
    expect(retype(questions[3], 'number')).toEqual({ id: 'ease', prompt: 'Hard?', type: 'number', min: 1, max: 5 });
    expect(retype(retype(questions[3], 'number'), 'scale')).toEqual({
      id: 'ease',
      prompt: 'Hard?',
      type: 'scale',
      min: 1,
      max: 5,
    });
    // 18 to 120 is no scale (at most 21 points): the scale starts from the default 1-7.
    expect(retype(questions[0], 'scale')).toEqual({ id: 'age', prompt: 'Age?', type: 'scale', required: true });
    expect(retype(questions[4], 'choice')).toEqual({
      id: 'notes',
      prompt: 'Notes?',
      type: 'choice',
      options: ['Option 1', 'Option 2'],
    });
    expect(retype(questions[2], 'text')).toEqual({ id: 'hand', prompt: 'Hand?', type: 'text' });
  });
});

describe('freshQuestionId', () => {
  it('numbers a new question after the others, skipping ids in use', () => {
    expect(freshQuestionId([])).toBe('q1');
    expect(
      freshQuestionId([
        { id: 'q2', prompt: 'a', type: 'text' },
        { id: 'x', prompt: 'b', type: 'text' },
      ]),
    ).toBe('q3');
    expect(freshQuestionId([{ id: 'q2', prompt: 'a', type: 'text' }])).toBe('q3');
  });
});
