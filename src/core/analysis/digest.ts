/**
 * A session's digest: everything the results need from one session's log and submissions, as
 * plain JSON (`SessionDigest`), computed once while the log does not change and added up by
 * `studyResults`. Also the fold of a task item's span of events (`TaskTally`) that the server
 * extends event by event (fold.ts).
 */
import type { StudyDefinition, TaskItem } from '../study/schema';
import { ITEM_END, ITEM_START, type GameVerification, type ReplayGame, type StoredEvent } from '../study/rules';
import { summarizeSession } from '../study/summary';
import { PAUSE, breaksWithin } from '../study/activeTime';
import { GRID_ACTION_KINDS } from '../study/actions';
import { GRID_TOOL_OF_KIND } from '../log/gridPlayer';
import { isCounted, splitRuns } from '../scoring/accounting';
import type { GameState } from '../game/types';
import { firstRunLevels, firstRunSteps, type LevelResult } from '../scoring/baselines';
import { questionItemDigest, type QuestionItemDigest } from './questions';
import { foldSignals, newSignalFold, sessionPrints } from './signals';
import {
  ANALYSIS_VERSION,
  type GameDigest,
  type PlayerDetail,
  type ResultsInput,
  type ResultsSession,
  type ResultsSubmission,
  type SessionDigest,
  type TaskDigest,
  type ToolName,
} from './resultTypes';

/** Event kind -> tool. */
const TOOL_OF_KIND: Readonly<Record<string, ToolName | undefined>> = GRID_TOOL_OF_KIND;

/** The events of each item from its `item.start` up to and including its first `item.end`. */
function itemSpans(events: readonly StoredEvent[]): Map<string, StoredEvent[]> {
  const out = new Map<string, StoredEvent[]>();
  const closed = new Set<string>();
  let current: string | null = null;
  for (const e of events) {
    if (e.kind === ITEM_START && typeof e.data.item === 'string') current = e.data.item;
    if (current === null || closed.has(current)) continue;
    let list = out.get(current);
    if (!list) out.set(current, (list = []));
    list.push(e);
    if (e.kind === ITEM_END && e.data.item === current) closed.add(current);
  }
  return out;
}

/** The test inputs of a task item the results judge: the item's own, else every one of the task, else those judged. */
export function testIndicesOf(item: TaskItem, count: number | null, subs: readonly ResultsSubmission[]): number[] {
  if (item.tests) return [...item.tests];
  if (count !== null) return Array.from({ length: count }, (_, i) => i);
  const judged = [...new Set(subs.filter((s) => s.item === item.id).map((s) => s.testIndex))].sort((a, b) => a - b);
  return judged.length ? judged : [0];
}

/**
 * Per level of the first run of `game` in an item's events: time to complete, level RESETs and
 * undos. Runs are split exactly as `firstRunLevels` splits them (the scorecard's accounting).
 */
function firstRunDetail(evs: readonly StoredEvent[], game: string, levels: readonly LevelResult[]): PlayerDetail {
  const steps = firstRunSteps(evs, game);
  const n = levels.length;
  const timeMs: (number | null)[] = Array(n).fill(null);
  const resets: number[] = Array(n).fill(0);
  const undos: number[] = Array(n).fill(0);
  const [run] = splitRuns(steps);
  if (!run) return { levels, timeMs, resets, undos };
  let level = 0;
  let enteredAt = steps[run.first].t;
  const uncounted = new Set(run.uncounted);
  for (let i = run.first; i < run.end; i++) {
    const s = steps[i];
    if ((i === run.first && s.action === 'RESET') || uncounted.has(i)) continue;
    if (s.action === 'RESET') {
      if (level < n) resets[level]++;
      continue;
    }
    if (s.action === 'ACTION7' && level < n) undos[level]++;
    for (; level < s.levelsCompleted; level++) {
      // A proctor's break during the level is no part of its time.
      if (level < n) timeMs[level] = s.t - enteredAt - breaksWithin(evs, enteredAt, s.t);
      enteredAt = s.t;
    }
  }
  return { levels, timeMs, resets, undos };
}

