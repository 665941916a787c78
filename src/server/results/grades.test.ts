/**
 * Question results take the final grades of free responses: a graded answer counts correct or
 * wrong by its pass and its points go into the question's score, an ungraded one stays awaiting
 * grading; a grade given or changed after the digests are stored changes the results at once.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { parseCsvObjects } from '../../core/formats/csv';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import type { GraderQueue, NewGraderLink } from '../../core/protocol/grading';
import type { QuestionResult, StudyResults } from '../../core/analysis/results';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';
const STUDY = {
  title: 'Graded results',
  consent: 'Agree?',
  items: [
    { kind: 'question', id: 'q-proof', collection: 'arb-sample', question: 'arb-math-1' },
    { kind: 'question', id: 'q-choice', collection: 'arb-sample', question: 'arb-law-1' },
  ],
  completion: { code: 'DONE' },
};

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.questions.mount(path.join(ROOT, 'data/questions/arb-sample.jsonl'));
});

describe.each(backends)('graded question results on $name', (backend) => {
  let store: Store;
  let app: Hono;
  beforeAll(async () => {
    store = await backend.open();
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
    });
  });
  afterAll(async () => {
    await store.close();
  });

  const call = async (method: string, url: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await app.request(`/${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };

  const participant = async (pid: string, proof: string) => {
    const s = (await call('POST', 'studies/graded/sessions', null, { params: { PROLIFIC_PID: pid } })).body as {
      sessionId: string;
      token: string;
    };
    let seq = 0;
    const log = (kind: string, data: Record<string, unknown>) =>
      call('POST', `sessions/${s.sessionId}/events`, s.token, { events: [{ seq, t: 1000 * ++seq, kind, data }] });
    await log('item.start', { item: 'q-proof', kind: 'question' });
    expect(
      (
        await call('POST', `sessions/${s.sessionId}/answers`, s.token, {
          key: 'k-p',
          item: 'q-proof',
          answer: { text: proof },
        })
      ).body,
    ).toEqual({ verdict: 'ungraded' });
    await log('item.end', { item: 'q-proof', reason: 'answered' });
    await log('item.start', { item: 'q-choice', kind: 'question' });
    expect(
      (
        await call('POST', `sessions/${s.sessionId}/answers`, s.token, {
          key: 'k-c',
          item: 'q-choice',
          answer: { choice: 'B' },
        })
      ).body,
    ).toEqual({ verdict: 'correct' });
    await log('item.end', { item: 'q-choice', reason: 'answered' });
  };

  const results = async () => {
    const r = await call('GET', 'admin/studies/graded/results', ADMIN);
    expect(r.status, r.text).toBe(200);
    return r.body as StudyResults;
  };
  const proofRow = (r: StudyResults) => r.questions.find((q) => q.item === 'q-proof')!;
  let grader: NewGraderLink;
  const gradeAnswer = async (startsWith: string, points: number[]) => {
    const queue = (await call('GET', 'grading/queue', grader.token)).body as GraderQueue;
    const x = queue.answers.find((a) => a.answer.startsWith(startsWith))!;
    const r = await call('PUT', `grading/answers/${x.id}`, grader.token, {
      criteria: points.map((p) => ({ points: p, note: '' })),
      note: '',
    });
    expect(r.status, r.text).toBe(200);
  };

  it('keeps free responses awaiting grading until they have a final grade', async () => {
    expect((await call('POST', 'admin/studies/graded', ADMIN, { definition: STUDY })).status).toBe(201);
    await participant('p-good', 'Closed form 2^n - 1, by induction.');
    await participant('p-poor', 'It doubles.');
    const before = await results();
    expect(proofRow(before)).toMatchObject<Partial<QuestionResult>>({
      answered: 2,
      awaiting: 2,
      correct: 0,
      wrong: 0,
      graded: 0,
      accuracy: null,
      maxPoints: null,
    });
    expect(proofRow(before).points.n).toBe(0);
    expect(before.questionGroups.find((g) => g.field === 'all')).toMatchObject({
      answered: 4,
      correct: 2,
      wrong: 0,
      awaiting: 2,
      accuracy: 1,
    });
  });

  it('counts a graded answer by its pass, with its points, after the digests are stored', async () => {
    // The digests are stored by now; the grade below changes no log, yet changes the results.
    grader = (await call('POST', 'admin/studies/graded/graders', ADMIN, { label: 'Grader A' })).body;
    await gradeAnswer('Closed form', [1, 1, 2, 1]);
    const one = proofRow(await results());
    expect(one).toMatchObject({ answered: 2, awaiting: 1, correct: 1, wrong: 0, graded: 1, accuracy: 1, maxPoints: 5 });
    expect(one.points.values).toEqual([5]);

    // The rubric's pass mark is 2.5 of 5: 1 point fails.
    await gradeAnswer('It doubles', [0, 1, 0, 0]);
    const both = await results();
    expect(proofRow(both)).toMatchObject({ answered: 2, awaiting: 0, correct: 1, wrong: 1, graded: 2, accuracy: 0.5 });
    expect(proofRow(both).points).toMatchObject({ n: 2, mean: 3, values: [1, 5] });
    expect(both.questionGroups.find((g) => g.field === 'all')).toMatchObject({
      answered: 4,
      correct: 3,
      wrong: 1,
      awaiting: 0,
      accuracy: 0.75,
    });

    // A changed grade (now passing) changes the accuracy again.
    await gradeAnswer('It doubles', [1, 1, 1, 0]);
    const changed = proofRow(await results());
    expect(changed).toMatchObject({ correct: 2, wrong: 0, accuracy: 1 });
    expect(changed.points.values).toEqual([3, 5]);
    // The choice question is judged by the server, never by grades.
    expect((await results()).questions.find((q) => q.item === 'q-choice')).toMatchObject({
      correct: 2,
      graded: 0,
      maxPoints: null,
    });
  });

  it('writes a graded free response in responses.csv as correct or wrong by its final grade', async () => {
    await gradeAnswer('It doubles', [0, 0, 1, 0]);
    const made = await call('POST', 'admin/studies/graded/exports', ADMIN, { format: 'responses' });
    expect(made.status, made.text).toBe(201);
    const res = await app.request(String(made.body.url).replace(/^\/api/, ''));
    const rows = parseCsvObjects(await res.text());
    const verdicts = rows.map((r) => [r.item_id, r.answer.slice(0, 11), r.verdict, r.correct]);
    expect(verdicts).toEqual([
      ['q-proof', 'Closed form', 'correct', 'true'],
      ['q-choice', 'B', 'correct', 'true'],
      ['q-proof', 'It doubles.', 'wrong', 'false'],
      ['q-choice', 'B', 'correct', 'true'],
    ]);
  });
});
