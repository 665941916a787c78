/**
 * Games that the server runs (ARC-AGI-3 games on the official engine, from an arcengine folder or
 * a remote ARC-AGI-3 server): what the browser and the server say to each other about a run, and
 * how a run's actions appear in the participant's log.
 *
 * The browser never runs these games. It asks the server to open a run and to perform each
 * action; the server answers with the frames the engine returned and a signature over what it
 * answered. The browser logs, as for the built-in games:
 * - `game.open`: `{ game, seed, run, source, engine }` (`game` is the full official id, e.g.
 *   `ls20-9607627b`);
 * - `game.action`: `{ game, action, x?, y?, level, state, frameHash, run, step, sig }` for every
 *   step the server answered, step 0 being the opening RESET.
 * The server keeps every step's frames itself (`game_steps`); the signature lets it verify a log
 * without reading them back (`verifyServerRunLog`).
 */
import { hashFrame } from './hash';
import type { ActionInput, GameAction, GameState } from './types';

/** One step of a server-run game as the server answers it. */
export interface ServerStep {
  readonly run: string;
  readonly game_id: string;
  /** 0 for the opening RESET, then 1, 2, ... */
  readonly step: number;
  readonly action: GameAction;
  readonly x?: number;
  readonly y?: number;
  readonly state: GameState;
  readonly levels_completed: number;
  readonly win_levels: number;
  readonly available_actions: readonly number[];
  readonly full_reset: boolean;
  /** The frames the engine returned, `encodeFrames(frames, null)` (src/core/formats/frames.ts). */
  readonly frames: string;
  /** `hashFrame` of the last frame (of the previous step's when this step returned none). */
  readonly frameHash: string;
  /** The server's signature over this step (see `stepSigningText`). */
  readonly sig: string;
}

/** What the server answers when a run is opened or resumed. */
export interface ServerRunReply {
  readonly run: string;
  readonly game: ServerGameInfo;
  readonly seed: number;
  /** The steps the caller has not seen yet (on open: step 0), oldest first; the last is the current state. */
  readonly steps: readonly ServerStep[];
  /** On a resume that sent logged steps the server had not stored: what became of them. */
  readonly replay?: RunReplayReport;
}

/**
 * The logged steps of a resume played again (docs/api.md, "A step is answered before it is
 * stored"): how many were stored, and where the replay stopped when a step could not be brought
 * back (its frame differs from the logged one, the game failed on it, or the log does not reach
 * back far enough); the steps from there on stay in the participant's event log only, and the
 * run goes on from the server's last step.
 */
export interface RunReplayReport {
  readonly stored: number;
  readonly stopped?: { readonly step: number; readonly message: string };
}

/** A logged step as a resume sends it back (`RunLoggedStep` in `core/protocol/requests.ts`). */
export interface LoggedStep {
  readonly step: number;
  readonly action: GameAction;
  readonly x?: number;
  readonly y?: number;
  readonly frameHash: string;
}

/**
 * The end of a run's log that a resume sends: the longest contiguous run of steps ending at the
 * last one, at most `max`, oldest first (step 0, always stored before it is answered, is left out).
 */
export function resumeTail(steps: readonly LoggedStep[], max: number): LoggedStep[] {
  const out: LoggedStep[] = [];
  for (let i = steps.length - 1; i >= 0 && out.length < max; i--) {
    const s = steps[i];
    if (s.step < 1 || (out.length && s.step !== out[0].step - 1)) break;
    out.unshift(
      s.action === 'ACTION6'
        ? { step: s.step, action: s.action, x: s.x, y: s.y, frameHash: s.frameHash }
        : { step: s.step, action: s.action, frameHash: s.frameHash },
    );
  }
  return out;
}

/** A server-run game as the studio lists it. */
export interface ServerGameInfo {
  /** The full official id, `<game>-<version>`. */
  readonly id: string;
  readonly title: string;
  /** Number of levels, when known (a remote game's is known once played). */
  readonly levels: number | null;
  readonly fps: number;
  readonly tags: readonly string[];
  readonly source: 'arcengine' | 'remote';
  /** E.g. `arcengine 0.9.3`, or the remote server's address. */
  readonly engine: string;
  /** The official metadata's per-level human baseline, when it has one. */
  readonly baselineActions: readonly number[];
  /**
   * The actions the game offers (1-7), when its engine says (arcengine games): a game without 6
   * takes no clicks, one with 6 alone no keys.
   */
  readonly actions?: readonly number[];
  /** Why the game cannot start (e.g. its file does not load), with what to do. */
  readonly error?: string;
  /**
   * An arcengine game's version: its id and the content hash of its files, `ls20-9607627b@3f2a9c01d4e5`
   * (the current files in the game list; the files a run was opened on in a run's reply).
   */
  readonly version?: string;
  /** The content hash in `version`. */
  readonly codeHash?: string;
}

