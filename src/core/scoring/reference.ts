/**
 * Reference recordings: human runs recorded elsewhere (the official toolkit's `.recording.jsonl`,
 * one game session per file) read strictly and turned into per-level figures that sit beside a
 * lab's own participants and can stand in for them as the human baselines of scoring.
 *
 * Unlike `readRecordingLines`, which scores whatever it can and skips the rest, a reference file
 * is all or nothing: every line must be a frame line of the official format, or the file is
 * refused with each bad line named. A file's figures are those of its first play, split into
 * plays and levels by the scorer's own code (`scorecardPlays`, `playLevelActions`), so a group
 * of reference recordings gives exactly the per-level counts `arc-studio score` computes from
 * the same files. A level's time runs from entering it (the play's opening RESET for level 1,
 * else the line that completed the level before) to the line that completed it, by the lines'
 * timestamps.
 */
import { distribution, type Dist } from '../analysis/dist';
import { actionOf, RECORDING_STATES } from '../formats/recording';
import { hashHex } from '../game/hash';
import { stringProblem } from '../protocol/json';
import { FRAME_SIZE, type ActionInput, type GameState } from '../game/types';
import { BASELINE_PRESET_NAMES, baselineOf, type BaselinePresetName, type LevelResult } from './baselines';
import { playLevelActions, scorecardPlays, type ScorecardStep } from './scorecard';

/** One frame line of a reference recording, as the replay checks it. */
export interface ReferenceStep {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly input: ActionInput;
  readonly state: GameState;
  readonly levelsCompleted: number;
  /** `hashHex` of the line's frames, null when the line has none (`"frame": []` or no `frame`). */
  readonly frameHash: string | null;
}

/** How a reference run did on one level (levels in order, the first is level 1). */
export interface ReferenceLevel extends LevelResult {
  /** Milliseconds from entering the level to completing it; null for a level not completed or a file without timestamps. */
  readonly timeMs: number | null;
}

/** One reference recording file, read and checked. */
export interface ReferenceRecording {
  readonly file: string;
  /** The full official id the lines name, e.g. `ls20-9607627b`. */
  readonly gameId: string;
  readonly guid: string | null;
  /** The first line's timestamp as written. */
  readonly startedAt: string | null;
  /** Every frame line, in order (what the replay plays and checks). */
  readonly steps: readonly ReferenceStep[];
  /** Plays in the file; the figures are the first's. */
  readonly plays: number;
  /** Scorecard actions of the first play. */
  readonly actions: number;
  /** The first play's levels, as the scorer splits them: one per level it entered. */
  readonly levels: readonly ReferenceLevel[];
  /** NOT_FINISHED, or the first play's last GAME_OVER or WIN. */
  readonly state: 'NOT_FINISHED' | 'GAME_OVER' | 'WIN';
  /** The game's level count as the lines say (`win_levels`), when they do. */
  readonly winLevels: number | null;
}

/** A line of a file that is not a recording line, with what is wrong (line 0: the file as a whole). */
export interface LineProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** The most problems reported for one file: past these, the file is plainly not a recording. */
export const MAX_LINE_PROBLEMS = 20;

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * Milliseconds since the epoch of an ISO-8601 time as Python's `isoformat()` writes it (a time
 * without an offset is taken as UTC), or null when the text is not one. Computed by hand because
 * core has no clock (`Date`).
 * @example isoToEpochMs('1970-01-01T00:00:01.500000+00:00') // 1500
 */
export function isoToEpochMs(text: string): number | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [y, mo, d, hh, mm, ss] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60) return null;
  // Days from the civil date (Howard Hinnant's algorithm).
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  const fraction = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  let offset = 0;
  if (m[8] && m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1 : 1;
    offset = sign * (Number(m[8].slice(1, 3)) * 60 + Number(m[8].slice(4, 6))) * 60_000;
  }
  return days * 86_400_000 + ((hh * 60 + mm) * 60 + ss) * 1000 + fraction - offset;
}

/** The longest `guid` kept (the toolkit's are UUIDs, 36 characters). */
const MAX_GUID = 200;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with a line's `frame`, or null when it is a list of frames of cells 0-15. */
function frameProblem(frame: unknown): string | null {
  if (!Array.isArray(frame)) return '"frame" is not a list of frames';
  for (let f = 0; f < frame.length; f++) {
    const rows: unknown = frame[f];
    if (!Array.isArray(rows) || rows.length === 0 || rows.length > FRAME_SIZE)
      return `frame ${f + 1} is not a list of 1 to ${FRAME_SIZE} rows`;
    const width = Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : -1;
    for (let y = 0; y < rows.length; y++) {
      const row: unknown = rows[y];
      if (!Array.isArray(row) || row.length !== width || width < 1 || width > FRAME_SIZE)
        return `row ${y} of frame ${f + 1} is not a list of ${width > 0 ? width : `1 to ${FRAME_SIZE}`} cells`;
      for (const v of row as unknown[])
        if (!isInt(v) || v < 0 || v > 15)
          return `frame ${f + 1} row ${y} holds ${JSON.stringify(v)}, not a colour 0-15`;
    }
  }
  return null;
}

