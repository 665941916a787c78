/**
 * The session's time budget (the study's `limits.sessionMinutes`) as the participant's clock
 * shows it. The server's clock decides how much is spent: the session view carries when the
 * budget ends and the server's time of the answer (`budget.endsAt`, `session.now`), so a reload,
 * a wrong computer clock or a session resumed on another day all read the same budget. Between
 * answers the page counts on the outbox's monotonic clock (`Outbox.now()`), which is also what
 * stamps the events.
 */
import type { SessionView } from '../../core/protocol/api';
import type { LogEvent } from '../../core/log/events';
import { type Pause, pausedWithin } from '../../core/study/pauses';

export interface SessionBudget {
  /** The whole budget, in milliseconds. */
  readonly totalMs: number;
  /** What was left when the session view was read. */
  readonly leftAtReadMs: number;
  /** The outbox clock (`Outbox.now()`) when the session view was read. */
  readonly readAt: number;
}

/** The budget as of the session view read when the outbox clock said `readAt`. */
export function sessionBudget(view: Pick<SessionView, 'session' | 'study' | 'budget'>, readAt: number): SessionBudget {
  const totalMs = view.study.limits.sessionMinutes * 60_000;
  return { totalMs, leftAtReadMs: Math.max(0, Math.min(totalMs, view.budget.endsAt - view.session.now)), readAt };
}

/**
 * Milliseconds left at outbox time `t`; 0 once spent. A proctor's break (`breaks`, on the outbox
 * clock) costs none of it, as on the server.
 */
export function budgetLeft(b: SessionBudget, t: number, breaks?: readonly Pause[]): number {
  return Math.max(0, b.leftAtReadMs - Math.max(0, t - b.readAt - pausedWithin(breaks, b.readAt, t)));
}

/** The breaks a session's log records (`pause` events), on its own clock (`t`), oldest first. */
export function breaksOf(history: readonly LogEvent[]): Pause[] {
  const out: Pause[] = [];
  for (const e of history) {
    if (e.kind !== 'pause') continue;
    const open = out.length > 0 && out[out.length - 1].to === null;
    if (e.data.state === 'paused' && !open) out.push({ from: e.t, to: null });
    if (e.data.state === 'resumed' && open) out[out.length - 1] = { from: out[out.length - 1].from, to: e.t };
  }
  return out;
}

/** Minutes and seconds, `m:ss` (or `h:mm:ss` past an hour). */
export function formatClock(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600),
    m = Math.floor((total % 3600) / 60),
    sec = total % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(sec).padStart(2, '0')}`;
}
