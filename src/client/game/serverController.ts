/**
 * Plays a game that the server runs (an ARC-AGI-3 game on the official engine): each action is
 * sent to the server, which answers with the frames; every answered step is logged as a
 * `game.action` (src/core/game/serverGame.ts) and its animation is played at the game's speed.
 *
 * As with the built-in games, input is never dropped: actions wait in order while one is on its
 * way. An action the game does not offer now (greyed out), or any but RESET after the game
 * ended, is not sent and is logged as `game.refused`. A network failure is retried with the same
 * step number (the server answers a repeated step once); a server that lost the run (it
 * restarted) is asked to resume it; a game that failed on an action shows a message and play goes
 * on from the same state.
 *
 * The server answers a step before it is stored: a resume sends the end of this run's log
 * (`resumeTail`), so that steps answered but never stored (the server died between the two) are
 * played again and stored on the server (docs/api.md, "A step is answered before it is stored").
 */
import { create, type StoreApi, type UseBoundStore } from 'zustand';
import { decodeFrames } from '../../core/formats/frames';
import { isFullReset, splitRuns, type AccountedStep } from '../../core/game/accounting';
import {
  actionRequest,
  gridCells,
  resumeTail,
  serverStepEventData,
  type LoggedStep,
  type ServerGameInfo,
  type ServerRunReply,
  type ServerStep,
} from '../../core/game/serverGame';
import { FRAME_SIZE, type ActionId, type ActionInput, type Frame } from '../../core/game/types';
import type { LogEvent } from '../../core/log/events';
import { ApiError, getJson } from '../api';
import { eventsPendingWait, type LogPosition } from '../study/api';
import type { EventSink } from '../player/controller';
import { FrameAnimator, type FrameSink, type GameHud, type PlayController } from './controller';
import {
  RESUME_LOGGED_MAX,
  type PlaytestOpenBody,
  type RunActionBody,
  type RunLoggedStepBody,
  type RunOpenBody,
} from '../../core/protocol/requests';

/** How a controller reaches the server: a participant's session, or a researcher's playtest. */
export interface RunApi {
  open(): Promise<ServerRunReply>;
  /** Resumes `run` after step `after`; `logged` is the end of the run's log, ending at `after` (`resumeTail`). */
  resume(run: string, after: number, logged?: readonly RunLoggedStepBody[]): Promise<ServerRunReply>;
  act(run: string, req: RunActionBody): Promise<ServerStep>;
}

const json = (token: string, body: unknown): RequestInit => ({
  method: 'POST',
  headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * A participant's runs of a study's game item. Opening carries the last logged seq, so that a run
 * opened before the item's `item.start` reached the server is answered `events_pending` (and sent
 * again) rather than refused.
 */
export function sessionRunApi(sessionId: string, token: string, item: string, log?: LogPosition): RunApi {
  const base = `/api/sessions/${encodeURIComponent(sessionId)}/runs`;
  /** Opens (or resumes) with the last logged seq, sent again once the events it waits for arrive. */
  const opened = async (body: Omit<RunOpenBody, 'lastSeq'>): Promise<ServerRunReply> => {
    for (let pendings = 1; ; pendings++) {
      try {
        return await getJson<ServerRunReply>(base, json(token, { ...body, ...(log ? { lastSeq: log.lastSeq } : {}) }));
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== 'events_pending' || pendings > 20) throw e;
        await eventsPendingWait(log, pendings);
      }
    }
  };
  return {
    open: () => opened({ item }),
    resume: (run, after, logged) =>
      opened({ item, resume: { run, after, ...(logged?.length ? { logged: [...logged] } : {}) } }),
    act: (run, req) => getJson(`${base}/${encodeURIComponent(run)}/actions`, json(token, req)),
  };
}

/**
 * A designer's unrecorded playtest of a game (level chosen). `post` sends a studio request with
 * the designer's credential (a token, or the sign-in cookie and its CSRF header).
 */
export function playtestRunApi(
  post: <T>(url: string, body: unknown) => Promise<T>,
  game: string,
  level: number,
  seed = 0,
): RunApi {
  return {
    open: () => post('/api/admin/arc3/runs', { game, seed, level } satisfies PlaytestOpenBody),
    resume: () =>
      Promise.reject(
        new ApiError(404, 'run_lost', 'A playtest run is not kept when the server restarts; press Restart.'),
      ),
    act: (run, req) => post(`/api/admin/arc3/runs/${encodeURIComponent(run)}/actions`, req),
  };
}

