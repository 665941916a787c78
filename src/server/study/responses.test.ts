import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from './studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { apiCaller } from '../testing/api';
import { parseCsvObjects } from '../../core/formats/csv';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';

const STUDY = {
  title: 'Blocks, descriptions, surveys',
  consent: 'Agree?',
  items: [
    {
      kind: 'question',
      id: 'block',
      title: 'Science',
      questions: [
        { collection: 'science', question: 'sci-001' },
        { collection: 'science', question: 'sci-003' },
        { collection: 'arb-sample', question: 'arb-phys-1' },
      ],
    },
    { kind: 'task', id: 't1', collection: 'samples', task: 'mirror-across-wall', describe: true },
    { kind: 'game', id: 'g1', game: 'push', describe: { prompt: 'How do you win a level?' } },
    {
      kind: 'survey',
      id: 'about',
      title: 'About you',
      questions: [
        { id: 'age', prompt: 'Age?', type: 'number', min: 18, max: 120, required: true },
        { id: 'hand', prompt: 'Hand?', type: 'choice', options: ['left', 'right'] },
      ],
    },
  ],
  completion: { code: 'DONE' },
  withdraw: { message: 'Thank you all the same.', code: 'WITHDRAWN-7' },
};

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount('data/tasks/samples', ROOT);
  await library.questions.mount(path.join(ROOT, 'data/questions/science.jsonl'));
  await library.questions.mount(path.join(ROOT, 'data/questions/arb-sample.jsonl'));
});

