import { describe, expect, it } from 'vitest';
import { computeBaselines, parseBaselines, type PlayerLevels } from './baselines';
import { ScoringError, SCORING_PRESETS, rhaeHeadline, scoreRun, scoreRuns, type AgentRun } from './rhae';

const done = (...counts: number[]) => counts.map((actions) => ({ completed: true, actions }));

/**
 * Game "tri" (3 levels), four players completing everything:
 *   level 1: 3, 4, 5, 7      -> second-best 4,  upper-median 5
 *   level 2: 9, 10, 12, 15   -> second-best 10, upper-median 12
 *   level 3: 5, 6, 6, 8      -> second-best 6,  upper-median 6
 * Game "two" (2 levels):
 *   level 1: 2, 2, 3, 4      -> second-best 2,  upper-median 3
 *   level 2: 10, 20, 30, 40  -> second-best 20, upper-median 30
 */
const players: PlayerLevels[] = [
  { participant: 'p1', game: 'tri', levels: done(3, 9, 5) },
  { participant: 'p2', game: 'tri', levels: done(4, 10, 6) },
  { participant: 'p3', game: 'tri', levels: done(5, 12, 6) },
  { participant: 'p4', game: 'tri', levels: done(7, 15, 8) },
  { participant: 'p1', game: 'two', levels: done(2, 10) },
  { participant: 'p2', game: 'two', levels: done(2, 20) },
  { participant: 'p3', game: 'two', levels: done(3, 30) },
  { participant: 'p4', game: 'two', levels: done(4, 40) },
];
const baselines = computeBaselines(players);

/** 8 and 10 actions for levels 1 and 2, then 3 actions in level 3 without completing it. */
const runA: AgentRun = { game: 'tri', label: 'a#1', levelActions: [8, 10, 3], levelsCompleted: 2, winLevels: 3 };
/** Every level, better than the humans. */
const runFast: AgentRun = { game: 'tri', label: 'fast#1', levelActions: [2, 5, 3], levelsCompleted: 3 };
/** Levels 1 and 2 better than the humans, level 3 not completed. */
const runTwoFast: AgentRun = { game: 'tri', label: 'twofast#1', levelActions: [2, 5, 1], levelsCompleted: 2 };
/** Every level: 4, 20, 6. */
const runB: AgentRun = { game: 'tri', label: 'b#1', levelActions: [4, 20, 6], levelsCompleted: 3 };
const runTwo: AgentRun = { game: 'two', label: 'two#1', levelActions: [4, 20], levelsCompleted: 2 };

describe('paper preset (second-best, min(1, h/a)^2, weighted mean)', () => {
  it('scores the 3-level example: h = 4, 10, 6; a = 8, 10, not completed -> 0.375', () => {
    const r = scoreRun(runA, baselines, 'paper');
    expect(r.levels.map((l) => l.human.value)).toEqual([4, 10, 6]);
    expect(r.levels.map((l) => l.score)).toEqual([0.25, 1, 0]);
    // (1*0.25 + 2*1 + 3*0) / 6
    expect(r.score).toBeCloseTo(0.375, 12);
    expect(r.levels[0]).toMatchObject({
      level: 1,
      weight: 1,
      completed: true,
      agentActions: 8,
      human: { preset: 'second-best', completers: 4, reached: 4 },
    });
    expect(r.levels[2]).toMatchObject({ completed: false, agentActions: 3, score: 0 });
  });

  it('caps a level at 1 when the agent beats the human', () => {
    expect(scoreRun(runFast, baselines, 'paper').score).toBe(1);
    // 1, 1, 0 -> (1 + 2) / 6
    expect(scoreRun(runTwoFast, baselines, 'paper').score).toBeCloseTo(0.5, 12);
  });

  it('takes the first run of a game and averages over games', () => {
    const r = scoreRuns([runA, runB, runTwo], baselines, 'paper');
    const tri = r.games.find((g) => g.game === 'tri')!;
    expect(tri.counted).toBe(0);
    expect(tri.score).toBeCloseTo(0.375, 12);
    // Run B alone: (1*1 + 2*(10/20)^2 + 3*1) / 6 = 4.5 / 6 = 0.75, not counted.
    expect(tri.runs[1].score).toBeCloseTo(0.75, 12);
    // "two": h = 2, 20; a = 4, 20: (1*0.25 + 2*1) / 3 = 0.75.
    const two = r.games.find((g) => g.game === 'two')!;
    expect(two.score).toBeCloseTo(0.75, 12);
    expect(r.total).toBeCloseTo((0.375 + 0.75) / 2, 12);
    expect(r).toMatchObject({
      preset: 'paper',
      version: 2,
      baselinePreset: 'second-best',
      baselineVersion: 1,
      baselineSource: 'arc-studio',
      notes: [],
      warnings: [],
      complete: true,
    });
  });
});

