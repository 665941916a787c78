import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';

const STUDY = {
  title: 'Questions',
  consent: 'Agree?',
  items: [
    { kind: 'question', id: 'q-easy', collection: 'science', question: 'sci-001' },
    { kind: 'question', id: 'q-digits', collection: 'science', question: 'sci-003' },
    { kind: 'question', id: 'q-speed', collection: 'arb-sample', question: 'arb-phys-1' },
    { kind: 'question', id: 'q-proof', collection: 'arb-sample', question: 'arb-math-1' },
  ],
  completion: { code: 'DONE' },
};

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  // The example question study has a grid task from the sample collection too.
  await library.mount('data/tasks/samples', ROOT);
  await library.questions.mount(path.join(ROOT, 'data/questions/science.jsonl'));
  await library.questions.mount(path.join(ROOT, 'data/questions/arb-sample.jsonl'));
});

describe('QuestionLibrary.mount', () => {
  it('names collections after their files and refuses a file with problems, listing them', async () => {
    expect(library.questions.list()).toEqual([
      { id: 'science', name: 'science', count: 12 },
      { id: 'arb-sample', name: 'arb-sample', count: 4 },
    ]);
    const other = new TaskLibrary();
    await expect(other.questions.mount('nope=does/not/exist.jsonl', ROOT)).rejects.toThrow(
      '--questions does/not/exist.jsonl: no such file. Give a question file (.jsonl or .json).',
    );
    await expect(other.questions.mount('bad=package.json', ROOT)).rejects.toThrow(
      '--questions package.json has problems (arc-studio questions check lists the same):\n  package.json: does not start with "["; a .json question file holds one list of items, and a .jsonl file one item per line',
    );
  });
});

