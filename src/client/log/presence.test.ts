/**
 * Presence as a state machine, on plain EventTargets and a fake clock (the browser test in
 * e2e/presence.spec.ts drives the real page).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogEvent } from '../../core/log/events';
import type { EventSink } from '../player/controller';
import { logVisibility, watchPresence, type PresenceEnv } from './presence';

class ListSink implements EventSink {
  readonly events: LogEvent[] = [];
  append(kind: string, data: Record<string, unknown>): LogEvent {
    const e = { seq: this.events.length, t: performance.now(), kind, data };
    this.events.push(e);
    return e;
  }
  seen(): string[] {
    return this.events.map((e) => (e.data.state ? `${e.kind}:${String(e.data.state)}` : e.kind));
  }
}

describe('presence', () => {
  let win: EventTarget;
  let doc: EventTarget & { visibilityState: DocumentVisibilityState };
  let env: PresenceEnv;
  let sink: ListSink;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    win = new EventTarget();
    doc = Object.assign(new EventTarget(), { visibilityState: 'visible' as DocumentVisibilityState });
    env = { window: win, document: doc };
    sink = new ListSink();
  });
  afterEach(() => vi.useRealTimers());

  const setVisibility = (state: DocumentVisibilityState) => {
    doc.visibilityState = state;
    doc.dispatchEvent(new Event('visibilitychange'));
  };

  it('logs nothing when installed, and the visibility when asked', () => {
    const stop = watchPresence(sink, { env });
    expect(sink.events).toEqual([]);
    logVisibility(sink, env);
    expect(sink.seen()).toEqual(['visibility:visible']);
    stop();
  });

  it('logs focus, blur and visibility changes', () => {
    const stop = watchPresence(sink, { env });
    win.dispatchEvent(new Event('blur'));
    setVisibility('hidden');
    setVisibility('visible');
    win.dispatchEvent(new Event('focus'));
    expect(sink.seen()).toEqual(['blur', 'visibility:hidden', 'visibility:visible', 'focus']);
    stop();
  });

  it('logs idle after the threshold without input, and active at the next input with the idle time', () => {
    const stop = watchPresence(sink, { env, idleAfterMs: 1000 });
    vi.advanceTimersByTime(600);
    win.dispatchEvent(new Event('pointermove'));
    vi.advanceTimersByTime(900);
    expect(sink.events).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(sink.seen()).toEqual(['idle:idle']);
    expect(sink.events[0].data.ms).toBe(1000);
    vi.advanceTimersByTime(5000);
    expect(sink.events).toHaveLength(1);
    win.dispatchEvent(new Event('keydown'));
    win.dispatchEvent(new Event('keydown'));
    expect(sink.seen()).toEqual(['idle:idle', 'idle:active']);
    expect(sink.events[1].data.ms).toBe(5000);
    // Idle again after another quiet second.
    vi.advanceTimersByTime(1000);
    expect(sink.seen()).toEqual(['idle:idle', 'idle:active', 'idle:idle']);
    stop();
  });

  it('does not log idle while hidden, and a return to the tab ends idleness', () => {
    const stop = watchPresence(sink, { env, idleAfterMs: 1000 });
    setVisibility('hidden');
    vi.advanceTimersByTime(10_000);
    expect(sink.seen()).toEqual(['visibility:hidden']);
    setVisibility('visible');
    vi.advanceTimersByTime(1000);
    expect(sink.seen()).toEqual(['visibility:hidden', 'visibility:visible', 'idle:idle']);
    win.dispatchEvent(new Event('focus'));
    expect(sink.seen().slice(-2)).toEqual(['focus', 'idle:active']);
    stop();
  });

  it('removes every listener and timer when stopped, and can be installed again', () => {
    const stop = watchPresence(sink, { env, idleAfterMs: 1000 });
    stop();
    win.dispatchEvent(new Event('blur'));
    win.dispatchEvent(new Event('focus'));
    setVisibility('hidden');
    vi.advanceTimersByTime(5000);
    expect(sink.events).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
    setVisibility('visible');
    const again = watchPresence(sink, { env, idleAfterMs: 1000 });
    win.dispatchEvent(new Event('blur'));
    expect(sink.seen()).toEqual(['blur']);
    again();
    expect(vi.getTimerCount()).toBe(0);
  });
});
