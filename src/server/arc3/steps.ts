/**
 * Reading a server-run game's stored steps back: each step's frames are encoded against the
 * previous step's last frame unless it is a keyframe, so a run decodes in order.
 */
import { decodeFrames, type FrameGrid } from '../../core/formats/frames';
import type { GameStepRecord } from '../store/types';

export interface DecodedStep {
  readonly record: GameStepRecord;
  /** The frames the engine returned for this step. */
  readonly frames: number[][][];
  /** The last frame on screen after this step (the previous one when the step returned none). */
  readonly last: FrameGrid | null;
}

/**
 * Decodes a run's steps (in step order, as `readGameSteps` gives them): all of them, or a page
 * that follows the step whose last frame is `last`.
 */
export function decodeStoredSteps(steps: readonly GameStepRecord[], last: FrameGrid | null = null): DecodedStep[] {
  const out: DecodedStep[] = [];
  for (const record of steps) {
    const frames = decodeFrames(record.frames, record.keyframe ? null : last);
    if (frames.length) last = frames[frames.length - 1];
    out.push({ record, frames, last });
  }
  return out;
}
