/**
 * A study session as the participant's page holds it while it runs (`Running`), and what the page
 * reads to set it up: the link's parameters, this browser's saved session, where the participant
 * is by the log, which items still owe a last description, and the next position to go to.
 */
import { toJsonl, type LogEvent } from '../../core/log/events';
import { ApiError } from '../api';
import { downloadText } from '../log/sessionLog';
import { getSession, type SessionItem, type SessionView } from './api';
import { Outbox, type StudySessionRecord } from './outbox';
import type { SessionBudget } from './budget';
import type { Pause } from '../../core/study/pauses';

export interface Running {
  readonly outbox: Outbox;
  readonly record: StudySessionRecord;
  readonly view: SessionView;
  /** Events this browser logged before this page load. */
  readonly history: readonly LogEvent[];
  /** Where the participant is when the page loads. */
  readonly start: { index: number; instructionsDone: boolean };
  /** `t` of the `item.start` of each item entered in this page load: an item is entered once. */
  readonly entered: Map<string, number>;
  /** Items (tasks and games with `describe`) whose last written description is still to be asked when they end. */
  readonly describeLast: Map<string, boolean>;
  /** The session's time budget, by the server's clock when the view was read. */
  readonly budget: SessionBudget;
  /** A proctor's breaks on the outbox clock (from the log, then as they come): the clocks stop during them. */
  readonly breaks: Pause[];
}

/**
 * The link's parameters, kept with the session: recruitment platforms' ids (Prolific's
 * `PROLIFIC_PID`, `STUDY_ID`, `SESSION_ID`; MTurk's `workerId`, `assignmentId`, `hitId`) and any
 * other with a name the server accepts.
 */
export function linkParams(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(window.location.search))
    if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k)) out[k] = v.slice(0, 500);
  return out;
}

/** The participant a study link names (Prolific's, else MTurk's id), if it names one. */
export function linkParticipant(params: Record<string, string>): string | undefined {
  return params.PROLIFIC_PID || params.workerId || undefined;
}

/**
 * This browser's session of the study for the participant the link names: a link naming another
 * participant than a saved session's gets a new session (the saved one stays as it was), so one
 * person's actions are never logged under another's id in a shared browser.
 */
export function savedSessionFor(
  saved: readonly StudySessionRecord[],
  studyId: string,
  participant: string | undefined,
): StudySessionRecord | undefined {
  const mine = saved.filter((s) => s.studyId === studyId);
  // Sessions saved before participants were recorded (no `participant`) go on as they were.
  return participant === undefined
    ? mine[0]
    : mine.find((s) => s.participant === undefined || s.participant === participant);
}

/**
 * Why the study page stopped, in the words the participant needs: a link the server does not know
 * is no outage (reloading will not help), and "everything is saved" is said only where a session is.
 */
export interface PageError {
  readonly message: string;
  /** The server has no study by the link's id. */
  readonly unknownStudy: boolean;
  /** This browser holds a session of the study, whose actions are kept. */
  readonly saved: boolean;
}

export function pageError(e: unknown, saved: boolean): PageError {
  const unknownStudy = e instanceof ApiError && e.status === 404 && e.code === 'not_found';
  return { message: (e as Error).message, unknownStudy, saved };
}

export function clientInfo() {
  return {
    wallClock: new Date().toISOString(),
    userAgent: navigator.userAgent,
    viewport: { width: window.innerWidth, height: window.innerHeight, dpr: window.devicePixelRatio },
  };
}

/** Logs `item.start` for `items[index]` unless it was entered in this page load already. */
export function enterItem(run: Pick<Running, 'outbox' | 'entered'>, item: SessionItem | undefined): void {
  if (item && !run.entered.has(item.id))
    run.entered.set(item.id, run.outbox.append('item.start', { item: item.id, kind: item.kind }).t);
}

/**
 * The position to go to from `from`: past the pool candidates the server no longer starts because
 * too little of the session's time is left (`skipped`). The session is read again for that, and
 * for the budget; when the server cannot be reached in a few seconds the study goes on to `from`
 * (the outbox keeps the participant's work meanwhile).
 */
export async function nextPosition(
  run: Pick<Running, 'record' | 'view'>,
  from: number,
): Promise<{ to: number; view: SessionView | null }> {
  if (from >= run.view.items.length) return { to: from, view: null };
  const fresh = await Promise.race([
    getSession(run.record.id, run.record.token).catch(() => null),
    sleep(4000).then(() => null),
  ]);
  if (!fresh) return { to: from, view: null };
  const skipped = new Set(fresh.progress.items.filter((i) => i.skipped).map((i) => i.id));
  let to = from;
  while (to < run.view.items.length && skipped.has(run.view.items[to].id)) to++;
  return { to, view: fresh };
}

/** Where the participant is: the first item not ended, by this browser's log or the server's. */
export function startPosition(
  view: SessionView,
  history: readonly LogEvent[],
): { index: number; instructionsDone: boolean } {
  if (history.length === 0)
    return { index: view.progress.current, instructionsDone: view.progress.items.some((i) => i.started) };
  const ended = new Set(history.filter((e) => e.kind === 'item.end').map((e) => String(e.data.item)));
  const serverDone = new Set(view.progress.items.filter((i) => i.finished).map((i) => i.id));
  const index = view.items.findIndex((i) => !ended.has(i.id) && !serverDone.has(i.id));
  return {
    index: index < 0 ? view.items.length : index,
    instructionsDone: history.some((e) => e.kind === 'instructions.done' || e.kind === 'item.start'),
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Which items still owe their last written description when they end: a game with `describe`
 * always; a task once the participant submitted after the first description (`TaskItemView`).
 * An item whose last description is in the log owes none.
 */
export function describeLastFrom(view: SessionView, history: readonly LogEvent[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const described = (id: string, stage: string) =>
    history.some((e) => e.kind === 'description.submit' && e.data.item === id && e.data.stage === stage);
  for (const item of view.items) {
    if ((item.kind !== 'task' && item.kind !== 'game') || !item.describe || described(item.id, 'last')) continue;
    if (item.kind === 'game') {
      out.set(item.id, true);
      continue;
    }
    const firstAt = history.findIndex(
      (e) => e.kind === 'description.submit' && e.data.item === item.id && e.data.stage === 'first',
    );
    const events = itemHistory(history, item.id);
    if (firstAt >= 0 && events.some((e) => e.kind === 'submit' && e.seq > history[firstAt].seq)) out.set(item.id, true);
  }
  return out;
}

export type DescribableItem = Extract<SessionItem, { kind: 'task' | 'game' }>;

/** The item whose last description a reload interrupted: it ended, its description is not in the log. */
export function pendingDescription(run: Running): DescribableItem | null {
  const prev = run.start.instructionsDone ? run.view.items[run.start.index - 1] : undefined;
  return prev &&
    (prev.kind === 'task' || prev.kind === 'game') &&
    run.describeLast.get(prev.id) &&
    run.history.some((e) => e.kind === 'item.end' && e.data.item === prev.id)
    ? prev
    : null;
}

/** The events of one item logged before this page load, from its last `item.start` on. */
export function itemHistory(history: readonly LogEvent[], itemId: string): LogEvent[] {
  let from = -1;
  history.forEach((e, i) => {
    if (e.kind === 'item.start' && e.data.item === itemId) from = i;
  });
  return from < 0 ? [] : history.slice(from);
}

/** Offers every event of the session this browser holds as a JSONL file. */
export async function downloadLog(outbox: Outbox): Promise<void> {
  downloadText(`arc-studio-session-${outbox.sessionId}.jsonl`, toJsonl(await outbox.log()));
}
