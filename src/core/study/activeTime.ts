/**
 * Time on task: how long a participant was present for an item, by the log's own clock (`t`,
 * the browser's monotonic milliseconds). The client logs presence events (see
 * `src/client/log/presence.ts`); this is the one place that reads them.
 *
 * The span runs from the item's first event (its `item.start`) to its last event up to and
 * including its first `item.end`. Two kinds of time are taken out of it:
 *
 * - **hidden**: from `visibility {state: "hidden"}` to the next `visibility {state: "visible"}`
 *   (the tab was in the background, the window minimised, or the page closed until a reload);
 * - **idle**: from `idle {state: "idle"}` to the participant's return, which is the next event
 *   of any kind except `blur`, `heartbeat` and another `idle {state: "idle"}` (the client logs
 *   `idle {state: "active"}` on the first input, but an action or a reload ends idleness too).
 *   The quiet minutes before the `idle` event count as time on task: a person may think
 *   without touching anything.
 *
 * - **paused**: from `pause {state: "paused"}` to `pause {state: "resumed"}`: a proctor's break
 *   (a testing centre's station logs both, `src/client/centre/`). A break is neither time on task
 *   nor time away: it is counted apart, and wins over hidden and idle time where they overlap.
 *
 * Where they overlap, the time is taken out once. A span still hidden, idle or paused at its last
 * event loses the time up to that event.
 */

/** The fields of an event that time on task reads. */
export interface TimedEvent {
  readonly t: number;
  readonly kind: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface ActiveTime {
  /** From the first to the last event, ms. */
  readonly spanMs: number;
  /** Time hidden, ms (an idle stretch while hidden counts here). */
  readonly hiddenMs: number;
  /** Time idle while visible, ms. */
  readonly idleMs: number;
  /** Time on a proctor's break, ms. */
  readonly pausedMs: number;
  /** `spanMs - hiddenMs - idleMs - pausedMs`: time on task. */
  readonly activeMs: number;
}

/** The kind of a break's events: `{state: "paused"}` begins one, `{state: "resumed"}` ends it. */
export const PAUSE = 'pause';

/** Kinds that neither start nor end an idle stretch. */
const QUIET_KINDS = new Set(['blur', 'heartbeat']);

/** Whether the participant is away after an event: the presence rules above, as one step. */
interface Presence {
  hidden: boolean;
  idle: boolean;
  /** On a proctor's break; absent in folds stored before breaks were logged. */
  paused?: boolean;
}

function stepPresence(p: Presence, e: TimedEvent): void {
  if (e.kind === PAUSE) {
    p.paused = e.data.state === 'paused';
    p.idle = false;
  } else if (e.kind === 'visibility') {
    if (e.data.state === 'hidden') p.hidden = true;
    else if (e.data.state === 'visible') {
      p.hidden = false;
      p.idle = false;
    }
  } else if (e.kind === 'idle') {
    p.idle = e.data.state !== 'active';
  } else if (!QUIET_KINDS.has(e.kind)) {
    p.idle = false;
  }
}

/**
 * A stretch of a log during which the participant was away: `hidden` (the tab in the background)
 * or `idle` (no input while visible). `from` is the index of the event that began it, `to` the
 * index of the event that ended it (the last event when it never ended); `ms` its length.
 */
export interface PresenceSpan {
  readonly kind: 'hidden' | 'idle' | 'paused';
  readonly from: number;
  readonly to: number;
  readonly ms: number;
}

/**
 * The hidden and idle stretches of a run of events in log order, by the rules above: where the
 * two overlap the time is hidden; consecutive gaps of one kind make one span. `activeTime` sums
 * these, and the replay's timeline draws them, so both read presence the same way.
 *
 * @example
 * presenceSpans([
 *   { t: 0, kind: 'item.start', data: { item: 'a' } },
 *   { t: 1000, kind: 'visibility', data: { state: 'hidden' } },
 *   { t: 4000, kind: 'visibility', data: { state: 'visible' } },
 * ]) // [{ kind: 'hidden', from: 1, to: 2, ms: 3000 }]
 */
export function presenceSpans(events: readonly TimedEvent[]): PresenceSpan[] {
  const spans: PresenceSpan[] = [];
  const p: Presence = { hidden: false, idle: false };
  let open: { kind: PresenceSpan['kind']; from: number; ms: number } | null = null;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    stepPresence(p, e);
    const next = events[i + 1];
    if (!next) break;
    const kind = p.paused ? 'paused' : p.hidden ? 'hidden' : p.idle ? 'idle' : null;
    if (open && open.kind !== kind) {
      spans.push({ ...open, to: i });
      open = null;
    }
    if (!kind) continue;
    open ??= { kind, from: i, ms: 0 };
    open.ms += Math.max(0, next.t - e.t);
  }
  if (open) spans.push({ ...open, to: events.length - 1 });
  return spans;
}

