/**
 * What researchers do with a server-run game's stored steps (`game_steps`): write a run as the
 * official toolkit's recording, find the first frame of a level, and play a run's actions again
 * on the engine to check that it answers the frames that were stored.
 */
import { decodeFrameCells, FrameCodecError, type DecodedCells, type FrameGrid } from '../../core/formats/frames';
import { FrameRowsCache, toolkitLineBound, toolkitLineHead, writeToolkitLine } from '../../core/formats/toolkitBytes';
import type { ActionInput, GameAction, GameState } from '../../core/game/types';
import type { GameRunRecord, GameRunStore, GameStepRecord, SessionStore } from '../store/types';
import type { Arc3Source } from './source';
import { gameVersion } from './gameCode';
import { decodeStepsChecked, decodeStoredSteps, stepViews, type StepDamage, type StoredStepView } from './steps';
import { Arc3Error, type Arc3Action, type Arc3FrameData } from './worker';

function inputOf(s: GameStepRecord): ActionInput {
  return s.action === 'ACTION6' ? { action: 'ACTION6', x: s.x ?? 0, y: s.y ?? 0 } : { action: s.action as GameAction };
}

/**
 * A run's official recording from its stored steps, a line per step (UTF-8, with its line end),
 * in pieces of whole lines (`RECORDING_CHUNK`): the opening RESET first, every frame the engine
 * returned, `guid` the run id (a UUID, as the toolkit's), the timestamps when the server stored
 * each step. Every step is read and its frames decoded before this answers (as cells, a byte
 * each), so that a run whose frames do not decode fails here, before its file starts; the text
 * of the lines is made as each piece is taken.
 * @throws Error when the run has no stored step, or its frames do not decode (naming the step).
 */
export async function runRecording(
  store: Pick<GameRunStore, 'readGameSteps'>,
  run: GameRunRecord,
  pageSize = RECORDING_STEP_PAGE,
  /** Frames decoded for the runs written before this one (an export's), to take again. */
  decoded: DecodedFrames = new DecodedFrames(0),
): Promise<Iterable<Uint8Array>> {
  // Read a page of steps at a time: a run of thousands of steps is never one query's answer.
  const steps: { record: GameStepRecord; frames: DecodedCells }[] = [];
  let last: { width: number; height: number; cells: Uint8Array } | null = null;
  for (let from = 0; ;) {
    const page = await store.readGameSteps(run.runId, { from, limit: pageSize });
    if (!page.length) break;
    for (const record of page) {
      let frames: DecodedCells;
      try {
        frames = decoded.decode(record.frames, record.keyframe ? null : last);
      } catch (e) {
        if (!(e instanceof FrameCodecError)) throw e;
        throw new Error(`run ${run.runId} is damaged at step ${record.step}: ${e.message}`);
      }
      if (frames.frames.length)
        last = { width: frames.width, height: frames.height, cells: frames.frames[frames.frames.length - 1] };
      steps.push({ record, frames });
    }
    if (page.length < pageSize) break;
    from = page[page.length - 1].step + 1;
  }
  if (!steps.length) throw new Error(`run ${run.runId} of ${run.gameId} has no stored step`);
  return (function* () {
    // The rows a step leaves unchanged are copied from the line before.
    const rows = new FrameRowsCache();
    let out = new Uint8Array(0);
    let start = 0;
    let at = 0;
    for (const { record, frames } of steps) {
      const step = {
        gameId: run.gameId,
        guid: run.runId,
        epochMs: record.at,
        input: inputOf(record),
        frames,
        state: record.state as GameState,
        levelsCompleted: record.levelsCompleted,
        winLevels: record.winLevels,
        fullReset: record.fullReset,
        available: record.available,
      };
      const head = toolkitLineHead(step);
      const bound = toolkitLineBound(head, step);
      if (at + bound > out.length) {
        if (at > start) yield out.subarray(start, at);
        out = new Uint8Array(RECORDING_CHUNK + bound);
        start = at = 0;
      }
      at = writeToolkitLine(step, head, out, at, rows);
      if (at - start >= RECORDING_CHUNK) {
        yield out.subarray(start, at);
        start = at;
      }
    }
    if (at > start) yield out.subarray(start, at);
  })();
}

