import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { DigestPool } from '../digests/pool';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, loadStudyFiles, replayWithEngine, syncStudyFiles } from './studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { MAX_BATCH_EVENTS } from './routes';
import { createRun, gameActionData, parseActions, step, type ActionInput } from '../../core/game';
import { games, solutions } from '../../games';
import { parseTaskText } from '../../core/formats/arcTask';
import { readFileSync } from 'node:fs';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-tests-0123456789';
const MIN = 60_000;

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
});

/** The test outputs of every task the sample study uses, minus grids that also appear as inputs or demonstrations (not secret). */
function secretAnswers(): string[] {
  const out: string[] = [];
  for (const name of ['most-common-color', 'downscale-blocks', 'mirror-across-wall', 'color-by-orientation']) {
    const task = (
      parseTaskText(readFileSync(path.join(ROOT, 'data/tasks/samples', `${name}.json`), 'utf8')) as {
        ok: true;
        task: import('../../core/formats/arcTask').ArcTask;
      }
    ).task;
    const visible = JSON.stringify([task.train, task.test.map((t) => t.input)]);
    for (const t of task.test)
      if (t.output && !visible.includes(JSON.stringify(t.output))) out.push(JSON.stringify(t.output));
  }
  return out;
}
const answerOf = (name: string, i: number) =>
  (
    parseTaskText(readFileSync(path.join(ROOT, 'data/tasks/samples', `${name}.json`), 'utf8')) as {
      ok: true;
      task: import('../../core/formats/arcTask').ArcTask;
    }
  ).task.test[i].output!;

