import { describe, expect, it } from 'vitest';
import {
  initialRunState,
  onItems,
  runReducer,
  screenOf,
  skippedBehind,
  type RunState,
  type RunStep,
} from './runMachine';

const budget = { totalMs: 60_000, leftAtReadMs: 60_000, readAt: 0 };
const ITEMS = 3;
const play = (
  steps: RunStep[],
  from: RunState = initialRunState({ index: 0, instructionsDone: false, describing: null, budget }),
) => steps.reduce(runReducer, from);

describe('the study run machine', () => {
  it('goes from the instructions through the items to saving', () => {
    let s = initialRunState({ index: 0, instructionsDone: false, describing: null, budget });
    expect(screenOf(s, ITEMS)).toBe('instructions');
    s = runReducer(s, { type: 'begin' });
    expect(screenOf(s, ITEMS)).toBe('item');
    s = play([{ type: 'move_start' }], s);
    // The item that ended stays on screen under the veil until the next is known.
    expect([screenOf(s, ITEMS), s.moving]).toEqual(['item', true]);
    s = play(
      [{ type: 'moved', to: 1, budget: null }, { type: 'move_start' }, { type: 'moved', to: ITEMS, budget: null }],
      s,
    );
    expect([s.index, s.moving, screenOf(s, ITEMS), onItems(s, ITEMS)]).toEqual([ITEMS, false, 'saving', false]);
  });

  it('asks for the last description before moving on, and the move clears it', () => {
    const item = { id: 'task-1' };
    let s = play([{ type: 'begin' }, { type: 'describe', item }]);
    expect(screenOf(s, ITEMS)).toBe('describe');
    s = runReducer(s, { type: 'move_start' });
    expect([s.describing, screenOf(s, ITEMS)]).toEqual([null, 'item']);
  });

  it('shows the hard-limit notice over the next item until it is seen', () => {
    let s = play([{ type: 'begin' }, { type: 'item_time_up', minutes: 5 }]);
    expect(screenOf(s, ITEMS)).toBe('time_up');
    s = runReducer(s, { type: 'time_up_seen' });
    expect(screenOf(s, ITEMS)).toBe('item');
  });

  it('ends every item when the session budget is spent, dropping an item notice', () => {
    const s = play([
      { type: 'begin' },
      { type: 'item_time_up', minutes: 5 },
      { type: 'session_time_up', items: ITEMS },
    ]);
    expect([s.sessionTimeUp, s.timeUp, s.index, screenOf(s, ITEMS)]).toEqual([true, null, ITEMS, 'saving']);
  });

  it('shows a failure to close over saving, and a new attempt clears it', () => {
    let s = play([
      { type: 'begin' },
      { type: 'moved', to: ITEMS, budget: null },
      { type: 'finish_start' },
      { type: 'finish_failed', message: 'refused' },
    ]);
    expect(screenOf(s, ITEMS)).toBe('finish_error');
    s = runReducer(s, { type: 'finish_start' });
    expect([s.finishError, screenOf(s, ITEMS)]).toEqual([null, 'saving']);
  });

  it('keeps the budget unless the server gave a fresher one', () => {
    const fresher = { totalMs: 60_000, leftAtReadMs: 10_000, readAt: 50 };
    const kept = play([{ type: 'moved', to: 1, budget: null }]);
    expect(kept.budget).toBe(budget);
    expect(play([{ type: 'moved', to: 1, budget: fresher }]).budget).toBe(fresher);
  });

  it('names the skipped candidates once the participant has gone past them, as the server reported them', () => {
    const ids = ['a', 'b', 'c', 'd'];
    // The first view already knows 'c' is skipped; the move past 'b' learns 'b' is too.
    let s = play(
      [{ type: 'begin' }],
      initialRunState({ index: 0, instructionsDone: false, describing: null, budget, skipped: ['c'] }),
    );
    expect(skippedBehind(s, ids)).toEqual([]);
    s = runReducer(s, { type: 'moved', to: 1, budget: null });
    expect(skippedBehind(s, ids)).toEqual([]);
    s = runReducer(s, { type: 'moved', to: 3, budget: null, skipped: ['b', 'c'] });
    expect(skippedBehind(s, ids)).toEqual(['b', 'c']);
    // A move without the server's answer forgets nothing.
    expect(skippedBehind(runReducer(s, { type: 'moved', to: 4, budget: null }), ids)).toEqual(['b', 'c']);
  });

  it('opens and closes the withdrawal dialog without moving', () => {
    const s = play([{ type: 'begin' }, { type: 'withdraw_open' }]);
    expect([s.withdrawing, s.index]).toEqual([true, 0]);
    expect(runReducer(s, { type: 'withdraw_cancel' }).withdrawing).toBe(false);
  });
});
