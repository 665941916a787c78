/**
 * The steps of a session's run of an arcengine or remote game, on their way to `game_steps`
 * (docs/architecture.md, "Durability of game steps"):
 *
 * 1. A step is committed before it is answered. The store's group commit writes the steps of
 *    every run that arrive while a statement is under way in the next one, so many players
 *    share statements; one player alone pays one statement a step. An answer is therefore a
 *    step stored, and a step whose write failed was never answered (the page sends it again).
 * 2. A step's stored frames are encoded against the last frame of the step stored before it in
 *    the same run, as this server knows it: its own previous step (stored before it was
 *    answered), or, for a run read back from the database, the last stored frame decoded from
 *    the stored steps themselves, never the engine's rebuild of it. When the stored steps
 *    cannot be decoded, the next stored step is a keyframe. So a delta is never encoded
 *    against a frame that is not the stored one.
 */
import { encodeFramesBoth, type FrameCells, type FrameGrid } from '../../core/formats/frames';
import { hashGrid } from '../../core/game/serverGame';
import { hashFrame } from '../../core/game/hash';
import { SessionChanged, type GameRunStore, type GameStepRecord, type SessionStamp } from '../store/types';
import { decodeStepsChecked } from './steps';
import type { Arc3FrameData } from './worker';

/** Every so many steps a stored step is encoded without a reference, so a reader can start there. */
export const KEYFRAME_EVERY = 32;

/**
 * The admission of a step played ahead of it refused it: nothing was answered or stored, and the
 * worker's copy of the run dropped the action.
 */
export class StepRefused extends Error {
  constructor() {
    super('the step was not admitted');
    this.name = 'StepRefused';
  }
}

/**
 * A session step's admission (`study/admission.ts`, `admitOnRow`), decided while the worker
 * plays the action: `verdict` is the stamp of the session's row it was decided on (the step is
 * stored only while the row still has it) or null for a refusal; `again` decides it on the
 * session's current row, read when the step's write found the row changed.
 */
export interface StepAdmission {
  readonly verdict: Promise<SessionStamp | null>;
  again(): Promise<SessionStamp | null>;
}

/** The hash a step is answered and logged with: its last frame's. */
export function frameHashOf(frame: FrameGrid | null): string {
  return frame ? hashGrid(frame) : '00000000';
}

/** A step's last frame: the last the action drew, or the run's last one when it drew none. */
export function lastFrameOf(fd: Arc3FrameData, previous: FrameGrid | null): FrameGrid | null {
  return fd.frame.length ? fd.frame[fd.frame.length - 1] : previous;
}

/** One step's frames encoded: to answer, to store, and what the run's frames become once it is stored. */
export interface EncodedStep {
  /** The frames standing alone (what the participant is answered). */
  readonly alone: string;
  /** The frames as stored: changes to the last stored frame, or standing alone for a keyframe. */
  readonly changes: string;
  readonly keyframe: boolean;
  readonly frameHash: string;
  readonly last: FrameGrid | null;
  readonly lastCells: FrameCells | null;
}

/**
 * A run's last frame, the frame its next stored step is encoded against. `keyframeNext` is set
 * when the stored frame is not known (a run whose stored steps do not decode): the next stored
 * step then stands alone.
 */
export class RunFrames {
  private cells: { of: FrameGrid; cells: FrameCells } | null = null;
  private sinceKeyframe = 0;

  private constructor(
    /** The last frame on screen after the run's last step. */
    public last: FrameGrid | null,
    private keyframeNext: boolean,
  ) {}

  /** A new run's: its opening step is a keyframe. */
  static opening(): RunFrames {
    return new RunFrames(null, true);
  }