/** ACTION6 clicks of every run that the scorecard counts (`isCounted`), by the level being played when made (1-based). */
function addClicks(evs: readonly StoredEvent[], game: string, into: Map<number, Map<string, number>>): void {
  let completed = 0;
  let state: GameState = 'NOT_PLAYED';
  for (const e of evs) {
    if (e.data.game !== game) continue;
    if (e.kind === 'game.open') {
      completed = 0;
      state = 'NOT_PLAYED';
      continue;
    }
    if (e.kind !== 'game.action') continue;
    const { action, x, y, level } = e.data as {
      action?: unknown;
      x?: unknown;
      y?: unknown;
      level?: unknown;
      state?: unknown;
    };
    const before = state;
    if (typeof e.data.state === 'string') state = e.data.state as GameState;
    if (action === 'ACTION6' && !isCounted(action, before)) continue;
    if (action === 'ACTION6' && Number.isInteger(x) && Number.isInteger(y)) {
      let m = into.get(completed + 1);
      if (!m) into.set(completed + 1, (m = new Map()));
      const key = `${x as number},${y as number}`;
      m.set(key, (m.get(key) ?? 0) + 1);
    }
    if (typeof level === 'number') completed = level;
  }
}

/**
 * A session's digest: its log and submissions replayed once (`summarizeSession`, game logs
 * verified by `replay`) into what the results add up. Pure: the same inputs give the same JSON.
 */
export function digestSession(
  def: StudyDefinition,
  session: ResultsSession,
  events: readonly StoredEvent[],
  submissions: readonly ResultsSubmission[],
  testCount: ResultsInput['testCount'],
  replay: ReplayGame | null,
): SessionDigest {
  // The session's own items: a campaign's study holds every candidate, a session those it drew.
  const mine = session.order.map((i) => def.items[i]).filter((item) => item !== undefined);
  const indices = new Map<string, number[]>();
  for (const item of mine) {
    if (item.kind === 'task')
      indices.set(item.id, testIndicesOf(item, testCount(item.collection, item.task), submissions));
  }
  const summary = summarizeSession(def, session.order, events, submissions, (id) => indices.get(id) ?? [], replay);
  const spans = itemSpans(events);
  const counted = summary.items.filter((i) => i.kind !== 'page' && !i.practice && i.started);
  const tasks: Record<string, TaskDigest> = {};
  const gameParts: Record<string, GameDigest> = {};
  const questionParts: Record<string, QuestionItemDigest> = {};
  for (const item of mine) {
    if (item.kind === 'question' && !item.practice)
      questionParts[item.id] = questionItemDigest(item, spans.get(item.id) ?? [], submissions);
    if (item.kind === 'task' && !item.practice) {
      tasks[item.id] = taskDigest(item.id, spans.get(item.id) ?? [], submissions, indices.get(item.id) ?? []);
    } else if (item.kind === 'game' && !item.practice) {
      const evs = spans.get(item.id);
      const part = evs ? gameItemDigest(item.game, evs, summary.items.find((i) => i.id === item.id)?.game) : null;
      if (part) gameParts[item.id] = part;
    }
  }
  return {
    analysis: ANALYSIS_VERSION,
    itemsDone: summary.items.filter((i) => i.kind !== 'page' && i.finished).length,
    itemsTotal: summary.items.filter((i) => i.kind !== 'page').length,
    activeMs: counted.reduce((sum, i) => sum + i.activeMs, 0),
    actions: counted.reduce((sum, i) => sum + i.actions, 0),
    flags: summary.flags,
    tasks,
    games: gameParts,
    questions: questionParts,
    prints: sessionPrints(def, session.order, foldSignals(newSignalFold(), events), submissions),
  };
}

/**
 * A game item's part of a digest from its span of events and the server's verification of its
 * log; null when the span has no first run.
 */
export function gameItemDigest(
  game: string,
  evs: readonly StoredEvent[],
  verification: GameVerification | undefined,
): GameDigest | null {
  const levels = firstRunLevels(evs, game);
  if (!levels) return null;
  const version = verification?.version ?? null;
  if (verification?.status === 'other_version') return { version, status: 'other_version', detail: null, clicks: [] };
  if (verification?.verified !== true) return { version, status: 'unverified', detail: null, clicks: [] };
  const clicks = new Map<number, Map<string, number>>();
  addClicks(evs, game, clicks);
  return {
    version,
    status: 'verified',
    detail: firstRunDetail(evs, game, levels),
    clicks: [...clicks].flatMap(([level, m]) => [...m].map(([key, count]) => [level, key, count] as const)),
  };
}

function taskDigest(
  itemId: string,
  evs: readonly StoredEvent[],
  subs: readonly ResultsSubmission[],
  indices: readonly number[],
): TaskDigest {
  const tally = newTaskTally();
  for (const e of evs) addTaskEvent(tally, e);
  return taskDigestOf(itemId, tally, subs, indices);
}