const EMPTY: Frame = new Uint8Array(FRAME_SIZE * FRAME_SIZE);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ServerGameController implements PlayController {
  readonly hud: UseBoundStore<StoreApi<GameHud>>;
  private run: string | null = null;
  private last: ServerStep | null = null;
  private accounted: AccountedStep[] = [];
  /** The steps of the run logged so far (what a resume sends back), at most a resume's worth. */
  private readonly logged: LoggedStep[] = [];
  private readonly waiting: ActionInput[] = [];
  private pumping = false;
  private started = false;
  private disposed = false;
  private readonly frames = new FrameAnimator(EMPTY);
  /** Set when the game cannot go on (e.g. it failed to start); shown instead of the frame. */
  error: string | null = null;

  constructor(
    readonly info: Pick<ServerGameInfo, 'id' | 'title' | 'fps' | 'levels'>,
    private readonly api: RunApi,
    private readonly sink: EventSink,
    private readonly resumeFrom: readonly LogEvent[] = [],
    private readonly onError?: (e: ApiError) => void,
  ) {
    this.hud = create<GameHud>(() => ({
      state: 'NOT_PLAYED',
      levelsCompleted: 0,
      level: 0,
      winLevels: info.levels ?? 1,
      available: [],
      actions: 0,
      fullResetNext: true,
      frameHash: '',
      message: 'Starting the game…',
    }));
  }

  /** Opens the run, or resumes the one this item's log names (after a reload). Only the first call does anything. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.begin();
  }

  private async begin(): Promise<void> {
    // The run this log opened last, and the steps of it already logged.
    let run: string | null = null;
    const logged: ServerStep[] = [];
    for (const e of this.resumeFrom) {
      if (e.data.game !== this.info.id) continue;
      if (e.kind === 'game.open' && typeof e.data.run === 'string') {
        if (e.data.run !== run) logged.length = 0;
        run = e.data.run;
      }
      if (e.kind === 'game.action' && e.data.run === run && typeof e.data.step === 'number')
        logged.push(e.data as unknown as ServerStep);
    }
    try {
      if (run !== null) {
        this.run = run;
        for (const s of logged) {
          this.accounted.push({
            action: s.action,
            levelsCompleted: (s as unknown as { level: number }).level,
            state: s.state,
          });
          this.remember(s);
        }
        const after = logged.length ? logged[logged.length - 1].step : -1;
        const reply = await this.withRetry(() => this.api.resume(run!, after, this.tail()));
        for (const s of reply.steps) this.apply(s, s.step > after);
        // Logged steps the server could not bring back: the game goes on from its last step.
        if (reply.replay?.stopped) this.hud.setState({ message: reply.replay.stopped.message });
        // The steps were counted from the log; the resumed answer only redraws.
      } else {
        const reply = await this.withRetry(() => this.api.open());
        if (this.disposed) return;
        this.run = reply.run;
        // The version (an arcengine game's id and code hash) is the one the server opened the run on.
        this.sink.append('game.open', {
          game: reply.game.id,
          seed: reply.seed,
          run: reply.run,
          source: reply.game.source,
          engine: reply.game.engine,
          ...(reply.game.version ? { version: reply.game.version } : {}),
        });
        for (const s of reply.steps) this.apply(s, true);
      }
    } catch (e) {
      this.fail(e);
      return;
    }
    void this.pump();
  }

  attach(draw: FrameSink): void {
    this.frames.attach(draw);
  }

  currentFrame(): Frame {
    return this.frames.current;
  }

  /** The run on the server (for a designer's tools), once open. */
  get runId(): string | null {
    return this.run;
  }

  act(input: ActionInput): void {
    if (this.disposed || this.error) return;
    this.waiting.push(input);
    void this.pump();
  }

  private refuse(input: ActionInput, code: 'GAME_ENDED' | 'ACTION_NOT_AVAILABLE'): void {
    this.sink.append('game.refused', {
      game: this.info.id,
      action: input.action,
      code,
      ...(input.action === 'ACTION6' ? { x: input.x, y: input.y } : {}),
    });
    const state = this.last?.state;
    this.hud.setState({
      message:
        code === 'GAME_ENDED'
          ? state === 'WIN'
            ? 'You completed every level. Press Reset to play again.'
            : 'Game over. Press Reset to try again.'
          : null,
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping || !this.last || !this.run) return;
    this.pumping = true;
    try {
      while (this.waiting.length && !this.disposed) {
        const input = this.waiting.shift()!;
        const last = this.last;
        const ended = last.state === 'WIN' || last.state === 'GAME_OVER';
        if (ended && input.action !== 'RESET') {
          this.refuse(input, 'GAME_ENDED');
          continue;
        }
        const id = input.action === 'RESET' ? 0 : Number(input.action.slice(6));
        if (input.action !== 'RESET' && !last.available_actions.includes(id)) {
          this.refuse(input, 'ACTION_NOT_AVAILABLE');
          continue;
        }
        this.frames.finish();
        const req = actionRequest(input, last.step + 1);
        let step: ServerStep;
        try {
          step = await this.withRetry(() => this.api.act(this.run!, req));
        } catch (e) {
          if (e instanceof ApiError && e.code === 'game_error') {
            // The server recorded nothing for this action; play goes on from the same state.
            this.hud.setState({ message: e.message });
            this.onError?.(e);
            continue;
          }
          this.fail(e);
          return;
        }
        if (this.disposed) return;
        this.apply(step, true);
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Calls the server until it answers: network failures and a busy server are retried, a lost run is resumed first. */
  private async withRetry<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await call();
        if (attempt > 0) this.hud.setState({ message: null });
        return r;
      } catch (e) {
        if (!(e instanceof ApiError) || this.disposed) throw e;
        if (e.code === 'run_lost' && this.run && this.last && attempt < 3) {
          this.hud.setState({ message: 'Reconnecting to the game…' });
          const reply = await this.api.resume(this.run, this.last.step, this.tail()).catch(() => null);
          const stopped = reply?.replay?.stopped;
          // The server's state is behind this page's: a reload goes on from the server's last step.
          if (stopped) throw new ApiError(409, 'run_lost', `${stopped.message} Reload the page to go on.`);
          for (const s of reply?.steps ?? []) if (s.step > this.last.step) this.apply(s, true);
          continue;
        }
        // events_pending: the item's `item.start` is still on its way to the server.
        const transient = e.status === 0 || e.status >= 500 || e.status === 429 || e.code === 'events_pending';
        if (!transient) throw e;
        this.hud.setState({ message: 'The game is not answering; trying again…' });
        await sleep(Math.min(5000, 300 * 2 ** Math.min(attempt, 4)) * (0.75 + Math.random() / 2));
      }
    }
  }

  private fail(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.error = message;
    this.hud.setState({ message });
    if (e instanceof ApiError) this.onError?.(e);
  }

  /** Shows a step's frames; `log` writes its `game.action` (false for a step the log already has). */
  private apply(step: ServerStep, log: boolean): void {
    const frames = decodeFrames(step.frames).map(gridCells);
    if (log) {
      this.sink.append('game.action', serverStepEventData(step));
      this.accounted.push({ action: step.action, levelsCompleted: step.levels_completed, state: step.state });
      this.remember(step);
    }
    this.last = step;
    const runs = splitRuns(this.accounted);
    const current = runs[runs.length - 1];
    this.hud.setState({
      state: step.state,
      levelsCompleted: step.levels_completed,
      level: Math.min(step.levels_completed, Math.max(step.win_levels - 1, 0)),
      winLevels: step.win_levels,
      available: step.available_actions.filter((a): a is ActionId => a >= 1 && a <= 7),
      actions: current?.actions ?? 0,
      fullResetNext: current ? isFullReset(current.state, current.sinceLevelStart) : true,
      frameHash: step.frameHash,
      message: null,
    });
    this.frames.play(frames, this.info.fps || 5);
  }

  private remember(step: LoggedStep): void {
    this.logged.push(step);
    if (this.logged.length > 2 * RESUME_LOGGED_MAX) this.logged.splice(0, this.logged.length - RESUME_LOGGED_MAX);
  }

  /** The end of this run's log, as a resume sends it back. */
  private tail(): LoggedStep[] {
    return resumeTail(this.logged, RESUME_LOGGED_MAX);
  }

  dispose(): void {
    this.disposed = true;
    this.frames.dispose();
  }
}
