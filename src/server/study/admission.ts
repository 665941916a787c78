/**
 * The admission rule: whether the server takes a participant's write now. Every route that writes
 * for a participant (submissions, answers, descriptions, survey responses, withdrawal, game runs
 * and their actions) asks {@link AdmissionRule.admit} before it stores or performs anything, so the rule is
 * written once (docs/api.md, "Admission"):
 *
 * 1. The session is open: not finished, withdrawn, timed out (the session limit) or abandoned
 *    (no event for `abandonAfterMinutes`). Withdrawal alone is also taken from a timed-out or
 *    abandoned session: a participant may always withdraw until the session is finished.
 * 2. For a write about an item, the item is the participant's current one: the first item in the
 *    session's order that is not finished, as the stored `item.start`/`item.end` events show. A
 *    later item not reached yet is `not_current_item` (or `events_pending` while the client's
 *    events up to `lastSeq` are still on their way), an ended one `item_closed`. A write that
 *    looks back on an item (a `last` description) needs the item entered, not current.
 *    A pool candidate the server once told the participant to skip (too little of the session's
 *    time left, its claim marked `skipped`) stays skipped, whatever the log says afterwards: an
 *    `item.start` sent after the skip does not reopen it (`item_skipped`).
 * 3. Within the item's hard limit (tasks, questions and games; pages and surveys have none),
 *    counted from when the server first saw the item: its first `item.start`, submission or game
 *    run, whichever came first, less the
 *    session's breaks since then (a proctor's pause stops the clock).
 *
 * Events are not admitted here: the log records what happened, and the outbox may deliver it
 * late (an `item.end`, or the events before a withdrawal, arrive after the fact), so a batch is
 * taken from every session whose token is valid, within its quota and rate (`eventRoutes.ts`).
 *
 * WARNING: the marks cache below relies on stored events never changing: an event at or below a
 * session's acknowledged mark is final (events are idempotent on seq, the first copy stays).
 */
import type { Context } from 'hono';
import {
  ITEM_END,
  ITEM_START,
  effectiveState,
  sessionProgress,
  type ItemProgress,
  type StoredEvent,
} from '../../core/study/rules';
import { type StudyDefinition, type StudyItem, poolOf } from '../../core/study/schema';
import { pausedWithin } from '../../core/study/pauses';
import type { AdmissionRefusal } from '../../core/protocol/errors';
import type { SessionRecord, SessionStamp, Store, SubmissionRecord } from '../store/types';
import { fail } from '../http';
import { itemLimitsOf } from './context';
import type { ParticipantSessions } from './participants';

/** Why a write was refused; every one is a 409 (docs/api.md, "Admission"). */
export type { AdmissionRefusal } from '../../core/protocol/errors';

export interface AdmissionRequest {
  /** The item written about; null for a write about the session (withdrawal). */
  readonly item: StudyItem | null;
  /** `current`: the item in progress, within its hard limit. `entered`: started, possibly ended since. */
  readonly need?: 'current' | 'entered';
  /** The highest seq the client had logged, to tell events on their way from a wrong item. */
  readonly lastSeq?: number;
  /** Withdrawal: taken in every state but finished. */
  readonly withdrawing?: boolean;
  /** What is refused, for messages: "answers", "game actions", ... */
  readonly what: string;
  /** Appended to a refusal about the item, e.g. "No trial was used." */
  readonly note?: string;
  /** The session's submissions when the route has read them already. */
  readonly submissions?: readonly SubmissionRecord[];
}

export interface Admitted {
  readonly ok: true;
  /** The clock reading the decision was made at. */
  readonly now: number;
  /** The item's progress (null for a session write). */
  readonly progress: ItemProgress | null;
}

export type Admission = Admitted | { readonly ok: false; readonly res: Response; readonly error: AdmissionRefusal };

/** What the marks are read from. */
type MarkReads = Pick<Store, 'readEvents' | 'streamEvents' | 'listGameRuns' | 'campaigns'>;
/** What the rule reads and writes (a session found timed out is stored so). */
type AdmissionReads = MarkReads & Pick<Store, 'setSessionState' | 'listSubmissions'>;

/** Events read per session, bounded; the marks at or below the acknowledged mark never change. */
const MAX_CACHED_SESSIONS = 20_000;

/**
 * Reads a session's `item.start`/`item.end` events once, then only the events after its
 * acknowledged mark, and nothing at all while the session's stored event count is the one last
 * read (a game's actions come many times a second between two batches of events).
 * WARNING: the shortcut needs a row of the session as read from the database (`participant(c)`
 * reads it fresh); an older row than the last one read gives marks at least as new as the row
 * (`admitOnRow` relies on it).
 */
