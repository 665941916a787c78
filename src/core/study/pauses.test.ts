import { describe, expect, it } from 'vitest';
import { clockAt, isPaused, pausedTotal, pausedWithin } from './pauses';
import { effectiveState, isInFlight, sessionBudget, sessionProgress } from './rules';
import { activeTime } from './activeTime';
import { parseStudy } from './schema';

const MIN = 60_000;

describe('pausedWithin', () => {
  it('counts only the part of each break inside the window, an open one up to its end', () => {
    const pauses = [
      { from: 10, to: 20 },
      { from: 50, to: null },
    ];
    expect(pausedWithin(pauses, 0, 60)).toBe(20);
    expect(pausedWithin(pauses, 15, 55)).toBe(10);
    expect(pausedWithin(pauses, 20, 50)).toBe(0);
    expect(pausedWithin(undefined, 0, 60)).toBe(0);
    expect(pausedTotal(pauses, 100)).toBe(60);
    expect(clockAt(pauses, 0, 60)).toBe(40);
    expect(isPaused(pauses)).toBe(true);
    expect(isPaused([{ from: 1, to: 2 }])).toBe(false);
  });
});

describe('a break stops the session clocks', () => {
  const study = (() => {
    const r = parseStudy({
      id: 'b',
      title: 'Breaks',
      consent: 'ok',
      completion: { code: 'DONE' },
      items: [{ id: 'p', kind: 'page', markdown: 'hello' }],
      limits: { sessionMinutes: 60, abandonAfterMinutes: 10 },
    });
    if (!r.ok) throw new Error(JSON.stringify(r));
    return r.study;
  })();
  const t0 = 1_000_000;

  it('moves the budget end by the break, and a session past its hour only by its break is still open', () => {
    const pauses = [{ from: t0 + 10 * MIN, to: t0 + 30 * MIN }];
    expect(sessionBudget(study, t0, t0 + 70 * MIN, pauses)).toEqual({ endsAt: t0 + 80 * MIN, minutesLeft: 10 });
    const s = { state: 'active' as const, createdAt: t0, lastEventAt: t0 + 69 * MIN, pauses };
    expect(effectiveState(s, study, t0 + 70 * MIN)).toBe('active');
    expect(effectiveState({ ...s, pauses: undefined }, study, t0 + 70 * MIN)).toBe('timed_out');
    expect(effectiveState(s, study, t0 + 81 * MIN)).toBe('timed_out');
  });

  it('never abandons a paused session, and counts silence from the end of the break', () => {
    const open = {
      state: 'active' as const,
      createdAt: t0,
      lastEventAt: t0 + MIN,
      pauses: [{ from: t0 + 2 * MIN, to: null }],
    };
    expect(effectiveState(open, study, t0 + 40 * MIN)).toBe('active');
    const ended = { ...open, pauses: [{ from: t0 + 2 * MIN, to: t0 + 40 * MIN }] };
    expect(effectiveState(ended, study, t0 + 45 * MIN)).toBe('active');
    expect(effectiveState(ended, study, t0 + 51 * MIN)).toBe('abandoned');
  });

  it('keeps a session on a break in flight, and counts its silence from the break’s end', () => {
    const s = { state: 'active' as const, createdAt: t0, lastEventAt: t0 + MIN };
    expect(isInFlight({ ...s, pauses: [{ from: t0 + MIN, to: null }] }, study, t0 + 80 * MIN)).toBe(true);
    expect(isInFlight(s, study, t0 + 80 * MIN)).toBe(false);
    const resumed = { ...s, pauses: [{ from: t0 + MIN, to: t0 + 70 * MIN }] };
    expect(isInFlight(resumed, study, t0 + 75 * MIN)).toBe(true);
    expect(isInFlight(resumed, study, t0 + 81 * MIN)).toBe(false);
    expect(isInFlight({ ...s, state: 'finished' }, study, t0 + 2 * MIN)).toBe(false);
  });

  it('gives the progress the budget with its breaks', () => {
    const p = sessionProgress(study, [0], [], undefined, {
      createdAt: t0,
      now: t0 + 70 * MIN,
      pauses: [{ from: t0, to: t0 + 20 * MIN }],
    });
    expect(p.current).toBe(0);
  });
});

describe("an item's duration leaves a break out", () => {
  it('takes the break within the item out of its duration, as out of its time on task', () => {
    const r = parseStudy({
      title: 'Breaks',
      consent: 'ok',
      completion: { code: 'X' },
      items: [{ kind: 'task', id: 'a', collection: 'c', task: 't' }],
    });
    if (!r.ok) throw new Error(r.problems.join('\n'));
    const t0 = Date.UTC(2026, 0, 1);
    const e = (seq: number, t: number, kind: string, data: Record<string, unknown> = {}) => ({
      seq,
      t,
      kind,
      data,
      receivedAt: t0 + t,
    });
    const log = [
      e(0, 0, 'item.start', { item: 'a' }),
      e(1, 10_000, 'paint', {}),
      e(2, 20_000, 'pause', { state: 'paused' }),
      e(3, 20_000 + 5 * MIN, 'pause', { state: 'resumed' }),
      e(4, 30_000 + 5 * MIN, 'item.end', { item: 'a' }),
    ];
    const [item] = sessionProgress(r.study, [0], log).items;
    expect([item.durationMs, item.activeMs]).toEqual([30_000, 30_000]);
    // Without the break's events the same span is five minutes longer.
    const [plain] = sessionProgress(r.study, [0], [log[0], log[1], log[4]]).items;
    expect(plain.durationMs).toBe(30_000 + 5 * MIN);
  });
});

describe('time on task leaves a break out', () => {
  it('counts a break apart from hidden and idle time, and it wins where they overlap', () => {
    const e = (t: number, kind: string, data: Record<string, unknown> = {}) => ({ t, kind, data });
    const time = activeTime([
      e(0, 'item.start', { item: 'a' }),
      e(1_000, 'pause', { state: 'paused' }),
      e(2_000, 'visibility', { state: 'hidden' }),
      e(5_000, 'visibility', { state: 'visible' }),
      e(61_000, 'pause', { state: 'resumed' }),
      e(62_000, 'visibility', { state: 'hidden' }),
      e(64_000, 'visibility', { state: 'visible' }),
      e(70_000, 'paint', {}),
    ]);
    expect(time).toEqual({ spanMs: 70_000, hiddenMs: 2_000, idleMs: 0, pausedMs: 60_000, activeMs: 8_000 });
  });
});
