import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import type { GraderQueue, GradingOverview, NewGraderLink } from '../../core/protocol/grading';
import { finalGrades } from './grading';
import { exportContext } from '../export/context';
import { gradesCsv } from '../export/grades';
import { exportSchemas } from '../export/schemas';
import { parseCsvObjects } from '../../core/formats/csv';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';
const STUDY = {
  title: 'Grading',
  consent: 'Agree?',
  items: [
    { kind: 'question', id: 'q-proof', collection: 'arb-sample', question: 'arb-math-1' },
    { kind: 'question', id: 'q-free', collection: 'free', question: 'prime' },
    { kind: 'question', id: 'q-choice', collection: 'arb-sample', question: 'arb-law-1' },
  ],
  completion: { code: 'DONE' },
};

let library: TaskLibrary;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-grading-'));
  writeFileSync(
    path.join(dir, 'free.jsonl'),
    JSON.stringify({
      id: 'prime',
      prompt: 'Name a prime number above $10$ and say why it is prime.',
      answer: { expression: 'any prime above 10' },
    }) + '\n',
  );
  library = new TaskLibrary();
  await library.questions.mount(path.join(ROOT, 'data/questions/arb-sample.jsonl'));
  await library.questions.mount(path.join(dir, 'free.jsonl'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(backends)('grading routes on $name', (backend) => {
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

  const call = async (method: string, url: string, token: string | null, body?: unknown, raw?: string) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await app.request(`/${url}`, {
      method,
      headers,
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };

  /** A participant who answers the proof and the free question. */
  const participant = async (pid: string, proof: string, free: string) => {
    const s = (await call('POST', 'studies/grading/sessions', null, { params: { PROLIFIC_PID: pid } })).body as {
      sessionId: string;
      token: string;
    };
    let seq = 0;
    const log = (kind: string, data: Record<string, unknown>) =>
      call('POST', `sessions/${s.sessionId}/events`, s.token, { events: [{ seq, t: 10 * ++seq, kind, data }] });
    for (const [item, text] of [
      ['q-proof', proof],
      ['q-free', free],
    ]) {
      await log('item.start', { item, kind: 'question' });
      expect(
        (await call('POST', `sessions/${s.sessionId}/answers`, s.token, { key: `k-${item}`, item, answer: { text } }))
          .body,
      ).toEqual({ verdict: 'ungraded' });
      await log('item.end', { item, reason: 'answered' });
    }
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
    return s;
  };

  let sessions: { sessionId: string; token: string }[];
  let a: NewGraderLink;
  let b: NewGraderLink;
  const queue = async (token: string) => (await call('GET', 'grading/queue', token)).body as GraderQueue;
  const full = (p: number[]) => ({ criteria: p.map((points) => ({ points, note: '' })), note: '' });

  it('adds graders with links (the token shown once, stored hashed) to a study with answers to grade', async () => {
    expect((await call('POST', 'admin/studies/grading', ADMIN, { definition: STUDY })).status).toBe(201);
    sessions = [
      await participant(
        'p-one',
        'a_n = 2^n - 1 by induction: base 1, step 2(2^n-1)+1.',
        '11, no divisor up to its root',
      ),
      await participant('p-two', 'It doubles, so 2^n.', '12'),
      await participant('p-three', '2^n - 1', '13 is prime'),
    ];
    const excluded = await participant('p-excluded', 'excluded proof', 'excluded prime');
    expect(
      (await call('POST', `admin/sessions/${excluded.sessionId}/exclude`, ADMIN, { reason: 'test run' })).status,
    ).toBe(200);

    expect((await call('POST', 'admin/studies/grading/graders', null, { label: 'A' })).status).toBe(401);
    expect((await call('POST', 'admin/studies/nope/graders', ADMIN, { label: 'A' })).status).toBe(404);
    expect((await call('POST', 'admin/studies/grading/graders', ADMIN, { label: '  ' })).body.message).toContain(
      'label: is empty',
    );
    expect((await call('POST', 'admin/studies/grading/graders', ADMIN, { label: 'A', admin: true })).status).toBe(400);
    a = (await call('POST', 'admin/studies/grading/graders', ADMIN, { label: 'Grader A' })).body;
    b = (await call('POST', 'admin/studies/grading/graders', ADMIN, { label: 'Grader B' })).body;
    expect(a.path).toBe(`/grade/${a.token}`);
    expect(a.grader).toMatchObject({ label: 'Grader A', graded: 0, total: 6 });
    const graders = await store.grading.listGraders('grading');
    expect(graders.map((g) => g.tokenHash)).toEqual([hashToken(a.token), hashToken(b.token)]);
    // The token itself is nowhere in the overview.
    const ov = await call('GET', 'admin/studies/grading/grading', ADMIN);
    expect(ov.text).not.toContain(a.token);
  });

  it('a grader sees the answers to grade blind: no session or participant id, no other grader, an order of its own', async () => {
    const qa = await queue(a.token);
    const qb = await queue(b.token);
    expect(qa).toMatchObject({ study: 'Grading', grader: 'Grader A', graded: 0, total: 6 });
    const text = JSON.stringify(qa);
    for (const s of sessions) expect(text).not.toContain(s.sessionId);
    for (const secret of ['p-one', 'p-two', 'PROLIFIC', 'Grader B', 'excluded proof', 'sessionId'])
      expect(text).not.toContain(secret);
    // Each grader names the answers differently, so the two queues cannot be matched up by id.
    const ids = new Set(qa.answers.map((x) => x.id));
    expect(qb.answers.some((x) => ids.has(x.id))).toBe(false);
    // The rubric, its points and the reference solution are there to grade with.
    const proof = qa.answers.find((x) => x.item === 'q-proof')!;
    expect(proof.question.rubric?.criteria.map((c) => c.points)).toEqual([1, 1, 2, 1]);
    expect(proof.question.rubric?.solution).toContain('By induction');
    expect(proof.question).toMatchObject({ maxPoints: 5, passMark: 2.5, expected: '2^n - 1' });
    expect(qa.answers.find((x) => x.item === 'q-free')!.question).toMatchObject({ rubric: null, maxPoints: 1 });
  });

  it('refuses hostile grades, naming what is wrong, and stores nothing', async () => {
    const qa = await queue(a.token);
    const proof = qa.answers.find((x) => x.item === 'q-proof')!;
    const free = qa.answers.find((x) => x.item === 'q-free')!;
    const put = (token: string | null, id: string, body: unknown, raw?: string) =>
      call('PUT', `grading/answers/${encodeURIComponent(id)}`, token, body, raw);
    expect((await put(null, proof.id, full([1, 1, 2, 1]))).status).toBe(401);
    expect((await put('not-a-token', proof.id, full([1, 1, 2, 1]))).status).toBe(401);
    expect((await put(ADMIN, proof.id, full([1, 1, 2, 1]))).status).toBe(401);
    expect((await put(a.token, proof.id, full([1, 1, 3, 1]))).body.message).toContain(
      'criteria[2].points is 3; it must be from 0 to 2',
    );
    expect((await put(a.token, proof.id, full([1, -1, 2, 1]))).body.message).toContain('criteria[1].points is -1');
    expect((await put(a.token, proof.id, full([1, 1, 2]))).body.message).toContain(
      'has 3 scores; the rubric has 4 criteria',
    );
    expect((await put(a.token, proof.id, full([1, 1, 2, 1, 0]))).status).toBe(400);
    expect(
      (await put(a.token, proof.id, full([1e308 * 10, 1, 2, 1]), '{"criteria":[{"points":1e999}],"note":""}')).status,
    ).toBe(400);
    expect(
      (await put(a.token, proof.id, { criteria: [{ points: '1' }, { points: 1 }, { points: 2 }, { points: 1 }] }))
        .status,
    ).toBe(400);
    expect((await put(a.token, proof.id, { ...full([1, 1, 2, 1]), graderId: b.grader.id })).status).toBe(400);
    expect((await put(a.token, proof.id, { correct: true })).body.message).toContain('has a rubric of 4 criteria');
    expect((await put(a.token, free.id, full([1]))).body.message).toContain('no rubric');
    expect((await put(a.token, proof.id, { ...full([1, 1, 2, 1]), note: 'x'.repeat(2001) })).status).toBe(400);
    expect((await put(a.token, proof.id, null, '{"criteria": [')).status).toBe(400);
    expect((await put(a.token, proof.id, null, '{"criteria":[],"note":"\\u0000"}')).status).toBe(400);
    expect(
      (await put(a.token, proof.id, null, JSON.stringify({ ...full([1, 1, 2, 1]), note: 'n'.repeat(300_000) }))).status,
    ).toBe(413);
    // Another grader's name for an answer, or a made-up one, is not in this grader's queue.
    const theirs = (await queue(b.token)).answers[0].id;
    expect((await put(a.token, theirs, { correct: true })).status).toBe(404);
    expect((await put(a.token, '..%2F..', { correct: true })).status).toBe(404);
    expect(await store.grading.listGrades('grading')).toEqual([]);
  });

  it("grades, changes a grade, and a grader never sees another's grades", async () => {
    // A: proofs by quality (5, 1, 2 of 5); free: 11 correct, 12 incorrect, 13 correct.
    // B: proofs 4, 1, 4 (the third disagrees: 2 fails, 4 passes); free the same as A.
    const scores: Record<string, { a: number[]; b: number[] }> = {
      'p-one': { a: [1, 1, 2, 1], b: [1, 1, 1, 1] },
      'p-two': { a: [0, 1, 0, 0], b: [0, 1, 0, 0] },
      'p-three': { a: [1, 1, 0, 0], b: [1, 1, 2, 0] },
    };
    const proofText: Record<string, string> = {
      'p-one': 'a_n = 2^n - 1 by induction',
      'p-two': 'It doubles',
      'p-three': '2^n - 1',
    };
    for (const [who, token] of [
      ['a', a.token],
      ['b', b.token],
    ] as const) {
      for (const x of (await queue(token)).answers) {
        const body =
          x.item === 'q-proof'
            ? {
                ...full(scores[Object.keys(proofText).find((p) => x.answer.startsWith(proofText[p]))!][who]),
                note: `note by ${who}`,
              }
            : { correct: x.answer !== '12', note: `free by ${who}` };
        const r = await call('PUT', `grading/answers/${x.id}`, token, body);
        expect(r.status, r.text).toBe(200);
      }
    }
    // A changes its mind on the first proof, then back.
    const qa = await queue(a.token);
    const first = qa.answers.find((x) => x.answer.startsWith('a_n'))!;
    expect(first.grade).toMatchObject({ points: 5, pass: true, note: 'note by a' });
    expect((await call('PUT', `grading/answers/${first.id}`, a.token, full([1, 1, 1, 1]))).body.grade.points).toBe(4);
    expect(
      (await call('PUT', `grading/answers/${first.id}`, a.token, { ...full([1, 1, 2, 1]), note: 'note by a' })).body
        .grade.points,
    ).toBe(5);
    const after = await queue(a.token);
    expect(after).toMatchObject({ graded: 6, total: 6 });
    expect(JSON.stringify(after)).not.toContain('by b');
    expect(after.answers.map((x) => x.id)).toEqual(qa.answers.map((x) => x.id));
  });

  it('the overview gives progress, agreement and the disagreement; the researcher adjudicates it (audited)', async () => {
    const ov = (await call('GET', 'admin/studies/grading/grading', ADMIN)).body as GradingOverview;
    expect(ov.graders.map((g) => [g.label, g.graded, g.total])).toEqual([
      ['Grader A', 6, 6],
      ['Grader B', 6, 6],
    ]);
    const proof = ov.items.find((i) => i.item === 'q-proof')!;
    // Totals A = 5, 1, 2 and B = 4, 1, 4: deviations 7/3, -5/3, -2/3 and 1, -2, 1; Sxy = 15/3 = 5,
    // Sxx = 78/9 = 26/3, Syy = 6: r = 5 / sqrt(52).
    expect(proof.agreement.n).toBe(3);
    expect(proof.agreement.pearson).toBeCloseTo(5 / Math.sqrt(52), 10);
    // pass: A T F F, B T F T: po 2/3; pa 1/3, pb 2/3; pe = 2/9 + 2/9 = 4/9; kappa = (2/3 - 4/9) / (5/9) = 0.4
    expect(proof.agreement.kappa).toBeCloseTo(0.4, 10);
    expect(proof.disagreements).toBe(1);
    const free = ov.items.find((i) => i.item === 'q-free')!;
    expect(free.agreement).toMatchObject({ n: 3, passAgreement: 1 });
    expect(free.agreement.kappa).toBeCloseTo(1, 10);
    expect(free.distribution).toEqual([
      { points: 0, count: 1 },
      { points: 1, count: 2 },
    ]);
    expect(ov.overall.n).toBe(6);
    const open = ov.answers.filter((x) => x.status === 'disagreement');
    expect(open).toHaveLength(1);
    expect(open[0].grades.map((g) => [g.grader, g.points])).toEqual([
      ['Grader A', 2],
      ['Grader B', 4],
    ]);

    const target = { sessionId: open[0].sessionId, item: 'q-proof', testIndex: 0 };
    expect(
      (await call('POST', 'admin/studies/grading/adjudications', a.token, { ...target, grade: full([1, 1, 1, 0]) }))
        .status,
    ).toBe(403);
    expect(
      (await call('POST', 'admin/studies/grading/adjudications', ADMIN, { ...target, grade: full([1, 1, 5, 0]) })).body
        .message,
    ).toContain('criteria[2].points is 5');
    expect(
      (
        await call('POST', 'admin/studies/grading/adjudications', ADMIN, {
          ...target,
          item: 'q-choice',
          grade: { correct: true, note: '' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call('POST', 'admin/studies/grading/adjudications', ADMIN, {
          ...target,
          testIndex: -1,
          grade: full([1, 1, 1, 0]),
        })
      ).status,
    ).toBe(400);
    const set = await call('POST', 'admin/studies/grading/adjudications', ADMIN, {
      ...target,
      grade: { ...full([1, 1, 1, 0]), note: 'step half right' },
      reason: 'graders split',
    });
    expect(set.status, set.text).toBe(200);
    const audit = (await call('GET', 'admin/studies/grading/audit', ADMIN)).body.events as {
      action: string;
      target: string;
      reason: string | null;
      detail: { points?: number };
    }[];
    expect(audit[0]).toMatchObject({
      action: 'grade.adjudicate',
      target: target.sessionId,
      reason: 'graders split',
      detail: { points: 3 },
    });
    expect(audit.filter((e) => e.action === 'grader.add')).toHaveLength(2);

    const finals = await finalGrades(store, 'grading');
    expect(finals.size).toBe(6);
    const adjudicated = finals.get(`${target.sessionId}|q-proof|0`)!;
    expect(adjudicated).toMatchObject({ source: 'adjudicated', points: 3, pass: true, note: 'step half right' });
    // The first proof: A 5 and B 4 agree; the final is their mean.
    const firstProof = [...finals.values()].find((f) => f.item === 'q-proof' && f.points === 4.5)!;
    expect(firstProof.source).toBe('agreed');
    const ov2 = (await call('GET', 'admin/studies/grading/grading', ADMIN)).body as GradingOverview;
    expect(ov2.items.find((i) => i.item === 'q-proof')).toMatchObject({
      disagreements: 0,
      finals: 3,
      distribution: [
        { points: 1, count: 1 },
        { points: 3, count: 1 },
        { points: 4.5, count: 1 },
      ],
    });
  });

  it('grades.csv: one row per grade, the adjudication and the agreeing mean, one final row per answer, every column as its schema says', async () => {
    const ctx = await exportContext({ store, studyId: 'grading', library, replay: null, now: Date.now() });
    let text = '';
    for await (const chunk of gradesCsv(ctx)) text += chunk;
    const rows = parseCsvObjects(text);
    const schema = exportSchemas()['grades.schema.json'] as {
      required: string[];
      properties: Record<string, { pattern?: string }>;
    };
    expect(Object.keys(rows[0])).toEqual(schema.required);
    for (const r of rows)
      for (const [col, v] of Object.entries(r))
        if (schema.properties[col].pattern)
          expect(new RegExp(schema.properties[col].pattern!).test(v), `${col} = ${v}`).toBe(true);
    // 3 counted sessions x 2 answers x 2 graders; one adjudication; means for the 5 agreeing answers.
    expect(rows.filter((r) => r.kind === 'grade')).toHaveLength(12);
    expect(rows.filter((r) => r.kind === 'adjudication')).toHaveLength(1);
    expect(rows.filter((r) => r.kind === 'mean')).toHaveLength(5);
    const finals = rows.filter((r) => r.final === 'true');
    expect(finals).toHaveLength(6);
    expect(new Set(finals.map((r) => `${r.session_id}|${r.item_id}`)).size).toBe(6);
    const adj = rows.find((r) => r.kind === 'adjudication')!;
    expect(adj).toMatchObject({
      item_id: 'q-proof',
      collection: 'arb-sample',
      question: 'arb-math-1',
      grader: 'researcher',
      criterion_scores: '[1,1,1,0]',
      total: '3',
      max_points: '5',
      pass: 'true',
      note: 'step half right',
      final: 'true',
      final_source: 'adjudicated',
    });
    const a = rows.find((r) => r.kind === 'grade' && r.grader === 'Grader A' && r.answer.startsWith('a_n'))!;
    expect(a).toMatchObject({
      criterion_scores: '[1,1,2,1]',
      total: '5',
      pass: 'true',
      note: 'note by a',
      final: 'false',
      participant_id: 'p-one',
    });
    expect(rows.find((r) => r.item_id === 'q-free' && r.answer === '12' && r.kind === 'mean')).toMatchObject({
      criterion_scores: '[]',
      total: '0',
      max_points: '1',
      pass: 'false',
    });
  });

  it('a revoked link stops working and keeps its grades; a deleted study takes its graders', async () => {
    expect((await call('POST', `admin/studies/grading/graders/${b.grader.id}/revoke`, ADMIN)).body).toEqual({
      graderId: b.grader.id,
      revoked: true,
    });
    const r = await call('GET', 'grading/queue', b.token);
    expect(r.status).toBe(403);
    expect(r.body.message).toContain('revoked');
    expect((await call('POST', 'admin/studies/grading/graders/g-nope/revoke', ADMIN)).status).toBe(404);
    expect(await store.grading.listGrades('grading', b.grader.id)).toHaveLength(6);
    expect((await call('DELETE', 'admin/studies/grading', ADMIN, { confirm: 'grading' })).status).toBe(200);
    expect(await store.grading.listGraders('grading')).toEqual([]);
    expect((await call('GET', 'grading/queue', a.token)).status).toBe(401);
  });
});
