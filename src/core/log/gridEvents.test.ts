/**
 * The grid player's event kinds are declared once (`GRID_EVENTS`); the door's payload schemas,
 * the action count, the results' tool counts and the replay's reading of a kind must agree with
 * that declaration, so a kind added to one place only fails here.
 */
import { describe, expect, it } from 'vitest';
import { EVENT_DATA } from '../protocol/events';
import { itemActions, GRID_ACTION_KINDS } from '../study/actions';
import { addTaskEvent, newTaskTally } from '../analysis/results';
import { GRID_EDIT_KINDS, GRID_EVENTS, GRID_EVENT_KINDS, GRID_TOOL_OF_KIND, GRID_TOOLS } from './gridPlayer';

const kinds = Object.keys(GRID_EVENTS) as (keyof typeof GRID_EVENTS)[];
const roleOf = (kind: keyof typeof GRID_EVENTS): { edit?: true; tool?: string } => GRID_EVENTS[kind];

describe('the grid player event kinds, declared once', () => {
  it('each has its payload schema at the door', () => {
    const missing = kinds.filter((k) => !Object.prototype.hasOwnProperty.call(EVENT_DATA, k));
    expect(missing).toEqual([]);
  });

  it('are the lists every other module reads', () => {
    expect([...GRID_EVENT_KINDS]).toEqual(kinds);
    expect([...GRID_ACTION_KINDS]).toEqual(kinds.filter((k) => roleOf(k).edit));
    expect(GRID_ACTION_KINDS).toBe(GRID_EDIT_KINDS);
    expect(new Set(GRID_TOOLS)).toEqual(new Set(kinds.flatMap((k) => roleOf(k).tool ?? [])));
    // The 13 edits of a grid.
    expect(GRID_EDIT_KINDS.size).toBe(13);
  });

  it.each(kinds)('%s counts as its role says: an action of the task and a use of its tool, or neither', (kind) => {
    const role = roleOf(kind);
    const event = { seq: 1, t: 10, kind, data: {}, receivedAt: 10 };
    expect(itemActions({ kind: 'task' }, [event])).toBe(role.edit ? 1 : 0);
    const tally = newTaskTally();
    addTaskEvent(tally, event);
    expect(tally.edits).toBe(role.edit ? 1 : 0);
    expect(tally.toolUses).toEqual(role.tool ? { [role.tool]: 1 } : {});
    expect(GRID_TOOL_OF_KIND[kind]).toBe(role.tool);
  });
});
