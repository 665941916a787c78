/**
 * The admission rule (`admission.ts`) through the HTTP API, on the real server, database and
 * Python worker running the vendored official engine: every participant write outside the item
 * rules is refused with the code that says why (an item not reached, ended, past its hard limit,
 * a withdrawn, timed-out or abandoned session), and nothing of it is stored; a flood of runs
 * from one session is held to its caps while another participant plays on. Time is moved with
 * the app's clock.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { ServerRunReply } from '../../core/game/serverGame';
import type { ReplayGame } from '../../core/study/rules';
import { createApi } from '../app';
import { startArc3, type Arc3Started } from '../arc3/mount';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from './studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';

const ROOT = path.resolve(__dirname, '../../..');
const VENDOR = path.resolve(ROOT, '../shared/vendor/arc-agi-3');
const ENV = { ...process.env, ARC_STUDIO_PYTHONPATH: path.join(VENDOR, 'python') };
const GAMES = path.join(VENDOR, 'environment_files');
const ADMIN = 'researcher-token-for-admission-tests';
const MIN = 60_000;

const STUDY = {
  title: 'Admission',
  consent: 'Agree?',
  limits: { itemSoftMinutes: 2, itemHardMinutes: 5, sessionMinutes: 60, abandonAfterMinutes: 20 },
  items: [
    { kind: 'task', id: 't1', collection: 'samples', task: 'mirror-across-wall', describe: true },
    { kind: 'game', id: 'keys', game: 'ls20-9607627b' },
    { kind: 'question', id: 'q', questions: [{ collection: 'science', question: 'sci-001' }] },
    {
      kind: 'survey',
      id: 'about',
      title: 'About you',
      questions: [{ id: 'age', prompt: 'Age?', type: 'number', min: 18, max: 120, required: true }],
    },
  ],
  completion: { code: 'DONE' },
};

describe.each(backends)('the admission rule on $name', (backend) => {
  let store: Store;
  let arc3: Arc3Started;
  let app: Hono;
  let clock = Date.UTC(2026, 0, 1);

  beforeAll(async () => {
    store = await backend.open();
    const library = new TaskLibrary();
    await library.mount('data/tasks/samples', ROOT);
    await library.questions.mount(path.join(ROOT, 'data/questions/science.jsonl'));
    arc3 = await startArc3(
      {
        dirs: [GAMES],
        servers: [],
        env: ENV,
        workers: 1,
        runLimits: { runsPerItem: 4, openRunsPerSession: 2, idleMinutes: 1 },
        now: () => clock,
      },
      store,
      () => {},
    );
    const replay: ReplayGame = (g, evs) => arc3.service.replay(g, evs) ?? replayWithEngine(g, evs);
    app = createApi({
      library,
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay,
        games: new Set([...gameIds, ...arc3.service.ids]),
        arc3: { service: arc3.service, engine: arc3.engine },
        now: () => clock,
      },
    });
    const saved = await call('POST', '/admin/studies/adm', ADMIN, { definition: STUDY });
    expect(saved.status, JSON.stringify(saved.json)).toBe(201);
  });
  afterAll(async () => {
    await arc3?.service.stop();
    await store?.close();
  });

  async function call(method: string, url: string, token: string | null, body?: unknown) {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await app.request(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  /** A participant: their session, their log and every write route. */
  async function participant() {
    const created = await call('POST', '/studies/adm/sessions', null, { params: {} });
    expect(created.status).toBe(201);
    const { sessionId, token } = created.json as { sessionId: string; token: string };
    let seq = 0;
    let key = 0;
    const at = (route: string) => `/sessions/${sessionId}/${route}`;
    const p = {
      sessionId,
      log: async (kind: string, data: Record<string, unknown> = {}) => {
        const r = await call('POST', at('events'), token, { events: [{ seq, t: 10 * ++seq, kind, data }] });
        expect(r.status).toBe(200);
      },
      enter: (item: string) => p.log('item.start', { item }),
      end: (item: string) => p.log('item.end', { item }),
      submit: (extra: Record<string, unknown> = {}) =>
        call('POST', at('submissions'), token, { key: `s${key++}`, item: 't1', testIndex: 0, grid: [[1]], ...extra }),
      describe: (stage: 'first' | 'last') =>
        call('POST', at('descriptions'), token, { key: `d${key++}`, item: 't1', stage, text: 'A mirror.' }),
      answer: () => call('POST', at('answers'), token, { key: `a${key++}`, item: 'q', answer: { choice: 'B' } }),
      survey: () => call('POST', at('survey'), token, { key: `v${key++}`, item: 'about', answers: { age: 30 } }),
      open: (extra: Record<string, unknown> = {}) => call('POST', at('runs'), token, { item: 'keys', ...extra }),
      act: (run: string, step: number) => call('POST', at(`runs/${run}/actions`), token, { step, action: 'ACTION1' }),
      withdraw: () => call('POST', at('withdraw'), token, { key: `w${key++}`, reason: 'no_time' }),
    };
    return p;
  }
  const refused = (r: { status: number; json: Record<string, unknown> }, error: string) => {
    expect(r.status, JSON.stringify(r.json)).toBe(409);
    expect(r.json.error, JSON.stringify(r.json)).toBe(error);
    expect(r.json.message).toEqual(expect.any(String));
  };

  it('opens no run and takes no write for an item the participant has not reached', async () => {
    const p = await participant();
    await p.enter('t1');
    refused(await p.open(), 'not_current_item');
    refused(await p.answer(), 'not_current_item');
    refused(await p.survey(), 'not_current_item');
    // The client says it logged further than the server stored: the item.start may be on its way.
    expect((await p.open({ lastSeq: 5 })).json).toMatchObject({ error: 'events_pending', ackedThrough: 0 });
    expect(await store.listGameRuns(p.sessionId)).toEqual([]);
    expect(await store.listSubmissions(p.sessionId)).toEqual([]);
    expect(await store.listResponses(p.sessionId)).toEqual([]);
    // Reached: the run opens and plays.
    await p.end('t1');
    await p.enter('keys');
    const opened = await p.open();
    expect(opened.status).toBe(200);
    const run = (opened.json as unknown as ServerRunReply).run;
    expect((await p.act(run, 1)).status).toBe(200);
    expect((await p.open({ resume: { run, after: 0 } })).status).toBe(200);
    // Another session's run is not resumed here.
    const other = await participant();
    await other.enter('t1');
    await other.end('t1');
    await other.enter('keys');
    expect((await other.open({ resume: { run, after: 0 } })).json.error).toBe('run_lost');
  });

  it('refuses runs, actions and writes of an item that ended, and takes only its last description', async () => {
    const p = await participant();
    await p.enter('t1');
    expect((await p.submit()).status).toBe(200);
    await p.end('t1');
    refused(await p.submit(), 'item_closed');
    refused(await p.describe('first'), 'item_closed');
    expect((await p.describe('last')).status).toBe(200);
    await p.enter('keys');
    const run = (await p.open()).json as unknown as ServerRunReply;
    expect((await p.act(run.run, 1)).status).toBe(200);
    // Answered before stored: step 1 lands before the item ends.
    await arc3.service.stepsStored();
    await p.end('keys');
    refused(await p.act(run.run, 2), 'item_closed');
    refused(await p.open(), 'item_closed');
    refused(await p.open({ resume: { run: run.run, after: 1 } }), 'item_closed');
    // Nothing of the refused action was performed or stored.
    expect((await store.readGameSteps(run.run)).map((s) => s.step)).toEqual([0, 1]);
  });

  it('refuses every write about an item past its hard limit, from when the server first saw it', async () => {
    const p = await participant();
    await p.enter('t1');
    clock += 5 * MIN + 3_600;
    refused(await p.submit(), 'item_time_up');
    refused(await p.describe('first'), 'item_time_up');
    await p.end('t1');
    await p.enter('keys');
    const run = (await p.open()).json as unknown as ServerRunReply;
    expect((await p.act(run.run, 1)).status).toBe(200);
    // Answered before stored: step 1 lands before the item ends.
    await arc3.service.stepsStored();
    clock += 5 * MIN + 3_600;
    refused(await p.act(run.run, 2), 'item_time_up');
    refused(await p.open(), 'item_time_up');
    expect((await store.readGameSteps(run.run)).map((s) => s.step)).toEqual([0, 1]);

    // With no item.start stored, the hard limit runs from the item's first run.
    const q = await participant();
    await q.enter('t1');
    await q.end('t1');
    const first = (await q.open()).json as unknown as ServerRunReply;
    clock += 5 * MIN + 3_600;
    refused(await q.act(first.run, 1), 'item_time_up');
  });

  it('refuses every write after the participant withdrew, and after the session timed out or went silent', async () => {
    const p = await participant();
    await p.enter('t1');
    await p.end('t1');
    await p.enter('keys');
    const run = (await p.open()).json as unknown as ServerRunReply;
    expect((await p.withdraw()).status).toBe(200);
    refused(await p.act(run.run, 1), 'session_closed');
    refused(await p.open(), 'session_closed');
    refused(await p.open({ resume: { run: run.run, after: 0 } }), 'session_closed');
    refused(await p.describe('last'), 'session_closed');
    expect((await store.readGameSteps(run.run)).map((s) => s.step)).toEqual([0]);
    // Withdrawing again is answered as the first time.
    expect((await p.withdraw()).status).toBe(200);

    const timed = await participant();
    await timed.enter('t1');
    clock += 61 * MIN;
    refused(await timed.submit(), 'session_closed');
    expect((await store.getSession(timed.sessionId))!.state).toBe('timed_out');
    // A timed-out participant may still withdraw.
    expect((await timed.withdraw()).status).toBe(200);

    // A survey has no time limit, but a session silent past abandonAfterMinutes takes nothing until it is heard from again.
    const quiet = await participant();
    for (const item of ['t1', 'keys', 'q']) {
      await quiet.enter(item);
      await quiet.end(item);
    }
    await quiet.enter('about');
    clock += 21 * MIN;
    refused(await quiet.survey(), 'session_idle');
    await quiet.log('session.resume', {});
    expect((await quiet.survey()).status).toBe(200);
  });

  it('holds a flood of runs from one session to its caps, closes idle runs, and answers another participant meanwhile', async () => {
    const reach = async () => {
      const p = await participant();
      await p.enter('t1');
      await p.end('t1');
      await p.enter('keys');
      return p;
    };
    const flood = await reach();
    const honest = await reach();
    const run = ((await honest.open()).json as unknown as ServerRunReply).run;
    const [opens, acts] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => flood.open())),
      (async () => {
        const out: number[] = [];
        for (let step = 1; step <= 5; step++) out.push((await honest.act(run, step)).status);
        return out;
      })(),
    ]);
    expect(acts).toEqual([200, 200, 200, 200, 200]);
    expect(opens.filter((r) => r.status === 200)).toHaveLength(2);
    for (const r of opens.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(429);
      expect(r.json).toMatchObject({ error: 'too_many_open_runs', retryAfter: expect.any(Number) });
      expect(r.json.message).toMatch(/already has 2 games open/);
    }
    expect(arc3.service.openRunCount(flood.sessionId)).toBe(2);
    expect(await store.listGameRuns(flood.sessionId)).toHaveLength(2);

    // A minute without an action closes every run in the workers; the honest run is rebuilt from its stored steps on its next action.
    clock += MIN + 1_000;
    await arc3.service.closeIdle();
    expect(arc3.service.openRunCount()).toBe(0);
    expect((await honest.act(run, 6)).status).toBe(200);
    expect(arc3.service.openRunCount(honest.sessionId)).toBe(1);

    // Four runs of one item in all: two more open, then the item takes no more.
    expect((await flood.open()).status).toBe(200);
    expect((await flood.open()).status).toBe(200);
    clock += MIN + 1_000;
    await arc3.service.closeIdle();
    const fifth = await flood.open();
    refused(fifth, 'too_many_runs');
    expect(fifth.json.message).toMatch(/started 4 times/);
    expect(await store.listGameRuns(flood.sessionId)).toHaveLength(4);
    expect(arc3.service.openRunCount(flood.sessionId)).toBe(0);
  });
});
