/** A study with one survey of every question type, as the survey summary and export tests send it. */
import { expect } from 'vitest';
import type { apiCaller } from './api';

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

/**
 * A participant `pid` of study `studyId` (of {@link surveyStudy}) who reaches the survey and
 * sends these answers through the routes; their session id.
 */
export async function answerSurvey(
  call: ReturnType<typeof apiCaller>,
  studyId: string,
  pid: string,
  answers: Record<string, unknown>,
): Promise<string> {
  const s = (await call('POST', `studies/${studyId}/sessions`, null, { params: { PROLIFIC_PID: pid } })).body as {
    sessionId: string;
    token: string;
  };
  const events = [
    { seq: 0, t: 10, kind: 'item.start', data: { item: 'hello' } },
    { seq: 1, t: 20, kind: 'item.end', data: { item: 'hello' } },
    { seq: 2, t: 30, kind: 'item.start', data: { item: 'about', kind: 'survey' } },
  ];
  expect((await call('POST', `sessions/${s.sessionId}/events`, s.token, { events })).status).toBe(200);
  const sent = await call('POST', `sessions/${s.sessionId}/survey`, s.token, {
    key: `survey-${pid}`,
    item: 'about',
    answers,
  });
  expect(sent).toEqual({ status: 200, body: { stored: true } });
  return s.sessionId;
}
