import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../log/events';
import {
  countActions,
  createRun,
  gameActionData,
  parseActions,
  step,
  actionCounts,
  type ActionInput,
  type Run,
} from '../game';
import { games, solutions } from '../../games';
import {
  BaselinesError,
  baselineOf,
  baselinesToJson,
  computeBaselines,
  firstRunLevels,
  levelBaseline,
  matchGame,
  otherVersions,
  parseBaselines,
  type PlayerLevels,
} from './baselines';
import { splitRuns } from './accounting';

describe('baseline presets on small lists, worked by hand', () => {
  it.each([
    // counts, best, second-best, median, upper-median
    [[7], 7, null, 7, 7],
    [[5, 9], 5, 9, 7, 9],
    [[9, 5], 5, 9, 7, 9],
    [[3, 8, 8, 20], 3, 8, 8, 8],
    [[20, 3, 8, 10], 3, 8, 9, 10],
    [[5, 5, 9], 5, 5, 5, 5],
    [[4, 6, 100], 4, 6, 6, 6],
    [[], null, null, null, null],
  ])('%j gives best %s, second-best %s, median %s, upper-median %s', (counts, best, second, median, upper) => {
    expect(baselineOf(counts, 'best').value).toBe(best);
    expect(baselineOf(counts, 'second-best').value).toBe(second);
    expect(baselineOf(counts, 'median').value).toBe(median);
    expect(baselineOf(counts, 'upper-median').value).toBe(upper);
    expect(baselineOf(counts, 'median').completers).toBe(counts.length);
  });

  it('says why a level has too few completers', () => {
    expect(baselineOf([7], 'second-best')).toEqual({
      preset: 'second-best',
      version: 1,
      value: null,
      completers: 1,
      reason: 'needs 2 completers, has 1',
    });
    expect(baselineOf([], 'best').reason).toBe('needs 1 completer, has 0');
  });
});

const c = (actions: number) => ({ completed: true, actions });
const open = (actions: number) => ({ completed: false, actions });

// A 3-level game "tri": four first-time players and a late duplicate of A (not first-time).
const players: PlayerLevels[] = [
  { participant: 'A', game: 'tri', levels: [c(4), c(12), open(7)] },
  { participant: 'B', game: 'tri', levels: [c(6), c(10), c(6)] },
  { participant: 'C', game: 'tri', levels: [c(9), open(20)] },
  { participant: 'D', game: 'tri', levels: [open(30)] },
  { participant: 'A', game: 'tri', levels: [c(1), c(1), c(1)] },
];

describe('computeBaselines', () => {
  it('counts who reached and completed each level and every preset, by hand', () => {
    const b = computeBaselines(players, { tri: 4 });
    expect(b.source).toBe('arc-studio');
    const g = b.games.tri;
    expect(g.participants).toBe(4);
    expect(g.levels).toEqual([
      // Level 1: reached by A-D, completed by A, B, C in 4, 6, 9.
      {
        level: 1,
        reached: 4,
        completers: 3,
        actions: [4, 6, 9],
        baseline: { best: 4, 'second-best': 6, median: 6, 'upper-median': 6 },
      },
      // Level 2: reached by A, B, C; completed by A (12) and B (10): sorted 10, 12.
      {
        level: 2,
        reached: 3,
        completers: 2,
        actions: [10, 12],
        baseline: { best: 10, 'second-best': 12, median: 11, 'upper-median': 12 },
      },
      // Level 3: reached by A and B; completed by B alone (6).
      {
        level: 3,
        reached: 2,
        completers: 1,
        actions: [6],
        baseline: { best: 6, 'second-best': null, median: 6, 'upper-median': 6 },
      },
      // Level 4 (from winLevels): nobody got there.
      {
        level: 4,
        reached: 0,
        completers: 0,
        actions: [],
        baseline: { best: null, 'second-best': null, median: null, 'upper-median': null },
      },
    ]);
  });

  it('gives each figure with its preset, version, completers and reached, or the reason for none', () => {
    const g = computeBaselines(players).games.tri;
    expect(levelBaseline(g, 'arc-studio', 2, 'upper-median')).toEqual({
      value: 12,
      preset: 'upper-median',
      version: 1,
      completers: 2,
      reached: 3,
    });
    expect(levelBaseline(g, 'arc-studio', 3, 'second-best')).toMatchObject({
      value: null,
      completers: 1,
      reason: 'needs 2 completers, has 1',
    });
    expect(levelBaseline(g, 'arc-studio', 9, 'best')).toMatchObject({
      value: null,
      reason: 'the baselines have no such level',
    });
  });

  it('writes the baselines JSON and reads it back unchanged', () => {
    const b = computeBaselines(players, { tri: 4 });
    const text = baselinesToJson(b);
    const json = JSON.parse(text);
    expect(json).toMatchObject({
      format: 'arc-studio.baselines',
      version: 1,
      presets: { best: 1, 'second-best': 1, median: 1, 'upper-median': 1 },
    });
    expect(parseBaselines(text)).toEqual(b);
  });
});