interface ReadLine {
  readonly step: ReferenceStep;
  readonly scored: ScorecardStep;
  readonly at: number | null;
  readonly timestamp: string | null;
  readonly winLevels: number | null;
}

/** One line read strictly: the step, or what is wrong with it. */
function readLine(text: string, line: number): ReadLine | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return `not JSON (${(e as Error).message})`;
  }
  if (!isObject(json) || !isObject(json.data))
    return 'not a recording line: it needs {"timestamp", "data": {...}} as the official toolkit writes them';
  const data = json.data;
  const ts = json.timestamp;
  let at: number | null = null;
  if (ts !== undefined && ts !== null) {
    if (typeof ts !== 'string' || (at = isoToEpochMs(ts)) === null)
      return `timestamp ${JSON.stringify(ts).slice(0, 60)} is not an ISO-8601 time`;
  }
  if (typeof data.game_id !== 'string' || data.game_id === '')
    return 'data.game_id is missing: every line names its game';
  const ai = data.action_input;
  if (!isObject(ai)) return 'data.action_input is missing: every line names the action it answers';
  const action = actionOf(ai.id);
  if (!action) return `data.action_input.id ${JSON.stringify(ai.id)} is not an action (0-7, RESET, ACTION1-ACTION7)`;
  let input: ActionInput = { action };
  if (action === 'ACTION6') {
    const xy = isObject(ai.data) ? ai.data : {};
    if (!isInt(xy.x) || !isInt(xy.y) || xy.x < 0 || xy.y < 0 || xy.x >= FRAME_SIZE || xy.y >= FRAME_SIZE)
      return `ACTION6 needs data.action_input.data {"x", "y"}, whole numbers 0-${FRAME_SIZE - 1}`;
    input = { action, x: xy.x, y: xy.y };
  }
  if (typeof data.state !== 'string' || !(RECORDING_STATES as readonly string[]).includes(data.state))
    return `data.state ${JSON.stringify(data.state)} is not one of ${RECORDING_STATES.join(', ')}`;
  if (!isInt(data.levels_completed) || data.levels_completed < 0)
    return `data.levels_completed ${JSON.stringify(data.levels_completed)} is not a count`;
  if (data.win_levels !== undefined && (!isInt(data.win_levels) || data.win_levels < 0))
    return `data.win_levels ${JSON.stringify(data.win_levels)} is not a count`;
  if (data.guid !== undefined && data.guid !== null) {
    if (typeof data.guid !== 'string') return 'data.guid is not text';
    const problem = data.guid.length > MAX_GUID ? `is longer than ${MAX_GUID} characters` : stringProblem(data.guid);
    if (problem) return `data.guid ${problem}: it is the game session's id`;
  }
  if (data.full_reset !== undefined && typeof data.full_reset !== 'boolean')
    return 'data.full_reset is not true or false';
  let frames: unknown[] | null = null;
  if (data.frame !== undefined) {
    const problem = frameProblem(data.frame);
    if (problem) return problem;
    frames = data.frame as unknown[];
  }
  const state = data.state as GameState;
  return {
    step: {
      line,
      input,
      state,
      levelsCompleted: data.levels_completed,
      frameHash: frames && frames.length ? hashHex(frames) : null,
    },
    scored: {
      gameId: data.game_id,
      guid: typeof data.guid === 'string' ? data.guid : null,
      action,
      state,
      levelsCompleted: data.levels_completed,
      ...(typeof data.full_reset === 'boolean' ? { fullReset: data.full_reset } : {}),
      ...(frames ? { emptyFrame: frames.length === 0 } : {}),
    },
    at,
    timestamp: typeof ts === 'string' ? ts : null,
    winLevels: isInt(data.win_levels) ? data.win_levels : null,
  };
}

/**
 * Reads one reference recording strictly: every non-blank line a frame line of one game and one
 * game session (`guid`), the first a RESET. Either the recording with its first play's figures,
 * or every bad line (up to {@link MAX_LINE_PROBLEMS}) with its number and what is wrong.
 * @example readReferenceRecording('a.recording.jsonl', text.split('\n'))
 */