class ItemMarks {
  private readonly settled = new Map<
    string,
    { through: number; marks: StoredEvent[]; eventCount: number; all: StoredEvent[] }
  >();
  /** The first time each session's game item was played (its earliest run): later runs never change it. */
  private readonly firstRuns = new Map<string, number>();
  /**
   * Whether a started pool candidate's claim was marked skipped. A claim is marked skipped only
   * while its item has no event (`sessionRoutes.ts`), so once the item is started the answer
   * never changes and is read once.
   */
  private readonly skippedClaims = new Map<string, boolean>();

  constructor(private readonly store: MarkReads) {}

  async read(session: SessionRecord): Promise<StoredEvent[]> {
    const { store } = this;
    const hit = this.settled.get(session.id);
    if (hit && hit.eventCount === session.eventCount) return [...hit.all];
    let marks: StoredEvent[];
    if (!hit) {
      marks = await store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] });
    } else {
      marks = [...hit.marks];
      for await (const page of store.streamEvents(session.id, { afterSeq: hit.through })) {
        for (const e of page) if (e.kind === ITEM_START || e.kind === ITEM_END) marks.push(e);
      }
    }
    const through = session.ackedThrough;
    if (!hit && this.settled.size >= MAX_CACHED_SESSIONS) {
      this.settled.clear();
      this.firstRuns.clear();
      this.skippedClaims.clear();
    }
    const settled =
      !hit || through > hit.through
        ? { through, marks: marks.filter((e) => e.seq <= through) }
        : { through: hit.through, marks: hit.marks };
    this.settled.set(session.id, { ...settled, eventCount: session.eventCount, all: marks });
    return marks;
  }

  /** When the session first opened a run of the game item, or null before its first run. */
  async firstRun(session: SessionRecord, item: string): Promise<number | null> {
    const key = `${session.id}\u0000${item}`;
    const known = this.firstRuns.get(key);
    if (known !== undefined) return known;
    const opened = (await this.store.listGameRuns(session.id)).filter((r) => r.item === item).map((r) => r.openedAt);
    if (!opened.length) return null;
    const first = Math.min(...opened);
    this.firstRuns.set(key, first);
    return first;
  }

  /** Whether the session's claim on candidate `item` was marked skipped (asked once the item is started). */
  async claimSkipped(session: SessionRecord, item: string): Promise<boolean> {
    const key = `${session.id}\u0000${item}`;
    const known = this.skippedClaims.get(key);
    if (known !== undefined) return known;
    const claims = await this.store.campaigns.sessionClaims(session.id);
    const skipped = claims.some((c) => c.candidate === item && c.state === 'skipped');
    this.skippedClaims.set(key, skipped);
    return skipped;
  }
}

/**
 * The admission rule of one app, with the item marks it reads kept between requests.
 *
 * @example
 * const a = await admission.admit(c, session, study, { item, lastSeq, what: 'answers' });
 * if (!a.ok) return a.res;
 */
export class AdmissionRule {
  private readonly store: AdmissionReads;
  private readonly now: () => number;
  private readonly participants: Pick<ParticipantSessions, 'authenticate'>;
  private readonly marks: ItemMarks;

  constructor(deps: {
    readonly store: AdmissionReads;
    readonly now: () => number;
    readonly participants: Pick<ParticipantSessions, 'authenticate'>;
  }) {
    this.store = deps.store;
    this.now = deps.now;
    this.participants = deps.participants;
    this.marks = new ItemMarks(deps.store);
  }

