/**
 * Question results and a model's answers beside them, through the real routes on both
 * databases: participants answer a question study; the results give accuracy, time,
 * answer changes and options per question and accuracy per subset, from stored digests (a
 * second request reads no log); the Score page's upload route scores a model's answers file
 * against a mounted collection and puts the study's humans beside it, and refuses bad uploads
 * with the reason.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { computeStudyResults } from '../digests/studyDigests';
import { MAX_ANSWERS_BYTES, type QuestionScoreResponse } from './scoreRoutes';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import type { StudyResults } from '../../core/analysis/results';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-question-results-01';
const CLOCK = Date.UTC(2026, 6, 1);

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.questions.mount(path.join(ROOT, 'data/questions/science.jsonl'));
  await library.questions.mount(path.join(ROOT, 'data/questions/arb-sample.jsonl'));
});

/** A model's answers to the 12 science questions: every key right, except sci-001 (A, not B) and sci-003 (no label at all). */
function modelAnswers(): string {
  const keys: Record<string, string> = {
    'sci-001': 'A',
    'sci-002': 'A',
    'sci-003': 'none',
    'sci-004': 'C',
    'sci-005': 'C',
    'sci-006': 'B',
    'sci-007': '2',
    'sci-008': 'C',
    'sci-009': 'C',
    'sci-010': 'B',
    'sci-011': '2',
    'sci-012': 'A',
  };
  return Object.entries(keys)
    .map(([id, k]) => JSON.stringify({ id, response: k === 'none' ? 'I cannot tell.' : `Final answer: ${k}` }))
    .join('\n');
}

/** The example question study as it was first written: single questions only, so the figures below stay fixed. */
const QUESTION_STUDY = {
  title: 'Science and reasoning questions',
  consent: 'You agree to take part.',
  completion: { code: 'QUESTIONS-DONE' },
  items: [
    { kind: 'question', id: 'puddle', collection: 'science', question: 'sci-001' },
    { kind: 'question', id: 'food-chain', collection: 'science', question: 'sci-006' },
    { kind: 'question', id: 'renewable', collection: 'science', question: 'sci-007' },
    { kind: 'question', id: 'shop-sign', collection: 'arb-sample', question: 'arb-law-1' },
    { kind: 'question', id: 'incline', collection: 'arb-sample', question: 'arb-phys-1' },
    { kind: 'question', id: 'recurrence', collection: 'arb-sample', question: 'arb-math-1' },
  ],
};

const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

