/**
 * A study's results, derived from its sessions' event logs and server-judged submissions: who
 * took part and how far they got, per grid task the solve rates and effort, per game level the
 * funnel, effort and the human baselines under every preset, and where players clicked.
 *
 * Everything here is a pure function of stored data, so the figures can be rebuilt at any time
 * from the log (the source of truth). The definitions are spelled out on each output type and
 * in docs/api.md ("Study results").
 *
 * Who counts:
 * - Practice items and pages never count.
 * - A designer's playtest session (`params.mode === "playtest"`, or a `playtest` flag) is listed
 *   among the participants with `playtest: true` and counts toward nothing else.
 * - A session a researcher excluded (`excludedAt` set) is listed with `excluded: true` and
 *   counts toward nothing else either: no figure, funnel, baseline or first-time-player slot.
 * - Only sessions of the stage asked for (`stage`, e.g. `main`) are listed and counted; the
 *   others (a pilot's) are left out as if they were not there.
 * - Game figures come only from logs that the server's replay verifies (`verifyGameLog`); a log
 *   that does not replay flags its session (`game_log_unverified:<item>`) and is left out of
 *   every level figure and baseline.
 * - Game figures are kept per game version (levels may differ between versions): each game item
 *   has a row for the server's current version and one for each other version its logs were
 *   recorded on. A log of a version the server cannot run flags its session
 *   (`game_log_other_version:<item>`) and is counted in its version's row as `otherVersion`.
 */
import type { StudyDefinition, TaskItem } from '../study/schema';
import {
  effectiveState,
  ITEM_END,
  ITEM_START,
  type GameVerification,
  type ReplayGame,
  type SessionState,
  type StoredEvent,
} from '../study/rules';
import { summarizeSession, type SubmissionTally } from '../study/summary';
import { MAIN_STAGE, inStage } from '../study/stages';
import { GRID_ACTION_KINDS } from '../study/actions';
import { isCounted, splitRuns } from '../scoring/accounting';
import type { GameState } from '../game/types';
import {
  BASELINE_PRESETS,
  BASELINE_PRESET_NAMES,
  baselineOf,
  computeBaselines,
  firstRunLevels,
  firstRunSteps,
  type BaselinePresetName,
  type LevelResult,
  type PlayerLevels,
} from '../scoring/baselines';
import { distribution, type Dist } from './dist';
import { crossSessionSignals, foldSignals, newSignalFold, sessionPrints, type SessionPrints } from './signals';
import {
  addQuestion,
  newQuestionAcc,
  questionGroups,
  questionItemDigest,
  questionPlaces,
  questionResult,
  type GradeLookup,
  type QuestionAcc,
  type QuestionFacts,
  type QuestionGroupResult,
  type QuestionItemDigest,
  type QuestionResult,
} from './questions';

export type { Dist } from './dist';
export type {
  GradeLookup,
  QuestionFacts,
  QuestionGrade,
  QuestionGroupResult,
  QuestionItemDigest,
  QuestionResult,
  OptionCount,
  QuestionType,
} from './questions';

/** The value of `params.mode` that marks a designer's playtest session. */
export const PLAYTEST_MODE = 'playtest';

/** What the results need of a stored session (a `SessionRecord` of the server's store fits). */
export interface ResultsSession {
  readonly id: string;
  readonly studyVersion: number;
  readonly params: Readonly<Record<string, string>>;
  readonly order: readonly number[];
  readonly state: SessionState;
  readonly createdAt: number;
  readonly lastEventAt: number | null;
  readonly finishedAt: number | null;
  readonly flags: readonly string[];
  /** When a researcher excluded the session from every count; null or absent: counted. */
  readonly excludedAt?: number | null;
  readonly excludedReason?: string | null;
  /** The study's stage when the session started (`core/study/stages.ts`); absent: `main`. */
  readonly stage?: string;
}

/** A stored submission (a `SubmissionRecord` fits): `trial` is null for a refused duplicate. */
export interface ResultsSubmission extends SubmissionTally {
  /** Server time of judging, ms since the epoch. */
  readonly at: number;
  /** What was submitted: a grid, or a question's answer (`{choice}` or `{text}`). */
  readonly grid?: unknown;
}

