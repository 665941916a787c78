/**
 * Game events in the shared log envelope (`{seq, t, kind, data}`, see core/log/events.ts), and
 * the pure replay that rebuilds every frame from them.
 *
 * A player writes:
 * - `game.open`: `{ game, seed, version, engine }` when a run of a game is opened (before its
 *   first RESET), with the game's version and the engine's (`gameOpenData`; logs made before
 *   versions were recorded have neither);
 * - `game.action`: `{ game, action, x?, y?, level, state, frameHash }` after each accepted
 *   action, where `level` is `levels_completed` after the action, `state` the official state
 *   after it, and `frameHash` the `hashFrame` of the settled (last) frame. `x`, `y` only for
 *   ACTION6. Refused actions are not logged.
 */
import { z } from 'zod';
import type { LogEvent } from '../log/events';
import { splitRuns } from './accounting';
import { advance, createRun, step, type Run } from './engine';
import type { GameDefinition } from './define';
import { hashFrame } from './hash';
import { ENGINE_VERSION, gameVersion } from './version';
import { GameRuleError, type ActionInput, type FrameResponse, type GameAction, type GameState } from './types';

/** Payload of a `game.open` event. */
export interface GameOpenData {
  /** Game id, e.g. `push`. */
  readonly game: string;
  /** Seed of the run's PRNG. */
  readonly seed: number;
  /** The game's version (`gameVersion`, 12 hex digits); absent in logs made before versions. */
  readonly version?: string;
  /** The engine's version (`ENGINE_VERSION`); absent in logs made before versions. */
  readonly engine?: string;
  /**
   * A designer's playtest that starts at this level (0-based) instead of waiting for RESET;
   * see `RunOptions.level`. Absent for participants.
   */
  readonly level?: number;
}

/** Payload of a `game.action` event. */
export interface GameActionData {
  readonly game: string;
  readonly action: GameAction;
  /** Column 0-63, ACTION6 only. */
  readonly x?: number;
  /** Row 0-63, ACTION6 only. */
  readonly y?: number;
  /** `levels_completed` after the action. */
  readonly level: number;
  /** The official state after the action. */
  readonly state: GameState;
  /** `hashFrame` of the settled frame after the action. */
  readonly frameHash: string;
}

/** Validates a `game.open` payload (e.g. on the server, before storing or replaying it). */
export const GameOpenSchema = z.object({
  game: z.string().regex(/^[a-z0-9]{4}$/),
  seed: z.number().int(),
  version: z
    .string()
    .regex(/^[0-9a-f]{12}$/)
    .optional(),
  engine: z.string().min(1).max(40).optional(),
  level: z.number().int().nonnegative().optional(),
});

/**
 * The `game.open` payload for a new run of `game`: its id, the seed, the game's and the engine's
 * versions, and the designer's start level when there is one.
 * @example sink.append('game.open', gameOpenData(games.push, 7));
 */
export function gameOpenData(game: GameDefinition<unknown, unknown>, seed: number, level?: number): GameOpenData {
  const data: GameOpenData = { game: game.id, seed, version: gameVersion(game), engine: ENGINE_VERSION };
  return level === undefined ? data : { ...data, level };
}

/** The run a `game.open` payload starts; a level outside the game starts at level 0. */
function openRun(game: GameDefinition<unknown, unknown>, data: Record<string, unknown>): Run<unknown> {
  const seed = typeof data.seed === 'number' ? data.seed : 0;
  const level = data.level;
  const valid = typeof level === 'number' && Number.isInteger(level) && level >= 0 && level < game.levels.length;
  return createRun(game, valid ? { seed, level } : { seed });
}

/** Validates a `game.action` payload; coordinates are required for ACTION6 and refused otherwise. */
export const GameActionSchema = z
  .object({
    game: z.string().regex(/^[a-z0-9]{4}$/),
    action: z.enum(['RESET', 'ACTION1', 'ACTION2', 'ACTION3', 'ACTION4', 'ACTION5', 'ACTION6', 'ACTION7']),
    x: z.number().int().min(0).max(63).optional(),
    y: z.number().int().min(0).max(63).optional(),
    level: z.number().int().nonnegative(),
    state: z.enum(['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER']),
    frameHash: z.string().regex(/^[0-9a-f]{8}$/),
  })
  .refine((d) => (d.action === 'ACTION6') === (d.x !== undefined && d.y !== undefined), {
    message: 'x and y are required for ACTION6 and only for it',
  });

