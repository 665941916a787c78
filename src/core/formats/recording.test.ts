import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../log/events';
import {
  actionCounts,
  createRun,
  gameActionData,
  hashFrame,
  parseActions,
  renderRun,
  step,
  type ActionInput,
  type Run,
} from '../game';
import { games, solutions } from '../../games';
import { computeBaselines, parseBaselines } from '../scoring/baselines';
import { scoreRuns } from '../scoring/rhae';
import {
  RecordingError,
  frameToGrid,
  isoTimestamp,
  readRecording,
  readRecordingLines,
  recordingAgentRuns,
  splitGameRuns,
  toRecording,
  type RecordingLine,
} from './recording';

/** Plays `inputs` on the engine and logs them as a client does (one action every 250.5 ms). */
function play(game: string, inputs: readonly ActionInput[], seed = 0): { events: LogEvent[]; run: Run<unknown> } {
  let run: Run<unknown> = createRun(games[game], { seed });
  const events: LogEvent[] = [{ seq: 0, t: 12.25, kind: 'game.open', data: { game, seed } }];
  for (const input of inputs) {
    const r = step(run, input);
    run = r.run;
    events.push({
      seq: events.length,
      t: 12.25 + events.length * 250.5,
      kind: 'game.action',
      data: { ...gameActionData(game, input, r.response) },
    });
  }
  return { events, run };
}

const START = Date.UTC(2026, 4, 3, 14, 30, 22, 123);
const options = { guid: 'run-0001', startTime: START };

describe('isoTimestamp', () => {
  it('writes ISO-8601 UTC to the microsecond, as Date does to the millisecond', () => {
    expect(isoTimestamp(0)).toBe('1970-01-01T00:00:00.000000+00:00');
    expect(isoTimestamp(START + 12.25)).toBe('2026-05-03T14:30:22.135250+00:00');
    // Leap days, year ends, and a spread of instants from 1970 to 2100.
    const instants = [
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
    ];
    for (let k = 0; k < 200; k++) instants.push(Math.floor(k * 20_741_234_567.891));
    for (const ms of instants) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString().replace('Z', '000+00:00'));
  });
});

describe('frameToGrid', () => {
  it('gives rows (y) of columns (x)', () => {
    const frame = new Uint8Array(4096);
    frame[5 * 64 + 9] = 14;
    const grid = frameToGrid(frame);
    expect(grid).toHaveLength(64);
    expect(grid.every((row) => row.length === 64)).toBe(true);
    expect(grid[5][9]).toBe(14);
    expect(grid[9][5]).toBe(0);
  });
});