describe('toolkit-2026-04 preset (upper-median, min(1.15, (h/a)^2), capped by completed weight, best run)', () => {
  it('scores the 3-level example: h = 5, 12, 6; a = 8, 10, not completed', () => {
    const r = scoreRun(runA, baselines, 'toolkit-2026-04');
    expect(r.levels.map((l) => l.human.value)).toEqual([5, 12, 6]);
    // (5/8)^2 = 0.390625; (12/10)^2 = 1.44 -> 1.15; 0.
    expect(r.levels.map((l) => l.score)).toEqual([0.390625, 1.15, 0]);
    // (0.390625 + 2*1.15) / 6 = 0.4484375, under the completed share 3/6.
    expect(r.weightedMean).toBeCloseTo(0.4484375, 12);
    expect(r.completedShare).toBeCloseTo(0.5, 12);
    expect(r.score).toBeCloseTo(0.4484375, 12);
  });

  it('lets levels reach 1.15 but a game no higher than its completed share', () => {
    const fast = scoreRun(runFast, baselines, 'toolkit-2026-04');
    expect(fast.levels.map((l) => l.score)).toEqual([1.15, 1.15, 1.15]);
    expect(fast.weightedMean).toBeCloseTo(1.15, 12);
    expect(fast.score).toBe(1);
    const twoFast = scoreRun(runTwoFast, baselines, 'toolkit-2026-04');
    // (1.15 + 2*1.15 + 0) / 6 = 0.575, capped at (1 + 2) / 6 = 0.5.
    expect(twoFast.weightedMean).toBeCloseTo(0.575, 12);
    expect(twoFast.score).toBeCloseTo(0.5, 12);
  });

  it('takes the best run of a game and averages over games', () => {
    const r = scoreRuns([runA, runB, runTwo], baselines, 'toolkit-2026-04');
    const tri = r.games.find((g) => g.game === 'tri')!;
    // Run B: (5/4)^2 -> 1.15; (12/20)^2 = 0.36; (6/6)^2 = 1: (1.15 + 0.72 + 3) / 6 = 0.8116...
    expect(tri.counted).toBe(1);
    expect(tri.score).toBeCloseTo(4.87 / 6, 12);
    // "two": h = 3, 30; a = 4, 20: (3/4)^2 = 0.5625; (30/20)^2 -> 1.15: (0.5625 + 2.3) / 3.
    const two = r.games.find((g) => g.game === 'two')!;
    expect(two.score).toBeCloseTo(2.8625 / 3, 12);
    expect(r.total).toBeCloseTo((4.87 / 6 + 2.8625 / 3) / 2, 12);
    expect(r.baselinePreset).toBe('upper-median');
  });
});

