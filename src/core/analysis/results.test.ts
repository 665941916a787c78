import { describe, expect, it } from 'vitest';
import { createRun, gameActionData, parseActions, step, type ActionInput } from '../game';
import { games, solutions } from '../../games';
import { replayGameEvents } from '../game/replay';
import { parseStudy, type StudyDefinition, type StudyDefinitionInput } from '../study/schema';
import type { ReplayGame, StoredEvent } from '../study/rules';
import {
  studyResults,
  type ResultsInput,
  type ResultsSession,
  type ResultsSubmission,
  type SessionData,
} from './results';

const BASE = Date.UTC(2026, 2, 1);
const MIN = 60_000;

const definition = (over: Partial<StudyDefinitionInput>): StudyDefinition => {
  const r = parseStudy({ title: 'Results fixture', consent: 'ok', completion: { code: 'X' }, items: [], ...over });
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.study;
};

const V1 = definition({
  items: [
    { kind: 'page', id: 'intro', markdown: 'hi' },
    { kind: 'task', id: 'practice', collection: 'c', task: 'p', practice: true },
    { kind: 'task', id: 'two', collection: 'c', task: 'two-tests', tests: [0, 1] },
    { kind: 'game', id: 'lamps', game: 'glow', seed: 0 },
  ],
});
const V2 = definition({
  title: 'Results fixture, second version',
  items: [
    { kind: 'page', id: 'intro', markdown: 'hi' },
    { kind: 'task', id: 'two', collection: 'c', task: 'two-tests', tests: [0, 1] },
    { kind: 'task', id: 'three', collection: 'c', task: 'one-test' },
  ],
});

/** The server's replay hook, built the same way (src/server/study/studies.ts) on the real engine. */
const replay: ReplayGame = (gameId, events) => {
  const r = replayGameEvents(games[gameId], events);
  return {
    problems: r.problems,
    actions: r.steps.length,
    levelsCompleted: r.steps.reduce((m, s) => Math.max(m, s.response.levels_completed), 0),
  };
};

/** A session's log as the browser writes it: seq in order, `t` given, received at BASE + t. */
class Log {
  readonly events: StoredEvent[] = [];
  readonly subs: ResultsSubmission[] = [];
  add(t: number, kind: string, data: Record<string, unknown> = {}): this {
    this.events.push({ seq: this.events.length, t, kind, data, receivedAt: BASE + t });
    return this;
  }
  /** A server-judged submission (trial null: a refused duplicate). */
  judged(
    item: string,
    testIndex: number,
    trial: number | null,
    verdict: 'correct' | 'wrong' | 'duplicate',
    t: number,
  ): this {
    this.subs.push({ item, testIndex, trial, verdict, at: BASE + t });
    return this;
  }
  /**
   * Plays `actions` (starting with the opening RESET) on the real engine from `t0`, one action
   * every `stepMs`, logging `game.open` and each `game.action` with the engine's frame hash.
   * `tamper` rewrites the frame hash of that action (0-based) as a doctored log would.
   */
  play(game: string, actions: string, t0: number, stepMs: number, tamper?: number): this {
    this.add(t0, 'game.open', { game, seed: 0 });
    let run = createRun(games[game], { seed: 0 });
    parseActions(actions).forEach((input, i) => {
      const r = step(run, input as ActionInput);
      run = r.run;
      const data = gameActionData(game, input as ActionInput, r.response) as unknown as Record<string, unknown>;
      this.add(t0 + i * stepMs, 'game.action', i === tamper ? { ...data, frameHash: '00000000' } : data);
    });
    return this;
  }
}

const session = (id: string, over: Partial<ResultsSession> = {}): ResultsSession => ({
  id,
  studyVersion: 1,
  params: { PROLIFIC_PID: id },
  order: [0, 1, 2, 3],
  state: 'finished',
  createdAt: BASE,
  lastEventAt: BASE + 5 * MIN,
  finishedAt: BASE + 6 * MIN,
  flags: [],
  ...over,
});
const data = (s: ResultsSession, log: Log): SessionData => ({ session: s, events: log.events, submissions: log.subs });

