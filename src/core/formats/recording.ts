/**
 * The official ARC-AGI-3 recording format (`.recording.jsonl`): one JSON line per action, each
 * `{"timestamp", "data": {"game_id", "frame", "state", "levels_completed", "win_levels",
 * "action_input": {"id", "data"}, "guid", "full_reset", "available_actions"}}`, the RESET that
 * starts the game included. See docs/formats/recording.md.
 *
 * The writer replays the log with the engine, so every frame is the one the player saw, and
 * yields the file line by line. The reader is tolerant: numeric or named action ids, lines that
 * are not frames (token usage, scorecards) skipped and reported.
 */
import type { LogEvent } from '../log/events';
import type { GameDefinition } from '../game/define';
import { createRun, step, type Run } from '../game/engine';
import { replayGameEvents } from '../game/replay';
import {
  FRAME_SIZE,
  GAME_ACTIONS,
  GameRuleError,
  actionId,
  type ActionInput,
  type Frame,
  type FrameResponse,
  type GameAction,
  type GameState,
} from '../game/types';
import { playLevelActions, scorecardPlays, type LevelChange, type UnscoredStep } from '../scoring/scorecard';
import type { AgentRun } from '../scoring/rhae';

/** The `data` of one recording line, field for field as the official API names it. */
export interface RecordingData {
  readonly game_id: string;
  /** The response's frames (1..N, the last the settled one), each 64 rows of 64 values 0-15. */
  readonly frame: number[][][];
  readonly state: GameState;
  readonly levels_completed: number;
  readonly win_levels: number;
  /** `id` 0-7 (RESET 0, ACTION1 1, ...); `data` `{x, y}` for ACTION6, otherwise `{}`. */
  readonly action_input: { readonly id: number; readonly data: { readonly x?: number; readonly y?: number } };
  readonly guid: string;
  readonly full_reset: boolean;
  readonly available_actions: number[];
}

/** One recording line. */
export interface RecordingLine {
  /** ISO-8601 UTC with microseconds, e.g. `2026-05-03T14:30:22.123456+00:00`. */
  readonly timestamp: string;
  readonly data: RecordingData;
}

/** Options of `toRecording`. */
export interface RecordingOptions {
  /** The game session's id, the same on every line of the run. */
  readonly guid: string;
  /** Wall-clock time of `t = 0`, in ms since the epoch (the session's anchor). */
  readonly startTime: number;
  /** `game_id` to write; the game's own id by default. */
  readonly gameId?: string;
}

/** One action with its time, for recordings made from something else than a session log. */
export interface RecordingStep {
  readonly input: ActionInput;
  /** Milliseconds since `startTime`. */
  readonly t: number;
}

/** A log or steps that cannot be written as a recording. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * ISO-8601 UTC text of an instant in ms since the epoch, to the microsecond, with the `+00:00`
 * offset the official recordings use. Computed by hand because core has no clock (`Date`).
 * @example isoTimestamp(0.5) // '1970-01-01T00:00:00.000500+00:00'
 */
