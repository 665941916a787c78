import { readFileSync } from 'node:fs';
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
import { createRun, gameActionData, parseActions, step, type ActionInput } from '../../core/game';
import { games, solutions } from '../../games';
import type { StudyResults } from '../../core/analysis/results';
import type { AuditEntry } from '../../core/protocol/api';
import { parseCsv } from '../../core/formats/csv';
import { exportContext } from '../export/context';
import { attemptsCsv } from '../export/attempts';
import { eventsJsonl } from '../export/events';
import { studyBaselines } from '../export/baselines';
import { gridActionsCsv } from '../export/gridActions';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-curation-0123456789';
const ANSWER = (
  JSON.parse(readFileSync(path.join(ROOT, 'data/tasks/samples/mirror-across-wall.json'), 'utf8')) as {
    test: { output: number[][] }[];
  }
).test[0].output;

const STUDY = {
  title: 'Curation',
  consent: 'ok',
  completion: { code: 'C-1' },
  items: [
    { kind: 'task', id: 'mirror', collection: 'samples', task: 'mirror-across-wall' },
    { kind: 'game', id: 'lamps', game: 'glow', seed: 0 },
  ],
};

type Session = { sessionId: string; token: string };

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
});

async function collect(gen: AsyncGenerator<string>): Promise<string> {
  let out = '';
  for await (const chunk of gen) out += chunk;
  return out;
}