describe('question images', () => {
  it('serves the images items name, and nothing else of the folder', async () => {
    const app = createApi({ library, version: 'test' });
    const pub = library.questions.publicView(
      'arb-sample',
      (
        library.questions.question('arb-sample', 'arb-phys-1') as {
          ok: true;
          item: import('../../core/questions/schema').QuestionItem;
        }
      ).item,
    );
    expect(pub.images).toEqual([
      {
        src: '/api/question-collections/arb-sample/images/incline.png',
        alt: 'A block at the top of a frictionless incline; a dashed line marks the height h',
      },
    ]);
    const res = await app.request('/question-collections/arb-sample/images/incline.png');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('image/png');
    expect(
      Buffer.from(await res.arrayBuffer()).equals(readFileSync(path.join(ROOT, 'data/questions/incline.png'))),
    ).toBe(true);
    for (const url of [
      '/question-collections/arb-sample/images/arb-sample.jsonl',
      '/question-collections/arb-sample/images/..%2F..%2Fpackage.json',
      '/question-collections/science/images/incline.png',
    ]) {
      expect((await app.request(url)).status).toBe(404);
    }
  });

  it('refuses a file whose images are missing, outside its folder or not pictures', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'arc-studio-qimg-'));
    try {
      const item = (id: string, src: string) => JSON.stringify({ id, prompt: 'p', answer: 1, images: [src] });
      writeFileSync(
        path.join(dir, 'q.jsonl'),
        [item('a', 'missing.png'), item('b', '../outside.png'), item('c', 'notes.txt')].join('\n'),
      );
      await expect(new TaskLibrary().questions.mount(path.join(dir, 'q.jsonl'), dir)).rejects.toThrow(
        [
          `has problems:`,
          `  ${path.join(dir, 'q.jsonl')} item "a" image "missing.png" does not exist`,
          `  ${path.join(dir, 'q.jsonl')} item "b" image "../outside.png" must be a file in the question file's folder or below it`,
          `  ${path.join(dir, 'q.jsonl')} item "c" image "notes.txt" is not a .png, .jpg, .jpeg, .gif or .webp file`,
        ].join('\n'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(backends)('question items on $name', (backend) => {
  let store: Store;
  let app: Hono;
  let participantBodies: string[];

  beforeEach(async () => {
    store = await backend.open();
    participantBodies = [];
    app = createApi({
      library,
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay: replayWithEngine,
        games: gameIds,
        now: () => Date.UTC(2026, 0, 1),
      },
    });
  });
  afterEach(async () => {
    // What the participant's token received never holds an answer, a rubric or a reference solution.
    for (const body of participantBodies) {
      for (const secret of ['answerKey', '"answer"', 'rubric', 'By induction', 'the mass cancels', '4.952'])
        expect(body).not.toContain(secret);
    }
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
    if (token !== ADMIN) participantBodies.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  let seq = 0;
  const log = (s: { sessionId: string; token: string }, kind: string, data: Record<string, unknown>) =>
    call('POST', `sessions/${s.sessionId}/events`, s.token, { events: [{ seq: seq, t: 10 * ++seq, kind, data }] });
  const answer = (s: { sessionId: string; token: string }, item: string, a: unknown, key = `k-${item}`) =>
    call('POST', `sessions/${s.sessionId}/answers`, s.token, { key, item, answer: a });

  it('lists the collections and their questions to the researcher, without answers', async () => {
    expect((await call('GET', 'admin/question-collections', null)).status).toBe(401);
    const list = await call('GET', 'admin/question-collections', ADMIN);
    expect(list.body.collections).toEqual([
      { id: 'science', name: 'science', count: 12 },
      { id: 'arb-sample', name: 'arb-sample', count: 4 },
    ]);
    const arb = await call('GET', 'admin/question-collections/arb-sample/questions', ADMIN);
    expect(arb.status).toBe(200);
    expect(arb.body.questions.map((q: { id: string }) => q.id)).toHaveLength(4);
    // Each with its answer type, named as the results name it.
    expect(arb.body.questions.map((q: { type: string }) => q.type)).toEqual(['choice', 'number', 'symbolic', 'number']);
    const text = JSON.stringify(arb.body);
    for (const secret of ['"answer"', 'rubric', 'By induction', 'the mass cancels', '4.952'])
      expect(text).not.toContain(secret);
    expect(text).toContain('/api/question-collections/arb-sample/images/');
    const missing = await call('GET', 'admin/question-collections/nope/questions', ADMIN);
    expect(missing).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'No question collection "nope". Collections: science, arb-sample.' },
    });
  });

  it('accepts the example question study', async () => {
    const definition = JSON.parse(readFileSync(path.join(ROOT, 'data/example-studies/questions.json'), 'utf8'));
    expect((await call('POST', 'admin/studies/questions', ADMIN, { definition })).status).toBe(201);
  });

  it('refuses a study naming a question the server does not have', async () => {
    const bad = { ...STUDY, items: [{ kind: 'question', id: 'x', collection: 'science', question: 'sci-999' }] };
    const r = await call('POST', 'admin/studies/qs', ADMIN, { definition: bad });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('items[0] (x): No question "sci-999" in question collection "science".');
  });

  it('serves questions without answers, judges choice and numerical answers, keeps free responses', async () => {
    expect((await call('POST', 'admin/studies/qs', ADMIN, { definition: STUDY })).status).toBe(201);
    seq = 0;
    const created = await call('POST', 'studies/qs/sessions', null, { params: {} });
    expect(created.status).toBe(201);
    const s = created.body as { sessionId: string; token: string };
    const view = await call('GET', `sessions/${s.sessionId}`, s.token);
    expect(view.status).toBe(200);
    expect(
      view.body.items.map((i: { block: boolean; questions: { answerKind: string }[] }) => [
        i.block,
        ...i.questions.map((q) => q.answerKind),
      ]),
    ).toEqual([
      [false, 'choice'],
      [false, 'choice'],
      [false, 'number'],
      [false, 'text'],
    ]);
    expect(view.body.items[1].questions[0].choices.map((c: { label: string }) => c.label)).toEqual([
      '1',
      '2',
      '3',
      '4',
    ]);

    // Only the current item takes an answer.
    await log(s, 'item.start', { item: 'q-easy', kind: 'question' });
    expect((await answer(s, 'q-digits', { choice: '2' })).body.error).toBe('not_current_item');
    expect((await answer(s, 'q-easy', { choice: 'F' })).status).toBe(400);
    await log(s, 'question.choice', { item: 'q-easy', label: 'A' });
    expect(await answer(s, 'q-easy', { choice: 'A' })).toEqual({ status: 200, body: { verdict: 'wrong' } });
    // A retry with the same key gets the same verdict; a second answer is refused.
    expect(await answer(s, 'q-easy', { choice: 'A' })).toEqual({ status: 200, body: { verdict: 'wrong' } });
    expect((await answer(s, 'q-easy', { choice: 'B' }, 'another-key')).body.error).toBe('already_answered');
    await log(s, 'item.end', { item: 'q-easy', reason: 'answered' });

    await log(s, 'item.start', { item: 'q-digits', kind: 'question' });
    expect((await answer(s, 'q-digits', { choice: '2' })).body).toEqual({ verdict: 'correct' });
    await log(s, 'item.end', { item: 'q-digits', reason: 'answered' });

    await log(s, 'item.start', { item: 'q-speed', kind: 'question' });
    await log(s, 'question.input', { item: 'q-speed', text: '4.9' });
    expect((await answer(s, 'q-speed', { text: '4.93' })).body).toEqual({ verdict: 'correct' });
    await log(s, 'item.end', { item: 'q-speed', reason: 'answered' });

    await log(s, 'item.start', { item: 'q-proof', kind: 'question' });
    expect((await answer(s, 'q-proof', { text: 'a_n = 2^n - 1, by induction on n.' })).body).toEqual({
      verdict: 'ungraded',
    });

    const admin = await call('GET', `admin/sessions/${s.sessionId}`, ADMIN);
    // Four questions answered with a pick or a few keys each is not low effort.
    expect(admin.body.session.flags).not.toContain('low_effort');
    // Stored beside grid submissions; the fixed clock gives every answer the same time, so sort by item.
    const stored = admin.body.submissions.map((x: { item: string; verdict: string; grid: unknown }) => [
      x.item,
      x.verdict,
      x.grid,
    ]);
    expect(stored.sort((a: string[], b: string[]) => a[0].localeCompare(b[0]))).toEqual([
      ['q-digits', 'correct', { choice: '2' }],
      ['q-easy', 'wrong', { choice: 'A' }],
      ['q-proof', 'ungraded', { text: 'a_n = 2^n - 1, by induction on n.' }],
      ['q-speed', 'correct', { text: '4.93' }],
    ]);
  });
});