export function isoTimestamp(epochMs: number): string {
  const micros = Math.round(epochMs * 1000);
  const day = Math.floor(micros / 86_400_000_000);
  let rest = micros - day * 86_400_000_000;
  const hh = Math.floor(rest / 3_600_000_000);
  rest -= hh * 3_600_000_000;
  const mm = Math.floor(rest / 60_000_000);
  rest -= mm * 60_000_000;
  const ss = Math.floor(rest / 1_000_000);
  rest -= ss * 1_000_000;
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}T${pad(hh)}:${pad(mm)}:${pad(ss)}.${pad(rest, 6)}+00:00`;
}

/** A frame as the official API sends it: 64 rows (y) of 64 values (x). */
export function frameToGrid(frame: Frame): number[][] {
  const rows: number[][] = [];
  for (let y = 0; y < FRAME_SIZE; y++) rows.push(Array.from(frame.subarray(y * FRAME_SIZE, (y + 1) * FRAME_SIZE)));
  return rows;
}

/** The recording line (JSON text, no newline) for `input` answered by `response`. */
export function recordingLine(
  gameId: string,
  guid: string,
  epochMs: number,
  input: ActionInput,
  response: FrameResponse,
): string {
  const line: RecordingLine = {
    timestamp: isoTimestamp(epochMs),
    data: {
      game_id: gameId,
      frame: response.frame.map(frameToGrid),
      state: response.state,
      levels_completed: response.levels_completed,
      win_levels: response.win_levels,
      action_input: { id: actionId(input.action), data: input.action === 'ACTION6' ? { x: input.x, y: input.y } : {} },
      guid,
      full_reset: response.full_reset,
      available_actions: [...response.available_actions],
    },
  };
  return JSON.stringify(line);
}

function isEvents(source: readonly LogEvent[] | Iterable<RecordingStep>): source is readonly LogEvent[] {
  if (!Array.isArray(source)) return false;
  return source.length === 0 || 'kind' in (source[0] as object);
}

/**
 * Writes one recording line per accepted action (JSON text without the newline), one at a time.
 *
 * `source` is either a session log's events (the `game.open` / `game.action` events of `game`
 * are used, other events ignored; a log without `game.open` is taken as opened with `seed`), or
 * the actions and their times for a fresh run with `seed`. Logged events are replayed with
 * `replayGameEvents`: the frames are the engine's, and a log the engine does not reproduce is
 * refused rather than exported.
 * @throws RecordingError for a log with a different seed or one that does not replay, or for a
 * step the rules refuse.
 * @example
 * for (const line of toRecording(games.push, 0, events, { guid, startTime })) out.write(line + '\n');
 */
export function* toRecording(
  game: GameDefinition<unknown, unknown>,
  seed: number,
  source: readonly LogEvent[] | Iterable<RecordingStep>,
  options: RecordingOptions,
): Generator<string> {
  const gameId = options.gameId ?? game.id;
  if (isEvents(source)) {
    const events = source.filter(
      (e) => (e.kind === 'game.open' || e.kind === 'game.action') && e.data.game === game.id,
    );
    for (const e of events) {
      if (e.kind === 'game.open' && e.data.seed !== seed) {
        throw new RecordingError(
          `event ${e.seq} opens "${game.id}" with seed ${String(e.data.seed)}, not ${seed}: export each run with its own seed (see splitGameRuns).`,
        );
      }
    }
    if (events.length && events[0].kind !== 'game.open') {
      events.unshift({ seq: -1, t: events[0].t, kind: 'game.open', data: { game: game.id, seed } });
    }
    const replay = replayGameEvents(game, events);
    if (replay.problems.length) {
      const shown = replay.problems
        .slice(0, 3)
        .map((p) => `event ${p.seq}: ${p.message}`)
        .join('; ');
      throw new RecordingError(
        `the log of "${game.id}" does not replay (${replay.problems.length} problem${replay.problems.length > 1 ? 's' : ''}: ${shown}); a recording must show what the engine shows, so verify the log first.`,
      );
    }
    const times = new Map(events.map((e) => [e.seq, e.t]));
    for (const s of replay.steps)
      yield recordingLine(gameId, options.guid, options.startTime + times.get(s.seq)!, s.input, s.response);
    return;
  }
  let run: Run<unknown> = createRun(game, { seed });
  let i = 0;
  for (const s of source) {
    i++;
    let result;
    try {
      result = step(run, s.input);
    } catch (e) {
      if (e instanceof GameRuleError)
        throw new RecordingError(`step ${i} (${s.input.action}) is refused by the rules, ${e.code}: ${e.message}`);
      throw e;
    }
    run = result.run;
    yield recordingLine(gameId, options.guid, options.startTime + s.t, s.input, result.response);
  }
}

/**
 * The events of each run of `gameId` in a log, one list per `game.open` (with the actions that
 * follow it up to the next `game.open` of that game): one recording file per list.
 */
export function splitGameRuns(events: readonly LogEvent[], gameId: string): LogEvent[][] {
  const runs: LogEvent[][] = [];
  for (const e of events) {
    if ((e.kind !== 'game.open' && e.kind !== 'game.action') || e.data.game !== gameId) continue;
    if (e.kind === 'game.open' || runs.length === 0) runs.push([]);
    runs[runs.length - 1].push(e);
  }
  return runs;
}

// ---- reading -------------------------------------------------------------------------------

/** One frame line as read (its frames are not kept: a reader only needs what was done). */
export interface RecordingStepRead {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly timestamp: string | null;
  readonly gameId: string;
  readonly guid: string | null;
  readonly input: ActionInput;
  readonly state: GameState;
  readonly levelsCompleted: number;
  readonly winLevels: number | null;
  /** Absent when the line does not say. */
  readonly fullReset?: boolean;
  /** True for `"frame": []`, false for a line with frames, absent when the line has no `frame`. */
  readonly emptyFrame?: boolean;
}

/**
 * One run (play) in a recording, as the official scorecard keeps it: from a full reset to the
 * next full reset of the same game session (`guid`). See core/scoring/scorecard.ts.
 */
export interface RecordingRun {
  readonly gameId: string;
  readonly guid: string | null;
  /** Line numbers of its first and last scored line. */
  readonly firstLine: number;
  readonly lastLine: number;
  /** Every scored action of the run in order, its starting RESET included. */
  readonly actions: ActionInput[];
  /** Scorecard actions of the run (the starting RESET is not counted, a level RESET is). */
  readonly actionCount: number;
  /** Level RESETs. */
  readonly resets: number;
  /** Each change of `levels_completed` with the run's action count then. */
  readonly levelChanges: readonly LevelChange[];
  /** Actions per level as the official scoring splits them, see `playLevelActions`. */
  readonly levelActions: number[];
  /** Levels the scorecard counts as completed: one per change of `levels_completed`. */
  readonly levelsCompleted: number;
  readonly winLevels: number | null;
  /** NOT_FINISHED, or the last GAME_OVER or WIN of the run. */
  readonly state: GameState;
}

/** What a recording holds. */
export interface RecordingRead {
  /** Every frame line's action, in order. */
  readonly steps: RecordingStepRead[];
  readonly runs: RecordingRun[];
  /** Lines that are not frames, with the reason (blank lines are not listed). */
  readonly skipped: { line: number; reason: string }[];
  /** Frame lines that no run counts: an empty frame, an action after GAME_OVER or WIN, or before the first RESET. */
  readonly unscored: { line: number; reason: UnscoredStep['reason'] }[];
  /** Lines of RESETs that say `full_reset: false` but start a new run by the engine's rule (REST clients' recordings). */
  readonly fullResetsInferred: number[];
}

/** The official states a line's `state` may name. */
export const RECORDING_STATES: readonly GameState[] = ['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER'];
const STATES: readonly string[] = RECORDING_STATES;

/**
 * The action a line's `action_input.id` names: 0-7, their digits, or the names (`ACTION6`,
 * `GameAction.ACTION6`); null for anything else.
 */
export function actionOf(id: unknown): GameAction | null {
  if (typeof id === 'number' && Number.isInteger(id) && id >= 0 && id < GAME_ACTIONS.length) return GAME_ACTIONS[id];
  if (typeof id === 'string') {
    const s = id.trim().toUpperCase();
    if (/^\d$/.test(s)) return actionOf(Number(s));
    const name = s.startsWith('GAMEACTION.') ? s.slice('GAMEACTION.'.length) : s;
    if ((GAME_ACTIONS as readonly string[]).includes(name)) return name as GameAction;
  }
  return null;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Reads one line: a step, a reason to skip it, or null for a blank line. */
export function parseRecordingLine(text: string, line: number): RecordingStepRead | { skip: string } | null {
  if (text.trim() === '') return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { skip: 'not JSON' };
  }
  const data = (json as { data?: unknown } | null)?.data as Record<string, unknown> | undefined;
  const ai = data?.action_input as { id?: unknown; data?: unknown } | undefined;
  if (
    !data ||
    typeof data !== 'object' ||
    !ai ||
    typeof ai !== 'object' ||
    !('state' in data) ||
    !('levels_completed' in data)
  ) {
    return { skip: 'not a frame (no data.action_input, state or levels_completed)' };
  }
  const action = actionOf(ai.id);
  if (!action) return { skip: `unknown action id ${JSON.stringify(ai.id)}` };
  if (typeof data.state !== 'string' || !STATES.includes(data.state))
    return { skip: `unknown state ${JSON.stringify(data.state)}` };
  if (!isInt(data.levels_completed) || data.levels_completed < 0)
    return { skip: `levels_completed ${JSON.stringify(data.levels_completed)} is not a count` };
  let input: ActionInput = { action };
  if (action === 'ACTION6') {
    const xy = (ai.data ?? {}) as { x?: unknown; y?: unknown };
    input = isInt(xy.x) && isInt(xy.y) ? { action, x: xy.x, y: xy.y } : { action };
  }
  const ts = (json as { timestamp?: unknown }).timestamp;
  return {
    line,
    timestamp: typeof ts === 'string' ? ts : null,
    gameId: typeof data.game_id === 'string' ? data.game_id : '',
    guid: typeof data.guid === 'string' ? data.guid : null,
    input,
    state: data.state as GameState,
    levelsCompleted: data.levels_completed,
    winLevels: isInt(data.win_levels) ? data.win_levels : null,
    ...(typeof data.full_reset === 'boolean' ? { fullReset: data.full_reset } : {}),
    ...(Array.isArray(data.frame) ? { emptyFrame: data.frame.length === 0 } : {}),
  };
}

/**
 * Reads recording lines (from a file split on newlines, or a stream's lines): the actions, the
 * runs with their per-level counts as the official scorecard keeps them (`scorecardPlays`), and
 * the lines skipped or not scored.
 */
export function readRecordingLines(lines: Iterable<string>): RecordingRead {
  const steps: RecordingStepRead[] = [];
  const skipped: { line: number; reason: string }[] = [];
  let n = 0;
  for (const text of lines) {
    n++;
    const r = parseRecordingLine(text, n);
    if (r === null) continue;
    if ('skip' in r) skipped.push({ line: n, reason: r.skip });
    else steps.push(r);
  }
  const found = scorecardPlays(
    steps.map((s) => ({
      gameId: s.gameId,
      guid: s.guid,
      action: s.input.action,
      state: s.state,
      levelsCompleted: s.levelsCompleted,
      ...(s.fullReset !== undefined ? { fullReset: s.fullReset } : {}),
      ...(s.emptyFrame !== undefined ? { emptyFrame: s.emptyFrame } : {}),
    })),
  );
  const unscored = new Set(found.unscored.map((u) => u.index));
  const runs: RecordingRun[] = found.plays.map((p) => {
    const part: RecordingStepRead[] = [];
    for (let i = p.first; i <= p.last; i++) {
      if (steps[i].gameId === p.gameId && steps[i].guid === p.guid && !unscored.has(i)) part.push(steps[i]);
    }
    const withLevels = part.filter((s) => s.winLevels !== null && s.winLevels > 0);
    return {
      gameId: p.gameId,
      guid: p.guid,
      firstLine: steps[p.first].line,
      lastLine: steps[p.last].line,
      actions: part.map((s) => s.input),
      actionCount: p.actions,
      resets: p.resets,
      levelChanges: p.levelChanges,
      levelActions: playLevelActions(p),
      levelsCompleted: p.levelChanges.length,
      winLevels: withLevels.length ? withLevels[withLevels.length - 1].winLevels : null,
      state: p.state,
    };
  });
  return {
    steps,
    runs,
    skipped,
    unscored: found.unscored.map((u) => ({ line: steps[u.index].line, reason: u.reason })),
    fullResetsInferred: found.fullResetsInferred.map((i) => steps[i].line),
  };
}

/** `readRecordingLines` over a whole file's text (LF or CRLF line ends). */
export function readRecording(text: string): RecordingRead {
  return readRecordingLines(text.replace(/^\uFEFF/, '').split(/\r?\n/));
}

/** The runs of a recording as RHAE scoring takes them, labelled `<source>#<run>`. */
export function recordingAgentRuns(read: RecordingRead, source: string): AgentRun[] {
  return read.runs.map((r, i) => ({
    game: r.gameId,
    label: `${source}#${i + 1}`,
    levelActions: r.levelActions,
    levelsCompleted: r.levelsCompleted,
    ...(r.winLevels !== null ? { winLevels: r.winLevels } : {}),
  }));
}