/**
 * What a task item's span of events (`item.start` to its first `item.end`) gives its digest
 * before the submissions are judged in, as a fold: plain JSON, extended event by event.
 */
export interface TaskTally {
  /** Events of the span folded in. */
  events: number;
  /** The span's opening `item.start`: log time and server time. */
  start: { t: number; receivedAt: number } | null;
  /** Grid actions (`GRID_ACTION_KINDS`) and the log time of the first. */
  edits: number;
  firstEditT: number | null;
  /** `submit` events judged correct and the log time of the last. */
  correctSubmits: number;
  lastCorrectSubmitT: number | null;
  toolUses: Partial<Record<ToolName, number>>;
  /** A proctor's breaks in the span: the closed ones' total, the open one's start (log time). */
  pausedMs: number;
  pausedFrom: number | null;
  /** Break time before the first edit and before the last correct submit, left out of their times. */
  firstEditPausedMs: number;
  lastCorrectPausedMs: number;
}

export function newTaskTally(): TaskTally {
  return {
    events: 0,
    start: null,
    edits: 0,
    firstEditT: null,
    correctSubmits: 0,
    lastCorrectSubmitT: null,
    toolUses: {},
    pausedMs: 0,
    pausedFrom: null,
    firstEditPausedMs: 0,
    lastCorrectPausedMs: 0,
  };
}

/** Folds the span's next event into a task tally. */
export function addTaskEvent(tally: TaskTally, e: StoredEvent): void {
  if (tally.events === 0 && e.kind === ITEM_START) tally.start = { t: e.t, receivedAt: e.receivedAt };
  tally.events++;
  if (e.kind === PAUSE) {
    if (e.data.state === 'paused' && tally.pausedFrom === null) tally.pausedFrom = e.t;
    else if (e.data.state === 'resumed' && tally.pausedFrom !== null) {
      tally.pausedMs += Math.max(0, e.t - tally.pausedFrom);
      tally.pausedFrom = null;
    }
  }
  const pausedSoFar = () => tally.pausedMs + (tally.pausedFrom === null ? 0 : Math.max(0, e.t - tally.pausedFrom));
  if (GRID_ACTION_KINDS.has(e.kind)) {
    if (tally.edits === 0) {
      tally.firstEditT = e.t;
      tally.firstEditPausedMs = pausedSoFar();
    }
    tally.edits++;
  }
  if (e.kind === 'submit' && e.data.verdict === 'correct') {
    tally.correctSubmits++;
    tally.lastCorrectSubmitT = e.t;
    tally.lastCorrectPausedMs = pausedSoFar();
  }
  const tool = TOOL_OF_KIND[e.kind];
  if (tool) tally.toolUses[tool] = (tally.toolUses[tool] ?? 0) + 1;
}

/** A task item's digest from its span's tally and the session's judged submissions. */
export function taskDigestOf(
  itemId: string,
  tally: TaskTally,
  subs: readonly ResultsSubmission[],
  indices: readonly number[],
): TaskDigest {
  const mine = subs.filter((s) => s.item === itemId && indices.includes(s.testIndex));
  const version = mine.find((s) => s.taskHash)?.taskHash ?? null;
  if (tally.events === 0 && mine.length === 0)
    return {
      attempted: false,
      solvedWithin: [false, false, false],
      actions: 0,
      firstActionMs: null,
      solveMs: null,
      toolUses: {},
      version,
    };
  const correct = indices.map((ti) =>
    mine.find((s) => s.testIndex === ti && s.verdict === 'correct' && s.trial !== null),
  );
  const within = (k: number) => indices.length > 0 && correct.every((s) => s !== undefined && s.trial! <= k + 1);
  const { start } = tally;
  let solveMs: number | null = null;
  if (start && indices.length > 0 && correct.every((s) => s !== undefined)) {
    solveMs =
      tally.correctSubmits >= indices.length
        ? tally.lastCorrectSubmitT! - start.t - tally.lastCorrectPausedMs
        : Math.max(...correct.map((s) => s!.at)) - start.receivedAt;
  }
  return {
    attempted: true,
    solvedWithin: [within(0), within(1), within(2)],
    actions: tally.edits,
    firstActionMs: start && tally.firstEditT !== null ? tally.firstEditT - start.t - tally.firstEditPausedMs : null,
    solveMs,
    toolUses: { ...tally.toolUses },
    version,
  };
}
