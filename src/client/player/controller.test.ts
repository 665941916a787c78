/**
 * Opening a task or a game is logged once per controller, however often React runs the effect
 * that starts it (StrictMode runs effects twice in development), and never by constructing one.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTaskText, type ArcTask } from '../../core/formats/arcTask';
import type { LogEvent } from '../../core/log/events';
import { games } from '../../games';
import { GameController } from '../game/controller';
import { PlayerController, type EventSink } from './controller';
import { browserJudge } from './judge';
import { usePlayer } from './store';

/** A sink that keeps what it is given, as the practice log and the outbox do. */
class ListSink implements EventSink {
  readonly events: LogEvent[] = [];
  append(kind: string, data: Record<string, unknown>): LogEvent {
    const e = { seq: this.events.length, t: this.events.length, kind, data };
    this.events.push(e);
    return e;
  }
  kinds(): string[] {
    return this.events.map((e) => e.kind);
  }
}

const ROOT = path.resolve(__dirname, '../../..');
const parsed = parseTaskText(readFileSync(path.join(ROOT, 'data/tasks/samples/downscale-blocks.json'), 'utf8'));
if (!parsed.ok) throw new Error('the sample task does not parse');
const task: ArcTask = parsed.task;
const open = { task, taskId: 'downscale-blocks', collection: 'samples' };

describe('controller lifecycle', () => {
  it('logs task.open on the first start only, as an effect run twice would call it', () => {
    const sink = new ListSink();
    const c = new PlayerController(sink, browserJudge(task), open, 3);
    expect(sink.events).toEqual([]);
    c.start();
    c.start();
    expect(sink.kinds()).toEqual(['task.open']);
    expect(usePlayer.getState().state.taskId).toBe('downscale-blocks');
    c.setColor(3);
    c.start();
    expect(sink.kinds()).toEqual(['task.open', 'color']);
  });

  it('resumes a task from its events without logging task.open again', () => {
    const first = new ListSink();
    const c = new PlayerController(first, browserJudge(task), open, 3);
    c.start();
    c.setColor(4);
    const sink = new ListSink();
    const resumed = new PlayerController(sink, browserJudge(task), open, 3, first.events);
    resumed.start();
    resumed.start();
    expect(sink.events).toEqual([]);
    expect(usePlayer.getState().state.color).toBe(4);
  });

  it('logs game.open and the opening RESET on the first start only, and nothing for a resumed run', () => {
    const game = games.push;
    const sink = new ListSink();
    const c = new GameController(game, sink, 0);
    expect(sink.events).toEqual([]);
    c.start();
    c.dispose();
    c.start();
    expect(sink.kinds()).toEqual(['game.open', 'game.action']);
    expect(sink.events[1].data.action).toBe('RESET');

    const again = new ListSink();
    const resumed = new GameController(game, again, 0, sink.events);
    resumed.start();
    expect(again.events).toEqual([]);
    expect(resumed.hud.getState().frameHash).toBe(c.hud.getState().frameHash);
  });
});

describe('status line', () => {
  it('a hint about copying is retired once the grid changes (a paste), and stays while nothing changes', () => {
    const c = new PlayerController(new ListSink(), browserJudge(task), open, 3);
    c.start();
    c.setTool('select');
    c.pointerDown('input', { row: 0, col: 0 });
    c.pointerDrag({ row: 1, col: 1 });
    c.pointerUp();
    c.copy();
    expect(usePlayer.getState().notice?.text).toMatch(/^Copied 2x2 cells/);
    c.setColor(2);
    expect(usePlayer.getState().notice?.text).toMatch(/^Copied 2x2 cells/);
    c.pointerDown('output', { row: 0, col: 0 });
    c.pointerUp();
    c.paste();
    expect(usePlayer.getState().notice).toBeNull();
  });

  it('a wrong verdict stays while the grid is the one submitted and is cleared by the next edit', async () => {
    const c = new PlayerController(new ListSink(), browserJudge(task), open, 3);
    c.start();
    await c.submit();
    expect(usePlayer.getState().notice?.text).toMatch(/^Not correct\. 2 trials left/);
    // A tool or a colour does not change what the verdict speaks of.
    c.setTool('fill');
    c.setColor(3);
    expect(usePlayer.getState().notice?.text).toMatch(/^Not correct/);
    c.setTool('edit');
    c.pointerDown('output', { row: 0, col: 0 });
    c.pointerUp();
    expect(usePlayer.getState().notice).toBeNull();
    // Submitting the same wrong grid again says so; undoing the edit back to it does not bring the verdict back.
    c.undo();
    await c.submit();
    expect(usePlayer.getState().notice?.text).toMatch(/^You already submitted exactly this grid/);
    c.resize('2x2');
    expect(usePlayer.getState().notice).toBeNull();
  });

  it('a verdict on a grid changed while it was being checked is not shown beside the new grid', async () => {
    let release: () => void = () => {};
    const inner = browserJudge(task);
    const slow = {
      ...inner,
      submit: async (...args: Parameters<typeof inner.submit>) => {
        await new Promise<void>((r) => {
          release = r;
        });
        return inner.submit(...args);
      },
    };
    const c = new PlayerController(new ListSink(), slow, open, 3);
    c.start();
    const checking = c.submit();
    c.pointerDown('output', { row: 0, col: 0 });
    c.pointerUp();
    release();
    await checking;
    expect(usePlayer.getState().state.tests[0].trials).toBe(1);
    expect(usePlayer.getState().notice).toBeNull();
  });
});

