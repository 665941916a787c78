/**
 * Seeking in a replay. A `Timeline` folds a log through a pure reducer once and keeps the state
 * every `every` events as a checkpoint; the state after any event is then the nearest earlier
 * checkpoint plus at most `every - 1` steps, so seeking anywhere in a long session costs the same
 * as seeking near its start. States are immutable, so a checkpoint is a reference, not a copy.
 *
 * @example
 * const tl = new Timeline(initialPlayer(), events, reduce);
 * tl.at(events.length);      // the final state
 * tl.at(1000);               // the state after the first 1,000 events
 */
import type { LogEvent } from './events';

export class Timeline<S> {
  private readonly checkpoints: S[] = [];

  constructor(
    private readonly initial: S,
    readonly events: readonly LogEvent[],
    private readonly reduce: (state: S, event: LogEvent) => S,
    private readonly every = 64,
  ) {
    let s = initial;
    this.checkpoints.push(s);
    for (let i = 0; i < events.length; i++) {
      s = reduce(s, events[i]);
      if ((i + 1) % every === 0) this.checkpoints.push(s);
    }
  }

  get length(): number {
    return this.events.length;
  }

  /** The state after the first `n` events (0: before any; clamped to 0..length). */
  at(n: number): S {
    const k = Math.max(0, Math.min(this.events.length, Math.floor(n)));
    const c = Math.floor(k / this.every);
    let s = this.checkpoints[c] ?? this.initial;
    for (let i = c * this.every; i < k; i++) s = this.reduce(s, this.events[i]);
    return s;
  }
}