describe.each(backends)('question blocks, descriptions, surveys and withdrawals on $name', (backend) => {
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
        now: () => Date.UTC(2026, 0, 1),
      },
    });
  });
  afterEach(async () => {
    await store.close();
  });

  const call = apiCaller(() => app);
  type S = { sessionId: string; token: string };
  let seq = 0;
  const log = (s: S, kind: string, data: Record<string, unknown>) =>
    call('POST', `sessions/${s.sessionId}/events`, s.token, { events: [{ seq, t: 10 * ++seq, kind, data }] });
  const start = async (): Promise<S> => {
    expect((await call('POST', 'admin/studies/mixed', ADMIN, { definition: STUDY })).status).toBe(201);
    seq = 0;
    return (await call('POST', 'studies/mixed/sessions', null, { params: {} })).body as S;
  };

  it('serves a block of questions and judges each by its index, once', async () => {
    const s = await start();
    const view = await call('GET', `sessions/${s.sessionId}`, s.token);
    expect(view.body.items[0]).toMatchObject({ kind: 'question', block: true, title: 'Science' });
    expect(view.body.items[0].questions.map((q: { id: string }) => q.id)).toEqual(['sci-001', 'sci-003', 'arb-phys-1']);
    expect(view.body.items[1].describe).toEqual({ prompt: 'Describe the rule in your own words' });
    expect(view.body.items[3]).toMatchObject({ kind: 'survey', title: 'About you' });
    await log(s, 'item.start', { item: 'block', kind: 'question' });
    const ans = (index: unknown, answer: unknown, key = `k${String(index)}`) =>
      call('POST', `sessions/${s.sessionId}/answers`, s.token, { key, item: 'block', index, answer });
    expect(await ans(3, { choice: 'A' })).toEqual({
      status: 400,
      body: {
        error: 'malformed',
        path: 'index',
        message: 'index: question item block has 3 questions (index 0-2), so there is no question 3.',
      },
    });
    expect((await ans(-1, { choice: 'A' })).status).toBe(400);
    expect((await ans('1', { choice: 'A' })).status).toBe(400);
    expect((await ans(1, { choice: 'A' })).body.message).toBe(
      'Question 1 of item block has no choice "A"; pick one of 1, 2, 3, 4.',
    );
    expect((await ans(1, { choice: '2' })).body).toEqual({ verdict: 'correct' });
    expect((await ans(0, { choice: 'A' })).body).toEqual({ verdict: 'wrong' });
    expect((await ans(2, { text: '4.93' })).body).toEqual({ verdict: 'correct' });
    expect(await ans(1, { choice: '3' }, 'again')).toEqual({
      status: 409,
      body: {
        error: 'already_answered',
        message: 'Question 1 of item block is already answered; each question takes one answer.',
      },
    });
    // The same key for another question of the block is a reused key, not a retry.
    expect((await ans(2, { text: '1' }, 'k1')).body.error).toBe('key_reused');
    const admin = await call('GET', `admin/sessions/${s.sessionId}`, ADMIN);
    expect(
      admin.body.submissions.map((x: { testIndex: number; verdict: string }) => [x.testIndex, x.verdict]).sort(),
    ).toEqual([
      [0, 'wrong'],
      [1, 'correct'],
      [2, 'correct'],
    ]);
  });

  it('keeps first and last written descriptions of a task and the last of a game, validated', async () => {
    const s = await start();
    const desc = (body: Record<string, unknown>) =>
      call('POST', `sessions/${s.sessionId}/descriptions`, s.token, { key: crypto.randomUUID(), ...body });
    // A first description is written on the item; a last one needs the item entered.
    expect((await desc({ item: 't1', stage: 'first', text: 'mirror' })).body.error).toBe('not_current_item');
    expect((await desc({ item: 't1', stage: 'last', text: 'mirror' })).body.error).toBe('not_started');
    await log(s, 'item.start', { item: 'block', kind: 'question' });
    await log(s, 'item.end', { item: 'block' });
    await log(s, 'item.start', { item: 't1', kind: 'task' });
    expect((await desc({ item: 'block', stage: 'first', text: 'x' })).body).toEqual({
      error: 'not_found',
      message: 'This study has no task or game item "block".',
    });
    expect((await desc({ item: 't1', stage: 'first', text: '   ' })).body.message).toContain('text: must not be empty');
    expect((await desc({ item: 't1', stage: 'first', text: 'x'.repeat(5001) })).body.message).toContain(
      'text: must be at most 5000 characters',
    );
    expect((await desc({ item: 't1', stage: 'middle', text: 'x' })).status).toBe(400);
    expect((await desc({ item: 't1', stage: 'first', text: 'x', extra: 1 })).status).toBe(400);
    expect(await desc({ item: 't1', stage: 'first', text: '  The shape is mirrored across the wall. ' })).toEqual({
      status: 200,
      body: { stored: true },
    });
    expect((await desc({ item: 't1', stage: 'first', text: 'again' })).body.error).toBe('already_answered');
    expect((await desc({ item: 't1', stage: 'last', text: 'Mirrored, colours kept.' })).status).toBe(200);
    await log(s, 'item.end', { item: 't1' });
    await log(s, 'item.start', { item: 'g1', kind: 'game' });
    expect((await desc({ item: 'g1', stage: 'first', text: 'x' })).body.message).toBe(
      'stage: a game\'s description comes when it ends; send stage "last".',
    );
    await log(s, 'item.end', { item: 'g1' });
    // After the item ended: its last description is still taken.
    expect((await desc({ item: 'g1', stage: 'last', text: 'Push the box onto the target.' })).status).toBe(200);
    const admin = await call('GET', `admin/sessions/${s.sessionId}`, ADMIN);
    // The fixed clock gives every response the same time: sorted by item and part.
    const rows = admin.body.responses.map((r: { item: string; kind: string; part: string; value: unknown }) => [
      r.item,
      r.kind,
      r.part,
      r.value,
    ]);
    expect(rows.sort((a: string[], b: string[]) => (a[0] + a[2]).localeCompare(b[0] + b[2]))).toEqual([
      ['g1', 'description', 'last', { text: 'Push the box onto the target.', prompt: 'How do you win a level?' }],
      [
        't1',
        'description',
        'first',
        { text: 'The shape is mirrored across the wall.', prompt: 'Describe the rule in your own words' },
      ],
      ['t1', 'description', 'last', { text: 'Mirrored, colours kept.', prompt: 'Describe the rule in your own words' }],
    ]);
  });

  it('checks survey answers against the survey and takes them on the survey only', async () => {
    const s = await start();
    const survey = (answers: unknown, key: string = crypto.randomUUID()) =>
      call('POST', `sessions/${s.sessionId}/survey`, s.token, { key, item: 'about', answers });
    await log(s, 'item.start', { item: 'block' });
    expect((await survey({ age: 30 })).body.error).toBe('not_current_item');
    for (const item of ['block', 't1', 'g1']) {
      await log(s, 'item.start', { item });
      await log(s, 'item.end', { item });
    }
    await log(s, 'item.start', { item: 'about', kind: 'survey' });
    expect(await survey({ hand: 'both', shoe: 42 })).toEqual({
      status: 400,
      body: {
        error: 'malformed',
        path: 'answers.shoe',
        message:
          'The survey answers are not valid: answers.shoe is not a question of this survey; answers.age needs an answer; answers.hand "both" is not one of the options (left, right).',
      },
    });
    expect((await survey({ age: 'thirty' })).body.message).toBe(
      'The survey answers are not valid: answers.age must be a number.',
    );
    expect((await survey([30])).status).toBe(400);
    expect(await survey({ age: 30, hand: 'left' }, 'sv')).toEqual({ status: 200, body: { stored: true } });
    expect(await survey({ age: 30, hand: 'left' }, 'sv')).toEqual({ status: 200, body: { stored: true } });
    expect((await survey({ age: 31 })).body.error).toBe('already_answered');
    const admin = await call('GET', `admin/sessions/${s.sessionId}`, ADMIN);
    expect(admin.body.responses.map((r: { kind: string; value: unknown }) => [r.kind, r.value])).toEqual([
      ['survey', { age: 30, hand: 'left' }],
    ]);
  });

  it("withdraws a session: a reason from the list, kept, never finished, the study's message and code", async () => {
    const s = await start();
    const w = (body: Record<string, unknown>) =>
      call('POST', `sessions/${s.sessionId}/withdraw`, s.token, { key: crypto.randomUUID(), ...body });
    expect((await w({ reason: 'bored' })).status).toBe(400);
    expect((await w({ reason: 'other', comment: 'x'.repeat(2001) })).body.message).toContain(
      'comment: must be at most 2000 characters',
    );
    await log(s, 'item.start', { item: 'block', kind: 'question' });
    expect(await w({ reason: 'no_time', comment: 'Out of time today.', item: 'block' })).toEqual({
      status: 200,
      body: { message: 'Thank you all the same.', code: 'WITHDRAWN-7' },
    });
    // Repeated: answered the same, stored once.
    expect((await w({ reason: 'other' })).status).toBe(200);
    const view = await call('GET', `sessions/${s.sessionId}`, s.token);
    expect(view.body.session.state).toBe('withdrawn');
    expect(view.body.study.withdraw).toEqual({ message: 'Thank you all the same.', code: 'WITHDRAWN-7' });
    // Later events are kept, and leave the session withdrawn.
    expect((await log(s, 'heartbeat', {})).status).toBe(200);
    expect(
      (
        await call('POST', `sessions/${s.sessionId}/answers`, s.token, {
          key: 'late',
          item: 'block',
          answer: { choice: 'A' },
        })
      ).body,
    ).toEqual({ error: 'session_closed', message: 'You withdrew from this study; no more answers are accepted.' });
    expect((await call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: -1 })).body.error).toBe(
      'session_withdrawn',
    );
    const admin = await call('GET', `admin/sessions/${s.sessionId}`, ADMIN);
    expect(admin.body.session.state).toBe('withdrawn');
    expect(
      admin.body.responses.map((r: { kind: string; item: string; value: unknown }) => [r.kind, r.item, r.value]),
    ).toEqual([['withdraw', 'block', { reason: 'no_time', comment: 'Out of time today.' }]]);
    const list = await call('GET', 'admin/sessions?study=mixed', ADMIN);
    expect(list.body.sessions[0].state).toBe('withdrawn');
  });

  it('exports every answer, survey answer, description and withdrawal in responses.csv, with times and changes from the log', async () => {
    const s = await start();
    const post = (route: string, body: Record<string, unknown>) =>
      call('POST', `sessions/${s.sessionId}/${route}`, s.token, { key: crypto.randomUUID(), ...body });
    await log(s, 'item.start', { item: 'block', kind: 'question' });
    await log(s, 'question.choice', { item: 'block', index: 0, label: 'B' });
    await log(s, 'question.choice', { item: 'block', index: 0, label: 'A' });
    await post('answers', { item: 'block', index: 0, answer: { choice: 'A' } });
    await log(s, 'question.input', { item: 'block', index: 2, text: '4.9' });
    await post('answers', { item: 'block', index: 2, answer: { text: '4.93' } });
    await log(s, 'item.end', { item: 'block', reason: 'gave_up' });
    await log(s, 'item.start', { item: 't1', kind: 'task' });
    await log(s, 'description.input', { item: 't1', stage: 'first', text: 'mirror' });
    await post('descriptions', { item: 't1', stage: 'first', text: 'Mirror, "exactly"\nacross the wall' });
    await log(s, 'item.end', { item: 't1' });
    await log(s, 'item.start', { item: 'g1', kind: 'game' });
    await log(s, 'item.end', { item: 'g1' });
    await log(s, 'item.start', { item: 'about', kind: 'survey' });
    await log(s, 'survey.answer', { item: 'about', question: 'age', value: 3 });
    await log(s, 'survey.answer', { item: 'about', question: 'age', value: 33 });
    await post('survey', { item: 'about', answers: { age: 33 } });
    await post('withdraw', { reason: 'other', comment: '=cmd|stop', item: 'about' });
    const made = await call('POST', 'admin/studies/mixed/exports', ADMIN, { format: 'responses' });
    expect(made.status).toBe(201);
    expect(made.body.fileName).toBe('mixed-responses.csv');
    const res = await app.request(String(made.body.url).replace(/^\/api/, ''));
    expect(res.status).toBe(200);
    const rows = parseCsvObjects(await res.text());
    const pick = (r: Record<string, string>) => [
      r.item_id,
      r.kind,
      r.question_index,
      r.question_id,
      r.part,
      r.answer,
      r.comment,
      r.verdict,
      r.correct,
      r.changes,
    ];
    // Changes as the results count them: B then A is one; a single logged value is none.
    expect(rows.map(pick)).toEqual([
      ['block', 'question', '0', 'sci-001', '', 'A', '', 'wrong', 'false', '1'],
      ['block', 'question', '1', 'sci-003', '', '', '', '', '', '0'],
      ['block', 'question', '2', 'arb-phys-1', '', '4.93', '', 'correct', 'true', '0'],
      ['t1', 'description', '', '', 'first', 'Mirror, "exactly"\nacross the wall', '', '', '', '0'],
      ['about', 'survey', '', 'age', '', '33', '', '', '', '1'],
      ['about', 'survey', '', 'hand', '', '', '', '', '', '0'],
      // A spreadsheet formula in a comment is written guarded, as text.
      ['about', 'withdraw', '', '', '', 'other', "'=cmd|stop", '', '', ''],
    ]);
    expect(
      rows.every((r) => r.session_state === 'withdrawn' && r.session_id === s.sessionId && r.excluded === 'false'),
    ).toBe(true);
    // item_time_ms: client t from item.start to item.end (the log helper's t is 10 per event).
    expect(rows[0].item_time_ms).toBe('40');
    expect(rows[3].item_time_ms).toBe('20');
  });
});