/** The game event payloads, by kind. */
export interface GameEventData {
  'game.open': GameOpenData;
  'game.action': GameActionData;
}

/** The payload a player logs for `input` answered by `response`. */
export function gameActionData(game: string, input: ActionInput, response: FrameResponse): GameActionData {
  const data: GameActionData = {
    game,
    action: input.action,
    level: response.levels_completed,
    state: response.state,
    frameHash: hashFrame(response.frame[response.frame.length - 1]),
  };
  return input.action === 'ACTION6' ? { ...data, x: input.x, y: input.y } : data;
}

/** One replayed action. */
export interface ReplayedStep {
  readonly seq: number;
  readonly input: ActionInput;
  readonly response: FrameResponse;
}

/** Result of a replay: every step with its frames, and what disagreed with the log. */
export interface GameReplay {
  readonly steps: ReplayedStep[];
  /** Empty when the log is consistent with the engine (e.g. not tampered with). */
  readonly problems: { seq: number; message: string }[];
  /** The run after the last event (null when the log never opened this game). */
  readonly run: Run<unknown> | null;
}

/**
 * Rebuilds every frame of a game from its log events. Events of other kinds and other games
 * are ignored; each `game.open` starts a new run. A logged result that the engine does not
 * reproduce, or an action the rules refuse, is reported in `problems`.
 */
