import { describe, expect, it } from 'vitest';
import { activeTime, breaksWithin, presenceSpans, untilItemEnd, type TimedEvent } from './activeTime';

const ev = (t: number, kind: string, data: Record<string, unknown> = {}): TimedEvent => ({ t, kind, data });
const hidden = (t: number) => ev(t, 'visibility', { state: 'hidden' });
const visible = (t: number) => ev(t, 'visibility', { state: 'visible' });
const idle = (t: number) => ev(t, 'idle', { state: 'idle', ms: 120_000 });
const back = (t: number) => ev(t, 'idle', { state: 'active' });

describe('time on task', () => {
  it('is zero for no events and the span for events without presence', () => {
    expect(activeTime([])).toEqual({ spanMs: 0, hiddenMs: 0, idleMs: 0, pausedMs: 0, activeMs: 0 });
    expect(activeTime([ev(500, 'item.start'), ev(800, 'paint'), ev(2_500, 'submit')])).toEqual({
      spanMs: 2_000,
      hiddenMs: 0,
      idleMs: 0,
      pausedMs: 0,
      activeMs: 2_000,
    });
  });

  it('takes out each hidden interval, and a span still hidden at its end up to the last event', () => {
    // 0 -> 10 000; hidden 1 000 -> 4 000 (3 000) and 6 000 -> 6 500 (500); hidden again from 9 000 to the end (1 000).
    const evs = [
      ev(0, 'item.start'),
      hidden(1_000),
      visible(4_000),
      ev(5_000, 'paint'),
      hidden(6_000),
      visible(6_500),
      hidden(9_000),
      ev(10_000, 'item.end'),
    ];
    expect(activeTime(evs)).toEqual({ spanMs: 10_000, hiddenMs: 4_500, idleMs: 0, pausedMs: 0, activeMs: 5_500 });
  });

  it('takes out idle time from the idle event to the return, however the return shows', () => {
    // Idle 2 000 -> 5 000 ended by `idle active` (3 000); idle 7 000 -> 7 400 ended by a paint (400);
    // idle 8 000 -> 9 000 ended by a reload's session.resume (1 000). Blur and heartbeat do not end it.
    const evs = [
      ev(0, 'item.start'),
      idle(2_000),
      ev(2_500, 'blur'),
      ev(3_000, 'heartbeat'),
      back(5_000),
      ev(6_000, 'paint'),
      idle(7_000),
      ev(7_400, 'paint'),
      idle(8_000),
      ev(9_000, 'session.resume'),
      ev(10_000, 'paint'),
    ];
    expect(activeTime(evs)).toEqual({ spanMs: 10_000, hiddenMs: 0, idleMs: 4_400, pausedMs: 0, activeMs: 5_600 });
  });

  it('counts time both idle and hidden once, as hidden', () => {
    // Idle from 1 000, hidden 3 000 -> 6 000, back at 6 000 (visible ends idleness too).
    // Hidden: 3 000. Idle while visible: 1 000 -> 3 000 = 2 000. Active: 1 000 + 4 000 = 5 000.
    const evs = [
      ev(0, 'item.start'),
      idle(1_000),
      hidden(3_000),
      ev(4_000, 'blur'),
      visible(6_000),
      ev(10_000, 'paint'),
    ];
    expect(activeTime(evs)).toEqual({ spanMs: 10_000, hiddenMs: 3_000, idleMs: 2_000, pausedMs: 0, activeMs: 5_000 });
  });

  it('ignores repeated states and a visible tab that was never hidden', () => {
    const evs = [
      ev(0, 'item.start'),
      visible(100),
      hidden(1_000),
      hidden(2_000),
      visible(3_000),
      visible(3_500),
      back(3_600),
      ev(4_000, 'paint'),
    ];
    expect(activeTime(evs)).toMatchObject({ hiddenMs: 2_000, idleMs: 0, pausedMs: 0, activeMs: 2_000 });
  });

  it('never goes negative on out-of-order times', () => {
    expect(activeTime([ev(1_000, 'item.start'), hidden(900), ev(800, 'paint')])).toEqual({
      spanMs: 0,
      hiddenMs: 0,
      idleMs: 0,
      pausedMs: 0,
      activeMs: 0,
    });
  });

  it('covers an item up to its first item.end', () => {
    const evs = [
      ev(0, 'item.start', { item: 'a' }),
      ev(1_000, 'paint'),
      ev(2_000, 'item.end', { item: 'a' }),
      ev(9_000, 'visibility', { state: 'hidden' }),
    ];
    expect(untilItemEnd(evs, 'a')).toHaveLength(3);
    expect(untilItemEnd(evs, 'b')).toHaveLength(4);
    expect(activeTime(untilItemEnd(evs, 'a')).activeMs).toBe(2_000);
  });
});

describe('presence spans', () => {
  it('names each hidden and idle stretch by the events that begin and end it, and they sum to time on task', () => {
    // Idle 1 000 -> 3 000 (then hidden, which wins) 3 000 -> 6 000; idle again 7 000 -> 7 400, ended by a paint.
    const evs = [
      ev(0, 'item.start'),
      idle(1_000),
      hidden(3_000),
      ev(4_000, 'blur'),
      visible(6_000),
      idle(7_000),
      ev(7_400, 'paint'),
      hidden(9_000),
      ev(10_000, 'item.end'),
    ];
    expect(presenceSpans(evs)).toEqual([
      { kind: 'idle', from: 1, to: 2, ms: 2_000 },
      { kind: 'hidden', from: 2, to: 4, ms: 3_000 },
      { kind: 'idle', from: 5, to: 6, ms: 400 },
      { kind: 'hidden', from: 7, to: 8, ms: 1_000 },
    ]);
    const t = activeTime(evs);
    expect(t.hiddenMs).toBe(4_000);
    expect(t.idleMs).toBe(2_400);
  });
});

describe('breaksWithin', () => {
  const e = (t: number, state: string) => ({ t, kind: 'pause', data: { state } });
  it('counts the part of each break inside the window, an open one up to its end', () => {
    const evs = [e(10, 'paused'), e(20, 'resumed'), { t: 30, kind: 'paint', data: {} }, e(50, 'paused')];
    expect(breaksWithin(evs, 0, 60)).toBe(20);
    expect(breaksWithin(evs, 15, 55)).toBe(10);
    expect(breaksWithin(evs, 20, 50)).toBe(0);
    expect(breaksWithin([e(10, 'resumed'), e(20, 'paused'), e(25, 'paused'), e(40, 'resumed')], 0, 100)).toBe(20);
  });
});