/**
 * One session: its whole log and its submissions, or its digest computed from them before
 * (`digestSession`, kept by the server while the log does not change).
 */
export type SessionData =
  | {
      readonly session: ResultsSession;
      /** Every stored event of the session, in seq order. */ readonly events: readonly StoredEvent[];
      readonly submissions: readonly ResultsSubmission[];
    }
  | { readonly session: ResultsSession; readonly digest: SessionDigest };

/**
 * The version of what `digestSession` computes: a digest stored under another version is
 * computed again from the log. Raise it with any change to the digest or to what goes into it.
 */
export const ANALYSIS_VERSION = 7;

/** What one participant's log gives one counted task item. */
export interface TaskDigest {
  /** Any event or submission on the item. */
  readonly attempted: boolean;
  /** Every used test input solved within 1, 2, 3 trials. */
  readonly solvedWithin: readonly [boolean, boolean, boolean];
  /** Grid actions (`GRID_ACTION_KINDS`). */
  readonly actions: number;
  readonly firstActionMs: number | null;
  readonly solveMs: number | null;
  /** Uses of each grid tool. */
  readonly toolUses: Readonly<Partial<Record<ToolName, number>>>;
}

/** What one participant's log gives one counted game item with a first run. */
export interface GameDigest {
  /** The version the log's verification found; null: not known from the log. */
  readonly version: string | null;
  readonly status: 'verified' | 'unverified' | 'other_version';
  /** Per level of the first run; null unless verified. */
  readonly detail: PlayerDetail | null;
  /** ACTION6 clicks: [level (1-based), "x,y", count]; empty unless verified. */
  readonly clicks: readonly (readonly [number, string, number])[];
}

/**
 * Everything the results need from one session's log and submissions, as plain JSON: the
 * participant's row (less what the session record says) and each counted item's part. Results
 * add digests up, so a session's log is read and replayed once while it does not change.
 */
export interface SessionDigest {
  readonly analysis: number;
  readonly itemsDone: number;
  readonly itemsTotal: number;
  readonly activeMs: number;
  readonly actions: number;
  /** Flags derived from the log (`summarizeSession`), besides the session's stored ones. */
  readonly flags: readonly string[];
  /** By item id: every task item that is not practice. */
  readonly tasks: Readonly<Record<string, TaskDigest>>;
  /** By item id: game items that are not practice and have a first run. */
  readonly games: Readonly<Record<string, GameDigest>>;
  /** By item id: every question item that is not practice (`core/analysis/questions.ts`). */
  readonly questions: Readonly<Record<string, QuestionItemDigest>>;
  /** What the signals across sessions compare (`core/analysis/signals.ts`); absent in digests made without. */
  readonly prints?: SessionPrints;
}

export interface ResultsInput {
  readonly study: { readonly id: string };
  /** Every stored version of the study (those the sessions ran must be here). */
  readonly versions: readonly { readonly version: number; readonly definition: StudyDefinition }[];
  /** Only sessions that ran this version, and only its items; null: every version. */
  readonly version: number | null;
  /**
   * Only sessions of this stage (`main`, `pilot`, ...); null or absent: every stage. Sessions of
   * other stages are left out altogether: neither listed nor counted.
   */
  readonly stage?: string | null;
  readonly sessions: readonly SessionData[];
  /** How many test inputs a task has; null when the task cannot be read (then the item's `tests`, or the judged ones, are used). */
  readonly testCount: (collection: string, task: string) => number | null;
  /**
   * Registered games: title, number of levels (so levels nobody reached still show) and the
   * current version (`push-<hash>`, `versionedGameId`).
   */
  readonly games: Readonly<
    Record<
      string,
      {
        readonly title: string;
        readonly levels: number;
        readonly version?: string;
        /** An arcengine game's code hash mounted now (`server/arc3/gameCode.ts`). */
        readonly codeHash?: string;
      }
    >
  >;
  /** The server's replay verification; null leaves every game log unverified (so no game figures). */
  readonly replay: ReplayGame | null;
  /** The clock for session states (abandoned, timed out), ms since the epoch. */
  readonly now: number;
  /** A question's subset, choices and answer key from its mounted collection; null (or absent): not known, so no option counts or groups. */
  readonly questionFacts?: (collection: string, question: string) => QuestionFacts | null;
  /** Grades of answers kept for grading (rubric grading); absent: every such answer is awaiting grading. */
  readonly grades?: GradeLookup;
}

