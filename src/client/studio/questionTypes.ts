import type { QuestionType } from '../../core/analysis/questions';

/** A question's answer type in words, one name for it in the editor's picker and in the results. */
export const QUESTION_TYPE_LABEL: Record<QuestionType, string> = {
  choice: 'multiple choice',
  number: 'numerical',
  symbolic: 'symbolic',
  'free-response': 'free response',
};
