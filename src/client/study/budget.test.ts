import { describe, expect, it } from 'vitest';
import { breaksOf, budgetLeft, sessionBudget } from './budget';

const view = (createdAt: number, now: number, sessionMinutes = 90) => ({
  session: { id: 's', studyId: 'x', studyVersion: 1, state: 'active', createdAt, ackedThrough: -1, now, stage: 'main' },
  study: {
    title: '',
    consent: '',
    instructions: '',
    trials: 3,
    limits: { itemSoftMinutes: 20, itemHardMinutes: 30, sessionMinutes },
    allowLevelReset: true,
    showActionCounter: true,
    showTimeLeft: false,
  },
  budget: {
    endsAt: createdAt + sessionMinutes * 60_000,
    minutesLeft: Math.max(0, (createdAt + sessionMinutes * 60_000 - now) / 60_000),
  },
});

describe('the session budget', () => {
  it('is what the server says is left, counted down on the outbox clock', () => {
    // 10 minutes spent by the server's clock; the page read it when its clock said 5 s.
    const b = sessionBudget(view(1_000_000, 1_000_000 + 600_000), 5_000);
    expect(b.totalMs).toBe(5_400_000);
    expect(budgetLeft(b, 5_000)).toBe(4_800_000);
    expect(budgetLeft(b, 65_000)).toBe(4_740_000);
  });

  it('never goes below zero, and a session read after its budget has none left', () => {
    const b = sessionBudget(view(0, 2 * 60 * 60_000), 0);
    expect(budgetLeft(b, 0)).toBe(0);
    expect(budgetLeft(sessionBudget(view(0, 0, 1), 0), 120_000)).toBe(0);
  });

  it('ignores a clock that reads earlier than when the view was read', () => {
    const b = sessionBudget(view(0, 0, 1), 10_000);
    expect(budgetLeft(b, 9_000)).toBe(60_000);
  });
});

describe('breaks', () => {
  it('read from the log, stop the budget while they last', () => {
    const breaks = breaksOf([
      { seq: 0, t: 1_000, kind: 'pause', data: { state: 'paused' } },
      { seq: 1, t: 2_000, kind: 'pause', data: { state: 'paused' } },
      { seq: 2, t: 61_000, kind: 'pause', data: { state: 'resumed' } },
      { seq: 3, t: 70_000, kind: 'pause', data: { state: 'paused' } },
    ]);
    expect(breaks).toEqual([
      { from: 1_000, to: 61_000 },
      { from: 70_000, to: null },
    ]);
    const b = { totalMs: 600_000, leftAtReadMs: 600_000, readAt: 0 };
    expect(budgetLeft(b, 70_000, breaks)).toBe(590_000);
    expect(budgetLeft(b, 500_000, breaks)).toBe(590_000);
    expect(budgetLeft(b, 500_000)).toBe(100_000);
  });
});