/** The log payload of a step (`game.action`). */
export function serverStepEventData(step: ServerStep): Record<string, unknown> {
  const data: Record<string, unknown> = {
    game: step.game_id,
    action: step.action,
    level: step.levels_completed,
    state: step.state,
    frameHash: step.frameHash,
    run: step.run,
    step: step.step,
    sig: step.sig,
  };
  if (step.action === 'ACTION6') {
    data.x = step.x;
    data.y = step.y;
  }
  return data;
}

/** The text the server signs for a step: every field a log relies on, in a fixed order. */
export function stepSigningText(s: {
  run: string;
  game: string;
  step: number;
  action: string;
  x?: unknown;
  y?: unknown;
  level: unknown;
  state: unknown;
  frameHash: unknown;
}): string {
  return JSON.stringify([s.run, s.game, s.step, s.action, s.x ?? null, s.y ?? null, s.level, s.state, s.frameHash]);
}

/** The signing text of a logged `game.action` of run `run` of game `game`: what its `sig` signs when the log is true. */
export function loggedStepText(run: string, game: string, d: Readonly<Record<string, unknown>>): string {
  return stepSigningText({
    run,
    game,
    step: d.step as number,
    action: String(d.action),
    x: d.x,
    y: d.y,
    level: d.level,
    state: d.state,
    frameHash: d.frameHash,
  });
}

/** A frame grid (rows of colours) as the flat cells `hashFrame` and the renderer take. */
export function gridCells(grid: readonly (readonly number[])[]): Uint8Array {
  const h = grid.length;
  const w = h ? grid[0].length : 0;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) out[y * w + x] = grid[y][x];
  return out;
}

/** `hashFrame` of a grid. */
export function hashGrid(grid: readonly (readonly number[])[]): string {
  return hashFrame(gridCells(grid));
}

/** The action a person asked for, as the server's act request carries it. */
export function actionRequest(
  input: ActionInput,
  step: number,
): { step: number; action: GameAction; x?: number; y?: number } {
  return input.action === 'ACTION6'
    ? { step, action: input.action, x: input.x, y: input.y }
    : { step, action: input.action };
}

export interface ServerLogCheck {
  readonly problems: { seq: number; message: string }[];
  readonly levelsCompleted: number;
}

/**
 * Checks a server-run game's log: every `game.open` names a run, every `game.action` of it
 * follows the run's previous step (0, 1, 2, ...) and carries the server's signature
 * (`verify(text, sig)`). A log that passes is what the server's engine answered, in order.
 */
export function verifyServerRunLog(
  gameId: string,
  events: readonly { seq: number; kind: string; data: Record<string, unknown> }[],
  verify: (text: string, sig: string) => boolean,
): ServerLogCheck {
  const problems: { seq: number; message: string }[] = [];
  let run: string | null = null;
  let next = 0;
  let levelsCompleted = 0;
  for (const e of events) {
    if ((e.kind !== 'game.open' && e.kind !== 'game.action') || e.data.game !== gameId) continue;
    const d = e.data;
    if (e.kind === 'game.open') {
      if (typeof d.run !== 'string' || !d.run) {
        problems.push({ seq: e.seq, message: 'game.open names no run of the server' });
        run = null;
        continue;
      }
      // A run reopened after a reload continues where it was.
      if (d.run !== run) {
        run = d.run;
        next = 0;
      }
      continue;
    }
    if (run === null) {
      problems.push({ seq: e.seq, message: 'game.action before any game.open' });
      continue;
    }
    if (d.run !== run) {
      problems.push({ seq: e.seq, message: `game.action of run ${String(d.run)} inside run ${run}` });
      continue;
    }
    if (d.step !== next) {
      problems.push({ seq: e.seq, message: `step ${String(d.step)} where step ${next} was expected` });
      next = typeof d.step === 'number' ? d.step + 1 : next;
      continue;
    }
    next++;
    const text = loggedStepText(run, gameId, d);
    if (typeof d.sig !== 'string' || !verify(text, d.sig)) {
      problems.push({ seq: e.seq, message: `step ${String(d.step)} is not what the server answered (signature)` });
      continue;
    }
    if (typeof d.level === 'number') levelsCompleted = Math.max(levelsCompleted, d.level);
  }
  return { problems, levelsCompleted };
}