/**
 * Time on task of a run of events in log order: the time of `presenceSpans` taken out of the span.
 *
 * @example
 * activeTime([
 *   { t: 0, kind: 'item.start', data: { item: 'a' } },
 *   { t: 1000, kind: 'visibility', data: { state: 'hidden' } },
 *   { t: 4000, kind: 'visibility', data: { state: 'visible' } },
 *   { t: 5000, kind: 'paint', data: {} },
 * ]).activeMs // 2000
 */
export function activeTime(events: readonly TimedEvent[]): ActiveTime {
  const acc = newActiveTimeFold();
  for (const e of events) addActiveTime(acc, e);
  return activeTimeOf(acc);
}

/**
 * Time on a proctor's break between log times `from` and `to` (ms), by the `pause` events among
 * `events` (in log order): a break still open at `to` counts up to it. What a figure measured
 * between two moments of an item (time to solve, a level's time) leaves out.
 *
 * @example
 * breaksWithin([{ t: 10, kind: 'pause', data: { state: 'paused' } },
 *               { t: 70, kind: 'pause', data: { state: 'resumed' } }], 0, 100) // 60
 */
export function breaksWithin(events: readonly TimedEvent[], from: number, to: number): number {
  let total = 0;
  let since: number | null = null;
  const add = (a: number, b: number) => {
    total += Math.max(0, Math.min(b, to) - Math.max(a, from));
  };
  for (const e of events) {
    if (e.kind !== PAUSE) continue;
    if (e.data.state === 'paused' && since === null) since = e.t;
    else if (e.data.state === 'resumed' && since !== null) {
      add(since, e.t);
      since = null;
    }
  }
  if (since !== null) add(since, to);
  return total;
}

/**
 * `activeTime` as a fold, for a log read a part at a time: what the events so far leave (plain
 * JSON, so it can be stored and extended later). `activeTimeOf` of a fold over a run's events,
 * in any number of parts, equals `activeTime` of the whole run.
 */
export interface ActiveTimeFold {
  /** Events folded in. */
  n: number;
  firstT: number;
  lastT: number;
  hidden: boolean;
  idle: boolean;
  hiddenMs: number;
  idleMs: number;
  paused?: boolean;
  pausedMs?: number;
}

export function newActiveTimeFold(): ActiveTimeFold {
  return { n: 0, firstT: 0, lastT: 0, hidden: false, idle: false, hiddenMs: 0, idleMs: 0, paused: false, pausedMs: 0 };
}

/** Folds the next event of the run in: the gap since the one before counts as that one left the tab. */
export function addActiveTime(acc: ActiveTimeFold, e: TimedEvent): void {
  if (acc.n === 0) acc.firstT = e.t;
  else {
    const gap = Math.max(0, e.t - acc.lastT);
    if (acc.paused) acc.pausedMs = (acc.pausedMs ?? 0) + gap;
    else if (acc.hidden) acc.hiddenMs += gap;
    else if (acc.idle) acc.idleMs += gap;
  }
  stepPresence(acc, e);
  acc.lastT = e.t;
  acc.n++;
}

export function activeTimeOf(acc: ActiveTimeFold): ActiveTime {
  if (acc.n === 0) return { spanMs: 0, hiddenMs: 0, idleMs: 0, pausedMs: 0, activeMs: 0 };
  const spanMs = Math.max(0, acc.lastT - acc.firstT);
  const pausedMs = acc.pausedMs ?? 0;
  return {
    spanMs,
    hiddenMs: acc.hiddenMs,
    idleMs: acc.idleMs,
    pausedMs,
    activeMs: Math.max(0, spanMs - acc.hiddenMs - acc.idleMs - pausedMs),
  };
}

/**
 * The events of one item that time on task covers: from the first event up to and including
 * the item's first `item.end` (what follows belongs to no item's time).
 */
export function untilItemEnd<E extends TimedEvent>(itemEvents: readonly E[], itemId: string): readonly E[] {
  const end = itemEvents.findIndex((e) => e.kind === 'item.end' && e.data.item === itemId);
  return end < 0 ? itemEvents : itemEvents.slice(0, end + 1);
}
