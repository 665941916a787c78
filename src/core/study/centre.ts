/**
 * A testing centre's console: what a proctor sees of each station, computed from the station's
 * last contact, the session begun on it, and the last events of a few kinds in its log. Pure: the
 * server reads the rows and passes in its clock (`src/server/centre/`), the console page shows
 * the result (`src/client/centre/`).
 *
 * A station's status, first match wins:
 * 0. `retired`: a proctor took it out of service (it takes no check-in until put back; the
 *    console lists retired stations only when asked);
 * 1. `offline`: no contact for {@link STATION_OFFLINE_MS} (the station pings every
 *    {@link STATION_PING_MS}; a station that loses the network keeps its participant going on
 *    its outbox, and reports how many events it holds when it is back);
 * 2. `free`: no session in progress on it, and no participant waiting (`waiting`: the proctor
 *    checked someone in who has not begun yet);
 * 3. `finished` (the session ended: finished, timed out, withdrawn or ended by the proctor, and
 *    the station has not cleared it yet), `paused`, `away` (the tab hidden), `idle` (no input
 *    for a while, as the station's presence events say), else `running`.
 */
import { ITEM_END, ITEM_START, type SessionState, type StoredEvent, isFinalState, sessionBudget } from './rules';
import { type Pause, isPaused, pausedWithin } from './pauses';
import { type StudyDefinition, itemLimits, poolOf } from './schema';

/** How often a station tells the server it is there, ms. */
export const STATION_PING_MS = 1_000;
/** A station silent this long shows as offline, ms (`ARC_STUDIO_STATION_OFFLINE_S` sets another). */
export const STATION_OFFLINE_MS = 5_000;
/** Event kinds the console reads the last of, per session. */
export const CONSOLE_KINDS = [ITEM_START, ITEM_END, 'game.action', 'visibility', 'idle'] as const;

export type StationState =
  'retired' | 'offline' | 'free' | 'waiting' | 'running' | 'paused' | 'idle' | 'away' | 'finished';

/** A station as the console reads it. */
export interface StationInput {
  readonly id: string;
  readonly name: string;
  readonly lastSeenAt: number | null;
  readonly pendingParticipant: string | null;
  /** Events the station's outbox held unacknowledged at its last contact. */
  readonly outboxPending: number;
  /** When a proctor retired it; null or absent: in service. */
  readonly retiredAt?: number | null;
}

/** The session on a station, and what the console needs of it. */
export interface StationSessionInput {
  readonly sessionId: string;
  readonly participant: string;
  readonly checkedInAt: number;
  readonly state: SessionState;
  readonly createdAt: number;
  readonly order: readonly number[];
  readonly pauses?: readonly Pause[];
  readonly flags: readonly string[];
  /** The last event of each of {@link CONSOLE_KINDS} (absent: none yet). */
  readonly last: Readonly<Partial<Record<(typeof CONSOLE_KINDS)[number], StoredEvent>>>;
  readonly notes: readonly ConsoleNote[];
}

export interface ConsoleNote {
  readonly at: number;
  readonly actor: string;
  readonly text: string;
  readonly flag: boolean;
}

export interface StationItem {
  readonly id: string;
  readonly kind: string;
  /** Drawn from a pool (a campaign's candidate). */
  readonly candidate: boolean;
  /** A game's level the participant is on (0-based, from their last action), else null. */
  readonly level: number | null;
  /** Time left of the item's hard limit, breaks left out; null for pages and surveys. */
  readonly msLeft: number | null;
}

export interface StationSession {
  readonly id: string;
  readonly participant: string;
  readonly checkedInAt: number;
  /** The session's own state (`effectiveState`). */
  readonly state: SessionState;
  readonly paused: boolean;
  readonly pausedMs: number;
  readonly item: StationItem | null;
  readonly sessionMsLeft: number;
  /** Away from the tab or idle, since when (server time), by the session's last presence events. */
  readonly away: { readonly kind: 'hidden' | 'idle'; readonly since: number } | null;
  readonly flags: readonly string[];
  readonly notes: readonly ConsoleNote[];
}

