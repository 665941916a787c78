import { Ajv2020 } from 'ajv/dist/2020';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import {
  createRun,
  gameActionData,
  parseActions,
  step,
  versionedGameId,
  type ActionInput,
  type GameAction,
  type GameState,
} from '../../core/game';
import { games, solutions } from '../../games';
import { parseCsv, parseCsvObjects } from '../../core/formats/csv';
import { readRecording, recordingAgentRuns, splitGameRuns, isoTimestamp } from '../../core/formats/recording';
import { splitRuns } from '../../core/scoring/accounting';
import { computeBaselines, firstRunLevels, parseBaselines } from '../../core/scoring/baselines';
import { scoreRuns, type AgentRun } from '../../core/scoring/rhae';
import { eventsByItem } from '../../core/study/rules';
import { ATTEMPTS_COLUMNS } from './attempts';
import { BASELINES_CSV_COLUMNS } from './baselines';
import { GRID_ACTIONS_COLUMNS } from './gridActions';
import { EXPORT_FORMATS, FORMAT_NAMES } from './formats';
import { exportContext } from './context';
import { readZip } from './zip';
import { exportsOnThreads } from './thread';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'researcher-token-for-export-tests-0123456789';
const WALL = '2026-01-01T10:00:00.000Z';
const answerOf = (name: string, i: number): number[][] =>
  (
    JSON.parse(readFileSync(path.join(ROOT, 'data/tasks/samples', `${name}.json`), 'utf8')) as {
      test: { output: number[][] }[];
    }
  ).test[i].output;

const STUDY = {
  title: 'Export test',
  consent: 'You agree.',
  items: [
    { kind: 'page', id: 'intro', markdown: 'Hello' },
    { kind: 'task', id: 'practice', collection: 'samples', task: 'most-common-color', tests: [0], practice: true },
    { kind: 'task', id: 'downscale', collection: 'samples', task: 'downscale-blocks' },
    { kind: 'game', id: 'push', game: 'push', seed: 1 },
    { kind: 'game', id: 'flux', game: 'flux', seed: 0 },
  ],
  completion: { code: 'DONE-1' },
};

type Ev = { seq: number; t: number; kind: string; data: Record<string, unknown> };

/** A log under construction: seq and t advance by themselves (t in steps of 250.5 ms). */
class Log {
  events: Ev[] = [];
  /** Submissions to judge, each after the events up to its `submit` event are sent. */
  subs: { item: string; grid: unknown; seq: number }[] = [];
  submit(item: string, trial: number, verdict: string, grid: unknown) {
    this.add('submit', { index: 0, trial, verdict, grid });
    this.subs.push({ item, grid, seq: this.events.length - 1 });
    return this;
  }
  add(kind: string, data: Record<string, unknown> = {}) {
    const seq = this.events.length;
    this.events.push({ seq, t: 100 + seq * 250.5, kind, data });
    return this;
  }
  /** A run of `game` played with the engine: `game.open`, then one `game.action` per input. */
  play(game: string, seed: number, actions: string, tamper = false) {
    this.add('game.open', { game, seed });
    let run = createRun(games[game], { seed });
    for (const input of parseActions(actions)) {
      const r = step(run, input);
      run = r.run;
      this.add('game.action', gameActionData(game, input, r.response) as unknown as Record<string, unknown>);
    }
    if (tamper) this.events[this.events.length - 1].data = { ...this.events[this.events.length - 1].data, level: 5 };
    return this;
  }
}