describe('parseBaselines', () => {
  it('reads an official metadata.json with its game_id', () => {
    const b = parseBaselines(
      JSON.stringify({ game_id: 'ls20-fa137e247ce6', title: 'LS20', baseline_actions: [21, 35, 40] }),
    );
    expect(b.source).toBe('metadata');
    expect(levelBaseline(b.games['ls20-fa137e247ce6'], 'metadata', 2, 'second-best')).toEqual({
      value: 35,
      preset: 'metadata',
      version: null,
      completers: null,
      reached: null,
    });
  });

  it('reads a list of metadata files, and one without game_id for a given game', () => {
    const b = parseBaselines(
      JSON.stringify([
        { game_id: 'ab12', baseline_actions: [3] },
        { game_id: 'cd34', baseline_actions: [5, 6] },
      ]),
    );
    expect(Object.keys(b.games)).toEqual(['ab12', 'cd34']);
    expect(parseBaselines('{"baseline_actions":[4]}', { defaultGameId: 'push' }).games.push.levels[0].official).toBe(4);
  });

  it.each([
    ['not json', /not JSON .*give an arc-studio baselines JSON or an official metadata.json/],
    ['{"levels": []}', /neither arc-studio.baselines JSON .* nor an official metadata.json/],
    [
      '{"format": "arc-studio.baselines", "version": 2, "presets": {}, "games": {}}',
      /not valid arc-studio.baselines version 1: version/,
    ],
    [
      '{"format": "arc-studio.baselines", "version": 1, "presets": {}, "games": {"g": {"participants": 1, "levels": [{"level": 2, "reached": 1, "completers": 1, "baseline": {}}]}}}',
      /levels must be numbered 1, 2, 3/,
    ],
    [
      '{"format": "arc-studio.baselines", "version": 1, "presets": {}, "games": {"g": {"participants": 1, "levels": [{"level": 1, "reached": 1, "completers": 2, "baseline": {}}]}}}',
      /completers cannot exceed reached/,
    ],
    ['{"baseline_actions": [4]}', /has no game_id: add "game_id"/],
    ['{"game_id": "x", "baseline_actions": ["four"]}', /baseline_actions must be a list of positive action counts/],
  ])('refuses %s with a clear message', (text, message) => {
    expect(() => parseBaselines(text)).toThrow(BaselinesError);
    expect(() => parseBaselines(text)).toThrow(message);
  });

  it('matches game ids exactly, as the official scorer does, and names other versions', () => {
    const b = parseBaselines('{"game_id": "ls20", "baseline_actions": [4]}');
    expect(matchGame(b, 'ls20-fa137e247ce6')).toBeNull();
    expect(otherVersions(b, 'ls20-fa137e247ce6')).toEqual(['ls20']);
    expect(matchGame(b, 'ls20')).toBe('ls20');
    expect(otherVersions(b, 'ls20')).toEqual([]);
    expect(matchGame(b, 'ft09-1')).toBeNull();
    expect(matchGame(b, 'constructor')).toBeNull();
  });
});