describe.each(backends)('study API on $name', (backend) => {
  let store: Store;
  let app: Hono;
  let clock: number;
  /** Every body a participant's token received, to check no answer ever leaves the server. */
  let participantBodies: string[];

  beforeEach(async () => {
    store = await backend.open();
    clock = Date.UTC(2026, 0, 1);
    participantBodies = [];
    await syncStudyFiles(store, await loadStudyFiles(path.join(ROOT, 'data/studies')), clock);
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });
  });
  afterEach(async () => {
    const secrets = secretAnswers();
    expect(secrets.length).toBeGreaterThan(0);
    for (const body of participantBodies)
      for (const s of secrets)
        expect(body.includes(s), `a participant response holds a test output: ${body.slice(0, 200)}`).toBe(false);
    await store.close();
  });

  const call = async (method: string, url: string, token: string | null, body?: unknown, raw?: string) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await app.request(`/${url.replace(/^\//, '')}`, {
      method,
      headers,
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    if (token !== ADMIN) participantBodies.push(text);
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const newSession = async (
    params: Record<string, string> = { PROLIFIC_PID: 'p-1', STUDY_ID: 's-1', SESSION_ID: 'x-1' },
  ) => {
    const r = await call('POST', 'studies/sample/sessions', null, { params });
    expect(r.status).toBe(201);
    return r.body as { sessionId: string; token: string };
  };
  /** An event; a paint (a valid one, at cell 0,0) unless told otherwise. */
  const ev = (
    seq: number,
    kind = 'paint',
    data: Record<string, unknown> = kind === 'paint' ? { row: 0, col: 0, color: 1, stroke: seq } : {},
  ) => ({ seq, t: seq * 16.25, kind, data });
  const send = (s: { sessionId: string; token: string }, events: unknown[]) =>
    call('POST', `sessions/${s.sessionId}/events`, s.token, { events });

  it('creates a session with the platform params and serves its items without answers', async () => {
    const s = await newSession();
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const view = await call('GET', `sessions/${s.sessionId}`, s.token);
    expect(view.status).toBe(200);
    const ids = view.body.items.map((i: { id: string }) => i.id);
    expect(ids.slice(0, 2)).toEqual(['intro', 'practice']);
    expect([...ids].sort()).toEqual(['downscale', 'intro', 'mirror', 'orientation', 'practice', 'push']);
    const task = view.body.items.find((i: { id: string }) => i.id === 'orientation');
    expect(task.testIndices).toEqual([0, 1]);
    expect(task.task.test.every((t: object) => Object.keys(t).join() === 'input')).toBe(true);
    expect(view.body.progress.current).toBe(0);
    expect(view.body.session.state).toBe('started');

    const sessions = await call('GET', 'admin/sessions', ADMIN);
    const rec = sessions.body.sessions.find((x: { id: string }) => x.id === s.sessionId);
    expect(rec.params).toEqual({ PROLIFIC_PID: 'p-1', STUDY_ID: 's-1', SESSION_ID: 'x-1' });
    expect(
      rec.order.map((i: number) =>
        ids.includes(['intro', 'practice', 'downscale', 'mirror', 'orientation', 'push'][i]),
      ),
    ).toEqual(Array(6).fill(true));
    const again = await newSession({ PROLIFIC_PID: 'p-1' });
    const recs = (await call('GET', 'admin/sessions', ADMIN)).body.sessions;
    expect(recs.find((x: { id: string }) => x.id === again.sessionId).flags).toEqual(['repeat_participant']);
    const mturk = await newSession({ workerId: 'W1', assignmentId: 'A1', hitId: 'H1' });
    expect((await store.getSession(mturk.sessionId))!.params).toEqual({
      workerId: 'W1',
      assignmentId: 'A1',
      hitId: 'H1',
    });
  });

  it('acknowledges a batch sent twice and stores it once', async () => {
    const s = await newSession();
    const batch = [ev(0, 'item.start', { item: 'intro' }), ev(1), ev(2)];
    expect((await send(s, batch)).body).toEqual({ ackedThrough: 2 });
    expect((await send(s, batch)).body).toEqual({ ackedThrough: 2 });
    const events = await call('GET', `admin/sessions/${s.sessionId}/events`, ADMIN);
    expect(events.body.events.map((e: { seq: number }) => e.seq)).toEqual([0, 1, 2]);
    expect(events.body.events[1]).toMatchObject({ seq: 1, t: 16.25, kind: 'paint', data: {}, receivedAt: clock });
    expect((await store.getSession(s.sessionId))!.state).toBe('active');
  });

  it('holds batches past a gap, then ackedThrough jumps when the gap fills', async () => {
    const s = await newSession();
    expect((await send(s, [ev(0), ev(1)])).body.ackedThrough).toBe(1);
    expect((await send(s, [ev(5), ev(6)])).body.ackedThrough).toBe(1);
    expect((await send(s, [ev(3)])).body.ackedThrough).toBe(1);
    expect((await send(s, [ev(2), ev(4)])).body.ackedThrough).toBe(6);
    const events = await call('GET', `admin/sessions/${s.sessionId}/events`, ADMIN);
    expect(events.body.events.map((e: { seq: number }) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('refuses malformed, oversize and unauthorised batches with a clear 4xx', async () => {
    const s = await newSession();
    const other = await newSession({});
    const bad = await send(s, [{ seq: -1, t: 0, kind: 'x', data: {} }]);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/events\[0\]\.seq/);
    expect((await call('POST', `sessions/${s.sessionId}/events`, s.token, undefined, '{"events": [')).status).toBe(400);
    expect(
      (await call('POST', `sessions/${s.sessionId}/events`, s.token, undefined, '{"events": [')).body.message,
    ).toMatch(/not valid JSON/);
    expect((await send(s, [])).status).toBe(400);
    expect((await send(s, [ev(3), ev(3)])).body.message).toMatch(/seq 3 twice/);
    expect((await send(s, [ev(20_000)])).status).toBe(400);

    const many = await send(
      s,
      Array.from({ length: MAX_BATCH_EVENTS + 1 }, (_, i) => ev(i)),
    );
    expect(many.status).toBe(413);
    expect(many.body.message).toMatch(/at most 500/);
    const huge = await send(s, [ev(0, 'paint', { blob: 'x'.repeat(1_100_000) })]);
    expect(huge.status).toBe(413);
    expect(huge.body.message).toMatch(/1 MiB/);

    expect((await call('POST', `sessions/${s.sessionId}/events`, null, { events: [ev(0)] })).status).toBe(401);
    expect((await call('POST', `sessions/${s.sessionId}/events`, 'not-a-token', { events: [ev(0)] })).status).toBe(401);
    const cross = await call('POST', `sessions/${other.sessionId}/events`, s.token, { events: [ev(0)] });
    expect(cross.status).toBe(403);
    expect((await call('GET', `sessions/${other.sessionId}`, s.token)).status).toBe(403);
    expect(
      (
        await call('POST', `sessions/${other.sessionId}/submissions`, s.token, {
          key: 'k',
          item: 'mirror',
          testIndex: 0,
          grid: [[1]],
        })
      ).status,
    ).toBe(403);
    expect(await store.readEvents(other.sessionId)).toEqual([]);
    expect(await store.readEvents(s.sessionId)).toEqual([]);

    for (const url of [
      'admin/sessions',
      `admin/sessions/${s.sessionId}/events`,
      `admin/sessions/${s.sessionId}`,
      'admin/studies',
    ]) {
      expect((await call('GET', url, s.token)).status).toBe(403);
      expect((await call('GET', url, null)).status).toBe(401);
    }
    expect((await call('PUT', 'admin/studies/sample', s.token, { definition: {} })).status).toBe(403);
  });

  it('judges submissions on the server: trials, duplicates, retries, and no answer in any response', async () => {
    const s = await newSession();
    await send(s, [
      ev(0, 'item.start', { item: 'intro' }),
      ev(1, 'item.end', { item: 'intro' }),
      ev(2, 'item.start', { item: 'practice' }),
    ]);
    const answer = answerOf('most-common-color', 0);
    const wrong = [[answer[0][0] === 1 ? 2 : 1]];
    const sub = (key: string, grid: unknown, item = 'practice', testIndex = 0) =>
      call('POST', `sessions/${s.sessionId}/submissions`, s.token, { key, item, testIndex, grid });

    expect((await sub('k1', wrong)).body).toEqual({ verdict: 'wrong', trial: 1, trialsLeft: 2, solved: false });
    expect((await sub('k1', wrong)).body).toEqual({ verdict: 'wrong', trial: 1, trialsLeft: 2, solved: false });
    expect((await sub('k2', wrong)).body).toEqual({ verdict: 'duplicate', trial: null, trialsLeft: 2, solved: false });
    const badGrid = await sub('k3', [[1, 2], [3]]);
    expect(badGrid.status).toBe(400);
    expect(badGrid.body.message).toMatch(/grid row 1 has 1 cells, row 0 has 2/);
    expect((await sub('k4', answer, 'practice', 1)).status).toBe(400);
    expect((await sub('k5', answer, 'intro')).status).toBe(404);
    expect((await sub('k6', answer)).body).toEqual({ verdict: 'correct', trial: 2, trialsLeft: 0, solved: true });
    const after = await sub('k7', answer);
    expect(after.status).toBe(409);
    expect(after.body.error).toBe('already_solved');

    // Three wrong trials use up a test input.
    await send(s, [ev(3, 'item.end', { item: 'practice' }), ev(4, 'item.start', { item: 'mirror' })]);
    for (let k = 0; k < 3; k++)
      expect(
        (
          await sub(
            `w${k}`,
            [
              [k, k],
              [k, k],
            ],
            'mirror',
          )
        ).body,
      ).toMatchObject({ verdict: 'wrong', trial: k + 1, trialsLeft: 2 - k });
    const none = await sub('w3', [[7]], 'mirror');
    expect(none.status).toBe(409);
    expect(none.body.error).toBe('no_trials_left');
    // No revisiting: the practice item is finished.
    expect((await sub('late', answer)).body.error).toBe('item_closed');
    const view = await call('GET', `sessions/${s.sessionId}`, s.token);
    expect(view.body.progress.items[1]).toMatchObject({
      id: 'practice',
      finished: true,
      tests: [{ testIndex: 0, solved: true, trialsUsed: 2, trialsLeft: 0 }],
    });
  });

  it('refuses submissions past the item hard limit and marks late events as timed out without losing them', async () => {
    const s = await newSession();
    await send(s, [ev(0, 'item.start', { item: 'practice' })]);
    clock += 31 * MIN;
    const late = await call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
      key: 'k',
      item: 'practice',
      testIndex: 0,
      grid: [[1]],
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('item_time_up');
    clock += 60 * MIN;
    expect((await send(s, [ev(1), ev(2)])).body.ackedThrough).toBe(2);
    expect((await store.getSession(s.sessionId))!.state).toBe('timed_out');
    expect((await store.readEvents(s.sessionId)).length).toBe(3);
  });

  it('judges only the current item, and runs its hard limit from its first submission when no item.start came', async () => {
    const s = await newSession();
    const submit = (key: string, item: string, extra: Record<string, unknown> = {}) =>
      call('POST', `sessions/${s.sessionId}/submissions`, s.token, { key, item, testIndex: 0, grid: [[1]], ...extra });
    // Nothing logged yet: the participant is on the intro page, so no task is judged.
    const ahead = await submit('a', 'mirror');
    expect(ahead.status).toBe(409);
    expect(ahead.body.error).toBe('not_current_item');
    // The client says it logged up to seq 4, which the server has not stored: wait, don't refuse.
    const pending = await submit('b', 'mirror', { lastSeq: 4 });
    expect(pending.body).toMatchObject({ error: 'events_pending', ackedThrough: -1 });
    expect(await store.listSubmissions(s.sessionId)).toEqual([]);
    // The intro ends, but the practice item's item.start never arrives: it is current all the same.
    await send(s, [ev(0, 'item.start', { item: 'intro' }), ev(1, 'item.end', { item: 'intro' })]);
    expect((await submit('c', 'mirror')).body.error).toBe('not_current_item');
    expect((await submit('d', 'practice')).status).toBe(200);
    clock += 31 * MIN;
    const late = await submit('e', 'practice', { grid: [[2]] });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('item_time_up');
  });

  it('finishes only once every event is on the server and every item is done, and gives the completion code', async () => {
    const s = await newSession();
    // Nothing done: no completion code, nothing changed.
    const nothing = await call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: -1 });
    expect(nothing.status).toBe(409);
    expect(nothing.body).toMatchObject({ error: 'items_unfinished' });
    expect(nothing.body.message).toMatch(/^\d+ of \d+ items of this session are not done yet \(/);
    expect((await store.getSession(s.sessionId))!.state).toBe('started');
    await send(s, [ev(0), ev(1), ev(3)]);
    const early = await call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: 3 });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: 'events_pending', ackedThrough: 1 });
    await send(s, [ev(2)]);
    const view = (await call('GET', `sessions/${s.sessionId}`, s.token)).body as { items: { id: string }[] };
    await send(
      s,
      view.items.map((item, k) => ev(4 + k, 'item.end', { item: item.id })),
    );
    const done = await call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: 3 + view.items.length });
    expect(done.body).toEqual({
      completionCode: 'SAMPLE-7Q4K',
      redirectUrl: 'https://app.prolific.com/submissions/complete?cc=SAMPLE-7Q4K',
      redirectAfterSeconds: 5,
    });
    expect((await store.getSession(s.sessionId))!.state).toBe('finished');
    expect(
      (
        await call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
          key: 'z',
          item: 'mirror',
          testIndex: 0,
          grid: [[1]],
        })
      ).body.error,
    ).toBe('session_closed');
  });

  it('gives the code for unfinished work only when the study says so, and flags the session', async () => {
    await store.saveStudy(
      'lenient',
      {
        title: 'Lenient',
        consent: 'Yes.',
        completion: { code: 'LENIENT', unfinished: 'flag' },
        items: [{ kind: 'task', id: 't', collection: 'samples', task: 'mirror-across-wall' }],
      },
      'file',
      clock,
    );
    const made = await call('POST', 'studies/lenient/sessions', null, { params: {} });
    const s = made.body as { sessionId: string; token: string };
    const done = await call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: -1 });
    expect(done.body).toMatchObject({ completionCode: 'LENIENT' });
    expect((await store.getSession(s.sessionId))!.flags).toContain('unfinished');
  });

  it('verifies game logs by replaying them with the engine, and flags a log that does not replay', async () => {
    const play = (seqFrom: number, actionsText: string, tamper = false) => {
      const out = [ev(seqFrom, 'game.open', { game: 'push', seed: 1 })];
      let run = createRun(games.push, { seed: 1 });
      for (const input of parseActions(actionsText)) {
        const r = step(run, input as ActionInput);
        run = r.run;
        out.push(
          ev(
            seqFrom + out.length,
            'game.action',
            gameActionData('push', input as ActionInput, r.response) as unknown as Record<string, unknown>,
          ),
        );
      }
      if (tamper) out[out.length - 1].data = { ...out[out.length - 1].data, level: 9 };
      return out;
    };
    const honest = await newSession();
    await send(honest, [ev(0, 'item.start', { item: 'push' }), ...play(1, `RESET,${solutions.push[0]}`)]);
    const good = await call('GET', `admin/sessions/${honest.sessionId}`, ADMIN);
    const item = good.body.summary.items.find((i: { id: string }) => i.id === 'push');
    expect(item.game).toMatchObject({ verified: true, levelsCompleted: 1, flags: [] });
    // The scorecard's count: the opening RESET is not an action.
    expect(item.actions).toBe(parseActions(solutions.push[0]).length);

    const cheat = await newSession({});
    await send(cheat, [ev(0, 'item.start', { item: 'push' }), ...play(1, `RESET,${solutions.push[0]}`, true)]);
    const bad = await call('GET', `admin/sessions/${cheat.sessionId}`, ADMIN);
    const badItem = bad.body.summary.items.find((i: { id: string }) => i.id === 'push');
    expect(badItem.game.verified).toBe(false);
    expect(badItem.game.flags.join()).toMatch(/logged level 9, replay gives 1/);
    expect(bad.body.session.flags).toContain('game_log_unverified:push');

    // With digest threads the replays run there, and the answers are the same.
    const pool = new DigestPool(1);
    try {
      const threaded = createApi({
        library,
        version: 'test',
        study: {
          store,
          adminTokenHash: hashToken(ADMIN),
          replay: replayWithEngine,
          games: gameIds,
          now: () => clock,
          digests: pool,
        },
      });
      for (const [s, body] of [
        [honest, good.body],
        [cheat, bad.body],
      ] as const) {
        const res = await threaded.request(`/admin/sessions/${s.sessionId}`, {
          headers: { Authorization: `Bearer ${ADMIN}` },
        });
        expect(await res.json()).toEqual(body);
      }
      expect(pool.summaries).toBe(2);
    } finally {
      await pool.stop();
    }
  });

  it('flags a session that cycles through items with almost no actions', async () => {
    const s = await newSession();
    const ids = (await call('GET', `sessions/${s.sessionId}`, s.token)).body.items.map((i: { id: string }) => i.id);
    let seq = 0;
    const batch = ids.flatMap((id: string) => [
      ev(seq++, 'item.start', { item: id }),
      ev(seq++, 'paint'),
      ev(seq++, 'item.end', { item: id }),
    ]);
    await send(s, batch);
    const fin = await call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: seq - 1 });
    expect(fin.status).toBe(200);
    expect((await store.getSession(s.sessionId))!.flags).toContain('low_effort');
  });

  it('marks the events of practice items in the researcher export', async () => {
    const s = await newSession();
    await send(s, [ev(0, 'item.start', { item: 'practice' }), ev(1), ev(2, 'item.start', { item: 'intro' }), ev(3)]);
    const events = (await call('GET', `admin/sessions/${s.sessionId}/events`, ADMIN)).body.events;
    expect(events.map((e: { practice?: boolean }) => e.practice === true)).toEqual([true, true, false, false]);
  });

  it('lets a researcher edit a study: in place before any session, a new version after', async () => {
    const def = (await call('GET', 'admin/studies/sample', ADMIN)).body.definition;
    const put = (d: unknown) => call('PUT', 'admin/studies/sample', ADMIN, { definition: d });
    expect((await put({ ...def, title: 'Edited' })).body).toMatchObject({ version: 1, created: false });
    const s = await newSession();
    expect((await put({ ...def, title: 'Edited again' })).body).toMatchObject({ version: 2, created: true });
    expect((await store.getSession(s.sessionId))!.studyVersion).toBe(1);
    const s2 = await newSession({});
    expect((await store.getSession(s2.sessionId))!.studyVersion).toBe(2);
    const invalid = await put({ ...def, items: [{ kind: 'task', id: 'x' }] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toMatch(/items\[0\]\.collection/);
    const missing = await put({
      ...def,
      items: [{ kind: 'task', id: 'x', collection: 'samples', task: 'no-such-task' }],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toMatch(/no-such-task/);
    expect((await call('POST', 'admin/studies/sample', ADMIN, { definition: def })).status).toBe(409);
    expect((await call('POST', 'admin/studies/second', ADMIN, { definition: def })).status).toBe(201);
    const list = (await call('GET', 'admin/studies', ADMIN)).body.studies.map(
      (x: { id: string; version: number }) => `${x.id}@${x.version}`,
    );
    expect(list).toEqual(['sample@2', 'second@1']);
  });

  it("shows the study's payment on its landing data when it pays, and refuses a soft limit above the hard one", async () => {
    const def = (await call('GET', 'admin/studies/sample', ADMIN)).body.definition;
    expect((await call('GET', 'studies/sample', null)).body).not.toHaveProperty('payment');
    const paid = { ...def, payment: { currency: 'GBP', fee: 3, bonus: { perSolve: 0.5, max: 4 } } };
    expect((await call('POST', 'admin/studies/paid', ADMIN, { definition: paid })).status).toBe(201);
    expect((await call('GET', 'studies/paid', null)).body.payment).toEqual({
      currency: 'GBP',
      fee: 3,
      bonus: { perSolve: 0.5, perLevel: 0, max: 4 },
    });
    const free = { ...def, payment: { currency: 'GBP', fee: 0, bonus: {} } };
    expect((await call('POST', 'admin/studies/free', ADMIN, { definition: free })).status).toBe(201);
    expect((await call('GET', 'studies/free', null)).body).not.toHaveProperty('payment');

    const late = {
      ...def,
      items: [
        { kind: 'task', id: 'x', collection: 'samples', task: 'mirror-across-wall', softMinutes: 9, hardMinutes: 5 },
      ],
    };
    const refused = await call('POST', 'admin/studies/late', ADMIN, { definition: late });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(
      'items[0].softMinutes: the soft limit (9 min) is above the hard limit (5 min)',
    );
  });
});