const L1 = solutions.glow[0]; // ACTION6:32:35
const L2 = solutions.glow[1]; // five clicks: 12:35, 20:35, 20:43, 12:51, 28:51

// P1: task solved (test 0 on trial 1, test 1 on trial 2 after a refused duplicate); game: levels 1
// and 2 in 1 and 5 actions, then level 3 entered with no action; one hidden-tab second and one idle second.
const p1 = new Log()
  .add(10_000, 'item.start', { item: 'two', kind: 'task' })
  .add(10_000, 'task.open', { taskId: 'two', collection: 'study', tests: 2, trials: 3 })
  .add(11_000, 'tool', { tool: 'edit' })
  .add(12_000, 'paint', { row: 0, col: 0, color: 1, stroke: 1 })
  .add(12_100, 'paint', { row: 0, col: 1, color: 1, stroke: 1 })
  .add(12_200, 'paint', { row: 0, col: 2, color: 1, stroke: 1 })
  .add(12_300, 'stroke.end', { stroke: 1 })
  .add(13_000, 'fill', { row: 1, col: 0, color: 2 })
  .add(13_500, 'visibility', { state: 'hidden' })
  .add(14_500, 'visibility', { state: 'visible' })
  .add(15_000, 'submit', { index: 0, trial: 1, verdict: 'correct', grid: [[1]] })
  .judged('two', 0, 1, 'correct', 15_000)
  .add(15_500, 'test.select', { index: 1 })
  .add(16_000, 'copy.input', { grid: [[3]] })
  .add(17_000, 'submit', { index: 1, trial: 1, verdict: 'wrong', grid: [[3]] })
  .judged('two', 1, 1, 'wrong', 17_000)
  .add(17_500, 'submit', { index: 1, trial: 1, verdict: 'duplicate', grid: [[3]] })
  .judged('two', 1, null, 'duplicate', 17_500)
  .add(18_000, 'undo', {})
  .add(18_500, 'idle', { state: 'idle', ms: 120_000 })
  .add(19_500, 'idle', { state: 'active', ms: 1_000 })
  .add(20_000, 'submit', { index: 1, trial: 2, verdict: 'correct', grid: [[0]] })
  .judged('two', 1, 2, 'correct', 20_000)
  .add(30_000, 'item.start', { item: 'lamps', kind: 'game' })
  .play('glow', `RESET,${L1},${L2}`, 30_000, 1000)
  .add(37_000, 'item.end', { item: 'lamps' });

// P2: task with copy/paste and resize, test 0 on trial 3; game: a miss on level 1 (2 actions),
// on level 2 a click, an undo and a level RESET before the solution (8 actions), one click on level 3.
const p2 = new Log()
  .add(1_000, 'item.start', { item: 'two', kind: 'task' })
  .add(1_500, 'select', { side: 'input', rect: { r0: 0, c0: 0, r1: 1, c1: 1 } })
  .add(1_600, 'copy', {
    side: 'input',
    rect: { r0: 0, c0: 0, r1: 1, c1: 1 },
    block: [
      [1, 1],
      [1, 1],
    ],
  })
  .add(2_000, 'paste', {
    row: 0,
    col: 0,
    block: [
      [1, 1],
      [1, 1],
    ],
  })
  .add(2_500, 'resize', { rows: 4, cols: 4 })
  .add(3_000, 'submit', { index: 0, trial: 1, verdict: 'wrong', grid: [[1]] })
  .judged('two', 0, 1, 'wrong', 3_000)
  .add(3_500, 'submit', { index: 0, trial: 2, verdict: 'wrong', grid: [[2]] })
  .judged('two', 0, 2, 'wrong', 3_500)
  .add(4_000, 'submit', { index: 0, trial: 3, verdict: 'correct', grid: [[3]] })
  .judged('two', 0, 3, 'correct', 4_000)
  .add(5_000, 'paint', { row: 0, col: 0, color: 4, stroke: 1 })
  .add(6_000, 'submit', { index: 1, trial: 1, verdict: 'correct', grid: [[4]] })
  .judged('two', 1, 1, 'correct', 6_000)
  .add(10_000, 'item.start', { item: 'lamps', kind: 'game' })
  .play('glow', `RESET,ACTION6:0:0,${L1},ACTION6:16:23,ACTION7,RESET,${L2},ACTION6:40:19`, 10_000, 500);

