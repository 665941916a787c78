/**
 * Reading a server-run game's stored steps back: each step's frames are encoded against the
 * previous step's last frame unless it is a keyframe, so a run decodes in order.
 */
import { decodeFrames, encodeFrames, FrameCodecError, type FrameGrid } from '../../core/formats/frames';
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

/** The first stored step of a run that does not decode, and why (`FrameCodecError`'s message). */
export interface StepDamage {
  readonly step: number;
  readonly message: string;
}

/**
 * Decodes a run's steps as far as they go: a step whose frames do not decode is left out, as is
 * every step after it until the next keyframe (each is a change to a frame that is not known),
 * and the first of them is named in `damage`. `lastKnown` is false when the last step was left
 * out, so the run's last frame is not known from its stored steps.
 */
export function decodeStepsChecked(
  steps: readonly GameStepRecord[],
  last: FrameGrid | null = null,
): { decoded: DecodedStep[]; damage: StepDamage | null; lastKnown: boolean } {
  const decoded: DecodedStep[] = [];
  let damage: StepDamage | null = null;
  let known = true;
  for (const record of steps) {
    if (!known && !record.keyframe) continue;
    try {
      const frames = decodeFrames(record.frames, record.keyframe ? null : last);
      if (frames.length) last = frames[frames.length - 1];
      decoded.push({ record, frames, last });
      known = true;
    } catch (e) {
      if (!(e instanceof FrameCodecError)) throw e;
      damage ??= { step: record.step, message: e.message };
      known = false;
    }
  }
  return { decoded, damage, lastKnown: known };
}

/** A stored step as the researcher's routes send it: its frames encoded to stand alone (`encodeFrames(frames, null)`). */
export type StoredStepView = Omit<GameStepRecord, 'runId' | 'keyframe'>;

/**
 * A page of a run's steps as the researcher's routes send them (in step order, following the
 * step whose last frame is `last`), and the last frame on screen after the page. A step whose
 * frames do not decode ends the page there: `damage` names it, and the run is read no further
 * (every step after it up to a keyframe is a change to a frame that is not known).
 */
export function stepViews(
  steps: readonly GameStepRecord[],
  last: FrameGrid | null,
): { views: StoredStepView[]; last: FrameGrid | null; damage?: StepDamage } {
  const decoded: DecodedStep[] = [];
  let damage: StepDamage | undefined;
  for (const record of steps) {
    try {
      decoded.push(...decodeStoredSteps([record], decoded.length ? decoded[decoded.length - 1].last : last));
    } catch (e) {
      if (!(e instanceof FrameCodecError)) throw e;
      damage = { step: record.step, message: e.message };
      break;
    }
  }
  return {
    ...(damage ? { damage } : {}),
    views: decoded.map(({ record: r, frames }) => ({
      step: r.step,
      action: r.action,
      x: r.x,
      y: r.y,
      state: r.state,
      levelsCompleted: r.levelsCompleted,
      winLevels: r.winLevels,
      available: r.available,
      fullReset: r.fullReset,
      frameHash: r.frameHash,
      frames: encodeFrames(frames, null),
      at: r.at,
    })),
    last: decoded.length ? decoded[decoded.length - 1].last : last,
  };
}

/** A page of a replay read: its steps' JSON text, the last frame after them, and the step that ended it when one did not decode. */
export interface StepViewsJson {
  readonly json: string;
  readonly last: FrameGrid | null;
  readonly damage?: StepDamage;
}

/**
 * A page of a run's steps as the JSON text of the runs route (the views' JSON joined by commas),
 * and the last frame after it: the work of a page of a replay read, done on a digest thread.
 */
export function stepViewsJson(steps: readonly GameStepRecord[], last: FrameGrid | null): StepViewsJson {
  const page = stepViews(steps, last);
  return {
    json: page.views.map((v) => JSON.stringify(v)).join(','),
    last: page.last,
    ...(page.damage ? { damage: page.damage } : {}),
  };
}
