import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { openStore } from '../store/open';
import type { Store } from '../store/types';
import { createRun, gameActionData, parseActions, step, type ActionInput } from '../../core/game';
import { games, solutions } from '../../games';
import type { StudyResults } from '../../core/analysis/results';
import { seedDataDir } from '../store/testing';
import { apiCaller } from '../testing/api';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-results-0123456789';
const MIN = 60_000;
const ANSWER = (
  JSON.parse(readFileSync(path.join(ROOT, 'data/tasks/samples/mirror-across-wall.json'), 'utf8')) as {
    test: { output: number[][] }[];
  }
).test[0].output;

const STUDY = {
  title: 'Results over the API',
  consent: 'ok',
  completion: { code: 'R-1' },
  items: [
    { kind: 'page', id: 'intro', markdown: 'hi' },
    { kind: 'task', id: 'warmup', collection: 'samples', task: 'most-common-color', tests: [0], practice: true },
    { kind: 'task', id: 'mirror', collection: 'samples', task: 'mirror-across-wall' },
    { kind: 'game', id: 'lamps', game: 'glow', seed: 0 },
  ],
};

type Session = { sessionId: string; token: string };

describe('GET /api/admin/studies/:studyId/results', () => {
  let dir: string;
  let store: Store;
  let app: Hono;
  let clock = Date.UTC(2026, 3, 1);
  const s: Record<string, Session> = {};

  const call = apiCaller(() => app);
  const results = async (query = '') => {
    const r = await call('GET', `/admin/studies/res/results${query}`, ADMIN);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as StudyResults;
  };

  /** The browser's log of one session, sent through the events route in batches. */
  class Browser {
    private seq = 0;
    private readonly pending: { seq: number; t: number; kind: string; data: Record<string, unknown> }[] = [];
    constructor(readonly session: Session) {}
    log(t: number, kind: string, data: Record<string, unknown> = {}): this {
      this.pending.push({ seq: this.seq++, t, kind, data });
      return this;
    }
    /** Plays on the real engine, logging what the game player logs; `tamper` doctors that action's frame hash. */
    play(actions: string, t0: number, stepMs: number, tamper?: number): this {
      this.log(t0, 'game.open', { game: 'glow', seed: 0 });
      let run = createRun(games.glow, { seed: 0 });
      parseActions(actions).forEach((input, i) => {
        const r = step(run, input as ActionInput);
        run = r.run;
        const d = gameActionData('glow', input as ActionInput, r.response) as unknown as Record<string, unknown>;
        this.log(t0 + i * stepMs, 'game.action', i === tamper ? { ...d, frameHash: 'ffffffff' } : d);
      });
      return this;
    }
    async flush(): Promise<void> {
      const events = this.pending.splice(0);
      const r = await call('POST', `/sessions/${this.session.sessionId}/events`, this.session.token, { events });
      expect(r.body).toEqual({ ackedThrough: this.seq - 1 });
    }
    async submit(key: string, item: string, grid: number[][]): Promise<string> {
      await this.flush();
      const r = await call('POST', `/sessions/${this.session.sessionId}/submissions`, this.session.token, {
        key,
        item,
        testIndex: 0,
        grid,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.verdict;
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'arc-results-'));
    seedDataDir(dir);
    store = await openStore({ dataDir: dir });
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });

    expect((await call('POST', '/admin/studies/res', ADMIN, { definition: STUDY })).status).toBe(201);
    const open = async (name: string, params: Record<string, string>) => {
      // Only a researcher may start a playtest session.
      const r = await call('POST', '/studies/res/sessions', params.mode === 'playtest' ? ADMIN : null, { params });
      expect(r.status).toBe(201);
      s[name] = r.body;
      clock += 1000;
    };
    await open('ann', { PROLIFIC_PID: 'ann' });
    await open('ben', { PROLIFIC_PID: 'ben' });
    await open('cat', { PROLIFIC_PID: 'cat' });
    await open('designer', { mode: 'playtest' });

    const wrong = ANSWER.map((row) => row.map(() => 0));
    // Ann: wrong, the same wrong grid again (a duplicate, no trial), then right on trial 2;
    // the game's levels 1 and 2 in 1 and 5 clicks.
    const ann = new Browser(s.ann)
      .log(0, 'item.start', { item: 'mirror', kind: 'task' })
      .log(2_000, 'resize', { rows: 8, cols: 13 })
      .log(3_000, 'paint', { row: 0, col: 0, color: 6, stroke: 1 })
      .log(3_100, 'paint', { row: 0, col: 1, color: 1, stroke: 1 });
    expect(await ann.submit('a1', 'mirror', wrong)).toBe('wrong');
    ann.log(5_000, 'submit', { index: 0, trial: 1, verdict: 'wrong', grid: wrong });
    expect(await ann.submit('a2', 'mirror', wrong)).toBe('duplicate');
    ann
      .log(5_500, 'submit', { index: 0, trial: 1, verdict: 'duplicate', grid: wrong })
      .log(6_000, 'copy.input', { grid: ANSWER });
    expect(await ann.submit('a3', 'mirror', ANSWER)).toBe('correct');
    ann
      .log(8_000, 'submit', { index: 0, trial: 2, verdict: 'correct', grid: ANSWER })
      .log(10_000, 'item.start', { item: 'lamps', kind: 'game' })
      .play(`RESET,${solutions.glow[0]},${solutions.glow[1]}`, 10_000, 1_000);
    await ann.flush();

    // Ben: right on trial 1 after one cell; the game's level 1 after a miss (2 actions), then stops on level 2.
    const ben = new Browser(s.ben)
      .log(0, 'item.start', { item: 'mirror', kind: 'task' })
      .log(500, 'paint', { row: 0, col: 0, color: 6, stroke: 1 });
    expect(await ben.submit('b1', 'mirror', ANSWER)).toBe('correct');
    ben
      .log(4_000, 'submit', { index: 0, trial: 1, verdict: 'correct', grid: ANSWER })
      .log(5_000, 'item.start', { item: 'lamps', kind: 'game' })
      .play(`RESET,ACTION6:1:1,${solutions.glow[0]}`, 5_000, 3_000);
    await ben.flush();

    // Cat skips the task; its game log is doctored and must count for nothing.
    await new Browser(s.cat)
      .log(0, 'item.start', { item: 'lamps', kind: 'game' })
      .play(`RESET,${solutions.glow[0]}`, 0, 100, 1)
      .flush();

    // The designer's playtest: the task right first time and level 1 in one click.
    const designer = new Browser(s.designer).log(0, 'item.start', { item: 'mirror', kind: 'task' });
    expect(await designer.submit('d1', 'mirror', ANSWER)).toBe('correct');
    await designer
      .log(100, 'item.start', { item: 'lamps', kind: 'game' })
      .play(`RESET,${solutions.glow[0]}`, 100, 10)
      .flush();

    // A second version once sessions ran the first; one session runs it.
    const v2 = { ...STUDY, title: 'Results over the API, v2', items: STUDY.items.filter((i) => i.id !== 'lamps') };
    const put = await call('PUT', '/admin/studies/res', ADMIN, { definition: v2 });
    expect(put.body).toMatchObject({ version: 2, created: true });
    await open('dan', { PROLIFIC_PID: 'dan' });
    const dan = new Browser(s.dan)
      .log(0, 'item.start', { item: 'mirror', kind: 'task' })
      .log(700, 'paint', { row: 1, col: 1, color: 8, stroke: 1 });
    expect(await dan.submit('e1', 'mirror', ANSWER)).toBe('correct');
    await dan.log(900, 'submit', { index: 0, trial: 1, verdict: 'correct', grid: ANSWER }).flush();
  });

  afterAll(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('needs the researcher token: 401 without one, 403 with a participant token', async () => {
    const none = await call('GET', '/admin/studies/res/results', null);
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('unauthorized');
    const participant = await call('GET', '/admin/studies/res/results', s.ann.token);
    expect(participant.status).toBe(403);
    expect(participant.body).toMatchObject({ error: 'forbidden', message: expect.stringMatching(/researcher token/) });
  });

  it('answers 404 for an unknown study or version and 400 for a bad version', async () => {
    const unknown = await call('GET', '/admin/studies/nope/results', ADMIN);
    expect(unknown).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'No study "nope". GET /api/admin/studies lists the studies there are.' },
    });
    const v9 = await call('GET', '/admin/studies/res/results?version=9', ADMIN);
    expect(v9).toEqual({
      status: 404,
      body: { error: 'not_found', message: 'Study "res" has no version 9; its versions are 1 to 2.' },
    });
    const bad = await call('GET', '/admin/studies/res/results?version=first', ADMIN);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/version must be a whole number/);
  });

  it('lists the participants of version 1 with their state, progress and flags; the playtest marked', async () => {
    const r = await results('?version=1');
    expect(r.study).toEqual({ id: 'res', title: 'Results over the API', versions: [1, 2], version: 1, stage: 'main' });
    expect(r.participants.map((p) => [p.params.PROLIFIC_PID ?? p.params.mode, p.studyVersion, p.playtest])).toEqual([
      ['ann', 1, false],
      ['ben', 1, false],
      ['cat', 1, false],
      ['playtest', 1, true],
    ]);
    const cat = r.participants[2];
    expect(cat.flags).toEqual(['game_log_unverified:lamps']);
    expect(cat.state).toBe('active');
    // Ann: task 0 -> 8 000, game 10 000 -> 16 000; practice skipped, mirror left, lamps open: 2 of 3.
    // Actions: the task's grid changes (resize, 2 paints, copy.input; not the submits); the game's
    // 6 clicks (the opening RESET is a full reset, not an action).
    expect(r.participants[0]).toMatchObject({
      state: 'active',
      itemsDone: 2,
      itemsTotal: 3,
      activeMs: 8_000 + 6_000,
      actions: 4 + 6,
      finishedAt: null,
    });
    // Cat: RESET at 0, the click at 100: one action, counted from the log though a hash is wrong.
    expect(cat).toMatchObject({ itemsDone: 2, activeMs: 100, actions: 1 });
    expect(r.participants[3]).toMatchObject({ playtest: true, itemsDone: 2, activeMs: 10, actions: 1 });
  });

  it('gives the task figures from the judged submissions and the logs', async () => {
    const [task] = (await results('?version=1')).tasks;
    // Ann: right on trial 2 (the duplicate was no trial); Ben: trial 1; Cat never opened it.
    expect(task).toMatchObject({
      item: 'mirror',
      collection: 'samples',
      task: 'mirror-across-wall',
      tests: 1,
      participants: 3,
      attempted: 2,
      solvedWithin: [1, 2, 2],
      solveRate: [0.5, 1, 1],
    });
    expect(task.timeToFirstActionMs.values).toEqual([500, 2_000]);
    expect(task.timeToSolveMs.values).toEqual([4_000, 8_000]);
    // Ann: resize, 2 cells, copy.input; Ben: 1 cell.
    expect(task.actions.values).toEqual([1, 4]);
    expect(task.tools).toMatchObject({ edit: 2, resize: 1, 'copy.input': 1, fill: 0 });
  });

  it('gives the level funnel and baselines from the verified logs only', async () => {
    const [game] = (await results('?version=1')).games;
    expect(game).toMatchObject({
      item: 'lamps',
      game: 'glow',
      title: games.glow.title,
      participants: 2,
      unverified: 1,
    });
    const [l1, l2, l3] = game.levels;
    expect([l1.reached, l1.completed, l2.reached, l2.completed, l3.reached]).toEqual([2, 2, 2, 1, 1]);
    expect(l1.actions.values).toEqual([1, 2]);
    expect(l1.timeMs.values).toEqual([1_000, 6_000]);
    expect(l1.baselines).toEqual({
      best: { value: 1, completers: 2, version: 1 },
      'second-best': { value: 2, completers: 2, version: 1 },
      median: { value: 1.5, completers: 2, version: 1 },
      'upper-median': { value: 2, completers: 2, version: 1 },
    });
    expect(l2.baselines['second-best']).toEqual({
      value: null,
      completers: 1,
      version: 1,
      reason: 'needs 2 completers, has 1',
    });
    expect(l2.baselines['upper-median']).toEqual({ value: 5, completers: 1, version: 1 });
    expect(l1.clicks).toEqual([
      [1, 1, 1],
      [32, 35, 2],
    ]);
  });

  it('filters by version, and merges every version without a filter', async () => {
    const v2 = await results('?version=2');
    expect(v2.participants.map((p) => p.params.PROLIFIC_PID)).toEqual(['dan']);
    expect(v2.games).toEqual([]);
    expect(v2.tasks[0]).toMatchObject({ participants: 1, attempted: 1, solvedWithin: [1, 1, 1] });
    const all = await results();
    expect(all.study).toMatchObject({ title: 'Results over the API, v2', versions: [1, 2], version: null });
    expect(all.participants).toHaveLength(5);
    expect(all.tasks[0]).toMatchObject({ participants: 4, attempted: 3, solvedWithin: [2, 3, 3] });
    expect(all.games[0].participants).toBe(2);
  });

  it('reads the state at request time: a silent session becomes abandoned', async () => {
    const before = clock;
    clock += 31 * MIN;
    try {
      const r = await results('?version=1');
      expect(r.participants.map((p) => p.state)).toEqual(['abandoned', 'abandoned', 'abandoned', 'abandoned']);
    } finally {
      clock = before;
    }
  });
});