/** One row of the participants table. */
export interface ParticipantResult {
  readonly sessionId: string;
  readonly params: Readonly<Record<string, string>>;
  readonly studyVersion: number;
  /** The study's stage when the session started (`pilot`, `main`, or a researcher's name). */
  readonly stage: string;
  /** The state at `now` (an open session goes quiet into `abandoned`, past its limit into `timed_out`). */
  readonly state: SessionState;
  readonly createdAt: number;
  readonly finishedAt: number | null;
  /** Task and game items finished (practice included, pages not), as the participant's progress shows. */
  readonly itemsDone: number;
  readonly itemsTotal: number;
  /**
   * Time on task: over the counted (non-practice) task and game items the participant opened,
   * from the item's `item.start` to its last event up to its `item.end`, by the log's `t`
   * (the browser's monotonic clock), less the time the tab was hidden or the participant idle
   * (`activeTime`, src/core/study/activeTime.ts).
   */
  readonly activeMs: number;
  /** Actions on counted items, as `itemActions` (core/study/actions.ts) defines them for every item kind. */
  readonly actions: number;
  /**
   * The stored flags and the derived ones: `low_effort`, `game_log_unverified:<item>`, `repeat_participant`, ...,
   * and the signals of help and low effort, the session's own and those across sessions (`signals.ts`).
   */
  readonly flags: string[];
  /** A designer's playtest: listed, never counted. */
  readonly playtest: boolean;
  /** Excluded by a researcher: listed, never counted. */
  readonly excluded: boolean;
  /** Why, as the researcher wrote it; null when no reason was given or the session is counted. */
  readonly excludedReason: string | null;
}

/** Grid tools as the results count them; `edit` is painting cells. */
export type ToolName =
  | 'edit'
  | 'select'
  | 'wand'
  | 'fill'
  | 'copy'
  | 'paste'
  | 'resize'
  | 'copy.input'
  | 'reset'
  | 'undo'
  | 'redo'
  | 'recolor'
  | 'rotate'
  | 'flip'
  | 'move'
  | 'crop';

/** Event kind -> tool. */
const TOOL_OF_KIND: Readonly<Record<string, ToolName>> = {
  paint: 'edit',
  select: 'select',
  'select.wand': 'wand',
  fill: 'fill',
  copy: 'copy',
  paste: 'paste',
  resize: 'resize',
  'copy.input': 'copy.input',
  reset: 'reset',
  undo: 'undo',
  redo: 'redo',
  recolor: 'recolor',
  rotate: 'rotate',
  flip: 'flip',
  move: 'move',
  crop: 'crop',
};
const TOOL_NAMES: readonly ToolName[] = [
  'edit',
  'select',
  'wand',
  'fill',
  'copy',
  'paste',
  'resize',
  'copy.input',
  'reset',
  'undo',
  'redo',
  'recolor',
  'rotate',
  'flip',
  'move',
  'crop',
];

/** The grid-changing event kinds (core/study/actions.ts): each is one action of a task. */
export { GRID_ACTION_KINDS } from '../study/actions';