describe.each(backends)('question results on $name', (backend) => {
  let store: Store;
  let app: Hono;
  beforeAll(async () => {
    store = await backend.open();
    stores.push(store);
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => CLOCK },
    });
  });

  const call = async (method: string, url: string, token: string | null, body?: unknown, raw?: string) => {
    const headers: Record<string, string> = {
      'Content-Type': raw === undefined ? 'application/json' : 'application/x-ndjson',
    };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await app.request(url, {
      method,
      headers,
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };

  it('answers become accuracy, time, changes and options per question, and accuracy per subset', async () => {
    expect((await call('POST', '/admin/studies/questions', ADMIN, { definition: QUESTION_STUDY })).status).toBe(201);

    /** A participant answers the first items: [item, picks..., answer] each; 1 s per pick. */
    const take = async (
      pid: string,
      plan: [string, string[], { choice: string } | { text: string }][],
      exclude = false,
    ) => {
      const created = await call('POST', '/studies/questions/sessions', null, { params: { PROLIFIC_PID: pid } });
      const s = created.body as { sessionId: string; token: string };
      let seq = 0;
      let t = 0;
      const log = async (kind: string, data: Record<string, unknown>) => {
        const r = await call('POST', `/sessions/${s.sessionId}/events`, s.token, {
          events: [{ seq: seq++, t, kind, data }],
        });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      };
      for (const [item, picks, answer] of plan) {
        await log('item.start', { item, kind: 'question' });
        for (const label of picks) {
          t += 1000;
          await log('question.choice', { item, label });
        }
        t += 1000;
        const r = await call('POST', `/sessions/${s.sessionId}/answers`, s.token, {
          key: `${pid}-${item}`,
          item,
          answer,
        });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        await log('item.end', { item, reason: 'answered' });
      }
      if (exclude)
        expect(
          (await call('POST', `/admin/sessions/${s.sessionId}/exclude`, ADMIN, { reason: 'test run' })).status,
        ).toBe(200);
      return s.sessionId;
    };
    // puddle (sci-001, key B, Easy), food-chain (sci-006, key B, Challenge), renewable (sci-007, key 2, Easy).
    await take('ann', [
      ['puddle', ['A', 'B'], { choice: 'B' }],
      ['food-chain', ['B'], { choice: 'B' }],
      ['renewable', ['2'], { choice: '2' }],
    ]);
    await take('ben', [
      ['puddle', ['B'], { choice: 'B' }],
      ['food-chain', ['A'], { choice: 'A' }],
      ['renewable', ['1'], { choice: '1' }],
    ]);
    await take('cat', [['puddle', ['D'], { choice: 'D' }]]);
    // An excluded session that picks every wrong option: never counted.
    await take(
      'bot',
      [
        ['puddle', ['C'], { choice: 'C' }],
        ['food-chain', ['C'], { choice: 'C' }],
      ],
      true,
    );

    const res = await call('GET', '/admin/studies/questions/results', ADMIN);
    expect(res.status).toBe(200);
    const r = res.body as unknown as StudyResults;
    const row = (item: string) => r.questions.find((q) => q.item === item)!;
    expect(r.questions.map((q) => q.item)).toEqual([
      'puddle',
      'food-chain',
      'renewable',
      'shop-sign',
      'incline',
      'recurrence',
    ]);
    expect(row('puddle')).toMatchObject({
      collection: 'science',
      question: 'sci-001',
      subset: 'Easy',
      subject: 'earth science',
      type: 'choice',
      participants: 3,
      answered: 3,
      correct: 2,
      wrong: 1,
      accuracy: 2 / 3,
    });
    expect(row('puddle').options.map((o) => [o.label, o.count, o.correct])).toEqual([
      ['A', 0, false],
      ['B', 2, true],
      ['C', 0, false],
      ['D', 1, false],
    ]);
    expect(row('puddle').changes.values).toEqual([0, 0, 1]);
    // item.start to item.end: 2 s for one pick, 3 s for two.
    expect(row('puddle').timeMs.values).toEqual([2000, 2000, 3000]);
    expect(row('food-chain')).toMatchObject({ answered: 2, correct: 1, wrong: 1 });
    expect(row('recurrence')).toMatchObject({ type: 'symbolic', answered: 0, accuracy: null });
    const easy = r.questionGroups.find((g) => g.field === 'subset' && g.value === 'Easy')!;
    // puddle 2 of 3, renewable 1 of 2.
    expect(easy).toMatchObject({ questions: 2, answered: 5, correct: 3, wrong: 2, accuracy: 0.6 });
    expect(easy.ci!.low).toBeCloseTo(0.230724, 5);

    // Read back from the stored digests: no log is read, the same figures.
    const reads: string[] = [];
    const counted = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === 'readEvents')
          return (id: string) => {
            reads.push(id);
            return target.readEvents(id);
          };
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const again = await computeStudyResults(
      { store: counted, library, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, now: () => CLOCK },
      'questions',
      null,
    );
    expect(reads).toEqual([]);
    // The route adds the study's stages (their sessions counted) to the figures computed.
    expect({ ...again, stages: (r as { stages?: unknown }).stages }).toEqual(r);
  });

  it("scores an uploaded answers file beside the study's humans, per subset", async () => {
    const r = await call(
      'POST',
      '/admin/studies/questions/question-scores?collection=science',
      ADMIN,
      undefined,
      modelAnswers(),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const b = r.body as unknown as QuestionScoreResponse;
    expect(b.collection).toEqual({ id: 'science', name: 'science', count: 12 });
    expect(b.model.rule).toBe('mcpbr');
    expect(b.model.overall).toMatchObject({ questions: 12, judged: 12, correct: 10 });
    const easy = b.beside.subsets.find((s) => s.subset === 'Easy')!;
    // Model: 6 Easy questions, sci-001 wrong; on the two people answered (sci-001, sci-007): 1 of 2.
    expect(easy.model).toEqual({ judged: 6, correct: 5, accuracy: 5 / 6 });
    expect(easy.modelOnShared).toEqual({ judged: 2, correct: 1, accuracy: 0.5 });
    expect(easy.human).toMatchObject({ questions: 2, judged: 5, correct: 3, accuracy: 0.6, awaiting: 0 });
    const challenge = b.beside.subsets.find((s) => s.subset === 'Challenge')!;
    expect(challenge.model).toEqual({ judged: 6, correct: 5, accuracy: 5 / 6 });
    expect(challenge.human).toMatchObject({ questions: 1, judged: 2, correct: 1, accuracy: 0.5 });
    expect(b.beside.overall.human).toMatchObject({ questions: 3, judged: 7, correct: 4 });
    expect(b.beside.asked.sort()).toEqual(['sci-001', 'sci-006', 'sci-007']);
  });

  it("takes an answers file larger than the study routes' 1 MiB body limit", async () => {
    const long = modelAnswers()
      .split('\n')
      .map((l) => {
        const o = JSON.parse(l) as { id: string; response: string };
        return JSON.stringify({ ...o, response: `${'x'.repeat(200_000)} ${o.response}` });
      })
      .join('\n');
    expect(long.length).toBeGreaterThan(2 * 1024 * 1024);
    const r = await call('POST', '/admin/studies/questions/question-scores?collection=science', ADMIN, undefined, long);
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expect((r.body as unknown as QuestionScoreResponse).model.overall.correct).toBe(10);
  });

  it('refuses bad uploads with the reason', async () => {
    const url = '/admin/studies/questions/question-scores';
    expect((await call('POST', `${url}?collection=science`, null, undefined, modelAnswers())).status).toBe(401);
    const lines = await call(
      'POST',
      `${url}?collection=science`,
      ADMIN,
      undefined,
      `{"id": "sci-001", "response": "B"}\nnot json\n{"id": "sci-002"}\n{"id": "sci-001", "response": "C"}`,
    );
    expect(lines.status).toBe(422);
    expect(lines.body.error).toBe('invalid_answers');
    expect(lines.body.message).toMatch(
      /^The answers file has 3 problems; fix them and upload it again:\nanswers:2: is not valid JSON/,
    );
    expect(lines.body.message).toContain('answers:3 response: is missing');
    expect(lines.body.message).toContain('answers:4 id: "sci-001" is already answered at line 1');
    expect((await call('POST', `${url}?collection=science`, ADMIN, undefined, '')).body.message).toContain(
      'holds no answers',
    );
    const latin1 = await app.request(`${url}?collection=science`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}` },
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(latin1.status).toBe(422);
    expect(((await latin1.json()) as { message: string }).message).toContain('is not UTF-8 text');
    expect(await call('POST', `${url}?collection=nope`, ADMIN, undefined, modelAnswers())).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'No question collection "nope". Collections: science, arb-sample.' },
    });
    expect((await call('POST', url, ADMIN, undefined, modelAnswers())).body.message).toBe(
      'Name the question collection the answers are for: ?collection=ID. Collections: science, arb-sample.',
    );
    expect(
      (await call('POST', `${url}?collection=science&rule=regex`, ADMIN, undefined, modelAnswers())).body.message,
    ).toBe('rule "regex" is not known; use mcpbr.');
    const unknown = await call(
      'POST',
      '/admin/studies/nope/question-scores?collection=science',
      ADMIN,
      undefined,
      modelAnswers(),
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('No study "nope"');
    const big = await app.request(`${url}?collection=science`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Length': String(MAX_ANSWERS_BYTES + 1) },
      body: 'x'.repeat(MAX_ANSWERS_BYTES + 1),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toContain('larger than 8 MiB');
  });
});