describe.each(backends)('excluding and deleting sessions and studies on $name', (backend) => {
  let store: Store;
  let app: Hono;
  let clock = Date.UTC(2026, 5, 1);
  let fileStudies: Set<string>;
  const s: Record<string, Session> = {};

  const call = apiCaller(() => app);
  const results = async () => {
    const r = await call('GET', '/admin/studies/cur/results', ADMIN);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as StudyResults;
  };
  const audit = async (study = 'cur') =>
    (await call('GET', `/admin/studies/${study}/audit`, ADMIN)).body.events as AuditEntry[];

  /** A participant who solves the task on trial 1 and level 1 of the game, logged through the events route. */
  const takePart = async (name: string, pid: string) => {
    const r = await call('POST', '/studies/cur/sessions', null, { params: { PROLIFIC_PID: pid } });
    expect(r.status).toBe(201);
    s[name] = r.body;
    clock += 1000;
    const events: { seq: number; t: number; kind: string; data: Record<string, unknown> }[] = [];
    const log = (t: number, kind: string, data: Record<string, unknown> = {}) =>
      events.push({ seq: events.length, t, kind, data });
    log(0, 'item.start', { item: 'mirror', kind: 'task' });
    log(500, 'paint', { row: 0, col: 0, color: 6, stroke: 1 });
    expect(
      (await call('POST', `/sessions/${s[name].sessionId}/events`, s[name].token, { events: events.splice(0) })).status,
    ).toBe(200);
    const judged = await call('POST', `/sessions/${s[name].sessionId}/submissions`, s[name].token, {
      key: 'k1',
      item: 'mirror',
      testIndex: 0,
      grid: ANSWER,
    });
    expect(judged.body.verdict).toBe('correct');
    log(900, 'submit', { index: 0, trial: 1, verdict: 'correct', grid: ANSWER });
    log(1000, 'item.start', { item: 'lamps', kind: 'game' });
    log(1000, 'game.open', { game: 'glow', seed: 0 });
    let run = createRun(games.glow, { seed: 0 });
    parseActions(`RESET,${solutions.glow[0]}`).forEach((input, i) => {
      const st = step(run, input as ActionInput);
      run = st.run;
      log(
        1000 + i * 700,
        'game.action',
        gameActionData('glow', input as ActionInput, st.response) as unknown as Record<string, unknown>,
      );
    });
    const sent = await call('POST', `/sessions/${s[name].sessionId}/events`, s[name].token, {
      events: events.map((e) => ({ ...e, seq: e.seq + 2 })),
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  };

  beforeEach(async () => {
    store = await backend.open();
    fileStudies = new Set();
    app = createApi({
      library,
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay: replayWithEngine,
        games: gameIds,
        now: () => clock,
        studyFile: async (id) => (fileStudies.has(id) ? `/srv/studies/${id}.json` : null),
      },
    });
    expect((await call('POST', '/admin/studies/cur', ADMIN, { definition: STUDY })).status).toBe(201);
    await takePart('ann', 'ann');
    await takePart('ben', 'ben');
  });
  afterEach(async () => {
    await store.close();
  });

  it('needs the researcher token on every route', async () => {
    const id = s.ann.sessionId;
    for (const [method, url] of [
      ['POST', `/admin/sessions/${id}/exclude`],
      ['POST', `/admin/sessions/${id}/include`],
      ['DELETE', `/admin/sessions/${id}`],
      ['DELETE', '/admin/studies/cur'],
      ['GET', '/admin/studies/cur/audit'],
    ]) {
      const body = method === 'GET' ? undefined : { confirm: id };
      expect((await call(method, url, null, body)).status, url).toBe(401);
      expect((await call(method, url, s.ann.token, body)).status, url).toBe(403);
    }
    expect(await store.getSession(id)).not.toBeNull();
  });

  it('leaves an excluded session out of the results and baselines, lists it marked, and exports it with the flag', async () => {
    const before = await results();
    expect(before.tasks[0]).toMatchObject({ participants: 2, attempted: 2 });
    expect(before.games[0]).toMatchObject({ participants: 2 });
    expect(before.games[0].levels[0]).toMatchObject({ reached: 2, completed: 2 });

    const ex = await call('POST', `/admin/sessions/${s.ben.sessionId}/exclude`, ADMIN, {
      reason: '  my own test run  ',
    });
    expect(ex).toEqual({
      status: 200,
      body: {
        sessionId: s.ben.sessionId,
        studyId: 'cur',
        excluded: true,
        excludedAt: clock,
        excludedReason: 'my own test run',
        changed: true,
      },
    });

    const after = await results();
    expect(after.participants.map((p) => [p.params.PROLIFIC_PID, p.excluded, p.excludedReason])).toEqual([
      ['ann', false, null],
      ['ben', true, 'my own test run'],
    ]);
    expect(after.tasks[0]).toMatchObject({ participants: 1, attempted: 1 });
    expect(after.games[0]).toMatchObject({ participants: 1 });
    expect(after.games[0].levels[0]).toMatchObject({ reached: 1, completed: 1 });

    const ctx = await exportContext({ store, studyId: 'cur', library, replay: replayWithEngine, now: clock });
    const attempts = parseCsv(await collect(attemptsCsv(ctx)));
    const header = attempts[0];
    const rows = attempts.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
    expect(rows.filter((r) => r.prolific_pid === 'ben').map((r) => [r.item_id, r.excluded, r.excluded_reason])).toEqual(
      [
        ['mirror', 'true', 'my own test run'],
        ['lamps', 'true', 'my own test run'],
      ],
    );
    expect(
      rows.filter((r) => r.prolific_pid === 'ann').every((r) => r.excluded === 'false' && r.excluded_reason === ''),
    ).toBe(true);
    const lines = (await collect(eventsJsonl(ctx)))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sessionId: string; excluded: boolean });
    expect(lines.filter((l) => l.sessionId === s.ben.sessionId).length).toBeGreaterThan(0);
    expect(lines.every((l) => l.excluded === (l.sessionId === s.ben.sessionId))).toBe(true);
    const grid = parseCsv(await collect(gridActionsCsv(ctx)));
    const ex2 = grid[0].indexOf('excluded');
    expect(new Set(grid.slice(1).map((r) => `${r[grid[0].indexOf('session_id')]}:${r[ex2]}`))).toEqual(
      new Set([`${s.ann.sessionId}:false`, `${s.ben.sessionId}:true`]),
    );
    const baselines = await studyBaselines(ctx);
    expect(baselines.games.glow).toMatchObject({ participants: 1 });

    // Counted again: the figures come back, and the log holds both actions, newest first.
    const inc = await call('POST', `/admin/sessions/${s.ben.sessionId}/include`, ADMIN);
    expect(inc.body).toMatchObject({ excluded: false, excludedAt: null, excludedReason: null, changed: true });
    expect((await results()).tasks[0]).toMatchObject({ participants: 2, attempted: 2 });
    const again = await call('POST', `/admin/sessions/${s.ben.sessionId}/include`, ADMIN, {});
    expect(again.body).toMatchObject({ excluded: false, changed: false });
    expect((await audit()).map((e) => [e.action, e.target, e.actor, e.reason])).toEqual([
      ['session.include', s.ben.sessionId, 'researcher', null],
      ['session.exclude', s.ben.sessionId, 'researcher', 'my own test run'],
    ]);
  });

  it('checks what it is sent: a reason of text up to 500 characters, no other field, an existing session', async () => {
    const url = `/admin/sessions/${s.ann.sessionId}/exclude`;
    expect(await call('POST', url, ADMIN, { reason: 7 })).toMatchObject({
      status: 400,
      body: { error: 'malformed', message: expect.stringMatching(/reason/) },
    });
    expect(await call('POST', url, ADMIN, { reason: 'x'.repeat(501) })).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/at most 500 characters/) },
    });
    expect(await call('POST', url, ADMIN, { reason: 'ok', excluded: true })).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/excluded/) },
    });
    expect(await call('POST', url, ADMIN, '{not json')).toMatchObject({
      status: 400,
      body: { error: 'malformed', message: expect.stringMatching(/not valid JSON/) },
    });
    expect(await call('POST', '/admin/sessions/nope/exclude', ADMIN)).toMatchObject({
      status: 404,
      body: { error: 'not_found' },
    });
    expect((await store.getSession(s.ann.sessionId))!.excludedAt).toBeNull();
    expect(await audit()).toEqual([]);
  });

  it('deletes a session only with its id repeated, then it is gone from results, exports and its own token', async () => {
    const id = s.ben.sessionId;
    expect(await call('DELETE', `/admin/sessions/${id}`, ADMIN)).toMatchObject({
      status: 400,
      body: { error: 'malformed', message: expect.stringMatching(/permanent.*confirm/) },
    });
    expect(await call('DELETE', `/admin/sessions/${id}`, ADMIN, { confirm: s.ann.sessionId })).toMatchObject({
      status: 400,
      body: { error: 'confirmation_mismatch', message: expect.stringMatching(/Nothing was deleted/) },
    });
    expect(await store.getSession(id)).not.toBeNull();

    const del = await call('DELETE', `/admin/sessions/${id}`, ADMIN, { confirm: id, reason: 'pilot' });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({
      studyId: 'cur',
      sessionId: id,
      deleted: { sessions: 1, submissions: 1, studies: 0 },
    });
    expect(del.body.deleted.events).toBeGreaterThan(4);
    expect(await call('DELETE', `/admin/sessions/${id}`, ADMIN, { confirm: id })).toMatchObject({ status: 404 });

    const r = await results();
    expect(r.participants.map((p) => p.sessionId)).toEqual([s.ann.sessionId]);
    expect(r.tasks[0]).toMatchObject({ participants: 1 });
    const ctx = await exportContext({ store, studyId: 'cur', library, replay: replayWithEngine, now: clock });
    expect(await collect(attemptsCsv(ctx))).not.toContain(id);
    expect(await collect(eventsJsonl(ctx))).not.toContain(id);
    // The participant's browser, still open, is told its token is no longer valid.
    const late = await call('POST', `/sessions/${id}/events`, s.ben.token, {
      events: [{ seq: 99, t: 1, kind: 'paint', data: { row: 0, col: 0, color: 1, stroke: 2 } }],
    });
    expect(late).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    expect(await store.readEvents(id)).toEqual([]);
    const [entry] = await audit();
    expect(entry).toMatchObject({
      action: 'session.delete',
      target: id,
      reason: 'pilot',
      detail: { deleted: del.body.deleted },
    });
  });

  it("answers a deleted session's events with 401 on another server that still knows the session, and stores nothing", async () => {
    const other = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });
    const send = async (seq: number) => {
      const res = await other.request(`/sessions/${s.ann.sessionId}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.ann.token}` },
        body: JSON.stringify({ events: [{ seq, t: 5000 + seq, kind: 'visibility', data: { state: 'visible' } }] }),
      });
      return { status: res.status, body: await res.json() };
    };
    const first = await send(20);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(
      (await call('DELETE', `/admin/sessions/${s.ann.sessionId}`, ADMIN, { confirm: s.ann.sessionId })).status,
    ).toBe(200);
    expect(await send(21)).toMatchObject({
      status: 401,
      body: { error: 'unauthorized', message: expect.stringMatching(/removed this session/) },
    });
    expect(await store.readEvents(s.ann.sessionId)).toEqual([]);
  });

  it('deletes a study only with its id typed, refuses one a study file defines, and keeps its audit log', async () => {
    expect(await call('DELETE', '/admin/studies/cur', ADMIN, { confirm: 'Cur' })).toMatchObject({
      status: 400,
      body: { error: 'confirmation_mismatch' },
    });
    expect(await call('DELETE', '/admin/studies/nope', ADMIN, { confirm: 'nope' })).toMatchObject({ status: 404 });
    fileStudies.add('cur');
    const refused = await call('DELETE', '/admin/studies/cur', ADMIN, { confirm: 'cur' });
    expect(refused).toMatchObject({
      status: 409,
      body: {
        error: 'defined_by_file',
        file: '/srv/studies/cur.json',
        message: expect.stringMatching(/Move that file out of the studies folder and restart the server/),
      },
    });
    expect(await store.getStudy('cur')).not.toBeNull();
    fileStudies.delete('cur');

    const del = await call('DELETE', '/admin/studies/cur', ADMIN, { confirm: 'cur', reason: 'rehearsal' });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body.deleted).toMatchObject({ studies: 1, sessions: 2, submissions: 2 });
    expect(await call('GET', '/admin/studies/cur', ADMIN)).toMatchObject({ status: 404 });
    expect(await call('GET', '/admin/studies/cur/results', ADMIN)).toMatchObject({ status: 404 });
    expect((await call('GET', '/admin/sessions?study=cur', ADMIN)).body.sessions).toEqual([]);
    expect(await call('GET', '/studies/cur', null)).toMatchObject({ status: 404 });
    expect((await call('POST', `/sessions/${s.ann.sessionId}/events`, s.ann.token, { events: [] })).status).toBe(401);
    expect((await audit()).map((e) => [e.action, e.target, e.reason])).toEqual([['study.delete', 'cur', 'rehearsal']]);
    expect(await call('GET', '/admin/studies/never/audit', ADMIN)).toMatchObject({ status: 404 });
    // The id is free for a new study.
    expect((await call('POST', '/admin/studies/cur', ADMIN, { definition: STUDY })).body).toMatchObject({
      version: 1,
      created: true,
    });
  });
});