/** Results of one grid-task item over the counted participants. */
export interface TaskResult {
  readonly item: string;
  readonly collection: string;
  readonly task: string;
  /** Test inputs the item shows. */
  readonly tests: number;
  /** Counted sessions whose study version has this item. */
  readonly participants: number;
  /** Of those, the ones that opened the item (logged its `item.start`) or submitted for it. */
  readonly attempted: number;
  /**
   * `solvedWithin[k]`: participants who solved every test input of the item within k+1 trials,
   * i.e. each test input's correct submission had trial number <= k+1. A refused duplicate of
   * a wrong grid is never a trial (the server gives it no trial number).
   */
  readonly solvedWithin: [number, number, number];
  /** `solvedWithin[k] / attempted` (0 when nobody attempted). */
  readonly solveRate: [number, number, number];
  /** Per attempting participant with a grid-changing event: its `t` less the item's `item.start` `t`. */
  readonly timeToFirstActionMs: Dist;
  /**
   * Per participant who solved every test input (any trial): from `item.start` to the correct
   * submission that solved the last one, by the log's `t`; by the server's clock (judging time
   * less the `item.start`'s receive time) when the log lacks those submit events.
   */
  readonly timeToSolveMs: Dist;
  /** Per attempting participant: grid-changing events (`GRID_ACTION_KINDS`; a painted cell is one). */
  readonly actions: Dist;
  /** Per tool: attempting participants who used it at least once. */
  readonly tools: Record<ToolName, number>;
  /** Per tool: uses over all attempting participants (painted cells for `edit`). */
  readonly toolUses: Record<ToolName, number>;
}

/** One baseline figure; shown with its preset (the key), the preset's version and its completer count. */
export interface BaselineResult {
  /** Null when the level has too few completers for the preset (`reason` says how many). */
  readonly value: number | null;
  readonly completers: number;
  readonly version: number;
  readonly reason?: string;
}

/** One level of a game item (levels numbered from 1). */
export interface LevelResultRow {
  readonly level: number;
  /** Players whose first run entered the level. */
  readonly reached: number;
  /** Of those, players whose first run completed it. */
  readonly completed: number;
  /** Per completer: scorecard actions on the level in the first run (entering it up to and including the completing action; level RESETs and undos count). */
  readonly actions: Dist;
  /** Per completer: `t` of the completing action less `t` of entering the level (the run's opening RESET for level 1, else the action that completed the level before). */
  readonly timeMs: Dist;
  /** Per player who reached it: level RESETs made while playing it in the first run. */
  readonly resets: Dist;
  /** Per player who reached it: undos (ACTION7) made while playing it in the first run. */
  readonly undos: Dist;
  /** The human baseline under each preset, from the completers' action counts (`computeBaselines`). */
  readonly baselines: Record<BaselinePresetName, BaselineResult>;
  /** ACTION6 clicks made while the level was being played, in every run: `[x, y, count]`, ordered by y then x. */
  readonly clicks: [number, number, number][];
}

/** Results of one game item on one version of the game, over the counted players with verified logs. */
export interface GameResult {
  readonly item: string;
  readonly game: string;
  /** The game version of these logs (`push-<hash>`); null when the server did not say. */
  readonly version: string | null;
  /** Whether `version` is the one the server runs now. */
  readonly current: boolean;
  readonly title: string;
  /** Counted sessions that played the game and whose log verified. */
  readonly participants: number;
  /** Counted sessions that played it but whose log did not verify (left out of every figure). */
  readonly unverified: number;
  /** Counted sessions whose log was recorded on this version, which the server cannot run (left out of every figure). */
  readonly otherVersion: number;
  readonly levels: LevelResultRow[];
}

/** The results of a study: the JSON of `GET /api/admin/studies/:studyId/results`. */
export interface StudyResults {
  /** `stage`: the stage counted (null: every stage). */
  readonly study: { id: string; title: string; versions: number[]; version: number | null; stage: string | null };
  readonly participants: ParticipantResult[];
  readonly tasks: TaskResult[];
  readonly games: GameResult[];
  /** Per question of every question item (item and test index), in study order. */
  readonly questions: QuestionResult[];
  /** Accuracy over all questions and per subset, subject and answer type. */
  readonly questionGroups: QuestionGroupResult[];
}

/** Whether a session is a designer's playtest (never counted). */
export function isPlaytest(session: Pick<ResultsSession, 'params' | 'flags'>): boolean {
  return session.params.mode === PLAYTEST_MODE || session.flags.includes('playtest');
}

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

interface TaskAcc {
  readonly item: TaskItem;
  tests: number;
  participants: number;
  attempted: number;
  solvedWithin: [number, number, number];
  firstAction: number[];
  solve: number[];
  actions: number[];
  tools: Record<ToolName, number>;
  toolUses: Record<ToolName, number>;
}