describe('toRecording', () => {
  // Push level 1 by its solution; in level 2 a move, an undo and a level RESET.
  const inputs = parseActions(`RESET,${solutions.push[0]},ACTION1,ACTION7,RESET,ACTION2`);
  const { events, run } = play('push', inputs);

  it('writes one official line per action, the first RESET included, with the real frames', () => {
    const lines = [...toRecording(games.push, 0, events, options)];
    expect(lines).toHaveLength(inputs.length);
    const parsed = lines.map((l) => JSON.parse(l) as RecordingLine);
    expect(Object.keys(parsed[0])).toEqual(['timestamp', 'data']);
    expect(Object.keys(parsed[0].data)).toEqual([
      'game_id',
      'frame',
      'state',
      'levels_completed',
      'win_levels',
      'action_input',
      'guid',
      'full_reset',
      'available_actions',
    ]);
    expect(parsed[0]).toMatchObject({
      timestamp: '2026-05-03T14:30:22.385750+00:00',
      data: {
        game_id: 'push',
        state: 'NOT_FINISHED',
        levels_completed: 0,
        win_levels: 6,
        action_input: { id: 0, data: {} },
        guid: 'run-0001',
        full_reset: true,
        available_actions: [1, 2, 3, 4, 5, 7],
      },
    });
    expect(parsed.map((p) => p.data.action_input.id)).toEqual([0, 4, 4, 4, 4, 1, 7, 0, 2]);
    expect(parsed.map((p) => p.data.full_reset)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(parsed[4].data.levels_completed).toBe(1);
    // Each frame is 64 rows of 64 palette values; the settled one is the engine's.
    const last = parsed[parsed.length - 1].data.frame;
    expect(last[last.length - 1]).toEqual(frameToGrid(renderRun(run)));
    // Every settled frame hashes to what the player's browser logged.
    parsed.forEach((p, i) =>
      expect(hashFrame(Uint8Array.from(p.data.frame[p.data.frame.length - 1].flat()))).toBe(
        events[i + 1].data.frameHash,
      ),
    );
    for (const p of parsed)
      for (const f of p.data.frame)
        expect(f.length === 64 && f.every((r) => r.length === 64 && r.every((v) => v >= 0 && v <= 15))).toBe(true);
  });

  it('is a generator: it yields a line before reading further', () => {
    const gen = toRecording(games.push, 0, events, options);
    const first = gen.next();
    expect(first.done).toBe(false);
    expect(JSON.parse(first.value as string).data.action_input.id).toBe(0);
  });

  it('gives the same lines from steps as from the log', () => {
    const steps = events.slice(1).map((e, i) => ({ input: inputs[i], t: e.t }));
    expect([...toRecording(games.push, 0, steps, options)]).toEqual([...toRecording(games.push, 0, events, options)]);
  });

  it('reads back into the same action sequence, per-level counts and score', () => {
    const text = [...toRecording(games.push, 0, events, options)].join('\n') + '\n';
    const read = readRecording(text);
    expect(read.skipped).toEqual([]);
    expect(read.steps.map((s) => s.input)).toEqual(inputs);
    expect(read.runs).toHaveLength(1);
    const r = read.runs[0];
    expect(r.actions).toEqual(inputs);
    expect(r.levelActions).toEqual(actionCounts(run));
    expect(r.levelActions).toEqual([4, 4]);
    expect(r).toMatchObject({
      gameId: 'push',
      guid: 'run-0001',
      levelsCompleted: 1,
      winLevels: 6,
      state: 'NOT_FINISHED',
      actionCount: run.actions,
    });
    // Humans: level 1 in 4, 6, 8 actions (second-best 6, upper-median 6); level 2 in 20, 30.
    const base = computeBaselines([
      {
        participant: 'a',
        game: 'push',
        levels: [
          { completed: true, actions: 4 },
          { completed: true, actions: 20 },
        ],
      },
      {
        participant: 'b',
        game: 'push',
        levels: [
          { completed: true, actions: 6 },
          { completed: true, actions: 30 },
        ],
      },
      {
        participant: 'c',
        game: 'push',
        levels: [
          { completed: true, actions: 8 },
          { completed: false, actions: 9 },
        ],
      },
    ]);
    const agentRuns = recordingAgentRuns(read, 'push.recording.jsonl');
    expect(agentRuns).toEqual([
      { game: 'push', label: 'push.recording.jsonl#1', levelActions: [4, 4], levelsCompleted: 1, winLevels: 6 },
    ]);
    // Levels 3-6 have no human baseline and are left out: paper (1*min(1, 6/4)^2 + 2*0) / 3.
    expect(scoreRuns(agentRuns, base, 'paper').total).toBeCloseTo(1 / 3, 12);
    // Toolkit: level 1 min(1.15, (6/4)^2) = 1.15, level 2 0: 1.15/3 capped at 1/3.
    expect(scoreRuns(agentRuns, base, 'toolkit-2026-04').total).toBeCloseTo(1 / 3, 12);
  });

  it('records clicks with their coordinates and reads them back, ids as numbers or names', () => {
    const clicks = parseActions(`RESET,${solutions.glow[0]},${solutions.glow[1]}`);
    const { events: log, run: glowRun } = play('glow', clicks, 3);
    const lines = [...toRecording(games.glow, 3, log, options)];
    expect(JSON.parse(lines[1]).data.action_input).toEqual({ id: 6, data: { x: 32, y: 35 } });
    const named = lines.map((l) => {
      const j = JSON.parse(l);
      j.data.action_input.id = ['RESET', 'ACTION1', 'ACTION2', 'ACTION3', 'ACTION4', 'ACTION5', 'ACTION6', 'ACTION7'][
        j.data.action_input.id
      ];
      j.data.action_input.reasoning = null;
      return JSON.stringify(j);
    });
    for (const text of [lines, named]) {
      const read = readRecordingLines(text);
      expect(read.steps.map((s) => s.input)).toEqual(clicks);
      expect(read.runs[0].levelActions).toEqual(actionCounts(glowRun));
      expect(read.runs[0].levelsCompleted).toBe(2);
    }
  });

  it('refuses a log that does not replay, or one opened with another seed', () => {
    const tampered = events.map((e) => (e.seq === 3 ? { ...e, data: { ...e.data, frameHash: '00000000' } } : e));
    expect(() => [...toRecording(games.push, 0, tampered, options)]).toThrow(RecordingError);
    expect(() => [...toRecording(games.push, 0, tampered, options)]).toThrow(
      /does not replay \(1 problem: event 3: logged frame 00000000/,
    );
    expect(() => [...toRecording(games.push, 5, events, options)]).toThrow(/opens "push" with seed 0, not 5/);
    expect(() => [...toRecording(games.push, 0, [{ input: { action: 'ACTION1' }, t: 0 }], options)]).toThrow(
      /step 1 \(ACTION1\) is refused by the rules, NOT_STARTED/,
    );
  });

  it('splits a log into one list per game.open', () => {
    const again = play('push', parseActions('RESET,ACTION4')).events;
    const runs = splitGameRuns(
      [...events, { seq: 99, t: 1, kind: 'item.start', data: { item: 'x' } }, ...again],
      'push',
    );
    expect(runs.map((r) => r.length)).toEqual([events.length, again.length]);
    expect(splitGameRuns(events, 'glow')).toEqual([]);
  });
});

describe('readRecording', () => {
  const frame = (id: number | string, levels: number, state: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      timestamp: '2026-01-01T00:00:00+00:00',
      data: {
        game_id: 'ls20-abc',
        frame: [[[0]]],
        state,
        levels_completed: levels,
        win_levels: 3,
        action_input: { id, data: {}, reasoning: null },
        guid: 'g1',
        available_actions: [1, 2],
        ...extra,
      },
    });

  it('skips lines that are not frames and says why', () => {
    const text = [
      frame(0, 0, 'NOT_FINISHED', { full_reset: true }),
      '{"timestamp": "2026-01-01T00:00:01+00:00", "data": {"usage": {"input_tokens": 100, "output_tokens": 20}}}',
      frame('ACTION1', 0, 'NOT_FINISHED'),
      '',
      'garbage',
      '{"card_id": "c1", "score": 0, "won": 0}',
      frame(9, 0, 'NOT_FINISHED'),
      frame('ACTION2', 1, 'NOT_FINISHED'),
    ].join('\r\n');
    const read = readRecording(text);
    expect(read.skipped).toEqual([
      { line: 2, reason: 'not a frame (no data.action_input, state or levels_completed)' },
      { line: 5, reason: 'not JSON' },
      { line: 6, reason: 'not a frame (no data.action_input, state or levels_completed)' },
      { line: 7, reason: 'unknown action id 9' },
    ]);
    expect(read.steps.map((s) => [s.line, s.input.action])).toEqual([
      [1, 'RESET'],
      [3, 'ACTION1'],
      [8, 'ACTION2'],
    ]);
    expect(read.runs).toEqual([
      expect.objectContaining({
        gameId: 'ls20-abc',
        firstLine: 1,
        lastLine: 8,
        levelActions: [2, 0],
        levelsCompleted: 1,
        actionCount: 2,
      }),
    ]);
  });

  it('splits runs at full resets by the engine rule, whatever full_reset says, and keeps sessions apart', () => {
    const lines = [
      frame('RESET', 0, 'NOT_FINISHED'), // no full_reset field: the first RESET starts a run
      frame('ACTION1', 0, 'NOT_FINISHED'),
      frame('RESET', 0, 'NOT_FINISHED', { full_reset: false }), // a level reset: counts one
      frame('ACTION1', 1, 'NOT_FINISHED'),
      frame('RESET', 0, 'NOT_FINISHED', { full_reset: false }), // nothing done in level 2 yet: a full reset, as REST clients never say
      frame('ACTION1', 0, 'NOT_FINISHED'),
      frame('RESET', 0, 'NOT_FINISHED', { full_reset: true }), // stated full reset
      frame('ACTION1', 1, 'NOT_FINISHED'),
      frame('ACTION1', 1, 'NOT_FINISHED', { guid: 'g2' }), // a session with no RESET: counts in the latest play of the game
      frame('RESET', 0, 'NOT_FINISHED', { guid: 'g3', full_reset: false }), // a new session's first RESET
      frame('ACTION1', 0, 'NOT_FINISHED', { guid: 'g3' }),
    ];
    const read = readRecordingLines(lines);
    expect(
      read.runs.map((r) => [r.firstLine, r.guid, r.levelActions, r.levelsCompleted, r.actionCount, r.resets]),
    ).toEqual([
      [1, 'g1', [3, 0], 1, 3, 1],
      [5, 'g1', [1], 0, 1, 0],
      [7, 'g1', [1, 1], 1, 2, 0],
      [10, 'g3', [1], 0, 1, 0],
    ]);
    expect(read.fullResetsInferred).toEqual([5, 10]);
    expect(read.unscored).toEqual([]);
  });

  it('does not score an empty frame, an action after GAME_OVER or WIN, or a line before any RESET', () => {
    const lines = [
      frame('ACTION1', 0, 'NOT_FINISHED'), // before any RESET of the game
      frame('RESET', 0, 'NOT_FINISHED', { full_reset: true }),
      frame('ACTION1', 1, 'NOT_FINISHED'),
      frame('ACTION1', 1, 'GAME_OVER'),
      frame('ACTION1', 0, 'GAME_OVER', { frame: [], win_levels: 0 }), // the engine's answer after GAME_OVER
      frame('ACTION2', 0, 'GAME_OVER', { frame: undefined }), // a recording without frames: the engine's rule
      frame('RESET', 1, 'NOT_FINISHED', { full_reset: false }), // a level reset after GAME_OVER
      frame('ACTION1', 2, 'NOT_FINISHED'),
      frame('ACTION1', 3, 'WIN'),
      frame('ACTION1', 0, 'WIN', { frame: [], win_levels: 0 }),
    ];
    const read = readRecordingLines(lines);
    expect(read.unscored).toEqual([
      { line: 1, reason: 'before-reset' },
      { line: 5, reason: 'empty-frame' },
      { line: 6, reason: 'after-game-over' },
      { line: 10, reason: 'empty-frame' },
    ]);
    expect(read.runs).toHaveLength(1);
    // Level 1: 1 action; level 2: 1, the level reset and 1; level 3: 1. Ended in WIN: no open level.
    expect(read.runs[0]).toMatchObject({
      levelActions: [1, 3, 1],
      levelsCompleted: 3,
      actionCount: 5,
      resets: 1,
      state: 'WIN',
      winLevels: 3,
    });
  });

  it('splits levels at each change of levels_completed, as the official scoring does', () => {
    const lines = [
      frame('RESET', 0, 'NOT_FINISHED', { full_reset: true }),
      frame('ACTION1', 2, 'NOT_FINISHED'), // two levels at once: one change
      frame('ACTION1', 2, 'NOT_FINISHED'),
      frame('RESET', 1, 'NOT_FINISHED', { guid: 'g2', full_reset: true }), // a full RESET that says 1 level: a change at 0 actions
      frame('ACTION1', 2, 'NOT_FINISHED', { guid: 'g2' }),
    ];
    const read = readRecordingLines(lines);
    expect(read.runs.map((r) => [r.levelChanges, r.levelActions, r.levelsCompleted])).toEqual([
      [[{ levelsCompleted: 2, actions: 1 }], [1, 1], 1],
      [
        [
          { levelsCompleted: 1, actions: 0 },
          { levelsCompleted: 2, actions: 1 },
        ],
        [0, 1, 0],
        2,
      ],
    ]);
  });

  it('scores official-style recordings against an official metadata.json', () => {
    const lines = [
      frame('RESET', 0, 'NOT_FINISHED', { full_reset: true }),
      ...Array.from({ length: 7 }, () => frame('ACTION1', 0, 'NOT_FINISHED')),
      frame('ACTION1', 1, 'NOT_FINISHED'),
      ...Array.from({ length: 9 }, () => frame('ACTION1', 1, 'NOT_FINISHED')),
      frame('ACTION1', 2, 'NOT_FINISHED'),
      frame('ACTION1', 2, 'GAME_OVER'),
    ];
    const read = readRecordingLines(lines);
    expect(read.runs[0].levelActions).toEqual([8, 10, 1]);
    const meta = parseBaselines('{"game_id": "ls20-abc", "baseline_actions": [4, 10, 6]}');
    // The 3-level example: 0.25, 1, 0 -> 0.375.
    expect(scoreRuns(recordingAgentRuns(read, 'ls20.jsonl'), meta, 'paper').total).toBeCloseTo(0.375, 12);
    // Another version's metadata is not used: the game scores 0 and the headline says why.
    const other = scoreRuns(
      recordingAgentRuns(read, 'ls20.jsonl'),
      parseBaselines('{"game_id": "ls20", "baseline_actions": [4, 10, 6]}'),
      'toolkit-2026-04',
    );
    expect(other.total).toBe(0);
    expect(other.complete).toBe(false);
    expect(other.warnings[0]).toMatch(
      /^ls20-abc: the baselines have no game with this id \(they have ls20: another version of it/,
    );
  });
});
