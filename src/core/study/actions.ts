/**
 * What an "action" is, once for the whole studio: the participants table, the replay sidebar,
 * the results, the attempt rule, the low-effort flag and every export count with `itemActions`.
 *
 * - Grid tasks: each grid-changing event is one action (`GRID_ACTION_KINDS`), as H-ARC counts
 *   them. A `paint` event is one cell, so a stroke over n cells is n actions. Choosing a tool or
 *   a colour, selecting, copying to the clipboard, switching test input and submitting change no
 *   grid and are not actions.
 * - Games: the official scorecard's count (`splitRuns`): every ACTION1-7 and every level RESET
 *   is one; a full reset (the opening RESET, or one that starts the game over) is not. Summed
 *   over every run of the item, it is the scorecard's `total_actions`.
 * - Question items: each edit of the answer logged (a choice picked, typed text sent).
 * - Pages: none.
 *
 * Answer changes (`answerChanges`) are fewer: of an answer's successive values, those that differ
 * from the one before.
 */
import { splitRuns } from '../game/accounting';
import type { GameAction, GameState } from '../game/types';
import type { StudyItem } from './schema';
import { GRID_EDIT_KINDS } from '../log/gridPlayer';

/** The grid-changing event kinds of a task item (`edit` in the grid player's `GRID_EVENTS`): each is one action. */
export const GRID_ACTION_KINDS: ReadonlySet<string> = GRID_EDIT_KINDS;

/** The answer-changing event kinds of a question item. */
export const ANSWER_ACTION_KINDS: ReadonlySet<string> = new Set(['question.choice', 'question.input']);

/** An event as `itemActions` reads it. */
export interface ActionEvent {
  readonly kind: string;
  readonly data: Readonly<Record<string, unknown>>;
}

const GAME_STATES: ReadonlySet<string> = new Set(['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER']);

/**
 * The scorecard's total over every run of a game's logged `game.action` events (those naming
 * `game`, or every one when `game` is not given).
 */
export function gameActions(events: readonly ActionEvent[], game?: string): number {
  const steps = [];
  for (const e of events) {
    if (e.kind !== 'game.action' || (game !== undefined && e.data.game !== game)) continue;
    const { action, level, state } = e.data;
    if (typeof action !== 'string') continue;
    steps.push({
      action: action as GameAction,
      levelsCompleted: typeof level === 'number' ? level : 0,
      state: (typeof state === 'string' && GAME_STATES.has(state) ? state : 'NOT_FINISHED') as GameState,
    });
  }
  return splitRuns(steps).reduce((sum, r) => sum + r.actions, 0);
}

/** Actions in one item's events, by the item's kind (see the module's definition). */
export function itemActions(item: Pick<StudyItem, 'kind'> & { game?: string }, events: readonly ActionEvent[]): number {
  switch (item.kind) {
    case 'task':
      return events.filter((e) => GRID_ACTION_KINDS.has(e.kind)).length;
    case 'game':
      return gameActions(events, item.game);
    case 'question':
      return events.filter((e) => ANSWER_ACTION_KINDS.has(e.kind)).length;
    default:
      return 0;
  }
}

/**
 * Answer changes of one answer (a question, a survey question, a written description): of its
 * successive logged values, those that differ from the one before; the first value is the
 * answer, not a change. Picking B, then C, then B again is 2 changes.
 */
export function answerChanges(values: readonly unknown[]): number {
  let changes = 0;
  let before: string | undefined;
  for (const v of values) {
    const key = JSON.stringify(v) ?? 'undefined';
    if (before !== undefined && key !== before) changes++;
    before = key;
  }
  return changes;
}