export function readReferenceRecording(
  file: string,
  lines: Iterable<string>,
): { recording: ReferenceRecording } | { problems: LineProblem[] } {
  const problems: LineProblem[] = [];
  const read: ReadLine[] = [];
  let n = 0;
  let more = 0;
  const problem = (line: number, message: string) => {
    if (problems.length < MAX_LINE_PROBLEMS) problems.push({ file, line, message });
    else more++;
  };
  for (const raw of lines) {
    n++;
    const text = n === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (text.trim() === '') continue;
    const r = readLine(text, n);
    if (typeof r === 'string') {
      problem(n, r);
      continue;
    }
    const first = read[0];
    if (!first && r.step.input.action !== 'RESET')
      problem(n, `the first line is ${r.step.input.action}, not the RESET that starts a recorded run`);
    else if (first && r.scored.gameId !== first.scored.gameId)
      problem(
        n,
        `game_id "${r.scored.gameId}" differs from "${first.scored.gameId}" of line ${first.step.line}: a file holds one run of one game`,
      );
    else if (first && r.scored.guid !== first.scored.guid)
      problem(
        n,
        `guid ${JSON.stringify(r.scored.guid)} differs from ${JSON.stringify(first.scored.guid)} of line ${first.step.line}: a file holds one game session`,
      );
    read.push(r);
  }
  if (more) problems.push({ file, line: n, message: `and ${more} more bad line${more === 1 ? '' : 's'}` });
  if (!read.length && !problems.length) problems.push({ file, line: 0, message: 'the file has no recording lines' });
  if (problems.length) return { problems };

  const found = scorecardPlays(read.map((r) => r.scored));
  const play = found.plays[0];
  const unscored = new Set(found.unscored.map((u) => u.index));
  const levelActions = playLevelActions(play);
  // The time of each level change, walked as scorecardPlays notes them.
  const changes: (number | null)[] = [];
  let completed = 0;
  for (let i = play.first; i <= play.last; i++) {
    if (unscored.has(i)) continue;
    const s = read[i].scored;
    if (s.levelsCompleted !== completed) {
      changes.push(read[i].at);
      completed = s.levelsCompleted;
    }
  }
  const start = read[play.first].at;
  const levels: ReferenceLevel[] = levelActions.map((actions, k) => {
    const done = k < play.levelChanges.length;
    const from = k === 0 ? start : changes[k - 1];
    const to = done ? changes[k] : null;
    return { completed: done, actions, timeMs: from !== null && to !== null && to !== undefined ? to - from : null };
  });
  const withLevels = read.filter((r) => r.winLevels !== null && r.winLevels > 0);
  return {
    recording: {
      file,
      gameId: read[0].scored.gameId,
      guid: read[0].scored.guid,
      startedAt: read[0].timestamp,
      steps: read.map((r) => r.step),
      plays: found.plays.length,
      actions: play.actions,
      levels,
      state: play.state,
      winLevels: withLevels.length ? withLevels[withLevels.length - 1].winLevels : null,
    },
  };
}

/** One baseline figure of a level; as in the study results (`BaselineResult`). */
export interface ReferenceBaseline {
  readonly value: number | null;
  readonly completers: number;
  readonly version: number;
  readonly reason?: string;
}

/** One level of a reference group, as the studio shows it beside a study's participants. */
export interface ReferenceLevelRow {
  readonly level: number;
  /** Recordings whose first play entered the level. */
  readonly reached: number;
  /** Of those, recordings whose first play completed it. */
  readonly completed: number;
  /** Per completer: scorecard actions on the level. */
  readonly actions: Dist;
  /** Per completer with timestamps: milliseconds from entering the level to completing it. */
  readonly timeMs: Dist;
  /** The human baseline under each preset, from the completers' action counts. */
  readonly baselines: Record<BaselinePresetName, ReferenceBaseline>;
}

/**
 * A group's per-level figures from its recordings' levels: `levels` levels at least (the game's
 * count, so levels nobody reached are listed), more when a recording entered more.
 * @example referenceLevels([[{ completed: true, actions: 4, timeMs: 900 }]], 2)[0].completed // 1
 */
export function referenceLevels(runs: readonly (readonly ReferenceLevel[])[], levels = 0): ReferenceLevelRow[] {
  const n = Math.max(levels, ...runs.map((r) => r.length));
  const rows: ReferenceLevelRow[] = [];
  for (let k = 0; k < n; k++) {
    const reached = runs.filter((r) => r.length > k).map((r) => r[k]);
    const done = reached.filter((l) => l.completed);
    const counts = done.map((l) => l.actions);
    const baselines = Object.fromEntries(
      BASELINE_PRESET_NAMES.map((name) => {
        const { value, completers, version, reason } = baselineOf(counts, name);
        return [name, { value, completers, version, ...(reason ? { reason } : {}) }];
      }),
    ) as Record<BaselinePresetName, ReferenceBaseline>;
    rows.push({
      level: k + 1,
      reached: reached.length,
      completed: done.length,
      actions: distribution(counts),
      timeMs: distribution(done.flatMap((l) => (l.timeMs === null ? [] : [l.timeMs]))),
      baselines,
    });
  }
  return rows;
}