export interface StationStatus {
  readonly id: string;
  readonly name: string;
  readonly state: StationState;
  readonly online: boolean;
  /** When a proctor retired the station; null: in service. */
  readonly retiredAt: number | null;
  readonly lastSeenAt: number | null;
  /** Events the station's outbox still held at its last contact: 0 is caught up. */
  readonly outboxPending: number;
  readonly waiting: string | null;
  readonly session: StationSession | null;
}

/** The console's whole view of a study's stations. */
export interface CentreView {
  readonly studyId: string;
  readonly now: number;
  readonly stations: readonly StationStatus[];
}

/** Where the session is: its current item (the last started, unless it ended since). */
function currentItem(study: StudyDefinition, s: StationSessionInput, now: number): StationItem | null {
  const start = s.last[ITEM_START];
  const id = typeof start?.data.item === 'string' ? start.data.item : null;
  if (!start || id === null) return null;
  const end = s.last[ITEM_END];
  if (end && end.seq > start.seq && end.data.item === id) return null;
  const index = s.order.find((i) => study.items[i]?.id === id);
  if (index === undefined) return null;
  const item = study.items[index];
  const action = s.last['game.action'];
  const level =
    item.kind === 'game' && action && action.seq > start.seq && typeof action.data.level === 'number'
      ? action.data.level
      : item.kind === 'game'
        ? 0
        : null;
  const timed = item.kind !== 'page' && item.kind !== 'survey';
  const spent = now - start.receivedAt - pausedWithin(s.pauses, start.receivedAt, now);
  return {
    id,
    kind: item.kind,
    candidate: poolOf(study, index) !== null,
    level,
    msLeft: timed ? Math.max(0, itemLimits(study, item).hardMinutes * 60_000 - spent) : null,
  };
}

function awayOf(s: StationSessionInput): StationSession['away'] {
  const vis = s.last.visibility;
  if (vis && vis.data.state === 'hidden') return { kind: 'hidden', since: vis.receivedAt };
  const idle = s.last.idle;
  if (idle && idle.data.state !== 'active') return { kind: 'idle', since: idle.receivedAt };
  return null;
}

/** One station's status at `now` (the rules in this module's header). */
export function stationStatus(
  study: StudyDefinition,
  station: StationInput,
  session: StationSessionInput | null,
  now: number,
  offlineMs = STATION_OFFLINE_MS,
): StationStatus {
  const online = station.lastSeenAt !== null && now - station.lastSeenAt <= offlineMs;
  const view: StationSession | null = session && {
    id: session.sessionId,
    participant: session.participant,
    checkedInAt: session.checkedInAt,
    state: session.state,
    paused: isPaused(session.pauses),
    pausedMs: pausedWithin(session.pauses, session.createdAt, now),
    item: isFinalState(session.state) ? null : currentItem(study, session, now),
    sessionMsLeft: sessionBudget(study, session.createdAt, now, session.pauses).minutesLeft * 60_000,
    away: awayOf(session),
    flags: session.flags,
    notes: session.notes,
  };
  let state: StationState;
  if (station.retiredAt != null) state = 'retired';
  else if (!online) state = 'offline';
  else if (!view) state = station.pendingParticipant ? 'waiting' : 'free';
  else if (isFinalState(view.state) || view.state === 'abandoned') state = 'finished';
  else if (view.paused) state = 'paused';
  else if (view.away) state = view.away.kind === 'hidden' ? 'away' : 'idle';
  else state = 'running';
  return {
    id: station.id,
    name: station.name,
    state,
    online,
    retiredAt: station.retiredAt ?? null,
    lastSeenAt: station.lastSeenAt,
    outboxPending: station.outboxPending,
    waiting: station.pendingParticipant,
    session: view,
  };
}
