import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../formats/recording';
import { isoToEpochMs, readReferenceRecording, referenceLevels } from './reference';

/** A recording line as the toolkit writes it (frames left out, as with `include_frame_data=False`). */
const line = (at: string, id: string, state: string, levels: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    timestamp: `2026-05-03T14:30:${at}+00:00`,
    data: {
      game_id: 'zz00-0123abcd',
      state,
      levels_completed: levels,
      win_levels: 3,
      action_input: { id, data: {}, reasoning: null },
      guid: 'g-1',
      full_reset: false,
      available_actions: [1, 2],
      ...extra,
    },
  });

describe('isoToEpochMs', () => {
  it('reads the times Python writes, to the microsecond, with offsets', () => {
    expect(isoToEpochMs('1970-01-01T00:00:01.500000+00:00')).toBe(1500);
    expect(isoToEpochMs('2026-05-03T14:30:22.123456+00:00')).toBeCloseTo(
      Date.UTC(2026, 4, 3, 14, 30, 22, 123) + 0.456,
      3,
    );
    // The inverse of the writer's own timestamps, over centuries and leap days.
    for (const ms of [0, 951_782_400_000.5, 1_777_818_622_123.25, 4_107_542_400_000, -86_400_000])
      expect(isoToEpochMs(isoTimestamp(ms))).toBeCloseTo(ms, 3);
    expect(isoToEpochMs('2024-02-29T23:00:00+01:00')).toBe(Date.UTC(2024, 1, 29, 22));
    expect(isoToEpochMs('2026-05-03T14:30:22Z')).toBe(Date.UTC(2026, 4, 3, 14, 30, 22));
    expect(isoToEpochMs('yesterday')).toBeNull();
    expect(isoToEpochMs('2026-13-03T14:30:22Z')).toBeNull();
  });
});

describe('readReferenceRecording', () => {
  it("gives the first play's levels with the scorer's counts and the time each level took", () => {
    const read = readReferenceRecording('a.recording.jsonl', [
      line('00.000000', 'RESET', 'NOT_FINISHED', 0),
      line('01.000000', 'ACTION1', 'NOT_FINISHED', 0),
      line('02.500000', 'ACTION2', 'NOT_FINISHED', 1),
      line('03.000000', 'ACTION1', 'NOT_FINISHED', 1),
      line('04.000000', 'RESET', 'NOT_FINISHED', 1),
      line('06.000000', 'ACTION1', 'NOT_FINISHED', 2),
      line('07.000000', 'ACTION1', 'GAME_OVER', 2),
      line('08.000000', 'ACTION1', 'GAME_OVER', 2, { frame: [] }),
      '',
    ]);
    if (!('recording' in read)) throw new Error(JSON.stringify(read.problems));
    const r = read.recording;
    expect(r).toMatchObject({
      gameId: 'zz00-0123abcd',
      guid: 'g-1',
      plays: 1,
      actions: 6,
      state: 'GAME_OVER',
      winLevels: 3,
    });
    // Level 2: an action, a level RESET and the completing action; level 3: the action that lost it.
    expect(r.levels).toEqual([
      { completed: true, actions: 2, timeMs: 2500 },
      { completed: true, actions: 3, timeMs: 3500 },
      { completed: false, actions: 1, timeMs: null },
    ]);
    expect(r.steps.map((s) => s.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('names every bad line and keeps nothing of the file', () => {
    const read = readReferenceRecording('b.recording.jsonl', [
      line('00.000000', 'RESET', 'NOT_FINISHED', 0),
      '{"timestamp": "2026-05-03T14:30:01+00:00", "data": {"game_id": "zz00-0123abcd", "sta',
      line('02.000000', 'ACTION9', 'NOT_FINISHED', 0),
      line('03.000000', 'ACTION6', 'NOT_FINISHED', 0),
      line('04.000000', 'ACTION1', 'WON', 0),
      line('05.000000', 'ACTION1', 'NOT_FINISHED', 0, { game_id: 'zz01-0123abcd' }),
      line('06.000000', 'ACTION1', 'NOT_FINISHED', 0, { guid: 'g-2' }),
      line('07.000000', 'ACTION1', 'NOT_FINISHED', 0, { frame: [[[0, 16]]] }),
      JSON.stringify({ timestamp: 'noon', data: {} }),
      line('08.000000', 'ACTION1', 'NOT_FINISHED', 0, { guid: 'g-1\u0000' }),
    ]);
    if (!('problems' in read)) throw new Error('a file with bad lines was read');
    expect(read.problems.map((p) => p.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(read.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^not JSON/),
      expect.stringContaining('"ACTION9" is not an action'),
      expect.stringContaining('ACTION6 needs'),
      expect.stringContaining('"WON" is not one of'),
      expect.stringContaining('a file holds one run of one game'),
      expect.stringContaining('a file holds one game session'),
      expect.stringContaining('holds 16, not a colour 0-15'),
      expect.stringContaining('"noon" is not an ISO-8601 time'),
      expect.stringContaining('data.guid holds a NUL character'),
    ]);
    expect(read.problems.every((p) => p.file === 'b.recording.jsonl')).toBe(true);
  });

  it('refuses a file that does not start with a RESET, and an empty file', () => {
    const notReset = readReferenceRecording('c', [line('00.000000', 'ACTION1', 'NOT_FINISHED', 0)]);
    expect('problems' in notReset && notReset.problems[0]).toMatchObject({
      line: 1,
      message: expect.stringContaining('not the RESET'),
    });
    const empty = readReferenceRecording('d', ['', '']);
    expect('problems' in empty && empty.problems).toEqual([
      { file: 'd', line: 0, message: 'the file has no recording lines' },
    ]);
  });
});

describe('referenceLevels', () => {
  it('counts who reached and completed each level, with baselines from the completers only', () => {
    const rows = referenceLevels(
      [
        [
          { completed: true, actions: 4, timeMs: 1000 },
          { completed: false, actions: 9, timeMs: null },
        ],
        [{ completed: true, actions: 8, timeMs: 3000 }],
        [{ completed: false, actions: 2, timeMs: null }],
      ],
      3,
    );
    expect(rows.map((r) => [r.level, r.reached, r.completed])).toEqual([
      [1, 3, 2],
      [2, 1, 0],
      [3, 0, 0],
    ]);
    expect(rows[0].actions.values).toEqual([4, 8]);
    expect(rows[0].timeMs.median).toBe(2000);
    expect(rows[0].baselines['second-best']).toMatchObject({ value: 8, completers: 2 });
    expect(rows[1].baselines.best).toMatchObject({ value: null, reason: 'needs 1 completer, has 0' });
  });
});