// ---- the toolkit's own lines ------------------------------------------------------------------

/** One step of a run played on the official engine (a server-run game), as `toolkitRecordingLine` writes it. */
export interface ToolkitStep {
  /** The full official id, `<game>-<version>`. */
  readonly gameId: string;
  readonly guid: string;
  /** When the engine answered, in ms since the epoch. */
  readonly epochMs: number;
  readonly input: ActionInput;
  /** Every frame the engine returned for the action (none after GAME_OVER or WIN for a non-RESET action). */
  readonly frames: readonly (readonly (readonly number[])[])[];
  readonly state: GameState;
  readonly levelsCompleted: number;
  readonly winLevels: number;
  readonly fullReset: boolean;
  readonly available: readonly number[];
}

/**
 * Python's `datetime.isoformat()` of a UTC instant: `isoTimestamp`, without the fraction when it
 * is zero (Python leaves `.000000` out).
 */
export function pythonIsoTimestamp(epochMs: number): string {
  return isoTimestamp(epochMs).replace(/\.000000\+/, '+');
}

/** JSON text as Python's `json.dumps` writes it by default: `", "` and `": "` separators, non-ASCII escaped. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  if (typeof value === 'string')
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return JSON.stringify(value);
}

/**
 * A recording line exactly as the official toolkit writes it for a step of the official engine
 * (`EnvironmentWrapper._set_last_response` with frames on): the same keys in the same order,
 * `action_input.id` by name with `reasoning: null`, the frames last, Python's JSON spacing. A
 * recording of a server-run game is then the file the toolkit would have written for the same
 * actions, but for its timestamps and `guid`.
 * @example toolkitRecordingLine({ gameId: 'ls20-9607627b', guid: runId, epochMs: step.at, input: { action: 'RESET' }, ... })
 */
export function toolkitRecordingLine(s: ToolkitStep): string {
  return pythonJson({
    timestamp: pythonIsoTimestamp(s.epochMs),
    data: {
      game_id: s.gameId,
      state: s.state,
      levels_completed: s.levelsCompleted,
      win_levels: s.winLevels,
      action_input: {
        id: s.input.action,
        data: s.input.action === 'ACTION6' ? { x: s.input.x, y: s.input.y } : {},
        reasoning: null,
      },
      guid: s.guid,
      full_reset: s.fullReset,
      available_actions: s.available,
      frame: s.frames,
    },
  });
}
