/**
 * A stored step as one JSON array rather than an object with its keys: what
 * `readGameStepsJsonOf` answers for the many steps an export reads, about a third less text for
 * the database to write, the main thread to hand over and the export thread to parse.
 */
import type { GameStepRecord } from './types';

/** The SQL of a `game_steps` row as a {@link GameStepRow}. */
export const STEP_ROW_SQL = `json_build_array(step, action, x, y, state, levels_completed, win_levels, available,
  full_reset, frame_hash, frames, keyframe, floor(extract(epoch FROM at) * 1000))`;

/** A step's fields in the order {@link STEP_ROW_SQL} writes them. */
export type GameStepRow = readonly [
  step: number,
  action: string,
  x: number | null,
  y: number | null,
  state: string,
  levelsCompleted: number,
  winLevels: number,
  available: readonly number[],
  fullReset: boolean,
  frameHash: string,
  frames: string,
  keyframe: boolean,
  at: number,
];

/** The record of run `runId`'s step written as `row`. */
export function gameStepOfRow(runId: string, row: GameStepRow): GameStepRecord {
  const [step, action, x, y, state, levelsCompleted, winLevels, available, fullReset, frameHash, frames, keyframe, at] =
    row;
  return {
    runId,
    step,
    action,
    x,
    y,
    state,
    levelsCompleted,
    winLevels,
    available,
    fullReset,
    frameHash,
    frames,
    keyframe,
    at,
  };
}
