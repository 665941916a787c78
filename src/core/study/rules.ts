/**
 * Session rules, derived from the event log: progress through the items, session state,
 * attempts that count, low-effort flags and game-log verification. All pure; the server
 * passes in the clock.
 */
import type { StudyDefinition, StudyItem } from './schema';
import { isPractice, itemLimits, poolOf } from './schema';
import { activeTime, untilItemEnd } from './activeTime';
import { itemActions } from './actions';
import { type Pause, isPaused, pausedWithin } from './pauses';

/** An event as stored: the envelope plus the server's receive time (ms since the epoch). */
export interface StoredEvent {
  readonly seq: number;
  readonly t: number;
  readonly kind: string;
  readonly data: Record<string, unknown>;
  readonly receivedAt: number;
}

/** `withdrawn`: the participant withdrew (`POST /sessions/:id/withdraw`); kept, never counted as finished. */
export type SessionState = 'started' | 'active' | 'finished' | 'timed_out' | 'abandoned' | 'withdrawn';

/** States a session never leaves, whatever arrives later. */
export function isFinalState(state: SessionState): boolean {
  return state === 'finished' || state === 'timed_out' || state === 'withdrawn';
}

/**
 * Event kinds of the study shell. `item.start {item}` opens an item; every later event belongs
 * to it until the next `item.start`. `item.end {item}` closes it (no revisiting afterwards).
 */
export const ITEM_START = 'item.start';
export const ITEM_END = 'item.end';

/** Splits a log into the events of each item, by the `item.start` markers. */
export function eventsByItem(events: readonly StoredEvent[]): Map<string, StoredEvent[]> {
  const out = new Map<string, StoredEvent[]>();
  let current: string | null = null;
  for (const e of events) {
    if (e.kind === ITEM_START && typeof e.data.item === 'string') current = e.data.item;
    if (current === null) continue;
    let list = out.get(current);
    if (!list) out.set(current, (list = []));
    list.push(e);
  }
  return out;
}

export interface ItemProgress {
  readonly id: string;
  readonly kind: StudyItem['kind'];
  readonly practice: boolean;
  readonly started: boolean;
  /** Server time of the first `item.start`, ms since the epoch. */
  readonly startedAt: number | null;
  readonly finished: boolean;
  /** The item's actions as `itemActions` (core/study/actions.ts) counts them. */
  readonly actions: number;
  /** Server time from the item's first to its last event, less a proctor's breaks within the item's span, ms. */
  readonly durationMs: number;
  /** Time on task by the log's clock, less hidden and idle time (`activeTime`), up to the item's end. */
  readonly activeMs: number;
  /** A pool candidate not started because too little of the session's time was left (then `finished` too). */
  readonly skipped?: boolean;
}

/** When a session started and the time now (ms since the epoch), for its time budget. */
export interface BudgetClock {
  readonly createdAt: number;
  readonly now: number;
  /** The session's breaks (`pauses.ts`): the budget stops during them. */
  readonly pauses?: readonly Pause[];
}

/**
 * The session's time budget (`limits.sessionMinutes`): when it ends and the minutes left (never
 * below 0). A break (`pauses`) moves the end later by its length, up to `now` for one that lasts.
 */
export function sessionBudget(
  study: StudyDefinition,
  createdAt: number,
  now: number,
  pauses?: readonly Pause[],
): { endsAt: number; minutesLeft: number } {
  const endsAt = createdAt + study.limits.sessionMinutes * 60_000 + pausedWithin(pauses, createdAt, now);
  return { endsAt, minutesLeft: Math.max(0, (endsAt - now) / 60_000) };
}

/**
 * The fewest minutes of the session's budget an item needs left to be started: a pool candidate
 * its pool's `minMinutesLeft`, by default its own hard limit; a fixed item none (it always runs).
 */
export function minMinutesToStart(study: StudyDefinition, index: number): number {
  const pool = poolOf(study, index);
  if (!pool) return 0;
  return pool.minMinutesLeft ?? itemLimits(study, study.items[index]).hardMinutes;
}

/** Per-test-input judging state of a task item, as the submissions table holds it. */
export interface TestTally {
  readonly solved: boolean;
  readonly trialsUsed: number;
}