/**
 * A recording is handed on in pieces of whole lines, at least this many bytes each but the last
 * (about 80 lines of ls20): its ZIP entry's hashing, CRC and deflating then take a piece at a
 * time rather than a line, and a run's text is a few arrays rather than one per line.
 */
const RECORDING_CHUNK = 1024 * 1024;

/** A frame's size and cells, as a step's last frame is the reference of the next one's. */
type CellsFrame = { readonly width: number; readonly height: number; readonly cells: Uint8Array };

/** Whether two reference frames (or none) hold the same cells, a word at a time where they can be. */
function sameReference(a: CellsFrame | null, b: CellsFrame | null): boolean {
  if (a === b || a === null || b === null) return a === b;
  if (a.width !== b.width || a.height !== b.height || a.cells.length !== b.cells.length) return false;
  if (a.cells === b.cells) return true;
  const x = a.cells;
  const y = b.cells;
  if (x.length % 4 === 0 && x.byteOffset % 4 === 0 && y.byteOffset % 4 === 0) {
    const xw = new Int32Array(x.buffer, x.byteOffset, x.length >> 2);
    const yw = new Int32Array(y.buffer, y.byteOffset, y.length >> 2);
    for (let i = 0; i < xw.length; i++) if (xw[i] !== yw[i]) return false;
    return true;
  }
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * Stored frames decoded once for many runs: players of one game see the same frames again and
 * again (its levels' first frames, the same moves from the same places; 3,873 distinct of 14,310
 * in 60 runs of 250 ls20 actions). The same stored text decoded from the same reference frame
 * (compared cell by cell) is the same cells, taken again instead of decoded (and its reference
 * checked) anew. At most `max` are kept, the oldest dropped first; the cells taken are shared,
 * never to be changed.
 */
export class DecodedFrames {
  private readonly kept = new Map<string, { readonly reference: CellsFrame | null; readonly frames: DecodedCells }>();

  constructor(private readonly max = 4096) {}

  /** `decodeFrameCells(text, reference)`, or what it answered before for the same text and reference. */
  decode(text: string, reference: CellsFrame | null): DecodedCells {
    const hit = this.kept.get(text);
    if (hit && sameReference(hit.reference, reference)) return hit.frames;
    const frames = decodeFrameCells(text, reference);
    if (this.max > 0) {
      if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value!);
      this.kept.set(text, { reference, frames });
    }
    return frames;
  }
}

/** The lines (JSON text, no line end) of {@link runRecording}. */
export async function runRecordingLines(
  store: Pick<GameRunStore, 'readGameSteps'>,
  run: GameRunRecord,
  pageSize = RECORDING_STEP_PAGE,
): Promise<string[]> {
  const text = new TextDecoder();
  return [...(await runRecording(store, run, pageSize))].flatMap((b) => text.decode(b.subarray(0, -1)).split('\n'));
}

/** Steps per page when a run's recording is read. */
export const RECORDING_STEP_PAGE = 500;

export type { StoredStepView } from './steps';

/** Steps per page when a run's steps are read for a researcher. */
export const STEP_PAGE = 100;

/** A run's stored steps in step order, a page of `pageSize` at a time. */
export async function* stepPages(
  store: Pick<GameRunStore, 'readGameSteps'>,
  runId: string,
  pageSize = STEP_PAGE,
): AsyncGenerator<GameStepRecord[]> {
  for (let from = 0; ;) {
    const steps = await store.readGameSteps(runId, { from, limit: pageSize });
    if (steps.length === 0) return;
    yield steps;
    if (steps.length < pageSize) return;
    from = steps[steps.length - 1].step + 1;
  }
}

/**
 * A run's steps with standalone frames, in step order, a page of `pageSize` at a time (read,
 * decoded from the page before's last frame, encoded), so that a long run is never read or
 * encoded in one piece. Throws, naming the step, at a step whose frames do not decode.
 */