// P3: test 0 solved, test 1 wrong three times (not solved); game: two misses on level 1
// (3 actions), two clicks and a level RESET on level 2, then a full reset and a second run.
const p3 = new Log()
  .add(500, 'item.start', { item: 'two', kind: 'task' })
  .add(800, 'paint', { row: 2, col: 2, color: 5, stroke: 1 })
  .add(900, 'submit', { index: 0, trial: 1, verdict: 'correct', grid: [[5]] })
  .judged('two', 0, 1, 'correct', 900)
  .judged('two', 1, 1, 'wrong', 1_000)
  .judged('two', 1, 2, 'wrong', 1_100)
  .judged('two', 1, 3, 'wrong', 1_200)
  .add(2_000, 'item.start', { item: 'lamps', kind: 'game' })
  .play('glow', `RESET,ACTION6:0:0,ACTION6:0:0,${L1},ACTION6:16:23,ACTION6:40:31,RESET,RESET,${L1}`, 2_000, 2000);

// P4: both test inputs right first time, but the log lost the submit events (judging times
// are used); the game log is doctored (a wrong frame hash), so it must not count.
const p4 = new Log()
  .add(100, 'item.start', { item: 'two', kind: 'task' })
  .add(150, 'paint', { row: 0, col: 0, color: 1, stroke: 1 })
  .add(160, 'paint', { row: 0, col: 1, color: 1, stroke: 1 })
  .judged('two', 0, 1, 'correct', 7_100)
  .judged('two', 1, 1, 'correct', 9_100)
  .add(10_000, 'item.start', { item: 'lamps', kind: 'game' })
  .play('glow', `RESET,${L1},${L2}`, 10_000, 100, 2);

// P5: a designer's playtest: everything solved, nothing may count.
const p5 = new Log()
  .add(0, 'item.start', { item: 'two', kind: 'task' })
  .add(10, 'paint', { row: 0, col: 0, color: 1, stroke: 1 })
  .add(20, 'submit', { index: 0, trial: 1, verdict: 'correct', grid: [[1]] })
  .judged('two', 0, 1, 'correct', 20)
  .add(30, 'submit', { index: 1, trial: 1, verdict: 'correct', grid: [[1]] })
  .judged('two', 1, 1, 'correct', 30)
  .add(100, 'item.start', { item: 'lamps', kind: 'game' })
  .play('glow', `RESET,${L1}`, 100, 10);

// P7 ran version 2: the new task, right first time.
const p7 = new Log()
  .add(0, 'item.start', { item: 'three', kind: 'task' })
  .add(400, 'paint', { row: 0, col: 0, color: 1, stroke: 1 })
  .add(900, 'submit', { index: 0, trial: 1, verdict: 'correct', grid: [[1]] })
  .judged('three', 0, 1, 'correct', 900);

const input = (version: number | null): ResultsInput => ({
  study: { id: 'fixture' },
  versions: [
    { version: 1, definition: V1 },
    { version: 2, definition: V2 },
  ],
  version,
  sessions: [
    data(session('p1', { createdAt: BASE + 1 }), p1),
    data(session('p2', { createdAt: BASE + 2 }), p2),
    data(session('p3', { createdAt: BASE + 3 }), p3),
    data(session('p4', { createdAt: BASE + 4 }), p4),
    data(session('p5', { createdAt: BASE + 5, params: { mode: 'playtest' } }), p5),
    data(session('p6', { createdAt: BASE, state: 'started', lastEventAt: null, finishedAt: null }), new Log()),
    data(session('p7', { createdAt: BASE + 7, studyVersion: 2, order: [0, 1, 2] }), p7),
  ],
  testCount: (collection, task) => (task === 'one-test' ? 1 : null),
  games: { glow: { title: games.glow.title, levels: games.glow.levels.length } },
  replay,
  now: BASE + 40 * MIN,
});