  /**
   * A run read back from its stored steps: the last stored frame decoded from them, or, when they
   * do not decode (`damage` says why), `fallback` (the engine's rebuild) for play and a keyframe
   * next for storing.
   */
  static stored(
    steps: readonly GameStepRecord[],
    fallback: FrameGrid | null,
  ): { frames: RunFrames; damage: string | null } {
    const { decoded, damage, lastKnown } = decodeStepsChecked(steps);
    const text = damage ? `step ${damage.step}: ${damage.message}` : null;
    if (!lastKnown || !decoded.length) return { frames: new RunFrames(fallback, true), damage: text };
    return { frames: new RunFrames(decoded[decoded.length - 1].last, false), damage: text };
  }

  /** Encodes a step's frames for its answer and, for a stored run, against the last stored frame. */
  encode(fd: Arc3FrameData, o: { stored: boolean; restart: boolean }): EncodedStep {
    const keyframe = o.restart || this.keyframeNext || this.sinceKeyframe + 1 >= KEYFRAME_EVERY || this.last === null;
    const previous = this.cells !== null && this.cells.of === this.last ? this.cells.cells : null;
    // The answer's frames and, between keyframes of a stored run, the changes to the stored frame, at once.
    const encoded = encodeFramesBoth(fd.frame, o.stored && !keyframe ? (previous ?? this.last) : null);
    // The last frame's cells: this step's last frame, or the step before's when it showed none.
    const lastCells = encoded.last ?? previous;
    const last = lastFrameOf(fd, this.last);
    const frameHash = lastCells ? hashFrame(lastCells.cells) : frameHashOf(last);
    return { alone: encoded.alone, changes: encoded.changes, keyframe, frameHash, last, lastCells };
  }

  /** The step `e` was answered (and, for a stored run, stored): the run's frames move on to it. */
  advance(e: EncodedStep, stored: boolean): void {
    if (stored) {
      this.sinceKeyframe = e.keyframe ? 0 : this.sinceKeyframe + 1;
      this.keyframeNext = false;
    }
    this.last = e.last;
    this.cells = e.last !== null && e.lastCells !== null ? { of: e.last, cells: e.lastCells } : null;
  }
}

/**
 * Writes session runs' steps before they are answered, and knows the writes under way (so a
 * server that stops lets them finish).
 */
export class StepJournal {
  private readonly writing = new Set<Promise<unknown>>();

  constructor(
    private readonly store: Pick<GameRunStore, 'addGameStep'>,
    /**
     * For the crash test only (`ARC_STUDIO_TEST_UNSTORED_STEPS=1`): steps after a run's opening
     * are answered and not stored, as when a database loses commits it had acknowledged (a
     * PostgreSQL with `synchronous_commit=off` that crashed, a restored backup).
     */
    private readonly unstored = false,
  ) {}

  /**
   * Stores one step: true once stored, false when the run has that step already (a retried
   * request, or another server's). With `admitted`, only while the session's row has the stamp
   * the admission was decided on, or once the admission says yes again on the current row
   * ({@link StepRefused} when it says no). Rejects with the store's error when the write fails:
   * the step must then not be answered.
   */
  write(row: GameStepRecord, admitted?: { stamp: SessionStamp; admission: StepAdmission }): Promise<boolean> {
    if (this.unstored && row.step > 0) return Promise.resolve(true);
    const written = this.writeNow(row, admitted);
    this.writing.add(written);
    const done = () => this.writing.delete(written);
    written.then(done, done);
    return written;
  }

  private async writeNow(
    row: GameStepRecord,
    admitted?: { stamp: SessionStamp; admission: StepAdmission },
  ): Promise<boolean> {
    try {
      return await this.store.addGameStep(row, admitted ? { session: admitted.stamp } : {});
    } catch (e) {
      if (!(e instanceof SessionChanged) || !admitted) throw e;
      // Decided again on the row as it is now, then stored as any write after its admission is.
      if (!(await admitted.admission.again())) throw new StepRefused();
      return this.store.addGameStep(row);
    }
  }

  /** Resolves once every write under way has settled (stored or failed). */
  async settled(): Promise<void> {
    while (this.writing.size) await Promise.allSettled([...this.writing]);
  }
}