describe('levels without a baseline, official metadata, errors', () => {
  const few = computeBaselines([
    { participant: 'p1', game: 'tri', levels: done(3, 9, 5) },
    { participant: 'p2', game: 'tri', levels: [...done(4, 10), { completed: false, actions: 9 }] },
  ]);

  it('leaves out a level with too few completers, and says so in the headline', () => {
    const r = scoreRuns([runA], few, 'paper');
    // Level 3 has one completer: no second-best. (1*(4/8)^2 + 2*1) / (1 + 2) = 0.75.
    expect(r.games[0].runs[0].levels[2]).toMatchObject({
      score: null,
      human: { value: null, completers: 1, reason: 'needs 2 completers, has 1' },
    });
    expect(r.total).toBeCloseTo(0.75, 12);
    expect(r.complete).toBe(false);
    expect(r.games[0]).toMatchObject({ coveredLevels: 2, levelCount: 3 });
    expect(r.warnings).toEqual(['tri: baselines cover levels 1-2 of 3 only; level 3 is left out of its score.']);
    expect(rhaeHeadline(r)).toEqual([
      'Total RHAE 0.7500 over 1 game (preset paper v2): NOT a score over every level, the baselines do not cover them all:',
      '- tri: baselines cover levels 1-2 of 3 only; level 3 is left out of its score.',
    ]);
  });

  it('toolkit: scores 0 a run that completed more levels than the baselines list (official "size mismatch")', () => {
    // Upper-median baselines from two players: level 1 [3, 4] -> 4, level 2 [9, 10] -> 10, level 3 [5] -> 5.
    const r = scoreRuns([runFast], few, 'toolkit-2026-04');
    expect(r.total).toBeCloseTo(1, 12);
    const short = parseBaselines('{"game_id": "tri", "baseline_actions": [4, 10]}');
    const s = scoreRuns([runA, runFast], short, 'toolkit-2026-04');
    // runA completed 2 levels, the list has 2: (min(1.15, (4/8)^2) + 2*min(1.15, 1)) / 3 = 2.25 / 3; runFast completed 3: 0.
    expect(s.games[0].runs.map((x) => x.score)).toEqual([0.75, 0]);
    expect(s.games[0].runs[1].zeroBecause).toBe(
      'it completed 3 levels and the baselines list 2 (the official scorer\'s "size mismatch")',
    );
    expect(s.total).toBeCloseTo(0.75, 12);
    expect(s.notes).toEqual([
      'fast#1 scores 0: it completed 3 levels and the baselines list 2 (the official scorer\'s "size mismatch").',
    ]);
    expect(s.warnings).toEqual([
      'tri: baselines cover levels 1-2 of 3 only; level 3 is left out of its score, and a run that completed more than 2 levels scores 0 (official rule).',
    ]);
    // The paper preset has no such rule: level 3 is left out.
    expect(scoreRuns([runFast], short, 'paper').total).toBe(1);
  });

  it('scores 0 a level completed with 0 actions, and leaves it out of the cap', () => {
    const meta = parseBaselines('{"game_id": "tri", "baseline_actions": [2, 2, 2]}');
    const run: AgentRun = { game: 'tri', label: 'z#1', levelActions: [0, 1, 0], levelsCompleted: 2, winLevels: 3 };
    const t = scoreRuns([run], meta, 'toolkit-2026-04');
    // Level scores 0, 1.15, 0: mean 2.3 / 6; the cap counts level 2 only: 2 / 6.
    expect(t.games[0].runs[0].levels.map((l) => l.score)).toEqual([0, 1.15, 0]);
    expect(t.games[0].runs[0].completedShare).toBeCloseTo(2 / 6, 12);
    expect(t.total).toBeCloseTo(2 / 6, 12);
    expect(scoreRuns([run], meta, 'paper').total).toBeCloseTo(2 / 6, 12);
  });

  it('scores against an official metadata.json, whatever the preset', () => {
    const meta = parseBaselines('{"game_id": "tri", "baseline_actions": [4, 10, 6]}');
    expect(scoreRuns([runA], meta, 'paper').total).toBeCloseTo(0.375, 12);
    const t = scoreRuns([runA], meta, 'toolkit-2026-04');
    // (1*0.25 + 2*1 + 0) / 6 = 0.375, under the cap 0.5.
    expect(t.total).toBeCloseTo(0.375, 12);
    expect(t.games[0].runs[0].levels[0].human).toMatchObject({ preset: 'metadata', value: 4, completers: null });
    expect(t.games[0].participants).toBeNull();
  });

  it('scores 0 a game the baselines do not hold, counts it in the total and says so; refuses an empty list', () => {
    const r = scoreRuns([runTwo, { ...runA, game: 'tri-1234', label: 'x.jsonl#1' }], baselines, 'toolkit-2026-04');
    expect(r.games.map((g) => [g.game, g.hasBaselines, g.score])).toEqual([
      ['two', true, 2.8625 / 3],
      ['tri-1234', false, 0],
    ]);
    expect(r.total).toBeCloseTo(2.8625 / 6, 12);
    expect(r.complete).toBe(false);
    expect(r.warnings).toEqual([
      'tri-1234: the baselines have no game with this id (they have tri: another version of it, and baselines differ between versions, so they are not used); it scores 0 and counts in the total, as in the official scorer. Give baselines for tri-1234.',
    ]);
    expect(r.games[1].runs[0].zeroBecause).toBe('the baselines have no game "tri-1234"');
    expect(() => scoreRuns([], baselines, 'paper')).toThrow(
      new ScoringError('no run to score: give at least one recording with an action in it.'),
    );
  });

  it('paper counts the first run that took an action', () => {
    const empty: AgentRun = { game: 'tri', label: 'e#1', levelActions: [0], levelsCompleted: 0, winLevels: 3 };
    const r = scoreRuns([empty, runA, runB], baselines, 'paper');
    expect(r.games[0].counted).toBe(1);
    expect(r.total).toBeCloseTo(0.375, 12);
  });

  it('names its presets with versions and descriptions', () => {
    expect(Object.keys(SCORING_PRESETS)).toEqual(['paper', 'toolkit-2026-04']);
    expect(SCORING_PRESETS.paper).toMatchObject({
      version: 2,
      baseline: 'second-best',
      run: 'first',
      capByCompleted: false,
      sizeMismatchZero: false,
    });
    expect(SCORING_PRESETS['toolkit-2026-04']).toMatchObject({
      version: 2,
      baseline: 'upper-median',
      run: 'best',
      capByCompleted: true,
      sizeMismatchZero: true,
    });
  });
});
