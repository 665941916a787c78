/**
 * `GET /api/admin/studies/:id/results/surveys`: real sessions answer a survey through the
 * participant routes and the summary, computed on a digest thread, counts what they sent; an
 * excluded session counts toward nothing, and a survey changed in a new version is summarised
 * apart from the old one.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { DigestPool } from '../digests/pool';
import type { StudySurveySummaries, SurveyQuestionSummary } from '../../core/analysis/surveys';
import { apiCaller } from '../testing/api';
import { SURVEY, answerSurvey, surveyStudy } from '../testing/surveyStudy';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-survey-summary-01';

const STUDY = surveyStudy('A survey summarised');

let library: TaskLibrary;
const pool = new DigestPool(1);
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount('data/tasks/samples', ROOT);
});
afterAll(() => pool.stop());

describe.each(backends)('survey summaries on $name', (backend) => {
  let store: Store;
  let app: Hono;
  beforeEach(async () => {
    store = await backend.open();
    app = createApi({
      library,
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay: replayWithEngine,
        games: gameIds,
        digests: pool,
        now: () => Date.UTC(2026, 0, 1),
      },
    });
  });
  afterEach(async () => {
    await store.close();
  });

  const call = apiCaller(() => app);
  const save = async (definition: unknown) =>
    expect((await call('POST', 'admin/studies/sv', ADMIN, { definition })).status).toBe(201);
  /** A new version of the study (it has sessions). */
  const edit = async (definition: unknown) =>
    expect((await call('PUT', 'admin/studies/sv', ADMIN, { definition })).status).toBe(201);
  const answer = (pid: string, answers: Record<string, unknown>) => answerSurvey(call, 'sv', pid, answers);
  const summaries = async (query = '') => {
    const r = await call('GET', `admin/studies/sv/results/surveys${query}`, ADMIN);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as StudySurveySummaries;
  };
  const question = (s: StudySurveySummaries, id: string, at = 0) =>
    s.surveys[at].questions.find((q) => q.id === id) as SurveyQuestionSummary;

  it('counts each option, each scale point and number, and lists the texts with the participant', async () => {
    await save(STUDY);
    const runs = pool.surveySummaries;
    await answer('ann', { hand: 'Left', devices: ['Phone', 'Computer'], ease: 2, age: 30, notes: 'Fun.' });
    await answer('bob', { hand: 'Right', devices: ['Computer'], ease: 4, age: 41 });
    await answer('cat', { hand: 'Right', ease: 4, age: 25, notes: '  The third task was hard.  ' });
    const excluded = await answer('dan', { hand: 'Both', devices: ['Tablet'], ease: 5, age: 99, notes: 'test' });
    expect((await call('POST', `admin/sessions/${excluded}/exclude`, ADMIN, { reason: 'my own run' })).status).toBe(
      200,
    );

    const s = await summaries();
    expect(pool.surveySummaries).toBe(runs + 1);
    expect(s.surveys).toHaveLength(1);
    expect(s.surveys[0]).toMatchObject({ item: 'about', title: 'About you', versions: [1], respondents: 3 });
    expect(question(s, 'hand')).toMatchObject({
      summary: 'choice',
      answered: 3,
      skipped: 0,
      options: [
        { option: 'Left', count: 1, share: 1 / 3 },
        { option: 'Right', count: 2, share: 2 / 3 },
        { option: 'Both', count: 0, share: 0 },
      ],
    });
    // Shares of a multi question are of those who answered it: they add up past 100%.
    expect(question(s, 'devices')).toMatchObject({
      summary: 'choice',
      answered: 2,
      skipped: 1,
      options: [
        { option: 'Phone', count: 1, share: 0.5 },
        { option: 'Tablet', count: 0, share: 0 },
        { option: 'Computer', count: 2, share: 1 },
      ],
    });
    expect(question(s, 'ease')).toMatchObject({
      summary: 'numeric',
      answered: 3,
      dist: { n: 3, min: 2, median: 4, max: 4, mean: 10 / 3 },
      counts: [
        { value: 1, count: 0 },
        { value: 2, count: 1 },
        { value: 3, count: 0 },
        { value: 4, count: 2 },
        { value: 5, count: 0 },
      ],
      scale: { min: 1, max: 5, labels: ['Easy', 'Hard'] },
    });
    expect(question(s, 'age')).toMatchObject({
      summary: 'numeric',
      dist: { n: 3, min: 25, median: 30, max: 41, mean: 32 },
      counts: [
        { value: 25, count: 1 },
        { value: 30, count: 1 },
        { value: 41, count: 1 },
      ],
      scale: null,
    });
    const notes = question(s, 'notes');
    expect(notes).toMatchObject({ summary: 'text', answered: 2, skipped: 1 });
    // In the order they came (the same clock time here, so compared sorted).
    expect(notes.summary === 'text' && notes.answers.map((a) => [a.participant, a.text]).sort()).toEqual([
      ['ann', 'Fun.'],
      ['cat', 'The third task was hard.'],
    ]);
  });

  it('summarises a survey changed in a new version apart, and one version on its own', async () => {
    await save(STUDY);
    await answer('ann', { hand: 'Left' });
    const changed = { ...SURVEY, questions: [{ ...SURVEY.questions[0], options: ['Left', 'Right'] }] };
    await edit({ ...STUDY, items: [STUDY.items[0], changed] });
    await answer('bob', { hand: 'Right' });
    await answer('cat', { hand: 'Right' });

    const all = await summaries();
    expect(all.surveys.map((x) => [x.versions, x.respondents])).toEqual([
      [[1], 1],
      [[2], 2],
    ]);
    const v2 = await summaries('?version=2');
    expect(v2.surveys).toHaveLength(1);
    expect(question(v2, 'hand')).toMatchObject({
      options: [
        { option: 'Left', count: 0 },
        { option: 'Right', count: 2 },
      ],
    });
    expect((await call('GET', 'admin/studies/sv/results/surveys?version=3', ADMIN)).body).toEqual({
      error: 'not_found',
      message: 'Study "sv" has no version 3; its versions are 1 to 2.',
    });
    expect((await call('GET', 'admin/studies/sv/results/surveys?version=x', ADMIN)).status).toBe(400);
    expect((await call('GET', 'admin/studies/sv/results/surveys', null)).status).toBe(401);
  });
});