describe.each(backends)('exports on $name', (backend) => {
  let store: Store;
  let app: Hono;
  let clock: number;
  const ids: Record<string, string> = {};

  const call = async (method: string, url: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    // createApi is mounted at /api by serve; in-process requests leave the prefix out.
    const res = await app.request(url.replace(/^\/api/, ''), {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return res;
  };
  const json = async (method: string, url: string, token: string | null, body?: unknown) => {
    const res = await call(method, url, token, body);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** Asks for an export and downloads it through the one-time link. */
  const download = async (format: string, version?: number) => {
    const made = await json(
      'POST',
      '/api/admin/studies/exports/exports',
      ADMIN,
      version === undefined ? { format } : { format, version },
    );
    expect(made.status).toBe(201);
    const res = await call('GET', made.body.url as string, null);
    expect(res.status).toBe(200);
    return { res, fileName: made.body.fileName as string, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  /** A session through the participant routes: its events in batches, each submission judged in its place. */
  const session = async (params: Record<string, string>, log: Log) => {
    // Only a researcher may start a playtest session.
    const r = await json('POST', '/api/studies/exports/sessions', params.mode === 'playtest' ? ADMIN : null, {
      params,
    });
    expect(r.status).toBe(201);
    const { sessionId, token } = r.body as { sessionId: string; token: string };
    let from = 0;
    const sendUpTo = async (end: number) => {
      for (; from < end; from += 200) {
        const sent = await json('POST', `/api/sessions/${sessionId}/events`, token, {
          events: log.events.slice(from, Math.min(end, from + 200)),
        });
        expect(sent.status).toBe(200);
      }
      from = end;
    };
    for (const [k, s] of log.subs.entries()) {
      await sendUpTo(s.seq + 1);
      expect(
        (
          await json('POST', `/api/sessions/${sessionId}/submissions`, token, {
            key: `k${k}`,
            item: s.item,
            testIndex: 0,
            grid: s.grid,
          })
        ).status,
      ).toBe(200);
    }
    await sendUpTo(log.events.length);
    return sessionId;
  };

  beforeAll(async () => {
    store = await backend.open();
    clock = Date.UTC(2026, 0, 1, 12);
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });
    expect((await json('POST', '/api/admin/studies/exports', ADMIN, { definition: STUDY })).status).toBe(201);

    const answer = answerOf('downscale-blocks', 0);
    const wrong = answer.map((row) => row.map((v) => (v === 0 ? 1 : 0)));
    const block = [
      [2, 2],
      [2, 2],
    ];
    // A: the practice task, the task solved on the second trial, two runs of push, a run of flux with clicks.
    const a = new Log()
      .add('session.start', { mode: 'study', wallClock: WALL })
      .add('item.start', { item: 'intro' })
      .add('item.end', { item: 'intro' })
      .add('item.start', { item: 'practice' })
      .add('task.open', { taskId: 'most-common-color', collection: 'samples', tests: 1, trials: 3 })
      .add('resize', { rows: 1, cols: 1 })
      .add('paint', { row: 0, col: 0, color: 8, stroke: 1 })
      .submit('practice', 1, 'correct', [[8]])
      .add('item.end', { item: 'practice' })
      .add('item.start', { item: 'downscale' })
      .add('task.open', { taskId: 'downscale-blocks', collection: 'samples', tests: 1, trials: 3 })
      .add('resize', { rows: 4, cols: 4 })
      .add('color', { color: 2 })
      .add('paint', { row: 1, col: 2, color: 2, stroke: 1 })
      .add('stroke.end', { stroke: 1 })
      .add('select', { side: 'input', rect: { r0: 0, c0: 1, r1: 1, c1: 2 } })
      .add('copy', { side: 'input', rect: { r0: 0, c0: 1, r1: 1, c1: 2 }, block })
      .add('paste', { row: 2, col: 3, block })
      .submit('downscale', 1, 'wrong', wrong)
      .submit('downscale', 2, 'correct', answer)
      .add('item.end', { item: 'downscale' })
      .add('item.start', { item: 'push' })
      .play('push', 1, `RESET,${solutions.push[0]},${solutions.push[1]}`)
      .play('push', 1, 'RESET,ACTION1')
      .add('item.end', { item: 'push' })
      .add('item.start', { item: 'flux' })
      .play('flux', 0, `RESET,${solutions.flux[0]}`)
      .add('item.end', { item: 'flux' });
    ids.a = await session({ PROLIFIC_PID: 'pid-a', STUDY_ID: 's' }, a);
    clock += 1000;
    // B: level 1 of push in 6 actions.
    ids.b = await session(
      { workerId: 'W-B' },
      new Log()
        .add('session.start', { wallClock: WALL })
        .add('item.start', { item: 'push' })
        .play('push', 1, 'RESET,ACTION1,ACTION2,ACTION4,ACTION4,ACTION4,ACTION4'),
    );
    clock += 1000;
    // Never counted toward baselines: a playtest, a doctored log, and A again (not first-time).
    ids.c = await session(
      { mode: 'playtest' },
      new Log()
        .add('session.start', { mode: 'playtest', wallClock: WALL })
        .add('item.start', { item: 'push' })
        .play('push', 1, 'RESET,ACTION3,ACTION4,ACTION4,ACTION4,ACTION4'),
    );
    clock += 1000;
    ids.d = await session(
      { PROLIFIC_PID: 'pid-d' },
      new Log()
        .add('session.start', { wallClock: WALL })
        .add('item.start', { item: 'push' })
        .play('push', 1, `RESET,${solutions.push[0]}`, true),
    );
    clock += 1000;
    ids.e = await session(
      { PROLIFIC_PID: 'pid-a' },
      new Log()
        .add('session.start', { wallClock: WALL })
        .add('item.start', { item: 'push' })
        .play('push', 1, 'RESET,ACTION3,ACTION4,ACTION4,ACTION4,ACTION4'),
    );
    clock += 1000;
    // Version 2 of the study, with one session of it.
    expect(
      (await json('PUT', '/api/admin/studies/exports', ADMIN, { definition: { ...STUDY, title: 'Export test, v2' } }))
        .body,
    ).toMatchObject({ version: 2 });
    ids.f = await session(
      { PROLIFIC_PID: 'pid-f' },
      new Log()
        .add('session.start', { wallClock: WALL })
        .add('item.start', { item: 'downscale' })
        .add('task.open', { taskId: 'downscale-blocks', tests: 1 })
        .add('paint', { row: 0, col: 0, color: 3, stroke: 1 }),
    );
  });
  afterAll(async () => {
    await store.close();
  });

  const all = ['a', 'b', 'c', 'd', 'e', 'f'];

  it('streams every stored event as JSONL, with practice and playtest marked', async () => {
    const { res, fileName, bytes } = await download('jsonl');
    expect(fileName).toBe('exports-events.jsonl');
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="exports-events.jsonl"; filename*=UTF-8''exports-events.jsonl`,
    );
    const lines = bytes
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    let stored = 0;
    for (const k of all) stored += (await store.readEvents(ids[k])).length;
    expect(lines.length).toBe(stored);
    expect(Object.keys(lines[0])).toEqual([
      'sessionId',
      'studyVersion',
      'seq',
      't',
      'kind',
      'data',
      'receivedAt',
      'item',
      'practice',
      'playtest',
      'excluded',
      'stage',
    ]);
    expect(lines.map((l) => l.sessionId).filter((v, i, xs) => xs.indexOf(v) === i)).toEqual(all.map((k) => ids[k]));
    const aLines = lines.filter((l) => l.sessionId === ids.a);
    expect(aLines.map((l) => l.seq)).toEqual(aLines.map((_, i) => i));
    expect(aLines.filter((l) => l.practice).map((l) => l.kind)).toEqual([
      'item.start',
      'task.open',
      'resize',
      'paint',
      'submit',
      'item.end',
    ]);
    expect(lines.filter((l) => l.playtest).every((l) => l.sessionId === ids.c)).toBe(true);
    expect(lines.filter((l) => l.sessionId === ids.c).length).toBeGreaterThan(0);
    expect(lines.find((l) => l.sessionId === ids.a && l.kind === 'paint')).toMatchObject({
      studyVersion: 1,
      t: 100 + 6 * 250.5,
      item: 'practice',
      data: { row: 0, col: 0, color: 8 },
    });

    const v2 = await download('jsonl', 2);
    expect(v2.fileName).toBe('exports-v2-events.jsonl');
    expect(
      v2.bytes
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).sessionId),
    ).toEqual(Array(4).fill(ids.f));
  });

  it('writes one attempts row per session and item started, with the attempt rule, results and flags', async () => {
    const { res, bytes } = await download('csv');
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = bytes.toString('utf8');
    expect(parseCsv(text)[0]).toEqual([...ATTEMPTS_COLUMNS]);
    const rows = parseCsvObjects(text);
    expect(
      rows.map(
        (r) => `${r.session_id === ids.a ? 'a' : Object.keys(ids).find((k) => ids[k] === r.session_id)}:${r.item_id}`,
      ),
    ).toEqual(['a:practice', 'a:downscale', 'a:push', 'a:flux', 'b:push', 'c:push', 'd:push', 'e:push', 'f:downscale']);
    const row = (k: string, item: string) => rows.find((r) => r.session_id === ids[k] && r.item_id === item)!;
    expect(row('a', 'downscale')).toMatchObject({
      study_id: 'exports',
      study_version: '1',
      participant_id: 'pid-a',
      prolific_pid: 'pid-a',
      worker_id: '',
      playtest: 'false',
      position: '3',
      item_kind: 'task',
      collection: 'samples',
      task: 'downscale-blocks',
      game: '',
      practice: 'false',
      started: 'true',
      finished: 'true',
      // Grid changes only (core/study/actions.ts): resize, paint, paste; a task attempt under 30 minutes counts.
      counts: 'true',
      actions: '3',
      tests: '1',
      tests_solved: '1',
      trials_used: '2',
      solved: 'true',
      levels_completed: '',
      verified: '',
    });
    expect(row('a', 'practice')).toMatchObject({ practice: 'true', counts: 'false', solved: 'true', trials_used: '1' });
    // Time on task, on the participant's clock: item.start to item.end, five steps of 250.5 ms, nothing hidden or idle.
    expect(row('a', 'practice').active_ms).toBe('1253');
    // Push: two runs of 4 + 15 and 1 actions as the scorecard counts them (full RESETs are not actions); 2 of 6 levels.
    expect(row('a', 'push')).toMatchObject({
      item_kind: 'game',
      game: 'push',
      counts: 'false',
      actions: String(4 + 15 + 1),
      levels_completed: '2',
      win_levels: '6',
      verified: 'true',
      solved: 'false',
      item_flags: '',
    });
    expect(row('b', 'push')).toMatchObject({ participant_id: 'W-B', worker_id: 'W-B', levels_completed: '1' });
    expect(row('c', 'push').playtest).toBe('true');
    expect(row('d', 'push')).toMatchObject({ verified: 'false', session_flags: 'game_log_unverified:push' });
    expect(row('d', 'push').item_flags).toMatch(/logged level 5, replay gives 1/);
    expect(row('e', 'push').session_flags).toBe('repeat_participant');
    expect(row('f', 'downscale')).toMatchObject({
      study_version: '2',
      finished: 'false',
      solved: 'false',
      trials_used: '0',
      actions: '1',
    });
  });

  it('writes grid-task actions with H-ARC column names, x = column and y = row', async () => {
    const text = (await download('grid-actions')).bytes.toString('utf8');
    expect(parseCsv(text)[0]).toEqual([...GRID_ACTIONS_COLUMNS]);
    const rows = parseCsvObjects(text);
    const a = rows.filter((r) => r.session_id === ids.a);
    expect(a.map((r) => `${r.item_id}:${r.action}`)).toEqual([
      'practice:resize',
      'practice:paint',
      'practice:submit',
      'downscale:resize',
      'downscale:color',
      'downscale:paint',
      'downscale:stroke.end',
      'downscale:select',
      'downscale:copy',
      'downscale:paste',
      'downscale:submit',
      'downscale:submit',
    ]);
    expect(rows.filter((r) => r.session_id === ids.f).map((r) => r.action)).toEqual(['paint']);
    expect(rows.length).toBe(13);
    const d = a.filter((r) => r.item_id === 'downscale');
    expect(a[0]).toMatchObject({
      task_name: 'most-common-color',
      task_number: '1',
      is_tutorial: 'true',
      attempt_number: '1',
      num_actions: '1',
      test_output_size_x: '1',
      test_output_size_y: '1',
    });
    expect(d[2]).toMatchObject({
      task_name: 'downscale-blocks',
      collection: 'samples',
      task_number: '2',
      is_tutorial: 'false',
      test_index: '0',
      attempt_number: '1',
      num_actions: '3',
      time: String(100 + 13 * 250.5),
      action_x: '2',
      action_y: '1',
      selected_symbol: '2',
      selected_tool: 'edit',
      test_output_size_x: '4',
      test_output_size_y: '4',
      solved: 'false',
      done: 'false',
    });
    expect(d[4]).toMatchObject({
      action: 'select',
      select_side: 'input',
      select_loc: '[1,0,2,1]',
      action_x: '1',
      action_y: '0',
    });
    expect(d[5]).toMatchObject({ action: 'copy', copy_paste_data: '[[2,2],[2,2]]' });
    expect(d[6]).toMatchObject({ action: 'paste', action_x: '3', action_y: '2', copy_paste_data: '[[2,2],[2,2]]' });
    expect(d[7]).toMatchObject({
      action: 'submit',
      attempt_number: '1',
      verdict: 'wrong',
      solved: 'false',
      done: 'true',
    });
    expect(d[8]).toMatchObject({
      action: 'submit',
      attempt_number: '2',
      verdict: 'correct',
      solved: 'true',
      done: 'true',
      test_output_grid: JSON.stringify(answerOf('downscale-blocks', 0)),
    });
  });

  it('computes baselines from first-time, verified, counted players only, every preset named', async () => {
    const jsonText = (await download('baselines-json')).bytes.toString('utf8');
    const parsed = parseBaselines(jsonText);
    const file = JSON.parse(jsonText);
    expect(file.presets).toEqual({ best: 1, 'second-best': 1, median: 1, 'upper-median': 1 });
    // Expected from the counted logs (A and B) with the scoring code itself.
    const expected = computeBaselines(
      [
        {
          participant: 'pid-a',
          game: 'push',
          levels: firstRunLevels(eventsByItem(await store.readEvents(ids.a)).get('push')!, 'push')!,
        },
        {
          participant: 'W-B',
          game: 'push',
          levels: firstRunLevels(eventsByItem(await store.readEvents(ids.b)).get('push')!, 'push')!,
        },
        {
          participant: 'pid-a',
          game: 'flux',
          levels: firstRunLevels(eventsByItem(await store.readEvents(ids.a)).get('flux')!, 'flux')!,
        },
      ],
      { push: 6, flux: games.flux.levels.length },
    );
    // Each game names the version its logs were verified on: here the one the server runs.
    expect(parsed.games).toEqual(
      Object.fromEntries(
        Object.entries(expected.games).map(([id, g]) => [id, { ...g, version: versionedGameId(games[id]) }]),
      ),
    );
    expect(parsed.games.push.participants).toBe(2);
    expect(parsed.games.push.levels[0]).toMatchObject({
      level: 1,
      reached: 2,
      completers: 2,
      actions: [4, 6],
      baseline: { best: 4, 'second-best': 6, median: 5, 'upper-median': 6 },
    });
    // B entered level 2 but did not complete it.
    expect(parsed.games.push.levels[1]).toMatchObject({
      reached: 2,
      completers: 1,
      baseline: { best: 15, 'second-best': null, median: 15, 'upper-median': 15 },
    });

    const csv = parseCsvObjects((await download('baselines-csv')).bytes.toString('utf8'));
    expect(Object.keys(csv[0])).toEqual([...BASELINES_CSV_COLUMNS]);
    expect(csv.length).toBe(4 * (6 + games.flux.levels.length));
    expect(
      csv
        .filter((r) => r.game === 'push' && r.level === '1')
        .map((r) => [r.preset, r.preset_version, r.baseline, r.completers, r.participants]),
    ).toEqual([
      ['best', '1', '4', '2', '2'],
      ['second-best', '1', '6', '2', '2'],
      ['median', '1', '5', '2', '2'],
      ['upper-median', '1', '6', '2', '2'],
    ]);
    expect(csv.find((r) => r.game === 'push' && r.level === '2' && r.preset === 'second-best')).toMatchObject({
      baseline: '',
      min_completers: '2',
      reason: 'needs 2 completers, has 1',
    });
  });

  it('exports each game run as an official recording that reads back into the same actions and score', async () => {
    const { res, bytes, fileName } = await download('recordings');
    expect(fileName).toBe('exports-recordings.zip');
    expect(res.headers.get('content-type')).toBe('application/zip');
    const entries = readZip(bytes);
    // The doctored run of D does not replay, so it is not written.
    expect(entries.map((e) => e.name)).toEqual([
      `${ids.a}-push-1.recording.jsonl`,
      `${ids.a}-push-2.recording.jsonl`,
      `${ids.a}-flux-1.recording.jsonl`,
      `${ids.b}-push-1.recording.jsonl`,
      `${ids.c}-push-1.recording.jsonl`,
      `${ids.e}-push-1.recording.jsonl`,
    ]);
    const baselines = parseBaselines((await download('baselines-json')).bytes.toString('utf8'));
    for (const entry of entries) {
      const [, sessionId, item, run] = /^(.+)-(push|flux)-(\d+)\.recording\.jsonl$/.exec(entry.name)!;
      const events = eventsByItem(await store.readEvents(sessionId)).get(item)!;
      const logged = splitGameRuns(events, item)[Number(run) - 1].filter((e) => e.kind === 'game.action');
      const read = readRecording(entry.data.toString('utf8'));
      expect(read.skipped).toEqual([]);
      const inputs = logged.map((e): ActionInput => {
        const d = e.data as { action: GameAction; x?: number; y?: number };
        return d.action === 'ACTION6' ? { action: 'ACTION6', x: d.x!, y: d.y! } : { action: d.action };
      });
      expect(read.steps.map((s) => s.input)).toEqual(inputs);
      expect(read.steps[0].input.action).toBe('RESET');
      expect(read.steps[0].timestamp).toBe(isoTimestamp(Date.parse(WALL) + logged[0].t));
      expect(read.steps.every((s) => s.guid === `${sessionId}-${item}-${run}`)).toBe(true);
      // The score of the recording equals the score of the logged run.
      const steps = logged.map((e) => {
        const d = e.data as { action: GameAction; level: number; state: GameState };
        return { action: d.action, levelsCompleted: d.level, state: d.state };
      });
      const fromLog: AgentRun[] = splitRuns(steps).map((r, i) => ({
        game: item,
        label: `${entry.name}#${i + 1}`,
        levelActions: r.levelActions,
        levelsCompleted: r.levelsCompleted,
        winLevels: games[item].levels.length,
      }));
      const fromFile = recordingAgentRuns(read, entry.name);
      expect(fromFile.map((r) => [r.levelActions, r.levelsCompleted])).toEqual(
        fromLog.map((r) => [r.levelActions, r.levelsCompleted]),
      );
      expect(scoreRuns(fromFile, baselines, 'toolkit-2026-04').total).toBe(
        scoreRuns(fromLog, baselines, 'toolkit-2026-04').total,
      );
    }
    const flux = readRecording(entries[2].data.toString('utf8'));
    expect(flux.steps.find((s) => s.input.action === 'ACTION6')!.input).toEqual({ action: 'ACTION6', x: 38, y: 28 });
    expect(flux.runs[0].levelsCompleted).toBe(1);
  });

  it('bundles every file with a README, a schema per file type and SHA-256 sums that match', async () => {
    const { bytes, fileName } = await download('zip');
    expect(fileName).toBe('exports-bundle.zip');
    const entries = readZip(bytes);
    const names = entries.map((e) => e.name);
    expect(names.slice(0, 7)).toEqual([
      'events.jsonl',
      'attempts.csv',
      'grid-actions.csv',
      'baselines.json',
      'baselines.csv',
      'grades.csv',
      'responses.csv',
    ]);
    expect(names.filter((n) => n.startsWith('recordings/')).length).toBe(6);
    expect(names.filter((n) => n.startsWith('schemas/')).sort()).toEqual([
      'schemas/attempts.schema.json',
      'schemas/baselines-csv.schema.json',
      'schemas/baselines.schema.json',
      'schemas/campaign-view.schema.json',
      'schemas/campaign.schema.json',
      'schemas/events.schema.json',
      'schemas/game-runs.schema.json',
      'schemas/game-versions.schema.json',
      'schemas/grades.schema.json',
      'schemas/grid-actions.schema.json',
      'schemas/payments.schema.json',
      'schemas/recording.schema.json',
      'schemas/responses.schema.json',
      'schemas/surveys.schema.json',
    ]);
    expect(names.slice(-2)).toEqual(['README.md', 'SHA256SUMS']);
    const sums = entries
      .find((e) => e.name === 'SHA256SUMS')!
      .data.toString('utf8')
      .trimEnd()
      .split('\n');
    expect(sums.length).toBe(entries.length - 1);
    for (const line of sums) {
      const [hash, name] = line.split('  ');
      expect(
        createHash('sha256')
          .update(entries.find((e) => e.name === name)!.data)
          .digest('hex'),
        name,
      ).toBe(hash);
    }
    // The bundle's files are the single downloads' files.
    expect(entries[0].data.equals((await download('jsonl')).bytes)).toBe(true);
    expect(entries[1].data.equals((await download('csv')).bytes)).toBe(true);
    const readme = entries.find((e) => e.name === 'README.md')!.data.toString('utf8');
    expect(readme).toContain('6 sessions of every version (1, 2)');
    expect(readme).toContain(`\`${ids.d}-push-1.recording.jsonl\`: the log of "push" does not replay`);
    // Each CSV's schema names exactly the file's columns, and each row matches the schema's patterns.
    for (const [file, schema] of [
      ['attempts.csv', 'attempts'],
      ['grid-actions.csv', 'grid-actions'],
      ['baselines.csv', 'baselines-csv'],
    ]) {
      const s = JSON.parse(entries.find((e) => e.name === `schemas/${schema}.schema.json`)!.data.toString('utf8'));
      const rows = parseCsvObjects(entries.find((e) => e.name === file)!.data.toString('utf8'));
      expect(s.required).toEqual(Object.keys(rows[0]));
      for (const r of rows) {
        for (const [col, v] of Object.entries(r)) {
          const pattern = s.properties[col].pattern as string | undefined;
          if (pattern) expect(new RegExp(pattern).test(v), `${file} ${col} = ${JSON.stringify(v)}`).toBe(true);
        }
      }
    }
    const ev = JSON.parse(entries.find((e) => e.name === 'schemas/events.schema.json')!.data.toString('utf8'));
    expect(ev.required).toEqual(Object.keys(JSON.parse(entries[0].data.toString('utf8').split('\n')[0])));
    // Every JSON line and document of the bundle validates against the bundle's own schema for it.
    const ajv = new Ajv2020({ strict: false });
    const schemaOf = (name: string) =>
      ajv.compile(JSON.parse(entries.find((e) => e.name === `schemas/${name}.schema.json`)!.data.toString('utf8')));
    const valid = (check: ReturnType<typeof schemaOf>, value: unknown, what: string) =>
      expect(check(value) ? null : check.errors, what).toBeNull();
    const jsonLines = (name: string) =>
      entries
        .find((e) => e.name === name)!
        .data.toString('utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);
    const events = schemaOf('events');
    jsonLines('events.jsonl').forEach((line, i) => valid(events, line, `events.jsonl line ${i + 1}`));
    valid(
      schemaOf('baselines'),
      JSON.parse(entries.find((e) => e.name === 'baselines.json')!.data.toString('utf8')),
      'baselines.json',
    );
    const recording = schemaOf('recording');
    for (const e of entries.filter((x) => x.name.startsWith('recordings/')))
      jsonLines(e.name).forEach((line, i) => valid(recording, line, `${e.name} line ${i + 1}`));
  });

  it('reads the store a page at a time: pages of any size give the same files', async () => {
    const seqs: number[][] = [];
    for await (const page of store.streamEvents(ids.b, { batchSize: 3 })) seqs.push(page.map((e) => e.seq));
    const n = (await store.readEvents(ids.b)).length;
    expect(seqs.flat()).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(seqs.slice(0, -1).every((p) => p.length === 3)).toBe(true);
    const after: number[] = [];
    for await (const page of store.streamEvents(ids.b, { batchSize: 4, afterSeq: 5 }))
      after.push(...page.map((e) => e.seq));
    expect(after).toEqual(Array.from({ length: n - 6 }, (_, i) => i + 6));
    const exact: number[] = [];
    for await (const page of store.streamEvents(ids.b, { batchSize: n })) exact.push(page.length);
    expect(exact).toEqual([n]);

    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    const read = async (pageSize: number, format: 'jsonl' | 'csv' | 'grid-actions' | 'baselines-json' | 'zip') => {
      const ctx = await exportContext({
        store,
        studyId: 'exports',
        library,
        replay: replayWithEngine,
        now: clock,
        pageSize,
      });
      const chunks: Buffer[] = [];
      for await (const c of EXPORT_FORMATS[format].write(ctx))
        chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));
      return Buffer.concat(chunks);
    };
    for (const format of ['jsonl', 'csv', 'grid-actions', 'baselines-json', 'zip'] as const) {
      expect((await read(2, format)).equals(await read(5000, format)), format).toBe(true);
    }
  });

  it('writes every format on a worker thread byte for byte as on the main thread', async () => {
    const library = new TaskLibrary();
    await library.mount(path.join(ROOT, 'data/tasks/samples'));
    const threaded = createApi({
      library,
      version: 'test',
      study: {
        store,
        adminTokenHash: hashToken(ADMIN),
        replay: replayWithEngine,
        games: gameIds,
        now: () => clock,
        exportThreads: true,
      },
    });
    // Every format on the first database; on the other, the bundle alone, which holds every
    // other format's file (the thread reads the store through the main thread's, whichever it is).
    // A thread per format loads the export code again: seconds each on a busy machine.
    const formats = backend === backends[0] ? FORMAT_NAMES : (['zip'] as const);
    const before = exportsOnThreads();
    for (const format of formats) {
      const here = await download(format);
      const made = await threaded.request('/admin/studies/exports/exports', {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ format }),
      });
      expect(made.status).toBe(201);
      const res = await threaded.request(((await made.json()) as { url: string }).url.replace(/^\/api/, ''));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(here.res.headers.get('content-type'));
      const there = Buffer.from(await res.arrayBuffer());
      expect(there.length, format).toBeGreaterThan(0);
      expect(there.equals(here.bytes), format).toBe(true);
    }
    expect(exportsOnThreads() - before).toBe(formats.length);
    // On a heavily loaded machine, minutes.
  }, 300_000);

  it('streams a download over real HTTP, as a browser gets it', async () => {
    const outer = new Hono().route('/api', app);
    const server = serve({ fetch: outer.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const made = await fetch(`${base}/api/admin/studies/exports/exports`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ format: 'zip', version: 1 }),
      });
      expect(made.status).toBe(201);
      const { url, fileName } = (await made.json()) as { url: string; fileName: string };
      expect(fileName).toBe('exports-v1-bundle.zip');
      const res = await fetch(base + url);
      expect(res.status).toBe(200);
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="exports-v1-bundle\.zip"/);
      const entries = readZip(Buffer.from(await res.arrayBuffer()));
      const readme = entries.find((e) => e.name === 'README.md')!.data.toString('utf8');
      expect(readme).toContain('5 sessions of version 1');
      expect((await fetch(base + url)).status).toBe(410);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('answers bad requests with clear errors, and each link works once for 5 minutes', async () => {
    expect((await call('POST', '/api/admin/studies/exports/exports', null, { format: 'jsonl' })).status).toBe(401);
    expect(
      (await call('POST', '/api/admin/studies/exports/exports', 'not-the-token', { format: 'jsonl' })).status,
    ).toBe(403);
    const unknown = await json('POST', '/api/admin/studies/nope/exports', ADMIN, { format: 'jsonl' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/No study "nope"\. Studies: exports/);
    const badFormat = await json('POST', '/api/admin/studies/exports/exports', ADMIN, { format: 'xlsx' });
    expect(badFormat.status).toBe(400);
    expect(badFormat.body).toMatchObject({ error: 'unknown_format' });
    expect(badFormat.body.message).toBe(`Unknown format "xlsx"; formats: ${FORMAT_NAMES.join(', ')}.`);
    expect((await json('POST', '/api/admin/studies/exports/exports', ADMIN, {})).body.message).toMatch(
      /^No format given; formats: jsonl, csv, /,
    );
    expect(
      (await json('POST', '/api/admin/studies/exports/exports', ADMIN, { format: 'csv', version: 9 })).status,
    ).toBe(404);
    expect(
      (await json('POST', '/api/admin/studies/exports/exports', ADMIN, { format: 'csv', version: 0 })).status,
    ).toBe(400);
    expect((await json('POST', '/api/admin/studies/exports/exports', ADMIN, '{"format":')).status).toBe(400);

    const made = await json('POST', '/api/admin/studies/exports/exports', ADMIN, { format: 'baselines-json' });
    expect(made.body.url).toMatch(/^\/api\/downloads\/[A-Za-z0-9_-]{32}$/);
    expect((await call('GET', made.body.url as string, null)).status).toBe(200);
    const again = await json('GET', made.body.url as string, null);
    expect(again.status).toBe(410);
    expect(again.body.message).toMatch(/used already/);
    const late = await json('POST', '/api/admin/studies/exports/exports', ADMIN, { format: 'jsonl' });
    clock += 5 * 60_000;
    const expired = await json('GET', late.body.url as string, null);
    expect(expired.status).toBe(410);
    expect(expired.body.message).toMatch(/expired/);
    expect((await json('GET', '/api/downloads/not-a-token', null)).status).toBe(404);

    // A link is kept in the database: another server on it serves it, once.
    const second = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });
    const shared = await json('POST', '/api/admin/studies/exports/exports', ADMIN, { format: 'csv' });
    const path = (shared.body.url as string).replace(/^\/api/, '');
    const there = await second.request(path);
    expect(there.status).toBe(200);
    expect((await there.text()).split('\r\n')[0]).toMatch(/^study_id,/);
    expect((await call('GET', shared.body.url as string, null)).status).toBe(410);
    expect((await second.request(path)).status).toBe(410);
  });
});
