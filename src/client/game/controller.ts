/**
 * Plays one game in the browser: sends actions to the engine, logs each accepted one as a
 * `game.action` event, and plays the response's animation frames at the game's speed.
 *
 * Input during an animation is never dropped: a new action first completes the animation (the
 * settled frame is shown at once) and is then applied, so the logged sequence is exactly what the
 * person pressed, in order. Key auto-repeat is ignored: one press, one action.
 */
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import {
  availableActions,
  createRun,
  gameActionData,
  gameOpenData,
  GameRuleError,
  renderRun,
  replayGameEvents,
  step,
  type ActionId,
  type ActionInput,
  type Frame,
  type GameDefinition,
  type GameState,
  type Run,
} from '../../core/game';
import { hashFrame } from '../../core/game/hash';
import { isFullReset } from '../../core/game/accounting';
import type { EventSink } from '../player/controller';
import type { LogEvent } from '../../core/log/events';

export interface GameHud {
  readonly state: GameState;
  readonly levelsCompleted: number;
  readonly level: number;
  readonly winLevels: number;
  readonly available: readonly ActionId[];
  /** Counted actions of the current run, as the scorecard counts them. */
  readonly actions: number;
  /** Whether a RESET now would start the game over from level 1 (a full reset), not reset the level. */
  readonly fullResetNext: boolean;
  /** The settled frame's hash, the same value that is logged. */
  readonly frameHash: string;
  readonly message: string | null;
}

export type FrameSink = (frame: Frame) => void;

/** What the game player needs of a controller, whichever runs the game (the browser or the server). */
export interface PlayController {
  readonly hud: UseBoundStore<StoreApi<GameHud>>;
  /** Opens the game (logs its opening); only the first call does anything. */
  start(): void;
  /** Where frames are drawn; the current one is drawn at once. */
  attach(draw: FrameSink): void;
  /** Applies one action as a person asked for it. */
  act(input: ActionInput): void;
  dispose(): void;
}

/**
 * Plays a response's frames on a frame sink at a game's speed, and settles at once when the
 * next action comes (input during an animation is never dropped: the animation is cut short).
 * Both controllers, the browser's and the server's, draw through one.
 */
export class FrameAnimator {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private queue: Frame[] = [];
  private draw: FrameSink = () => {};
  private settled: Frame;

  constructor(first: Frame) {
    this.settled = first;
  }

  /** The frame an action settled on (the last of its response). */
  get current(): Frame {
    return this.settled;
  }

  /** Where frames are drawn; the frame on screen now is drawn at once. */
  attach(draw: FrameSink): void {
    this.draw = draw;
    draw(this.queue.length ? this.queue[0] : this.settled);
  }

  /** Shows a response's frames, one every `1000 / fps` ms; a single frame is drawn at once. */
  play(frames: readonly Frame[], fps: number): void {
    this.finish();
    if (!frames.length) {
      this.draw(this.settled);
      return;
    }
    this.settled = frames[frames.length - 1];
    if (frames.length === 1) {
      this.draw(this.settled);
      return;
    }
    this.queue = frames.slice();
    const interval = 1000 / fps;
    const tick = () => {
      const f = this.queue.shift();
      if (!f) {
        this.timer = null;
        return;
      }
      this.draw(f);
      this.timer = this.queue.length ? setTimeout(tick, interval) : null;
    };
    tick();
  }

