/**
 * A run this server holds in a game's worker, and what the run host, its step writer and its
 * resume share about it.
 */
import type { ServerStep } from '../../core/game/serverGame';
import type { MountedSource } from './catalog';
import type { RunFrames } from './stepJournal';
import type { Arc3Action } from './worker';

/** What acting on a copy of a run that is behind the stored steps returns (see {@link RunHost.act}). */
export const BEHIND = Symbol('behind');

/** A step's action as the game is sent it: a click (ACTION6), and only a click, with its cell. */
export function actionOf(a: { action: string; x?: number | null; y?: number | null }): Arc3Action {
  return a.action === 'ACTION6'
    ? { action: 'ACTION6', x: a.x ?? 0, y: a.y ?? 0 }
    : { action: a.action as Arc3Action['action'] };
}

/**
 * Where one step's time went on the server, in ms (filled by {@link RunHost.act} when given,
 * sent as a `Server-Timing` header when `ARC_STUDIO_SERVER_TIMING=1`, read by `npm run bench -- arc3`).
 */
export interface StepTiming {
  /** The action's round trip to the game's source (Python worker or remote server), frames decoded. */
  worker: number;
  /** Hashing the last frame and encoding the frames (the answer's, and the stored copy against the previous step). */
  frames: number;
  /** The step's signature. */
  sign: number;
  /** Building the `game_steps` row and committing it (with other runs' steps arriving meanwhile): the answer waits for it. */
  store: number;
  /** Waiting for the step's admission once the worker had answered (it is read while the worker plays). */
  admission?: number;
}

export interface LiveRun {
  readonly runId: string;
  readonly gameId: string;
  readonly mounted: MountedSource;
  readonly sessionId: string | null;
  /** The study item a session's run plays (null for a playtest). */
  readonly item: string | null;
  readonly seed: number;
  /** The level the run started at (a designer's playtest may start past level 1). */
  readonly level: number;
  /** The version of the game's code the run was opened on (arcengine games), and the folder holding it. */
  readonly codeHash: string | null;
  readonly codeDir: string | undefined;
  /** The actions after the opening RESET, to rebuild the run anywhere. */
  readonly actions: Arc3Action[];
  last: ServerStep;
  /** The run's last frame, which its next stored step is encoded against (`stepJournal.ts`). */
  readonly frames: RunFrames;
  /**
   * Set once an action played ahead of its admission was refused: from then on this run's
   * actions wait for their admission before the worker plays them, so a participant whose item
   * has ended cannot make the worker rebuild the run for every refused action.
   */
  refused: boolean;
  queue: Promise<unknown>;
  touched: number;
}