  /** Whether the participant's write is taken now, or the 409 that says why not and what to do. */
  async admit(c: Context, session: SessionRecord, study: StudyDefinition, req: AdmissionRequest): Promise<Admission> {
    const { store } = this;
    const t = this.now();
    const note = req.note ? ` ${req.note}` : '';
    const refuse = (error: AdmissionRefusal, message: string, extra: Record<string, unknown> = {}): Admission => ({
      ok: false,
      error,
      res: fail(c, 409, error, message + note, extra),
    });

    const state = effectiveState(session, study, t);
    if (state === 'finished')
      return refuse('session_closed', `This session is finished; no more ${req.what} are accepted.`);
    if (!req.withdrawing) {
      if (state === 'withdrawn')
        return refuse('session_closed', `You withdrew from this study; no more ${req.what} are accepted.`);
      if (state === 'timed_out') {
        if (session.state !== 'timed_out') await store.setSessionState(session.id, 'timed_out');
        return refuse('session_closed', `The time for this session is up; no more ${req.what} are accepted.`);
      }
    }
    // Abandoned (silent too long) is refused after the item's own rules, which say more.
    const idle = (progress: ItemProgress | null): Admission =>
      state === 'abandoned' && !req.withdrawing
        ? refuse(
            'session_idle',
            `Nothing reached the server from this session for over ${study.limits.abandonAfterMinutes} minutes, so it counts as abandoned and takes no ${req.what}. Reload the study page to go on; nothing you did is lost.`,
          )
        : { ok: true, now: t, progress };
    const { item } = req;
    if (!item) return idle(null);

    const cache = this.marks;
    const marks = await cache.read(session);
    // With the session's time budget: a pool candidate too little time is left for is skipped.
    const progress = sessionProgress(study, session.order, marks, undefined, {
      createdAt: session.createdAt,
      now: t,
      pauses: session.pauses,
    });
    const position = progress.items.findIndex((i) => i.id === item.id);
    if (position < 0)
      return refuse(
        'not_current_item',
        `Item ${item.id} is not among the items of your session; ${req.what} are taken for your items only.`,
      );
    const prog = progress.items[position];
    // The client moved on (or started) but its events saying so have not arrived yet.
    const pending = () => req.lastSeq !== undefined && session.ackedThrough < req.lastSeq;
    const pendingMessage = `Your events after seq ${session.ackedThrough} are not on the server yet, so it cannot tell which item you are on; send them, then try again.`;

    if (req.need === 'entered') {
      if (prog.started) return idle(prog);
      if (pending()) return refuse('events_pending', pendingMessage, { ackedThrough: session.ackedThrough });
      return refuse(
        'not_started',
        `Item ${item.id} has not been started; it takes ${req.what} after you worked on it.`,
      );
    }

    const skippedEarlier =
      prog.started && poolOf(study, study.items.indexOf(item)) !== null && (await cache.claimSkipped(session, item.id));
    if (prog.skipped || skippedEarlier)
      return refuse(
        'item_skipped',
        `Item ${item.id} was not started: too little of the session's time was left for it. Go on to the next item.`,
      );
    if (prog.finished) return refuse('item_closed', `Item ${item.id} is finished; finished items cannot be revisited.`);
    if (position !== progress.current) {
      if (pending()) return refuse('events_pending', pendingMessage, { ackedThrough: session.ackedThrough });
      return refuse(
        'not_current_item',
        `Item ${item.id} is not the item you are on; ${req.what} are taken for the current item only.`,
      );
    }

    // Pages and surveys have no time limit (the participant's page shows none either).
    if (item.kind === 'page' || item.kind === 'survey') return idle(prog);
    const seen: number[] = prog.startedAt === null ? [] : [prog.startedAt];
    if (item.kind === 'task' || item.kind === 'question') {
      const subs = req.submissions ?? (await store.listSubmissions(session.id));
      for (const s of subs) if (s.item === item.id) seen.push(s.at);
    }
    if (item.kind === 'game') {
      const first = await cache.firstRun(session, item.id);
      if (first !== null) seen.push(first);
    }
    const limits = itemLimitsOf(study, item);
    // A break (core/study/pauses.ts) stops the item's clock as it stops the session's.
    const began = Math.min(...seen);
    if (seen.length && t - began - pausedWithin(session.pauses, began, t) > limits.hardMinutes * 60_000) {
      return refuse(
        'item_time_up',
        `The ${limits.hardMinutes} minutes for item ${item.id} are up; move on to the next item.`,
      );
    }
    return idle(prog);
  }

  /**
   * The same rule as {@link AdmissionRule.admit}, for writes that come many times a second (a game's actions),
   * decided without reading the session's row each time: on `known`, the row as this server last
   * read it (`participants.authenticate(c, false)`). It holds because of two things:
   * - a yes carries the row's {@link stampOf stamp}, and the write is stored only while the row
   *   still has it, in the write's own statement (`addGameStep`); a row changed meanwhile by any
   *   server (events, withdrawal, finish) makes the write fail with `SessionChanged`, and the
   *   caller asks {@link AdmissionRule.admitOnFreshRow}, writing only once it says yes, as any write is;
   * - a no is never given on an old row: it is asked again on the current one.
   * The clock's limits (the item's hard limit, the session's time, abandonment) are judged at the
   * time of the call on either row: a row's `lastEventAt` only moves forward, so an old one refuses
   * sooner, never later.
   */
  async admitOnRow(
    c: Context,
    known: { session: SessionRecord; study: StudyDefinition },
    req: AdmissionRequest,
  ): Promise<StampedAdmission> {
    const a = await this.admit(c, known.session, known.study, req);
    return a.ok ? { ok: true, stamp: stampOf(known.session) } : this.admitOnFreshRow(c, req);
  }

  /** {@link AdmissionRule.admit} on the session's current row (read now), with its stamp. */
  async admitOnFreshRow(c: Context, req: AdmissionRequest): Promise<StampedAdmission> {
    const fresh = await this.participants.authenticate(c);
    if (!fresh.ok) return fresh;
    const a = await this.admit(c, fresh.session, fresh.study, req);
    return a.ok ? { ok: true, stamp: stampOf(fresh.session) } : a;
  }
}

/** The columns of a session's row its admission reads that can change (see {@link SessionStamp}). */
export function stampOf(session: SessionRecord): SessionStamp {
  return { id: session.id, state: session.state, eventCount: session.eventCount, ackedThrough: session.ackedThrough };
}

/** An admission with the stamp of the row it was decided on: the write is stored only while the row still has it. */
export type StampedAdmission =
  { readonly ok: true; readonly stamp: SessionStamp } | { readonly ok: false; readonly res: Response };
