/**
 * A session's digest as a fold over its log: `foldEvents` extends a `DigestFold` by the events
 * that arrived after it, and `finishDigest` turns the fold and the session's submissions into the
 * `SessionDigest` that `digestSession` computes from the whole log. The server stores the fold
 * beside the digest, so a live session's digest costs the events that arrived since, not its log.
 *
 * The fold keeps, per item of the session's order, what the digest needs of the item's events:
 * counters for task items and pages (`TaskTally`, time on task), and the events themselves for
 * game and question items (their replay and answers read an item's whole run; those runs are
 * short beside a task's strokes). A fold is plain JSON.
 *
 * WARNING: `finishDigest(foldEvents(newDigestFold(), log))` must equal `digestSession(log)`
 * for every log, however the log is split into parts (`fold.test.ts` checks it on real sessions
 * and on generated logs). A change to either side changes `ANALYSIS_VERSION`.
 */
import type { StudyDefinition } from '../study/schema';
import { isPractice } from '../study/schema';
import {
  isLowEffort,
  ITEM_END,
  ITEM_START,
  verifyGameLog,
  type GameVerification,
  type ItemProgress,
  type ReplayGame,
  type StoredEvent,
} from '../study/rules';
import { tallyTests } from '../study/summary';
import { GRID_ACTION_KINDS, itemActions } from '../study/actions';
import { activeTimeOf, addActiveTime, newActiveTimeFold, untilItemEnd, type ActiveTimeFold } from '../study/activeTime';
import { questionItemDigest, type QuestionItemDigest } from './questions';
import { addSignalEvent, newSignalFold, sessionPrints, sessionSignalFlags, type SignalFold } from './signals';
import {
  addTaskEvent,
  ANALYSIS_VERSION,
  gameItemDigest,
  newTaskTally,
  taskDigestOf,
  testIndicesOf,
  type GameDigest,
  type ResultsInput,
  type ResultsSession,
  type ResultsSubmission,
  type SessionDigest,
  type TaskDigest,
  type TaskTally,
} from './results';

/** What one item's events so far leave (its events are those after each `item.start` naming it). */
export interface ItemFold {
  /** Events of the item. */
  n: number;
  /** Server time of its first and last event, ms since the epoch. */
  firstAt: number;
  lastAt: number;
  /** Whether its first `item.end` was folded in: later events are outside its span. */
  closed: boolean;
  /** Time on task over the span. */
  time: ActiveTimeFold;
  /** Task items: grid actions over all the item's events, and the span's tally. */
  gridActions?: number;
  task?: TaskTally;
  /** Game and question items: the item's events. */
  events?: StoredEvent[];
}

export interface DigestFold {
  /** `ANALYSIS_VERSION` of the code that folded: a fold of another version is started again. */
  readonly analysis: number;
  /** The last seq folded in; -1 before any. */
  seq: number;
  /** The item the next event belongs to (the last `item.start`'s), null before any. */
  current: string | null;
  /** Items of the order with an `item.end` anywhere in the log. */
  ended: string[];
  /** By item id, the items of the session's order that have events. */
  items: Record<string, ItemFold>;
  /** What the session's signals of help and low effort read (`signals.ts`). */
  signals: SignalFold;
}

export function newDigestFold(): DigestFold {
  return { analysis: ANALYSIS_VERSION, seq: -1, current: null, ended: [], items: {}, signals: newSignalFold() };
}

/**
 * Extends `fold` by `events` (the next ones of the log, in seq order, each after `fold.seq`),
 * in place; returns it.
 * @throws Error when an event is not after the fold's last seq (a part folded twice or out of order).
 */
export function foldEvents(
  def: StudyDefinition,
  order: readonly number[],
  fold: DigestFold,
  events: readonly StoredEvent[],
): DigestFold {
  const kinds = new Map<string, StudyDefinition['items'][number]>();
  for (const i of order) {
    const item = def.items[i];
    if (item) kinds.set(item.id, item);
  }
  for (const e of events) {
    if (e.seq <= fold.seq)
      throw new Error(
        `Event ${e.seq} is not after the digest's last event ${fold.seq}: a log is folded in seq order, each event once.`,
      );
    fold.seq = e.seq;
    addSignalEvent(fold.signals, e);
    if (e.kind === ITEM_START && typeof e.data.item === 'string') fold.current = e.data.item;
    if (
      e.kind === ITEM_END &&
      typeof e.data.item === 'string' &&
      kinds.has(e.data.item) &&
      !fold.ended.includes(e.data.item)
    )
      fold.ended.push(e.data.item);
    if (fold.current === null) continue;
    const item = kinds.get(fold.current);
    if (!item) continue;
    let f = fold.items[item.id];
    if (!f) {
      f = { n: 0, firstAt: e.receivedAt, lastAt: e.receivedAt, closed: false, time: newActiveTimeFold() };
      if (item.kind === 'task') {
        f.gridActions = 0;
        f.task = newTaskTally();
      }
      if (item.kind === 'game' || item.kind === 'question') f.events = [];
      fold.items[item.id] = f;
    }
    f.n++;
    f.lastAt = e.receivedAt;
    if (f.events) f.events.push(e);
    if (f.gridActions !== undefined && GRID_ACTION_KINDS.has(e.kind)) f.gridActions++;
    if (!f.closed) {
      addActiveTime(f.time, e);
      if (f.task) addTaskEvent(f.task, e);
      if (e.kind === ITEM_END && e.data.item === item.id) f.closed = true;
    }
  }
  return fold;
}