describe('study results: participants', () => {
  const r = studyResults(input(1));
  const row = (id: string) => r.participants.find((p) => p.sessionId === id)!;

  it('lists every session of the version, playtests marked, in order of creation', () => {
    expect(r.study).toEqual({ id: 'fixture', title: 'Results fixture', versions: [1, 2], version: 1, stage: null });
    expect(r.participants.map((p) => [p.sessionId, p.playtest])).toEqual([
      ['p6', false],
      ['p1', false],
      ['p2', false],
      ['p3', false],
      ['p4', false],
      ['p5', true],
    ]);
  });

  it('gives state, progress, time on task, actions and flags', () => {
    // p6 never sent an event: quiet for 40 minutes (> 30) is abandoned.
    expect(row('p6')).toMatchObject({
      state: 'abandoned',
      itemsDone: 0,
      itemsTotal: 3,
      activeMs: 0,
      actions: 0,
      flags: [],
      finishedAt: null,
    });
    // p1: practice skipped (finished), "two" finished by starting "lamps", "lamps" ended: 3 of 3.
    // Task span 10 000 -> 20 000 less 1 000 hidden and 1 000 idle; game span 30 000 -> 37 000 (item.end).
    // Actions (core/study/actions.ts): the task's grid changes: 3 paints, fill, copy.input,
    // undo = 6 (tool, stroke.end, submits, test.select are not actions); game: the scorecard's
    // 6 clicks (the opening RESET is a full reset, not an action).
    expect(row('p1')).toMatchObject({
      state: 'finished',
      itemsDone: 3,
      itemsTotal: 3,
      activeMs: 8_000 + 7_000,
      actions: 6 + 6,
      flags: [],
    });
    // p2: task 1 000 -> 6 000 with 3 grid changes (paste, resize, paint; not the select or copy);
    // game 10 000 -> 10 000 + 11 x 500 with 11 actions (its level RESET counts, the opening one not).
    expect(row('p2')).toMatchObject({ itemsDone: 2, activeMs: 5_000 + 5_500, actions: 3 + 11 });
    expect(row('p4').flags).toEqual(['game_log_unverified:lamps']);
    expect(row('p5')).toMatchObject({ playtest: true, params: { mode: 'playtest' } });
  });

  it('keeps only the sessions of the chosen version', () => {
    expect(studyResults(input(2)).participants.map((p) => p.sessionId)).toEqual(['p7']);
    expect(studyResults(input(null)).participants.map((p) => p.sessionId)).toEqual([
      'p6',
      'p1',
      'p2',
      'p3',
      'p4',
      'p5',
      'p7',
    ]);
  });
});

