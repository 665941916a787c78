/**
 * The shapes of a study's results (`studyResults`, results.ts) and of the per-session digests they
 * add up (`digestSession`, digest.ts): what the server stores, answers and exports. The
 * definitions of each figure are on its field, and in docs/api.md ("Study results").
 */
import type { StudyDefinition } from '../study/schema';
import type { ReplayGame, SessionState, StoredEvent } from '../study/rules';
import type { SubmissionTally } from '../study/summary';
import type { GridTool } from '../log/gridPlayer';
import type { BaselinePresetName, LevelResult } from '../scoring/baselines';
import type { Dist } from './dist';
import type { SessionPrints } from './signals';
import type { GradeLookup, QuestionFacts, QuestionGroupResult, QuestionItemDigest, QuestionResult } from './questions';

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
  /** The content hash of the task a grid was judged against (`taskContentHash`); null or absent: not recorded. */
  readonly taskHash?: string | null;
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
export const ANALYSIS_VERSION = 9;

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
  /** The task's content hash its first judged submission recorded; null: none recorded. */
  readonly version: string | null;
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
  /**
   * By session id, each server-run game item's first run: the code version it was opened on as
   * the server recorded it (`<game id>@<code hash>`, `codeVersion`). Absent for a session or item:
   * the version its log's verification names.
   */
  readonly gameRuns?: ReadonlyMap<string, Readonly<Record<string, { readonly version: string }>>>;
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

/** Grid tools as the results count them (`GRID_EVENTS` in core/log/gridPlayer.ts); `edit` is painting cells. */
export type ToolName = GridTool;

/** Results of one grid-task item over the counted participants. */
export interface TaskResult {
  readonly item: string;
  readonly collection: string;
  readonly task: string;
  /** The task's content hash these figures were judged on; null on the row of all versions, or when no submission recorded one. */
  readonly version: string | null;
  /** The row of every version, before the rows by version (only when the item was played on two or more). */
  readonly allVersions: boolean;
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
  /** The row of every version (`version` null), before the rows by version (only when players played two or more). */
  readonly allVersions: boolean;
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

export interface PlayerDetail {
  readonly levels: readonly LevelResult[];
  readonly timeMs: (number | null)[];
  readonly resets: number[];
  readonly undos: number[];
}