export async function* stepViewPages(
  store: Pick<GameRunStore, 'readGameSteps'>,
  runId: string,
  pageSize = STEP_PAGE,
): AsyncGenerator<StoredStepView[]> {
  let last: FrameGrid | null = null;
  for await (const steps of stepPages(store, runId, pageSize)) {
    const page = stepViews(steps, last);
    if (page.damage) throw new Error(`run ${runId} is damaged at step ${page.damage.step}: ${page.damage.message}`);
    last = page.last;
    yield page.views;
  }
}

/**
 * The first frame of level `level` (0-based) of a game in a study's stored runs: the last frame
 * of the first step at which a run's `levels_completed` reached `level` (for level 0, the opening
 * RESET's). Null when no stored run got there.
 */
export async function levelFirstFrame(
  store: SessionStore & GameRunStore,
  studyId: string,
  gameId: string,
  level: number,
  /** How the pages of steps are read, e.g. `participantsFirst`. */
  inTurn: (pages: AsyncIterable<GameStepRecord[]>) => AsyncIterable<GameStepRecord[]> = (pages) => pages,
): Promise<{ runId: string; step: number; frame: number[][] } | null> {
  for (const session of await store.listSessions(studyId)) {
    for (const run of await store.listGameRuns(session.id)) {
      if (run.gameId !== gameId) continue;
      // A page at a time, decoding only up to the step that reached the level.
      let last: FrameGrid | null = null;
      for await (const steps of inTurn(stepPages(store, run.runId))) {
        const at = steps.findIndex((s) => s.levelsCompleted === level);
        const decoded = decodeStoredSteps(at < 0 ? steps : steps.slice(0, at + 1), last);
        const found = decoded.at(-1)!;
        if (at >= 0) {
          if (found.last)
            return { runId: run.runId, step: found.record.step, frame: found.last.map((row) => [...row]) };
          break;
        }
        last = found.last;
      }
    }
  }
  return null;
}

// ---- verification --------------------------------------------------------------------------------

/**
 * What a check plays runs on: an `Arc3Source` (a fresh `Arc3Pool`), or `serviceReplayer`; with
 * `code`, a run opened on a kept version of an arcengine game (`gameCode.ts`) is played on that
 * version, found by `code` (a folder, or why it is not available).
 */
export type Replayer = Pick<Arc3Source, 'open' | 'act' | 'close'> & {
  readonly code?: (gameId: string, codeHash: string) => Promise<{ dir: string } | { error: string }>;
  /** The version of `gameId` mounted now (`<id>@<code hash>` for an arcengine game); null when it is not mounted. */
  readonly mounted?: (gameId: string) => Promise<string | null>;
};

/** One step whose frames (or state) the engine answers differently now. */
export interface StepDifference {
  readonly step: number;
  readonly action: string;
  /** What differs, e.g. `frame 2 of 3: 5 cells differ, first at (x 10, y 4): stored 3, engine 0`. */
  readonly what: string[];
}

export interface RunCheck {
  readonly runId: string;
  readonly item: string;
  readonly gameId: string;
  /** The version the run was recorded with: `<id>@<code hash>`, or the id for runs without one. */
  readonly version: string;
  readonly seed: number;
  readonly steps: number;
  readonly differences: StepDifference[];
  /** Why the run could not be played again (the game is missing, the engine failed); the steps after it are not checked. */
  readonly error?: string;
  /** True when no step was played: the code of the version it was recorded with is not available (`error` says what to do). */
  readonly unplayed?: boolean;
  /** The game's version the session's study started with (`study_game_pins`), when one was recorded. */
  readonly startedWith?: string;
  /** The arcengine game's version mounted now, when the check can tell (null: not mounted). */
  readonly mounted?: string | null;
  /**
   * Why differing steps may not mean a changed log: an arcengine run that recorded no code
   * version was played on the mounted code, which may not be the code it ran on; one played on
   * the very code it recorded is not deterministic, or its stored steps were written wrong.
   */
  readonly note?: string;
  /** The first stored step whose frames do not decode: the steps from it on are not checked (`arc-studio check` repairs such runs). */
  readonly damaged?: StepDamage;
}

export interface SessionCheck {
  readonly sessionId: string;
  readonly runs: RunCheck[];
  /** True when every step of every run matched. */
  readonly ok: boolean;
}