export interface PlayerDetail {
  readonly levels: readonly LevelResult[];
  readonly timeMs: (number | null)[];
  readonly resets: number[];
  readonly undos: number[];
}

interface GameAcc {
  readonly item: string;
  readonly game: string;
  readonly version: string | null;
  players: Map<string, PlayerDetail>;
  unverified: number;
  otherVersion: number;
  /** level (1-based) -> "x,y" -> count */
  clicks: Map<number, Map<string, number>>;
}

const zeroTools = (): Record<ToolName, number> =>
  Object.fromEntries(TOOL_NAMES.map((t) => [t, 0])) as Record<ToolName, number>;

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
      if (level < n) timeMs[level] = s.t - enteredAt;
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
 * The results of one study. See the module comment for who counts and each output type for
 * the definitions.
 * @throws Error when a session ran a study version missing from `input.versions`.
 */
export function studyResults(input: ResultsInput): StudyResults {
  const defs = new Map(input.versions.map((v) => [v.version, v.definition]));
  const versions = [...defs.keys()].sort((a, b) => a - b);
  const shownVersion = input.version ?? versions[versions.length - 1];
  const shown = defs.get(shownVersion);
  if (!shown)
    throw new Error(
      `Study ${input.study.id} has no version ${shownVersion}; its versions are ${versions.join(', ') || 'none'}.`,
    );

  // Items in the order of the newest version first, then any that only older versions have.
  const tasks = new Map<string, TaskAcc>();
  const gamesAcc = new Map<string, GameAcc>();
  const taskKey = (i: TaskItem) => `${i.id}\u0000${i.collection}\u0000${i.task}`;
  const gameKey = (id: string, game: string, version: string | null) => `${id}\u0000${game}\u0000${version ?? ''}`;
  const gameAcc = (id: string, game: string, version: string | null): GameAcc => {
    let acc = gamesAcc.get(gameKey(id, game, version));
    if (!acc)
      gamesAcc.set(
        gameKey(id, game, version),
        (acc = { item: id, game, version, players: new Map(), unverified: 0, otherVersion: 0, clicks: new Map() }),
      );
    return acc;
  };
  const questionAccs = new Map<string, QuestionAcc>();
  const questionKey = (id: string, testIndex: number, collection: string, question: string) =>
    `${id}\u0000${testIndex}\u0000${collection}\u0000${question}`;
  const listed = input.version === null ? [...versions].reverse() : [input.version];
  for (const v of listed) {
    for (const item of defs.get(v)!.items) {
      if (item.kind === 'task' && !item.practice && !tasks.has(taskKey(item))) {
        tasks.set(taskKey(item), {
          item,
          tests: testIndicesOf(item, input.testCount(item.collection, item.task), []).length,
          participants: 0,
          attempted: 0,
          solvedWithin: [0, 0, 0],
          firstAction: [],
          solve: [],
          actions: [],
          tools: zeroTools(),
          toolUses: zeroTools(),
        });
      }
      if (item.kind === 'game' && !item.practice) gameAcc(item.id, item.game, input.games[item.game]?.version ?? null);
      if (item.kind === 'question' && !item.practice) {
        for (const place of questionPlaces(item)) {
          const key = questionKey(item.id, place.testIndex, place.collection, place.question);
          if (!questionAccs.has(key)) questionAccs.set(key, newQuestionAcc(item.id, place));
        }
      }
    }
  }

  const participants: ParticipantResult[] = [];
  const printed: { id: string; prints?: SessionPrints }[] = [];
  const sessions = input.sessions
    .filter((s) => input.version === null || s.session.studyVersion === input.version)
    .filter((s) => inStage(s.session.stage, input.stage ?? null))
    .sort((a, b) => a.session.createdAt - b.session.createdAt || a.session.id.localeCompare(b.session.id));
  for (const data of sessions) {
    const { session } = data;
    const def = defs.get(session.studyVersion);
    if (!def)
      throw new Error(
        `Session ${session.id} ran version ${session.studyVersion} of study ${input.study.id}, which is not stored.`,
      );
    const digest =
      'digest' in data
        ? data.digest
        : digestSession(def, session, data.events, data.submissions, input.testCount, input.replay);
    const playtest = isPlaytest(session);
    const excluded = session.excludedAt !== undefined && session.excludedAt !== null;
    participants.push({
      sessionId: session.id,
      params: session.params,
      studyVersion: session.studyVersion,
      stage: session.stage ?? MAIN_STAGE,
      state: effectiveState(session, def, input.now),
      createdAt: session.createdAt,
      finishedAt: session.finishedAt,
      itemsDone: digest.itemsDone,
      itemsTotal: digest.itemsTotal,
      activeMs: digest.activeMs,
      actions: digest.actions,
      flags: [...new Set([...session.flags, ...digest.flags])],
      playtest,
      excluded,
      excludedReason: excluded ? (session.excludedReason ?? null) : null,
    });
    if (!playtest) printed.push({ id: session.id, prints: digest.prints });
    if (playtest || excluded) continue;

    for (const item of def.items) {
      if (item.kind === 'task' && !item.practice) {
        const acc = tasks.get(taskKey(item));
        const part = digest.tasks[item.id];
        if (acc && part) addTask(acc, part);
      } else if (item.kind === 'game' && !item.practice) {
        const part = digest.games[item.id];
        if (!gamesAcc.has(gameKey(item.id, item.game, input.games[item.game]?.version ?? null)) || !part) continue;
        const acc = gameAcc(item.id, item.game, part.version ?? input.games[item.game]?.version ?? null);
        if (part.status === 'other_version') {
          acc.otherVersion++;
          continue;
        }
        if (part.status !== 'verified' || !part.detail) {
          acc.unverified++;
          continue;
        }
        // First-time players only: a participant (by recruitment id) counts with their earliest
        // session; sessions are visited oldest first. The exported baselines count the same way.
        const who = session.params.PROLIFIC_PID || session.params.workerId || session.id;
        if (!acc.players.has(who)) acc.players.set(who, part.detail);
        for (const [level, key, count] of part.clicks) {
          let m = acc.clicks.get(level);
          if (!m) acc.clicks.set(level, (m = new Map()));
          m.set(key, (m.get(key) ?? 0) + count);
        }
      } else if (item.kind === 'question' && !item.practice) {
        const part = digest.questions?.[item.id];
        if (!part) continue;
        for (const place of questionPlaces(item)) {
          const acc = questionAccs.get(questionKey(item.id, place.testIndex, place.collection, place.question));
          if (acc) addQuestion(acc, part, session.id, input.grades);
        }
      }
    }
  }

  // Signals across sessions (identical answers, actions, descriptions) join each one's own flags.
  const cross = crossSessionSignals(printed);
  for (const p of participants) for (const f of cross.get(p.sessionId) ?? []) if (!p.flags.includes(f)) p.flags.push(f);

  const questions = [...questionAccs.values()].map((acc) =>
    questionResult(acc, input.questionFacts?.(acc.place.collection, acc.place.question) ?? null),
  );

  return {
    study: { id: input.study.id, title: shown.title, versions, version: input.version, stage: input.stage ?? null },
    participants,
    tasks: [...tasks.values()].map(taskResult),
    games: [...gamesAcc.values()].map((g) => gameResult(g, input.games[g.game])),
    questions,
    questionGroups: questionGroups(questions),
  };
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
  };
}