/** Plays `inputs` on the engine and logs them as a client does. */
function play(game: string, inputs: ActionInput[], seed = 0, t0 = 0): { events: LogEvent[]; runs: Run<unknown>[] } {
  let run: Run<unknown> = createRun(games[game], { seed });
  const events: LogEvent[] = [{ seq: 0, t: t0, kind: 'game.open', data: { game, seed } }];
  const runs: Run<unknown>[] = [];
  for (const input of inputs) {
    const prev = run;
    const r = step(run, input);
    run = r.run;
    if (run.runs !== prev.runs && prev.runs > 0) runs.push(prev);
    events.push({
      seq: events.length,
      t: t0 + events.length * 100,
      kind: 'game.action',
      data: { ...gameActionData(game, input, r.response) },
    });
  }
  runs.push(run);
  return { events, runs };
}

describe('firstRunLevels', () => {
  const level1 = parseActions(solutions.push[0]);
  // Level 1 by its solution; in level 2 a move, a level RESET, a move, a level RESET; then a
  // RESET with nothing done since, which is a full reset: a second run follows.
  const inputs = parseActions(`RESET,${solutions.push[0]},ACTION1,RESET,ACTION1,RESET,RESET,${solutions.push[0]}`);
  const { events, runs } = play('push', inputs);

  it('takes the first run of the game, counted as the scorecard counts', () => {
    const first = firstRunLevels(events, 'push');
    expect(first).toEqual([
      { completed: true, actions: level1.length },
      { completed: false, actions: 4 },
    ]);
    // The engine's own counts of the first run agree, and so does countActions on its events.
    expect(actionCounts(runs[0])).toEqual([level1.length, 4]);
    const firstRunEvents = events.slice(1, 2 + level1.length + 4).map((e) => e.data as never);
    expect(countActions(firstRunEvents).level_actions).toEqual([level1.length, 4]);
  });

  it('agrees with the engine on every run, through splitRuns', () => {
    const steps = events.slice(1).map((e) => ({
      action: e.data.action as never,
      levelsCompleted: e.data.level as number,
      state: e.data.state as never,
    }));
    const split = splitRuns(steps);
    expect(split.map((r) => r.levelActions)).toEqual(runs.map(actionCounts));
    expect(split.map((r) => r.levelsCompleted)).toEqual([1, 1]);
  });

  it('ends the first run at a second game.open, and keeps to one item when asked', () => {
    const practice = play('push', parseActions('RESET,ACTION1,ACTION1'));
    const main = play('push', parseActions(`RESET,${solutions.push[0]}`), 0, 10_000);
    const reopened = play('push', parseActions('RESET,ACTION4'), 0, 20_000);
    const log: LogEvent[] = [
      { seq: 0, t: 0, kind: 'item.start', data: { item: 'warmup' } },
      ...practice.events,
      { seq: 0, t: 9_000, kind: 'item.start', data: { item: 'main' } },
      ...main.events,
      ...reopened.events,
    ];
    expect(firstRunLevels(log, 'push')).toEqual([open(2)]);
    expect(firstRunLevels(log, 'push', { item: 'main' })).toEqual([c(level1.length), open(0)]);
    expect(firstRunLevels(log, 'glow')).toBeNull();
  });

  it('feeds computeBaselines from session logs', () => {
    const a = play('push', parseActions(`RESET,${solutions.push[0]}`)).events;
    const b = play('push', parseActions(`RESET,ACTION3,ACTION3,${solutions.push[0]},ACTION1`)).events;
    const base = computeBaselines([
      { participant: 'a', game: 'push', levels: firstRunLevels(a, 'push')! },
      { participant: 'b', game: 'push', levels: firstRunLevels(b, 'push')! },
    ]);
    // a: 4 actions, b: 2 wasted + 4 = 6 (ACTION3 into the wall changes nothing but counts).
    expect(base.games.push.levels[0]).toMatchObject({
      reached: 2,
      completers: 2,
      actions: [4, 6],
      baseline: { best: 4, 'second-best': 6 },
    });
    expect(base.games.push.levels[1]).toMatchObject({ reached: 2, completers: 0 });
  });
});
