import { describe, expect, it } from 'vitest';
import { Timeline } from './timeline';
import type { LogEvent } from './events';
import { initialPlayer, reduce, replay, currentTest } from './gridPlayer';

const ev = (seq: number, kind: string, data: Record<string, unknown>): LogEvent => ({ seq, t: seq * 10, kind, data });

describe('Timeline', () => {
  const events: LogEvent[] = [ev(0, 'task.open', { taskId: 't', tests: 1 })];
  for (let i = 1; i < 500; i++) events.push(ev(i, 'paint', { row: i % 5, col: (i * 3) % 7, color: i % 10, stroke: i }));

  it('gives the same state as a replay from the start, at every position', () => {
    const tl = new Timeline(initialPlayer(), events, reduce, 16);
    for (const n of [0, 1, 15, 16, 17, 250, 499, 500]) {
      expect(currentTest(tl.at(n))?.output).toEqual(currentTest(replay(events.slice(0, n)))?.output);
    }
  });

  it('clamps positions outside the log', () => {
    const tl = new Timeline(initialPlayer(), events, reduce, 16);
    expect(tl.at(-5)).toBe(tl.at(0));
    expect(currentTest(tl.at(10_000))?.output).toEqual(currentTest(replay(events))?.output);
  });

  it('reduces at most `every - 1` events per seek', () => {
    let calls = 0;
    const counting = (s: number, e: LogEvent) => {
      calls++;
      return s + e.seq;
    };
    const tl = new Timeline(0, events, counting, 32);
    calls = 0;
    expect(tl.at(400)).toBe(events.slice(0, 400).reduce((a, e) => a + e.seq, 0));
    expect(calls).toBe(400 % 32);
  });
});