/** Folds the span's next event into a task tally. */
export function addTaskEvent(tally: TaskTally, e: StoredEvent): void {
  if (tally.events === 0 && e.kind === ITEM_START) tally.start = { t: e.t, receivedAt: e.receivedAt };
  tally.events++;
  if (GRID_ACTION_KINDS.has(e.kind)) {
    if (tally.edits === 0) tally.firstEditT = e.t;
    tally.edits++;
  }
  if (e.kind === 'submit' && e.data.verdict === 'correct') {
    tally.correctSubmits++;
    tally.lastCorrectSubmitT = e.t;
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
  if (tally.events === 0 && mine.length === 0)
    return {
      attempted: false,
      solvedWithin: [false, false, false],
      actions: 0,
      firstActionMs: null,
      solveMs: null,
      toolUses: {},
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
        ? tally.lastCorrectSubmitT! - start.t
        : Math.max(...correct.map((s) => s!.at)) - start.receivedAt;
  }
  return {
    attempted: true,
    solvedWithin: [within(0), within(1), within(2)],
    actions: tally.edits,
    firstActionMs: start && tally.firstEditT !== null ? tally.firstEditT - start.t : null,
    solveMs,
    toolUses: { ...tally.toolUses },
  };
}

function addTask(acc: TaskAcc, part: TaskDigest): void {
  acc.participants++;
  if (!part.attempted) return;
  acc.attempted++;
  for (let k = 0; k < 3; k++) if (part.solvedWithin[k]) acc.solvedWithin[k]++;
  acc.actions.push(part.actions);
  if (part.firstActionMs !== null) acc.firstAction.push(part.firstActionMs);
  if (part.solveMs !== null) acc.solve.push(part.solveMs);
  for (const [tool, n] of Object.entries(part.toolUses) as [ToolName, number][]) {
    acc.toolUses[tool] += n;
    if (n > 0) acc.tools[tool]++;
  }
}

function taskResult(acc: TaskAcc): TaskResult {
  const rate = (n: number) => (acc.attempted ? n / acc.attempted : 0);
  return {
    item: acc.item.id,
    collection: acc.item.collection,
    task: acc.item.task,
    tests: acc.tests,
    participants: acc.participants,
    attempted: acc.attempted,
    solvedWithin: [...acc.solvedWithin],
    solveRate: [rate(acc.solvedWithin[0]), rate(acc.solvedWithin[1]), rate(acc.solvedWithin[2])],
    timeToFirstActionMs: distribution(acc.firstAction),
    timeToSolveMs: distribution(acc.solve),
    actions: distribution(acc.actions),
    tools: acc.tools,
    toolUses: acc.toolUses,
  };
}

function gameResult(acc: GameAcc, meta: { title: string; levels: number; version?: string } | undefined): GameResult {
  const players = [...acc.players.entries()];
  const current = meta !== undefined && (meta.version ?? null) === acc.version;
  // Another version may have other levels: only the current one lists levels nobody reached.
  const n = Math.max(current ? meta.levels : 0, ...players.map(([, p]) => p.levels.length), ...acc.clicks.keys());
  const levelsOf: PlayerLevels[] = players.map(([participant, p]) => ({
    participant,
    game: acc.game,
    levels: p.levels,
  }));
  const computed = computeBaselines(levelsOf, { [acc.game]: n }).games[acc.game];
  const levels: LevelResultRow[] = [];
  for (let k = 0; k < n; k++) {
    const reached = players.filter(([, p]) => p.levels.length > k).map(([, p]) => p);
    const done = reached.filter((p) => p.levels[k].completed);
    const counts = computed.levels[k].actions ?? [];
    const baselines = Object.fromEntries(
      BASELINE_PRESET_NAMES.map((name): [BaselinePresetName, BaselineResult] => {
        const figure = baselineOf(counts, name);
        const value = computed.levels[k].baseline[name] ?? null;
        return [
          name,
          {
            value,
            completers: computed.levels[k].completers ?? 0,
            version: BASELINE_PRESETS[name].version,
            ...(figure.reason ? { reason: figure.reason } : {}),
          },
        ];
      }),
    ) as Record<BaselinePresetName, BaselineResult>;
    const clicks = [...(acc.clicks.get(k + 1) ?? new Map<string, number>())]
      .map(([key, count]): [number, number, number] => {
        const [x, y] = key.split(',').map(Number);
        return [x, y, count];
      })
      .sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    levels.push({
      level: k + 1,
      reached: reached.length,
      completed: done.length,
      actions: distribution(done.map((p) => p.levels[k].actions)),
      timeMs: distribution(done.map((p) => p.timeMs[k]).filter((t): t is number => t !== null)),
      resets: distribution(reached.map((p) => p.resets[k])),
      undos: distribution(reached.map((p) => p.undos[k])),
      baselines,
      clicks,
    });
  }
  return {
    item: acc.item,
    game: acc.game,
    version: acc.version,
    current,
    title: meta?.title ?? acc.game,
    participants: players.length,
    unverified: acc.unverified,
    otherVersion: acc.otherVersion,
    levels,
  };
}