/**
 * Progress through a session: one entry per item in the session's order, and the position the
 * participant is at. An item is finished when it was ended, a later item was started (no
 * revisiting), or, for a task, every test input is solved or out of trials.
 */
export function sessionProgress(
  study: StudyDefinition,
  order: readonly number[],
  events: readonly StoredEvent[],
  taskDone: (itemId: string) => boolean = () => false,
  clock?: BudgetClock,
): { items: ItemProgress[]; current: number } {
  const left = clock ? sessionBudget(study, clock.createdAt, clock.now, clock.pauses).minutesLeft : Infinity;
  const byItem = eventsByItem(events);
  const ended = new Set(
    events.filter((e) => e.kind === ITEM_END && typeof e.data.item === 'string').map((e) => e.data.item as string),
  );
  const positions = order.map((i) => study.items[i]);
  let lastStarted = -1;
  positions.forEach((item, p) => {
    if (byItem.has(item.id)) lastStarted = p;
  });
  const items = positions.map((item, p): ItemProgress => {
    const evs = byItem.get(item.id) ?? [];
    const first = evs[0];
    const last = evs[evs.length - 1];
    const skipped = evs.length === 0 && left < minMinutesToStart(study, order[p]);
    const time = activeTime(untilItemEnd(evs, item.id));
    return {
      id: item.id,
      kind: item.kind,
      practice: isPractice(item),
      started: evs.length > 0,
      startedAt: first ? first.receivedAt : null,
      finished: skipped || ended.has(item.id) || p < lastStarted || (item.kind === 'task' && taskDone(item.id)),
      ...(skipped ? { skipped } : {}),
      actions: itemActions(item, evs),
      // A proctor's break is no part of the item's time, as it is no part of time on task.
      durationMs: first && last ? Math.max(0, last.receivedAt - first.receivedAt - time.pausedMs) : 0,
      activeMs: time.activeMs,
    };
  });
  const current = items.findIndex((i) => !i.finished);
  return { items, current: current < 0 ? items.length : current };
}

export interface SessionClock {
  readonly state: SessionState;
  readonly createdAt: number;
  readonly lastEventAt: number | null;
  /** The session's breaks (`pauses.ts`); none when absent. */
  readonly pauses?: readonly Pause[];
}

/** Whether the session has used up its budget at `now`, breaks left out. */
function pastBudget(s: SessionClock, study: StudyDefinition, now: number): boolean {
  return now - s.createdAt - pausedWithin(s.pauses, s.createdAt, now) > study.limits.sessionMinutes * 60_000;
}

/**
 * The state a session is in at `now`. Finished and timed-out sessions stay so; an open session
 * past the session limit is timed out; one silent for `abandonAfterMinutes` is abandoned. A
 * break stops both clocks: a paused session is never abandoned, and its silence counts from the
 * end of the break.
 */
export function effectiveState(s: SessionClock, study: StudyDefinition, now: number): SessionState {
  if (isFinalState(s.state)) return s.state;
  if (pastBudget(s, study, now)) return 'timed_out';
  if (isPaused(s.pauses)) return s.state;
  const lastBreak = s.pauses?.length ? (s.pauses[s.pauses.length - 1].to ?? now) : -Infinity;
  const quietSince = Math.max(s.lastEventAt ?? s.createdAt, lastBreak);
  if (now - quietSince > study.limits.abandonAfterMinutes * 60_000) return 'abandoned';
  return s.state;
}

/**
 * Whether a session's claims are in flight at `now` (the campaign's draws and view): it is neither
 * ended, abandoned nor out of time by its clocks, which a break stops, so a session on a break
 * is in flight however long the break.
 */
export function isInFlight(s: SessionClock, study: StudyDefinition, now: number): boolean {
  const state = effectiveState(s, study, now);
  return !isFinalState(state) && state !== 'abandoned';
}

/**
 * The state after events arrive at `now`: every event is a heartbeat, so a started or abandoned
 * session becomes active; past the session limit it is timed out (the events are still stored).
 */
export function stateAfterEvents(s: SessionClock, study: StudyDefinition, now: number): SessionState {
  if (isFinalState(s.state)) return s.state;
  if (pastBudget(s, study, now)) return 'timed_out';
  return 'active';
}

