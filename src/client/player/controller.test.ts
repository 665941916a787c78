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
});
