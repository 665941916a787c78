/** A study with one survey of every question type, as the survey summary and export tests send it. */

/** The survey item: a choice, a multiple choice, a scale, a number and a long text. */
export const SURVEY = {
  kind: 'survey',
  id: 'about',
  title: 'About you',
  questions: [
    { id: 'hand', prompt: 'Which hand?', type: 'choice', options: ['Left', 'Right', 'Both'], required: true },
    { id: 'devices', prompt: 'Devices?', type: 'multi', options: ['Phone', 'Tablet', 'Computer'] },
    { id: 'ease', prompt: 'How hard?', type: 'scale', min: 1, max: 5, labels: ['Easy', 'Hard'] },
    { id: 'age', prompt: 'Age?', type: 'number', min: 18, max: 120 },
    { id: 'notes', prompt: 'Anything else?', type: 'longtext' },
  ],
};

/** A study of a page and {@link SURVEY}, titled `title`. */
export const surveyStudy = (title: string) => ({
  title,
  consent: 'Agree?',
  items: [{ kind: 'page', id: 'hello', title: 'Hello', markdown: 'Hi.' }, SURVEY],
  completion: { code: 'DONE' },
});