/**
 * The session's digest from its fold and its submissions, as `digestSession` gives it from the
 * whole log (items' progress and flags as `summarizeSession` derives them).
 */
export function finishDigest(
  def: StudyDefinition,
  session: Pick<ResultsSession, 'order'>,
  fold: DigestFold,
  submissions: readonly ResultsSubmission[],
  testCount: ResultsInput['testCount'],
  replay: ReplayGame | null,
): SessionDigest {
  const positions = session.order.map((i) => def.items[i]);
  const mine = positions.filter((item) => item !== undefined);
  const indices = new Map<string, number[]>();
  for (const item of mine) {
    if (item.kind === 'task')
      indices.set(item.id, testIndicesOf(item, testCount(item.collection, item.task), submissions));
  }
  const ended = new Set(fold.ended);
  let lastStarted = -1;
  positions.forEach((item, p) => {
    if (fold.items[item.id]) lastStarted = p;
  });
  const flags: string[] = [];
  const verifications = new Map<string, GameVerification>();
  const progress = positions.map((item, p): ItemProgress => {
    const f = fold.items[item.id];
    const events = f?.events ?? [];
    const taskDone =
      item.kind === 'task' &&
      tallyTests(submissions, item.id, indices.get(item.id) ?? []).every((t) => t.solved || t.trialsUsed >= def.trials);
    const actions = item.kind === 'task' ? (f?.gridActions ?? 0) : itemActions(item, events);
    // A proctor's break is no part of the item's time, as it is no part of time on task.
    const durationMs = f ? Math.max(0, f.lastAt - f.firstAt - activeTimeOf(f.time).pausedMs) : 0;
    const practice = isPractice(item);
    const started = f !== undefined;
    if (item.kind === 'game' && replay && started) {
      const game = verifyGameLog(item, events, replay);
      verifications.set(item.id, game);
      if (!game.verified)
        flags.push(`${game.status === 'other_version' ? 'game_log_other_version' : 'game_log_unverified'}:${item.id}`);
    }
    return {
      id: item.id,
      kind: item.kind,
      practice,
      started,
      startedAt: f ? f.firstAt : null,
      finished: ended.has(item.id) || p < lastStarted || taskDone,
      actions,
      durationMs,
      activeMs: f ? activeTimeOf(f.time).activeMs : 0,
    };
  });
  if (isLowEffort(def, progress)) flags.push('low_effort');
  flags.push(...sessionSignalFlags(def, session.order, fold.signals));

  const tasks: Record<string, TaskDigest> = {};
  const gameParts: Record<string, GameDigest> = {};
  const questionParts: Record<string, QuestionItemDigest> = {};
  for (const item of mine) {
    if (isPractice(item)) continue;
    const f = fold.items[item.id];
    if (item.kind === 'task')
      tasks[item.id] = taskDigestOf(item.id, f?.task ?? newTaskTally(), submissions, indices.get(item.id) ?? []);
    if (item.kind === 'question')
      questionParts[item.id] = questionItemDigest(item, f?.events ? untilItemEnd(f.events, item.id) : [], submissions);
    if (item.kind === 'game' && f?.events) {
      const part = gameItemDigest(item.game, untilItemEnd(f.events, item.id), verifications.get(item.id));
      if (part) gameParts[item.id] = part;
    }
  }
  const counted = progress.filter((i) => i.kind !== 'page' && !i.practice && i.started);
  return {
    analysis: ANALYSIS_VERSION,
    itemsDone: progress.filter((i) => i.kind !== 'page' && i.finished).length,
    itemsTotal: progress.filter((i) => i.kind !== 'page').length,
    activeMs: counted.reduce((sum, i) => sum + i.activeMs, 0),
    actions: counted.reduce((sum, i) => sum + i.actions, 0),
    flags,
    tasks,
    games: gameParts,
    questions: questionParts,
    prints: sessionPrints(def, session.order, fold.signals, submissions),
  };
}