/** How a step's frames differ, in words (empty when they are the same). */
export function frameDifferences(
  stored: readonly (readonly (readonly number[])[])[],
  engine: readonly (readonly (readonly number[])[])[],
): string[] {
  const out: string[] = [];
  if (stored.length !== engine.length)
    out.push(
      `${engine.length} frame${engine.length === 1 ? '' : 's'} where ${stored.length} ${stored.length === 1 ? 'was' : 'were'} stored`,
    );
  for (let k = 0; k < Math.min(stored.length, engine.length); k++) {
    const a = stored[k];
    const b = engine[k];
    if (a.length !== b.length || a[0]?.length !== b[0]?.length) {
      out.push(`frame ${k + 1}: ${b[0]?.length ?? 0}x${b.length} where ${a[0]?.length ?? 0}x${a.length} was stored`);
      continue;
    }
    let n = 0;
    let first = '';
    for (let y = 0; y < a.length; y++) {
      for (let x = 0; x < a[y].length; x++) {
        if (a[y][x] === b[y][x]) continue;
        if (n++ === 0) first = `(x ${x}, y ${y}): stored ${a[y][x]}, engine ${b[y][x]}`;
      }
    }
    // "of" counts the step's frames (an animation has several), not the rows of one.
    if (n)
      out.push(
        `frame ${k + 1} of ${stored.length}: ${n === 1 ? '1 cell differs' : `${n} cells differ`}, first at ${first}`,
      );
  }
  return out;
}

function fieldDifferences(r: GameStepRecord, fd: Arc3FrameData): string[] {
  const out: string[] = [];
  if (r.state !== fd.state) out.push(`state ${fd.state} where ${r.state} was stored`);
  if (r.levelsCompleted !== fd.levels_completed)
    out.push(`levels_completed ${fd.levels_completed} where ${r.levelsCompleted} was stored`);
  if (r.winLevels !== fd.win_levels) out.push(`win_levels ${fd.win_levels} where ${r.winLevels} was stored`);
  if (r.fullReset !== fd.full_reset)
    out.push(`full_reset ${String(fd.full_reset)} where ${String(r.fullReset)} was stored`);
  if (r.available.join(',') !== fd.available_actions.join(','))
    out.push(`available_actions [${fd.available_actions.join(', ')}] where [${r.available.join(', ')}] was stored`);
  return out;
}

/**
 * Plays a stored run's actions again on `source` (a fresh one: the run is opened under a new id)
 * and compares every step's frames, state and counts with the stored ones.
 */