describe('the keyboard and the selection tools', () => {
  const output = () => usePlayer.getState().state.tests[0].output;

  it('Shift+arrows select from the cursor, Space uses the tool at it, paste goes to the cursor, arrows move selected cells', () => {
    const sink = new ListSink();
    const c = new PlayerController(sink, browserJudge(task), open, 3);
    c.start();
    // The cursor stops at the edges.
    c.moveCursor('input', -1, -1, false);
    expect(usePlayer.getState().cursor.input).toEqual({ row: 0, col: 0 });
    c.moveCursor('input', 0, 3, false);
    c.moveCursor('input', 1, 0, true);
    c.moveCursor('input', 0, 1, true);
    expect(usePlayer.getState().state.selection).toEqual({ side: 'input', rect: { r0: 0, c0: 3, r1: 1, c1: 4 } });
    c.copy();
    c.clearSelection();
    // Paste at the output cursor once the output grid has the focus.
    usePlayer.setState({ focused: 'output' });
    c.moveCursor('output', 1, 1, false);
    c.paste();
    expect(output()).toEqual([
      [0, 0, 0],
      [0, 6, 6],
      [0, 6, 6],
    ]);
    // The pasted block stays selected, logged with the paste.
    expect(usePlayer.getState().state.selection).toEqual({ side: 'output', rect: { r0: 1, c0: 1, r1: 2, c1: 2 } });
    expect(sink.events.at(-1)?.data).toMatchObject({ row: 1, col: 1, select: true });
    c.clearSelection();
    // Space with the Edit tool paints one cell as a stroke of its own; with Fill it fills.
    c.setColor(2);
    c.moveCursor('output', -1, -1, false);
    c.actAtCursor('output', false);
    expect(output()[0][0]).toBe(2);
    expect(sink.kinds().slice(-2)).toEqual(['paint', 'stroke.end']);
    c.setTool('fill');
    c.moveCursor('output', 0, 2, false);
    c.actAtCursor('output', false);
    expect(output()).toEqual([
      [2, 2, 2],
      [0, 6, 6],
      [0, 6, 6],
    ]);
    // The wand at the cursor selects the 6s; moving them leaves black behind.
    c.setTool('wand');
    c.moveCursor('output', 1, 0, false);
    c.actAtCursor('output', false);
    c.moveSelection(0, -1);
    expect(output()).toEqual([
      [2, 2, 2],
      [6, 6, 0],
      [6, 6, 0],
    ]);
    expect(usePlayer.getState().cursor.output).toEqual({ row: 1, col: 1 });
  });

  it('a press inside the output selection drags its cells; a click without moving selects the cell', () => {
    const sink = new ListSink();
    const c = new PlayerController(sink, browserJudge(task), open, 3);
    c.start();
    c.copyFromInput();
    c.setTool('select');
    c.pointerDown('output', { row: 0, col: 0 });
    c.pointerDrag({ row: 1, col: 1 });
    c.pointerUp();
    c.pointerDown('output', { row: 1, col: 1 });
    c.pointerDrag({ row: 1, col: 2 });
    expect(usePlayer.getState().dragMove).toEqual({ dr: 0, dc: 1 });
    c.pointerDrag({ row: 1, col: 3 });
    c.pointerUp();
    expect(sink.events.at(-1)).toMatchObject({ kind: 'move', data: { dr: 0, dc: 2 } });
    expect(output()[0].slice(0, 5)).toEqual([0, 0, 0, 0, 6]);
    c.pointerDown('output', { row: 0, col: 3 });
    c.pointerUp();
    expect(usePlayer.getState().state.selection).toEqual({ side: 'output', rect: { r0: 0, c0: 3, r1: 0, c1: 3 } });
  });

  it('crop needs an output selection and says so', () => {
    const c = new PlayerController(new ListSink(), browserJudge(task), open, 3);
    c.start();
    c.crop();
    expect(usePlayer.getState().notice?.text).toMatch(/Select the part of your output to keep first/);
  });
});