describe('study results: grid tasks', () => {
  const r = studyResults(input(1));

  it('leaves out practice items and counts the participants who attempted', () => {
    expect(r.tasks.map((t) => t.item)).toEqual(['two']);
    const t = r.tasks[0];
    // p1-p4 and p6 had the item (p5 is a playtest); p6 never opened it.
    expect(t).toMatchObject({
      item: 'two',
      collection: 'c',
      task: 'two-tests',
      tests: 2,
      participants: 5,
      attempted: 4,
    });
  });

  it('counts a task as solved within k trials when every test input is, duplicates not being trials', () => {
    // Trials of the last test input solved: p1 2 (its duplicate is no trial), p2 3, p4 1; p3 never solved test 1.
    const t = r.tasks[0];
    expect(t.solvedWithin).toEqual([1, 2, 3]);
    expect(t.solveRate).toEqual([0.25, 0.5, 0.75]);
  });

  it('measures time to first action, time to solve and actions', () => {
    const t = r.tasks[0];
    // First grid change less item.start: p1 12 000-10 000, p2 2 000-1 000 (select and copy change no grid), p3 300, p4 50.
    expect(t.timeToFirstActionMs).toEqual({
      n: 4,
      min: 50,
      p25: 237.5,
      median: 650,
      p75: 1250,
      max: 2000,
      mean: 837.5,
      values: [50, 300, 1000, 2000],
    });
    // p1 20 000-10 000 and p2 6 000-1 000 from the log; p4 from the judging time 9 100 less item.start's receipt at 100.
    expect(t.timeToSolveMs.values).toEqual([5000, 9000, 10000]);
    // p1: 3 painted cells, fill, copy.input, undo; p2: paste, resize, 1 cell; p3: 1 cell; p4: 2 cells.
    expect(t.actions).toMatchObject({ n: 4, values: [1, 2, 3, 6], median: 2.5, mean: 3 });
  });

  it('says which tools were used, by how many participants and how often', () => {
    const t = r.tasks[0];
    expect(t.tools).toEqual({
      edit: 4,
      select: 1,
      wand: 0,
      fill: 1,
      copy: 1,
      paste: 1,
      resize: 1,
      'copy.input': 1,
      reset: 0,
      undo: 1,
      redo: 0,
      recolor: 0,
      rotate: 0,
      flip: 0,
      move: 0,
      crop: 0,
    });
    expect(t.toolUses).toMatchObject({ edit: 3 + 1 + 1 + 2, fill: 1, undo: 1 });
  });

  it('counts the selection and transform tools (wand, rotate, flip, move, crop) as tools and as grid actions', () => {
    const log = new Log()
      .add(0, 'item.start', { item: 'two', kind: 'task' })
      .add(100, 'select.wand', { side: 'output', row: 0, col: 0, cells: [[0, 0]] })
      .add(200, 'rotate', { dir: 'cw' })
      .add(300, 'rotate', { dir: 'ccw' })
      .add(400, 'flip', { axis: 'vertical' })
      .add(500, 'move', { dr: 1, dc: 0 })
      .add(600, 'crop', { rect: { r0: 0, c0: 0, r1: 1, c1: 1 } });
    const one = studyResults({ ...input(1), sessions: [data(session('tools'), log)] }).tasks[0];
    expect(one.toolUses).toMatchObject({ wand: 1, rotate: 2, flip: 1, move: 1, crop: 1, edit: 0 });
    expect(one.tools).toMatchObject({ wand: 1, rotate: 1, flip: 1, move: 1, crop: 1, select: 0 });
    // The selection changes no grid; the five transforms do.
    expect(one.actions.values).toEqual([5]);
    expect(one.timeToFirstActionMs.values).toEqual([200]);
  });

  it('merges the items of every version without a filter, newest first', () => {
    const all = studyResults(input(null));
    expect(all.tasks.map((t) => t.item)).toEqual(['two', 'three']);
    // p7 ran version 2, which has "two" too, but never opened it.
    expect(all.tasks[0]).toMatchObject({ participants: 6, attempted: 4, solvedWithin: [1, 2, 3] });
    // "three" shows every test input of the task (testCount gives 1).
    expect(all.tasks[1]).toMatchObject({
      tests: 1,
      participants: 1,
      attempted: 1,
      solvedWithin: [1, 1, 1],
      solveRate: [1, 1, 1],
    });
    expect(all.tasks[1].timeToSolveMs.values).toEqual([900]);
    expect(studyResults(input(2)).tasks.map((t) => t.item)).toEqual(['two', 'three']);
  });
});