  /** Cuts an animation short: the settled frame is drawn at once. */
  finish(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.queue.length) {
      this.queue = [];
      this.draw(this.settled);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

export class GameController implements PlayController {
  private run: Run<unknown>;
  private readonly frames: FrameAnimator;
  readonly hud: UseBoundStore<StoreApi<GameHud>>;
  /** Whether the opening is logged (or needs none: a resumed run). */
  private started: boolean;

  /**
   * Prepares the game; nothing is logged until `start()`. With `resume` (this game's events
   * logged before, e.g. before a reload), the run is rebuilt by replaying them on the engine and
   * play continues where it was.
   */
  constructor(
    readonly game: GameDefinition<unknown, unknown>,
    private readonly sink: EventSink,
    readonly seed: number,
    resume: readonly LogEvent[] = [],
    private readonly level?: number,
  ) {
    const replayed = resume.some((e) => e.kind === 'game.open' && e.data.game === game.id)
      ? replayGameEvents(game, resume)
      : null;
    this.run = replayed?.run ?? createRun(game, level === undefined ? { seed } : { seed, level });
    this.frames = new FrameAnimator(renderRun(this.run));
    this.hud = create<GameHud>(() => this.hudOf(this.run, this.frames.current, null));
    this.started = replayed !== null;
  }

  /**
   * Opens a new game: logs `game.open` and starts with a RESET, as in the official player. Only
   * the first call does anything (React's StrictMode runs effects twice), and a resumed run
   * logs nothing.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const { game, seed, level } = this;
    // A designer's playtest can open at a level, already playing; everyone else starts with RESET.
    this.sink.append('game.open', { ...gameOpenData(game, seed, level) });
    if (level === undefined) this.act({ action: 'RESET' });
  }

  /** The run as it stands (for a designer's state inspector). */
  get currentRun(): Run<unknown> {
    return this.run;
  }

  /** Where frames are drawn; the current one is drawn at once. */
  attach(draw: FrameSink): void {
    this.frames.attach(draw);
  }

  currentFrame(): Frame {
    return this.frames.current;
  }

  private hudOf(run: Run<unknown>, frame: Frame, message: string | null): GameHud {
    return {
      state: run.state,
      levelsCompleted: run.levelsCompleted,
      level: run.level,
      winLevels: run.game.levels.length,
      available: availableActions(run),
      actions: run.actions,
      fullResetNext: isFullReset(run.state, run.levelActions),
      frameHash: hashFrame(frame),
      message,
    };
  }

  /** Applies one action as a person asked for it. */
  act(input: ActionInput): void {
    this.frames.finish();
    let result;
    try {
      result = step(this.run, input);
    } catch (e) {
      if (!(e instanceof GameRuleError)) throw e;
      this.sink.append('game.refused', {
        game: this.game.id,
        action: input.action,
        code: e.code,
        ...(input.action === 'ACTION6' ? { x: input.x, y: input.y } : {}),
      });
      const message =
        e.code === 'GAME_ENDED'
          ? this.run.state === 'WIN'
            ? 'You completed every level. Press Reset to play again.'
            : 'Game over. Press Reset to try again.'
          : null;
      this.hud.setState({ message });
      return;
    }
    this.run = result.run;
    const r = result.response;
    this.sink.append('game.action', gameActionData(this.game.id, input, r) as unknown as Record<string, unknown>);
    this.hud.setState(this.hudOf(this.run, r.frame[r.frame.length - 1], null));
    this.frames.play(r.frame, this.game.fps ?? 10);
  }

  dispose(): void {
    this.frames.dispose();
  }
}

/** The official key map: W/Up, S/Down, A/Left, D/Right, Space/F, and Ctrl/Cmd+Z for undo. */
export function actionForGameKey(e: KeyboardEvent): ActionInput | null {
  if (e.altKey) return null;
  const k = e.key.toLowerCase();
  if ((e.ctrlKey || e.metaKey) && k === 'z' && !e.shiftKey) return { action: 'ACTION7' };
  if (e.ctrlKey || e.metaKey) return null;
  if (k === 'w' || e.key === 'ArrowUp') return { action: 'ACTION1' };
  if (k === 's' || e.key === 'ArrowDown') return { action: 'ACTION2' };
  if (k === 'a' || e.key === 'ArrowLeft') return { action: 'ACTION3' };
  if (k === 'd' || e.key === 'ArrowRight') return { action: 'ACTION4' };
  if (k === 'f' || e.key === ' ') return { action: 'ACTION5' };
  return null;
}