export async function verifyRun(store: GameRunStore, source: Replayer, run: GameRunRecord): Promise<RunCheck> {
  const read = decodeStepsChecked(await store.readGameSteps(run.runId));
  const damaged = read.damage ?? undefined;
  // A damaged run is checked up to the step that does not decode.
  const steps = damaged ? read.decoded.filter((d) => d.record.step < damaged.step) : read.decoded;
  const mounted = run.source === 'arcengine' && source.mounted ? await source.mounted(run.gameId) : undefined;
  const base = {
    runId: run.runId,
    item: run.item,
    gameId: run.gameId,
    version: gameVersion(run.gameId, run.codeHash),
    seed: run.seed,
    steps: steps.length,
    ...(mounted !== undefined ? { mounted } : {}),
    ...(damaged ? { damaged } : {}),
  };
  const differences: StepDifference[] = [];
  const check = (i: number, fd: Arc3FrameData) => {
    const { record, frames } = steps[i];
    const what = [...fieldDifferences(record, fd), ...frameDifferences(frames, fd.frame)];
    if (what.length) differences.push({ step: record.step, action: record.action, what });
  };
  const damage = damaged
    ? `the stored frames of step ${damaged.step} do not decode (${damaged.message}), so it and the steps after it are not checked; "arc-studio check --repair" rebuilds them from the participant's log`
    : null;
  if (!steps.length) return { ...base, differences, error: damage ?? 'the run has no stored step' };
  let codeDir: string | undefined;
  if (run.codeHash && run.source === 'arcengine') {
    const found = source.code
      ? await source.code(run.gameId, run.codeHash)
      : { error: `it was recorded with ${base.version} and this check cannot find kept versions of games` };
    if ('error' in found) return { ...base, differences, error: found.error, unplayed: true };
    codeDir = found.dir;
  }
  const replayId = `verify-${run.runId}`;
  let i = 0;
  try {
    const opened = await source.open(replayId, run.gameId, run.seed, 0, codeDir);
    check(0, opened.frame);
    for (i = 1; i < steps.length; i++) {
      const r = steps[i].record;
      const action: Arc3Action =
        r.action === 'ACTION6'
          ? { action: 'ACTION6', x: r.x ?? 0, y: r.y ?? 0 }
          : { action: r.action as Arc3Action['action'] };
      check(i, await source.act(replayId, action));
    }
  } catch (e) {
    const message = e instanceof Arc3Error ? `${e.code}: ${e.message}` : (e as Error).message;
    return { ...base, differences, error: `step ${steps[i]?.record.step ?? i} could not be played again (${message})` };
  } finally {
    await source.close(replayId).catch(() => undefined);
  }
  const withDamage = damage ? { error: damage } : {};
  // A run without a recorded version was played on whatever is mounted: say so beside its differences.
  if (differences.length && run.source === 'arcengine' && !run.codeHash) {
    return {
      ...base,
      differences,
      ...withDamage,
      note: `the run recorded no code version (stored before versions were kept), so it was played on the ${mounted ? `mounted ${mounted}` : 'mounted files'}; if the game's files changed since it was played, exact verification needs the code it ran on`,
    };
  }
  // Played on the very code it recorded: the code did not change, whatever differs.
  if (differences.length && run.source === 'arcengine' && run.codeHash)
    return {
      ...base,
      differences,
      ...withDamage,
      note: `played again on the code the run recorded (${base.version}), so the game's code did not change: the game answers other frames to the same actions (it is not deterministic), or the stored steps were written wrong`,
    };
  return { ...base, differences, ...withDamage };
}

/** Every stored run of a session, played again on `source`; `ok` when all match. */
export async function verifySession(
  store: SessionStore & GameRunStore,
  source: Replayer,
  sessionId: string,
): Promise<SessionCheck> {
  const runs: RunCheck[] = [];
  const session = await store.getSession(sessionId);
  const pins = new Map(
    (session ? await store.studyGamePins(session.studyId) : []).map((p) => [p.gameId, p.version] as const),
  );
  for (const run of await store.listGameRuns(sessionId)) {
    const check = await verifyRun(store, source, run);
    const pinned = pins.get(run.gameId);
    runs.push(pinned ? { ...check, startedWith: pinned } : check);
  }
  return { sessionId, runs, ok: runs.every((r) => !r.error && r.differences.length === 0) };
}

/** The report of a check as text, one line per run and one per differing step. */
export function formatSessionCheck(check: SessionCheck): string[] {
  const lines: string[] = [];
  if (!check.runs.length) lines.push(`Session ${check.sessionId} has no stored run of a server-run game.`);
  for (const r of check.runs) {
    // A run on another version than the study started with says so: its figures are not the same game's.
    const since = r.startedWith && r.startedWith !== r.version ? `, the study started with ${r.startedWith}` : '';
    // A run played on its kept code while other code is mounted says which: its check is still exact.
    const now =
      r.mounted && r.mounted !== r.version && !r.unplayed && r.version.includes('@')
        ? `, mounted now ${r.mounted}`
        : '';
    const head = `${r.item} ${r.version} run ${r.runId} (seed ${r.seed}, ${r.steps} steps${since}${now})`;
    if (!r.error && !r.differences.length) {
      lines.push(`${head}: every step matches`);
      continue;
    }
    // A run that could not be played at all (its version's code is missing) says only why.
    if (r.unplayed) {
      lines.push(`${head}: not checked: ${r.error}`);
      continue;
    }
    lines.push(
      `${head}: ${r.differences.length} step${r.differences.length === 1 ? ' differs' : 's differ'}${r.error ? `; ${r.error}` : ''}${r.note ? `; ${r.note}` : ''}`,
    );
    for (const d of r.differences) lines.push(`  step ${d.step} (${d.action}): ${d.what.join('; ')}`);
  }
  return lines;
}