describe('study results: game levels', () => {
  const r = studyResults(input(1));
  const g = r.games[0];
  const level = (n: number) => g.levels[n - 1];

  it('counts verified first-time players only: the doctored log and the playtest are left out', () => {
    expect(r.games.map((x) => [x.item, x.game, x.title])).toEqual([['lamps', 'glow', games.glow.title]]);
    expect(g.participants).toBe(3);
    expect(g.unverified).toBe(1);
    expect(g.levels.map((l) => l.level)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('gives the funnel of reached and completed levels', () => {
    // p1 and p2 enter level 3; p3's first run ends on level 2 (its full reset starts a second run).
    expect(g.levels.map((l) => [l.reached, l.completed])).toEqual([
      [3, 3],
      [3, 2],
      [2, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it('gives scorecard actions, time, resets and undos per level', () => {
    // Level 1: p1 1, p2 2 (a miss), p3 3 (two misses).
    expect(level(1).actions.values).toEqual([1, 2, 3]);
    // Level 2: p1 5; p2 click + undo + level RESET + 5 = 8 (p3 did not complete it).
    expect(level(2).actions.values).toEqual([5, 8]);
    // Level time: p1 1 step of 1 000; p2 2 steps of 500; p3 3 steps of 2 000. Level 2: p1 5 x 1 000, p2 8 x 500.
    expect(level(1).timeMs.values).toEqual([1000, 1000, 6000]);
    expect(level(2).timeMs.values).toEqual([4000, 5000]);
    // Level 2 RESETs: p2 one, p3 one (its second RESET is the full reset that ends the first run).
    expect(level(2).resets).toMatchObject({ n: 3, values: [0, 1, 1] });
    expect(level(2).undos).toMatchObject({ n: 3, values: [0, 0, 1] });
    expect(level(1).resets.values).toEqual([0, 0, 0]);
    expect(level(3).actions.n).toBe(0);
  });

  it('computes the human baseline under every preset with its completer count', () => {
    expect(level(1).baselines).toEqual({
      best: { value: 1, completers: 3, version: 1 },
      'second-best': { value: 2, completers: 3, version: 1 },
      median: { value: 2, completers: 3, version: 1 },
      'upper-median': { value: 2, completers: 3, version: 1 },
    });
    // [5, 8]: the median is their mean, the upper median the upper one.
    expect(level(2).baselines).toEqual({
      best: { value: 5, completers: 2, version: 1 },
      'second-best': { value: 8, completers: 2, version: 1 },
      median: { value: 6.5, completers: 2, version: 1 },
      'upper-median': { value: 8, completers: 2, version: 1 },
    });
    expect(level(3).baselines['second-best']).toEqual({
      value: null,
      completers: 0,
      version: 1,
      reason: 'needs 2 completers, has 0',
    });
    expect(level(3).baselines.best).toEqual({
      value: null,
      completers: 0,
      version: 1,
      reason: 'needs 1 completer, has 0',
    });
  });

  it('adds up the clicks made on each level over every run', () => {
    // Level 1: misses at (0,0) by p2 once and p3 twice; the lamp at (32,35) by p1, p2, p3 and p3's second run.
    expect(level(1).clicks).toEqual([
      [0, 0, 3],
      [32, 35, 4],
    ]);
    // Level 2, in reading order: p2's click before the undo and p3's two clicks, then the five
    // clicks of the solution by p1 and p2.
    expect(level(2).clicks).toEqual([
      [16, 23, 2],
      [40, 31, 1],
      [12, 35, 2],
      [20, 35, 2],
      [20, 43, 2],
      [12, 51, 2],
      [28, 51, 2],
    ]);
    expect(level(3).clicks).toEqual([[40, 19, 1]]);
  });

  it('has no game figures when no replay can verify the logs', () => {
    const none = studyResults({ ...input(1), replay: null }).games[0];
    expect(none.participants).toBe(0);
    expect(none.unverified).toBe(4);
    expect(none.levels[0]).toMatchObject({ reached: 0, completed: 0, clicks: [] });
  });
});

describe('study results: bad input', () => {
  it('names a version that is not stored', () => {
    expect(() => studyResults({ ...input(3) })).toThrow(/no version 3; its versions are 1, 2/);
    const orphan = { ...input(null), versions: [{ version: 2, definition: V2 }] };
    expect(() => studyResults(orphan)).toThrow(/Session p6 ran version 1 of study fixture, which is not stored/);
  });
});

describe('study results: repeat participants', () => {
  it('count toward baselines once, with their earliest session', () => {
    // p1 comes back as a new session with the same Prolific id and plays level 1 in 3 clicks.
    const again = new Log()
      .add(0, 'item.start', { item: 'lamps', kind: 'game' })
      .play('glow', 'RESET,ACTION6:0:0,ACTION6:1:1,ACTION6:32:35', 0, 1000);
    const base = input(1);
    const r = studyResults({
      ...base,
      sessions: [
        ...base.sessions,
        data(session('p1-again', { createdAt: BASE + 20, params: { PROLIFIC_PID: 'p1' } }), again),
      ],
    });
    expect(r.participants.some((p) => p.sessionId === 'p1-again')).toBe(true);
    expect(r.games[0].participants).toBe(3);
    expect(r.games[0].levels[0].actions.values).toEqual([1, 2, 3]);
  });
});