export function replayGameEvents(game: GameDefinition<unknown, unknown>, events: readonly LogEvent[]): GameReplay {
  const steps: ReplayedStep[] = [];
  const problems: { seq: number; message: string }[] = [];
  let run: Run<unknown> | null = null;
  for (const e of events) {
    if ((e.kind !== 'game.open' && e.kind !== 'game.action') || e.data.game !== game.id) continue;
    if (e.kind === 'game.open') {
      const seed = e.data.seed;
      if (typeof seed !== 'number' || !Number.isInteger(seed))
        problems.push({ seq: e.seq, message: 'game.open has no integer seed' });
      run = openRun(game, e.data);
      continue;
    }
    const parsed = GameActionSchema.safeParse(e.data);
    if (!parsed.success) {
      problems.push({
        seq: e.seq,
        message: `malformed game.action: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'data'} ${i.message}`).join('; ')}`,
      });
      continue;
    }
    const d = parsed.data;
    if (!run) {
      problems.push({ seq: e.seq, message: 'game.action before game.open' });
      continue;
    }
    const input: ActionInput = d.action === 'ACTION6' ? { action: d.action, x: d.x, y: d.y } : { action: d.action };
    let result;
    try {
      result = step(run, input);
    } catch (err) {
      if (!(err instanceof GameRuleError)) throw err;
      problems.push({ seq: e.seq, message: `${err.code}: ${err.message}` });
      continue;
    }
    run = result.run;
    const r = result.response;
    steps.push({ seq: e.seq, input, response: r });
    const hash = hashFrame(r.frame[r.frame.length - 1]);
    if (d.level !== r.levels_completed)
      problems.push({ seq: e.seq, message: `logged level ${d.level}, replay gives ${r.levels_completed}` });
    if (d.state !== r.state) problems.push({ seq: e.seq, message: `logged state ${d.state}, replay gives ${r.state}` });
    if (d.frameHash !== hash)
      problems.push({ seq: e.seq, message: `logged frame ${d.frameHash}, replay gives ${hash}` });
  }
  return { steps, problems, run };
}

/** A replay on the version of the game a log was recorded on. */
export interface VersionedReplay extends GameReplay {
  /** The version the events were replayed on, or recorded on when it could not be replayed (`push-<hash>`). */
  readonly version: string;
  /** Set when the log was recorded on a version none of the given definitions has: nothing was replayed. */
  readonly otherVersion?: { readonly recorded: string; readonly current: string };
}

/**
 * Replays a log of one game on the version it was recorded on. `definitions` are the versions of
 * the game this caller can run, the current one first (see `gameVersions` in src/games).
 *
 * - A log whose `game.open` names a version replays on that version; when none of `definitions`
 *   is it, nothing is replayed and `otherVersion` names both versions: the log is neither
 *   trusted nor called tampered, it belongs to another version of the game.
 * - A log without versions (recorded before versions were logged) is taken to be of the first
 *   version it replays on without problems; when it replays on none, the current version's
 *   problems are reported.
 * - A log that names several versions replays on the first and reports the others as problems.
 * - When the log names another engine version and does not replay, a problem says so.
 */
export function replayRecordedVersion(
  definitions: readonly GameDefinition<unknown, unknown>[],
  events: readonly LogEvent[],
): VersionedReplay {
  const current = definitions[0];
  if (!current)
    throw new Error('replayRecordedVersion needs at least one definition of the game (the current one first).');
  const id = current.id;
  const named = (v: string) => `${id}-${v}`;
  const opens = events.filter((e) => e.kind === 'game.open' && e.data.game === id);
  const recorded = [...new Set(opens.map((e) => e.data.version).filter((v): v is string => typeof v === 'string'))];
  const engines = [...new Set(opens.map((e) => e.data.engine).filter((v): v is string => typeof v === 'string'))];
  const withEngineNote = (r: GameReplay): GameReplay => {
    const other = engines.filter((e) => e !== ENGINE_VERSION);
    if (!r.problems.length || !other.length) return r;
    return {
      ...r,
      problems: [
        ...r.problems,
        {
          seq: opens[0].seq,
          message: `recorded with engine ${other.join(', ')}, replayed with engine ${ENGINE_VERSION}`,
        },
      ],
    };
  };
  if (recorded.length === 0) {
    let first: GameReplay | null = null;
    for (const def of definitions) {
      const r = replayGameEvents(def, events);
      if (r.problems.length === 0) return { ...r, version: named(gameVersion(def)) };
      first ??= r;
    }
    return { ...withEngineNote(first!), version: named(gameVersion(current)) };
  }
  const def = definitions.find((d) => gameVersion(d) === recorded[0]);
  if (!def)
    return {
      steps: [],
      problems: [],
      run: null,
      version: named(recorded[0]),
      otherVersion: { recorded: named(recorded[0]), current: named(gameVersion(current)) },
    };
  const r = withEngineNote(replayGameEvents(def, events));
  const mixed = opens
    .filter((e) => typeof e.data.version === 'string' && e.data.version !== recorded[0])
    .map((e) => ({
      seq: e.seq,
      message: `game.open on version ${named(String(e.data.version))} in a log of version ${named(recorded[0])}`,
    }));
  return { ...r, problems: [...r.problems, ...mixed].sort((a, b) => a.seq - b.seq), version: named(recorded[0]) };
}

/**
 * The scorecard's accounting from logged actions alone (no engine needed), by `splitRuns`: every
 * ACTION1-7 counts one, a level RESET one, a full reset starts a new run at zero; per-level counts
 * split where `level` (levels_completed) changes. Returns the counts of the last run, and the
 * number of runs started by a RESET, as the engine's `scorecard` gives them.
 */
export function countActions(entries: readonly Pick<GameActionData, 'action' | 'level' | 'state'>[]): {
  runs: number;
  actions: number;
  level_actions: number[];
} {
  const runs = splitRuns(entries.map((e) => ({ action: e.action, levelsCompleted: e.level, state: e.state })));
  const last = runs[runs.length - 1];
  if (!last) return { runs: 0, actions: 0, level_actions: [0] };
  return {
    runs: runs.filter((r) => entries[r.first].action === 'RESET').length,
    actions: last.actions,
    level_actions: last.levelActions,
  };
}

/**
 * A reducer over log events for `Timeline`: the run of `game` after each event (null before its
 * first `game.open`). Actions the rules refuse leave the run as it was.
 */
export function gameRunReducer(
  game: GameDefinition<unknown, unknown>,
): (run: Run<unknown> | null, e: LogEvent) => Run<unknown> | null {
  return (run, e) => {
    if (e.data.game !== game.id) return run;
    if (e.kind === 'game.open') return openRun(game, e.data);
    if (e.kind !== 'game.action' || !run) return run;
    const d = e.data as unknown as GameActionData;
    try {
      return advance(run, d.action === 'ACTION6' ? { action: d.action, x: d.x, y: d.y } : { action: d.action });
    } catch (err) {
      if (err instanceof GameRuleError) return run;
      throw err;
    }
  };
}
