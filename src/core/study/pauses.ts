/**
 * Breaks: a proctor may pause a session (a testing centre's break), and the session's budget and
 * its item's clock stop meanwhile. A pause is kept on the session's row as `{from, to}` (server
 * time, ms since the epoch; `to` null while it lasts), and logged by the station as `pause`
 * events, from which time on task leaves the break out (`activeTime.ts`).
 *
 * The session's clocks read "elapsed" time: wall time less the paused time within it. The budget
 * ends `sessionMinutes` of elapsed time after the start, an item's hard limit `hardMinutes` of
 * elapsed time after the item began, and a paused session is never abandoned.
 */

/** One break of a session, by the server's clock. */
export interface Pause {
  readonly from: number;
  /** When it ended; null while the session is paused. */
  readonly to: number | null;
}

/**
 * Milliseconds of the window `[from, to]` that fall within pauses (an open pause lasts up to
 * `to`). Pauses never overlap: a session is paused once at a time.
 *
 * @example
 * pausedWithin([{ from: 10, to: 20 }, { from: 50, to: null }], 0, 60) // 10 + 10 = 20
 */
export function pausedWithin(pauses: readonly Pause[] | undefined, from: number, to: number): number {
  if (!pauses?.length || to <= from) return 0;
  let ms = 0;
  for (const p of pauses) {
    const end = Math.min(to, p.to ?? to);
    const start = Math.max(from, p.from);
    if (end > start) ms += end - start;
  }
  return ms;
}

/** Whether the session is paused now: its last pause has not ended. */
export function isPaused(pauses: readonly Pause[] | undefined): boolean {
  return !!pauses?.length && pauses[pauses.length - 1].to === null;
}

/**
 * The time on the session's clock at `now`: `now` less every pause since `since`. Its
 * budget and its items' limits are judged on this reading, so a break costs none of them.
 */
export function clockAt(pauses: readonly Pause[] | undefined, since: number, now: number): number {
  return now - pausedWithin(pauses, since, now);
}

/** Total paused milliseconds of a session up to `now`. */
export function pausedTotal(pauses: readonly Pause[] | undefined, now: number): number {
  return pausedWithin(pauses, -Infinity, now);
}
