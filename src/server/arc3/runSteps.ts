/**
 * The steps of the server's runs as they are answered: built and signed, and for a session's
 * run written with their frames before the answer (`stepJournal.ts` batches the writes), and
 * read back from the stored ones.
 */
import { performance } from 'node:perf_hooks';
import { encodeFrames } from '../../core/formats/frames';
import { stepSigningText, type ServerStep } from '../../core/game/serverGame';
import type { GameAction, GameState } from '../../core/game/types';
import type { GameRunStore, SecretStore, SessionStamp } from '../store/types';
import { BEHIND, type LiveRun, type StepTiming } from './liveRun';
import { stepSignature, stepSigningKey } from './replayCheck';
import type { EncodedStep, StepAdmission, StepJournal } from './stepJournal';
import { decodeStoredSteps } from './steps';
import type { Arc3Action, Arc3FrameData } from './worker';

/** Builds, signs, stores and reads back the steps of runs; the signing key is read by `start`. */
export class RunSteps {
  private key: Buffer | null = null;

  constructor(
    private readonly store: GameRunStore & SecretStore,
    /** Writes session runs' steps before they are answered. */
    private readonly journal: StepJournal,
    private readonly now: () => number,
  ) {}

  /** Reads the signing key, shared by every server on the database. */
  async start(): Promise<void> {
    this.key = await stepSigningKey(this.store);
  }

  private sign(text: string): string {
    if (!this.key) throw new Error('Arc3Service.start() was not called');
    return stepSignature(this.key, text);
  }

  readonly keyOrThrow = (): Buffer => {
    if (!this.key) throw new Error('Arc3Service.start() was not called');
    return this.key;
  };

  stepOf(
    runId: string,
    gameId: string,
    step: number,
    action: GameAction,
    xy: { x?: number | null; y?: number | null },
    fd: Arc3FrameData,
    frameHash: string,
    timing?: StepTiming,
    /** The frames encoded to stand alone, when the caller made them already. */
    frames?: string,
  ): ServerStep {
    const t0 = performance.now();
    const base = {
      run: runId,
      game_id: gameId,
      step,
      action,
      state: fd.state as GameState,
      levels_completed: fd.levels_completed,
      win_levels: fd.win_levels,
      available_actions: fd.available_actions,
      full_reset: fd.full_reset,
      frames: frames ?? encodeFrames(fd.frame, null),
      frameHash,
    };
    const x = action === 'ACTION6' ? (xy.x ?? 0) : undefined;
    const y = action === 'ACTION6' ? (xy.y ?? 0) : undefined;
    const t1 = performance.now();
    const sig = this.sign(
      stepSigningText({
        run: runId,
        game: gameId,
        step,
        action,
        x,
        y,
        level: fd.levels_completed,
        state: fd.state,
        frameHash,
      }),
    );
    if (timing) {
      timing.frames += t1 - t0;
      timing.sign = performance.now() - t1;
    }
    return x === undefined ? { ...base, sig } : { ...base, x, y, sig };
  }

  /**
   * Builds a step's answer and, for a session's run, stores it with its frames before it is
   * answered (`stepJournal.ts`); with `admitted` (the stamp its admission was decided on, and how
   * to decide it again), only while the session's row has that stamp, or once the admission says
   * yes again on the current row ({@link StepRefused} when it says no). A write that fails
   * rejects, and the step is not answered. BEHIND when another server stored the step first.
   */
  async record(
    live: LiveRun,
    step: number,
    action: Arc3Action,
    fd: Arc3FrameData,
    timing?: StepTiming,
    admitted?: { stamp: SessionStamp; admission: StepAdmission },
  ): Promise<ServerStep | typeof BEHIND> {
    const t0 = performance.now();
    const stored = live.sessionId !== null;
    const levelChanged = step > 0 && live.last && live.last.levels_completed !== fd.levels_completed;
    const encoded: EncodedStep = live.frames.encode(fd, {
      stored,
      restart: step === 0 || action.action === 'RESET' || levelChanged,
    });
    if (timing) timing.frames = performance.now() - t0;
    const answer = this.stepOf(
      live.runId,
      live.gameId,
      step,
      action.action,
      action,
      fd,
      encoded.frameHash,
      timing,
      encoded.alone,
    );
    if (stored) {
      const t2 = performance.now();
      const fresh = await this.journal.write(
        {
          runId: live.runId,
          step,
          action: action.action,
          x: action.x ?? null,
          y: action.y ?? null,
          state: fd.state,
          levelsCompleted: fd.levels_completed,
          winLevels: fd.win_levels,
          available: fd.available_actions,
          fullReset: fd.full_reset,
          frameHash: encoded.frameHash,
          frames: encoded.changes,
          keyframe: encoded.keyframe,
          at: this.now(),
        },
        admitted,
      );
      if (timing) timing.store = performance.now() - t2;
      // Another server of the database stored this step first: this copy is behind.
      if (!fresh && step > 0) return BEHIND;
    }
    live.frames.advance(encoded, stored);
    live.last = answer;
    return answer;
  }

  /** Stored steps from `from` on, as answers (their frames re-encoded to stand alone). */
  async storedSteps(live: LiveRun, from: number): Promise<ServerStep[]> {
    const all = await this.store.readGameSteps(live.runId);
    return decodeStoredSteps(all)
      .filter((s) => s.record.step >= from)
      .map(({ record, frames }) =>
        this.stepOf(
          live.runId,
          live.gameId,
          record.step,
          record.action as GameAction,
          record,
          {
            game_id: live.gameId,
            guid: live.runId,
            frame: frames,
            state: record.state as Arc3FrameData['state'],
            levels_completed: record.levelsCompleted,
            win_levels: record.winLevels,
            available_actions: [...record.available],
            full_reset: record.fullReset,
          },
          record.frameHash,
        ),
      );
  }
}