/**
 * Whether an attempt counts under the study's rule: under `maxMinutes`, and for a game more than
 * `minActions` actions (the ARC-AGI-3 calibration's rule; a grid task solved in a few edits or
 * a question answered with one pick is a full attempt).
 */
export function attemptCounts(
  study: StudyDefinition,
  kind: StudyItem['kind'],
  actions: number,
  durationMs: number,
): boolean {
  if (durationMs >= study.attempt.maxMinutes * 60_000) return false;
  return kind !== 'game' || actions > study.attempt.minActions;
}

/**
 * Low effort: the participant cycled through items with almost no actions. Practice, pages,
 * question items (one pick and a submit is a full answer) and surveys are ignored.
 */
export function isLowEffort(study: StudyDefinition, items: readonly ItemProgress[]): boolean {
  const visited = items.filter(
    (i) => i.started && i.kind !== 'page' && i.kind !== 'question' && i.kind !== 'survey' && !i.practice,
  );
  if (visited.length < study.lowEffort.minItems) return false;
  const idle = visited.filter((i) => i.actions <= study.lowEffort.maxActions).length;
  return idle / visited.length >= study.lowEffort.share;
}

/** What replaying one game's events of an item with the engine gives. */
export interface GameReplaySummary {
  /** Disagreements between the log and the engine (tampering, a changed game, a broken client). */
  readonly problems: readonly { seq: number; message: string }[];
  /** Highest `levels_completed` the replay reached. */
  readonly levelsCompleted: number;
  /** The game version the events were replayed on, or recorded on when not replayed (`push-<hash>`). */
  readonly version?: string;
  /** Set when the log was recorded on a version of the game this server cannot run: nothing was replayed. */
  readonly otherVersion?: { readonly recorded: string; readonly current: string };
}

/** Replays the `game.open` / `game.action` events of `game` with the engine. */
export type ReplayGame = (game: string, events: readonly StoredEvent[]) => GameReplaySummary;

/**
 * How a game log stands after verification: `verified` (it replays and matches), `unverified`
 * (it disagrees with the engine: tampering, a broken client), or `other_version` (it was recorded
 * on a version of the game this server cannot run, so it was not replayed; neither trusted nor
 * called tampered).
 */
export type GameLogStatus = 'verified' | 'unverified' | 'other_version';

export interface GameVerification {
  /** True when every game event replays and matches what the browser logged (`status === 'verified'`). */
  readonly verified: boolean;
  readonly status: GameLogStatus;
  /** The game version of the log (`push-<hash>`): recorded in its `game.open`, or the one it replays on. */
  readonly version?: string;
  /** For `other_version`: the version this server runs. */
  readonly currentVersion?: string;
  /** From the server's replay, never from the log. */
  readonly levelsCompleted: number;
  /** Why the log is not trusted, when it is not. */
  readonly flags: string[];
}

/**
 * Verifies a game item's log by replaying it: level completions and action counts come from
 * the replay; any disagreement flags the log instead of trusting it. A log recorded on another
 * version of the game than the server runs is `other_version`, with both versions named.
 */
export function verifyGameLog(
  item: { game: string },
  events: readonly StoredEvent[],
  replay: ReplayGame,
): GameVerification {
  const flags: string[] = [];
  const other = events.find((e) => (e.kind === 'game.open' || e.kind === 'game.action') && e.data.game !== item.game);
  if (other) flags.push(`event ${other.seq}: logs game "${String(other.data.game)}" in an item of game "${item.game}"`);
  const r = replay(item.game, events);
  const version = r.version !== undefined ? { version: r.version } : {};
  if (r.otherVersion && flags.length === 0) {
    flags.push(
      `recorded on ${r.otherVersion.recorded}; this server runs ${r.otherVersion.current} and cannot replay it`,
    );
    return {
      verified: false,
      status: 'other_version',
      ...version,
      currentVersion: r.otherVersion.current,
      levelsCompleted: r.levelsCompleted,
      flags,
    };
  }
  for (const p of r.problems.slice(0, 10)) flags.push(`event ${p.seq}: ${p.message}`);
  if (r.problems.length > 10) flags.push(`and ${r.problems.length - 10} more events that do not replay`);
  const verified = flags.length === 0;
  return {
    verified,
    status: verified ? 'verified' : 'unverified',
    ...version,
    levelsCompleted: r.levelsCompleted,
    flags,
  };
}
