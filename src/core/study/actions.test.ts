import { describe, expect, it } from 'vitest';
import { answerChanges, gameActions, itemActions } from './actions';

const ev = (kind: string, data: Record<string, unknown> = {}) => ({ kind, data });
const act = (action: string, level = 0, state = 'NOT_FINISHED', game = 'push') =>
  ev('game.action', { game, action, level, state });

describe('itemActions', () => {
  it('counts grid-changing events of a task, not tool or colour choices, selections, copies or submits', () => {
    const evs = [
      ev('item.start', { item: 't' }),
      ev('tool', { tool: 'fill' }),
      ev('color', { color: 3 }),
      ev('select', {}),
      ev('copy', {}),
      ev('paint', {}),
      ev('paint', {}),
      ev('fill', {}),
      ev('copy.input', {}),
      ev('undo', {}),
      ev('rotate', {}),
      ev('submit', {}),
      ev('visibility', {}),
      ev('item.end', { item: 't' }),
    ];
    expect(itemActions({ kind: 'task' }, evs)).toBe(6);
  });

  it('counts a game as the scorecard does: the opening RESET and full resets are not actions, level RESETs are', () => {
    const evs = [
      ev('game.open', { game: 'push' }),
      act('RESET'),
      act('ACTION1'),
      act('ACTION2', 1), // level 1 won in 2
      act('ACTION3', 1),
      act('RESET', 1), // a level RESET counts
      act('RESET', 1), // a second RESET with nothing played since: a full reset, a new run
      act('ACTION4'),
      act('ACTION1', 0, 'NOT_FINISHED', 'other'), // another game's action
    ];
    expect(gameActions(evs, 'push')).toBe(5);
    expect(itemActions({ kind: 'game', game: 'push' }, evs)).toBe(5);
  });

  it('counts answer changes of a question and nothing on a page', () => {
    const evs = [
      ev('question.focus'),
      ev('question.choice', { label: 'A' }),
      ev('question.choice', { label: 'B' }),
      ev('question.input', { text: 'x' }),
      ev('question.submit'),
      ev('question.blur'),
    ];
    expect(itemActions({ kind: 'question' }, evs)).toBe(3);
    expect(itemActions({ kind: 'page' }, evs)).toBe(0);
  });
});

describe('answerChanges', () => {
  it('counts values that differ from the one before, the first not being a change', () => {
    expect(answerChanges([])).toBe(0);
    expect(answerChanges(['B'])).toBe(0);
    expect(answerChanges(['B', 'C', 'B'])).toBe(2);
    expect(answerChanges(['B', 'B', 'C'])).toBe(1);
    expect(answerChanges([['a', 'b'], ['a', 'b'], ['a'], null])).toBe(2);
  });
});
