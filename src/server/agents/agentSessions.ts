/**
 * Agents' game sessions (`guid`): each command of the protocol played on the built-in engine
 * or through `Arc3Service`, answered with the official frame data, its step kept (written behind
 * the answer, or before it on a shared database); a session this server does not hold is
 * rebuilt from its stored steps on first use.
 */
import { randomUUID } from 'node:crypto';
import { decodeFrames } from '../../core/formats/frames';
import {
  GameRuleError,
  advance,
  createRun,
  hashFrame,
  respond,
  step,
  type ActionInput,
  type FrameResponse,
  type GameAction,
  type GameState,
  type Run,
} from '../../core/game';
import { getGame } from '../../games';
import type { Arc3Service } from '../arc3/runs';
import { Arc3Error } from '../arc3/worker';
import type { AgentRunRecord, AgentStepRecord, AgentStore } from '../store/types';
import type { AgentGame, AgentGames } from './agentGames';
import type { AgentStepWriter } from './agentSteps';
import { AgentError, RESEARCHER, type AgentServiceOptions } from './common';
import { clickOf, frameJson, type Command } from './protocol';
import type { Card, CardSessions, Scorecards } from './scorecards';

/** Rebuilds of a game session for one action before it is refused: each one follows a step another server stored. */
const REBUILDS = 8;

interface Live {
  readonly guid: string;
  readonly cardId: string;
  readonly keyId: string;
  readonly gameId: string;
  readonly source: AgentGame['source'];
  /** Built-in games: the run. */
  run: Run<unknown> | null;
  /** ARC-AGI-3 games: the service's run and its last step number. */
  arc3: { runId: string; step: number; state: GameState } | null;
  seq: number;
  queue: Promise<unknown>;
  touched: number;
  /** With {@link AgentServiceOptions.shared}: the step just answered, stored before the answer goes out. */
  unstored: AgentStepRecord | null;
}

/** The answer to an action: the JSON text of the official response. */
export interface CommandAnswer {
  readonly json: string;
}

const ACTION_IDS: Record<GameAction, number> = {
  RESET: 0,
  ACTION1: 1,
  ACTION2: 2,
  ACTION3: 3,
  ACTION4: 4,
  ACTION5: 5,
  ACTION6: 6,
  ACTION7: 7,
};

/** The game sessions this server holds, one action at a time per session. */
export class AgentSessions implements CardSessions {
  private readonly lives = new Map<string, Live>();

  constructor(
    private readonly store: AgentStore,
    private readonly opts: AgentServiceOptions,
    private readonly games: AgentGames,
    private readonly cards: Scorecards,
    private readonly writer: AgentStepWriter,
    private readonly now: () => number,
    private readonly log: (line: string) => void,
  ) {}

  /** How many game sessions this server holds. */
  get size(): number {
    return this.lives.size;
  }

  async settled(cardId: string): Promise<void> {
    await Promise.all([...this.lives.values()].filter((l) => l.cardId === cardId).map((l) => l.queue));
  }

  drop(cardId: string): void {
    for (const [guid, l] of this.lives) if (l.cardId === cardId) this.lives.delete(guid);
  }

  /** Forgets the sessions idle for `idleMs` (an agent's next command rebuilds one); answers the cards still played. */
  forgetIdle(now: number, idleMs: number): Set<string> {
    for (const [guid, l] of this.lives) if (now - l.touched > idleMs) this.lives.delete(guid);
    return new Set([...this.lives.values()].map((l) => l.cardId));
  }

  /** One command of the protocol: RESET or ACTION1-7, answered with the official frame data. */
  async command(keyId: string, action: GameAction, body: Command): Promise<CommandAnswer> {
    const game = this.games.game(body.game_id);
    let click: { x: number; y: number } | null = null;
    if (action === 'ACTION6') {
      const c = clickOf(body);
      if ('problem' in c) throw new AgentError(400, 'VALIDATION_ERROR', c.problem);
      click = c;
    }
    const live = body.guid ? await this.live(body.guid) : null;
    if (live && live.gameId !== game.game_id) {
      throw new AgentError(
        400,
        'VALIDATION_ERROR',
        `guid "${body.guid}" is a session of ${live.gameId}, not ${game.game_id}; send RESET with card_id and no guid to start a session of ${game.game_id}.`,
      );
    }
    if (live && live.keyId !== keyId && keyId !== RESEARCHER)
      throw new AgentError(403, 'FORBIDDEN', `game session "${body.guid}" belongs to another API key; use that key.`);
    if (!live) {
      if (action !== 'RESET') {
        throw new AgentError(
          body.guid ? 404 : 400,
          body.guid ? 'GAME_NOT_STARTED_ERROR' : 'VALIDATION_ERROR',
          body.guid
            ? `no game session "${body.guid}" on this server; send RESET with game_id and card_id (and no guid) to start one.`
            : `${action} needs the "guid" of a game session; send RESET with game_id and card_id first, and use the guid it answers.`,
        );
      }
      if (!body.card_id)
        throw new AgentError(
          400,
          'VALIDATION_ERROR',
          'RESET without a guid starts a game session and needs "card_id": open a scorecard with POST /api/scorecard/open first.',
        );
      const card = await this.cards.card(keyId, body.card_id);
      if (card.closed)
        throw new AgentError(
          409,
          'VALIDATION_ERROR',
          `scorecard "${body.card_id}" is closed; open a new one with POST /api/scorecard/open.`,
        );
      return this.start(keyId, card, game, body);
    }
    const l = live;
    const result = l.queue.then(() => this.actStored(l, action, click, body));
    l.queue = result.catch(() => undefined);
    return result;
  }

  /** Starts a game session: its opening RESET. */
  private async start(keyId: string, card: Card, game: AgentGame, body: Command): Promise<CommandAnswer> {
    const guid = randomUUID();
    const live: Live = {
      guid,
      cardId: card.record.cardId,
      keyId,
      gameId: game.game_id,
      source: game.source,
      run: null,
      arc3: null,
      seq: 0,
      queue: Promise.resolve(),
      touched: this.now(),
      unstored: null,
    };
    const rec: AgentRunRecord = {
      guid,
      cardId: live.cardId,
      gameId: game.game_id,
      source: game.source,
      seed: 0,
      openedAt: this.now(),
    };
    if (game.source === 'builtin') {
      live.run = createRun(getGame(game.game_id), 0);
      await this.store.addAgentRun(rec);
      this.lives.set(guid, live);
      const opened = await this.act(live, 'RESET', null, body);
      await this.openingStored(live);
      return opened;
    }
    const service = this.arc3();
    const reply = await service.open({ gameId: game.game_id, seed: 0 }).catch(arc3Failure);
    const first = reply.steps[0];
    live.arc3 = { runId: reply.run, step: first.step, state: first.state };
    // The code it was opened on, so the scorecard uses the human baselines of that very version.
    await this.store.addAgentRun({ ...rec, codeHash: reply.game.codeHash ?? null });
    this.lives.set(guid, live);
    const frames = decodeFrames(first.frames);
    const opened = this.answer(
      live,
      'RESET',
      null,
      body.reasoning,
      {
        frame: frames,
        state: first.state,
        levels_completed: first.levels_completed,
        win_levels: first.win_levels,
        available_actions: first.available_actions,
        full_reset: true,
      },
      first.frameHash,
      first.frames,
    );
    await this.openingStored(live);
    return opened;
  }

  /** The opening step stored (shared database); refused only when the card was closed meanwhile. */
  private async openingStored(live: Live): Promise<void> {
    if (await this.stored(live)) return;
    this.lives.delete(live.guid);
    throw new AgentError(
      409,
      'VALIDATION_ERROR',
      `scorecard "${live.cardId}" was closed while the game session opened; open a new one with POST /api/scorecard/open.`,
    );
  }

  /** Stores the step just answered when the database is shared: false when its number was taken. */
  private async stored(live: Live): Promise<boolean> {
    const step = live.unstored;
    live.unstored = null;
    return step === null || this.store.addAgentStepIfFree(step);
  }

  /**
   * Acts and, on a shared database, stores the step before answering. When another server
   * answered this step number first (this one's copy of the session is behind), the session is
   * rebuilt from its stored steps and the action applied to that, again until it is stored: a
   * copy can be behind by more than one step (a stale copy that then races a server acting at the
   * same moment), and every lost race means another server stored a step, so the session moves on.
   * Only a session that other servers keep acting on {@link REBUILDS} times in a row is refused.
   */
  private async actStored(
    live: Live,
    action: GameAction,
    click: { x: number; y: number } | null,
    body: Command,
  ): Promise<CommandAnswer> {
    let current = live;
    let answer = await this.act(current, action, click, body);
    for (let rebuilt = 0; !(await this.stored(current)); rebuilt++) {
      this.lives.delete(live.guid);
      if (rebuilt === REBUILDS)
        throw new AgentError(
          409,
          'VALIDATION_ERROR',
          `other servers kept acting on game session "${live.guid}" at the same moment; send the action again (one agent's actions are answered in order only when sent one after another).`,
        );
      const again = await this.live(live.guid);
      if (!again)
        throw new AgentError(
          404,
          'GAME_NOT_STARTED_ERROR',
          `game session "${live.guid}" ended on another server (its scorecard was closed); open a new scorecard and send RESET.`,
        );
      current = again;
      answer = await this.act(current, action, click, body);
    }
    return answer;
  }

  private arc3(): Arc3Service {
    if (!this.opts.arc3)
      throw new AgentError(
        503,
        'SERVER_ERROR',
        'this server runs no ARC-AGI-3 games now; restart it with --arc3-games or --arc3-server.',
      );
    return this.opts.arc3;
  }

  private async act(
    live: Live,
    action: GameAction,
    click: { x: number; y: number } | null,
    body: Command,
  ): Promise<CommandAnswer> {
    live.touched = this.now();
    const input: ActionInput = click ? { action, x: click.x, y: click.y } : { action };
    if (live.run) {
      const run = live.run;
      if (action !== 'RESET' && (run.state === 'WIN' || run.state === 'GAME_OVER')) throw ended(action, run.state);
      let next: Run<unknown>;
      let response: FrameResponse;
      try {
        ({ run: next, response } = step(run, input));
      } catch (e) {
        if (!(e instanceof GameRuleError) || e.code !== 'ACTION_NOT_AVAILABLE') throw e;
        next = countedNoop(run);
        response = respond(next);
      }
      live.run = next;
      const frames = response.frame;
      return this.answer(
        live,
        action,
        click,
        body.reasoning,
        { ...response, frame: frames },
        hashFrame(frames[frames.length - 1]),
        null,
      );
    }
    const a3 = live.arc3!;
    if (action !== 'RESET' && (a3.state === 'WIN' || a3.state === 'GAME_OVER')) throw ended(action, a3.state);
    const s = await this.arc3()
      .act(a3.runId, null, { step: a3.step + 1, action, ...(click ?? {}) })
      .catch(arc3Failure);
    a3.step = s.step;
    a3.state = s.state;
    const frames = decodeFrames(s.frames);
    if (!frames.length) throw ended(action, s.state);
    return this.answer(
      live,
      action,
      click,
      body.reasoning,
      {
        frame: frames,
        state: s.state,
        levels_completed: s.levels_completed,
        win_levels: s.win_levels,
        available_actions: s.available_actions,
        full_reset: s.full_reset,
      },
      s.frameHash,
      s.frames,
    );
  }

  /** Records the step and writes the official response. */
  private answer(
    live: Live,
    action: GameAction,
    click: { x: number; y: number } | null,
    reasoning: unknown,
    r: {
      frame: readonly (Uint8Array | number[][])[];
      state: GameState;
      levels_completed: number;
      win_levels: number;
      available_actions: readonly number[];
      full_reset: boolean;
    },
    frameHash: string,
    encodedFrames: string | null,
  ): CommandAnswer {
    const at = this.now();
    const fullReset = action === 'RESET' && (live.seq === 0 || r.full_reset);
    this.record(
      {
        guid: live.guid,
        seq: live.seq++,
        action,
        x: click?.x ?? null,
        y: click?.y ?? null,
        state: r.state,
        levelsCompleted: r.levels_completed,
        winLevels: r.win_levels,
        fullReset,
        frameHash,
        frames: encodedFrames,
        reasoning: reasoning ?? null,
        at,
      },
      live,
    );
    const data: Record<string, unknown> = { game_id: live.gameId };
    if (click) {
      data.x = click.x;
      data.y = click.y;
    }
    const head = {
      game_id: live.gameId,
      guid: live.guid,
      state: r.state,
      levels_completed: r.levels_completed,
      win_levels: r.win_levels,
      available_actions: r.available_actions,
      full_reset: fullReset,
      action_input: { id: ACTION_IDS[action], data, ...(reasoning !== undefined ? { reasoning } : {}) },
    };
    return { json: frameJson(head, r.frame) };
  }

  private record(step: AgentStepRecord, live: Live): void {
    const card = this.cards.held(live.cardId);
    if (card) card.touched = step.at;
    card?.steps?.push({
      guid: step.guid,
      gameId: live.gameId,
      action: step.action as GameAction,
      state: step.state as GameState,
      levelsCompleted: step.levelsCompleted,
      fullReset: step.fullReset,
      at: step.at,
    });
    if (this.opts.shared) {
      live.unstored = step;
      return;
    }
    this.writer.add(step);
  }

  /** The session of `guid`: held here, or rebuilt from its stored steps (after a restart). */
  private async live(guid: string): Promise<Live | null> {
    const held = this.lives.get(guid);
    if (held) return held;
    const rec = await this.store.getAgentRun(guid);
    if (!rec) return null;
    const card = await this.store.getScorecard(rec.cardId);
    if (!card || card.closedAt !== null) return null;
    await this.writer.flush();
    const steps = await this.store.readAgentSteps(guid);
    const raced = this.lives.get(guid);
    if (raced) return raced;
    const live: Live = {
      guid,
      cardId: rec.cardId,
      keyId: card.keyId,
      gameId: rec.gameId,
      source: rec.source,
      run: null,
      arc3: null,
      seq: steps.length,
      queue: Promise.resolve(),
      touched: this.now(),
      unstored: null,
    };
    const inputs: ActionInput[] = steps.map((s) =>
      s.action === 'ACTION6' ? { action: 'ACTION6', x: s.x ?? 0, y: s.y ?? 0 } : { action: s.action as GameAction },
    );
    if (rec.source === 'builtin') {
      let run = createRun(getGame(rec.gameId), rec.seed);
      for (const input of inputs) {
        try {
          run = advance(run, input);
        } catch (e) {
          if (!(e instanceof GameRuleError) || e.code !== 'ACTION_NOT_AVAILABLE') throw e;
          run = countedNoop(run);
        }
      }
      live.run = run;
    } else {
      const service = this.arc3();
      const reply = await service.open({ gameId: rec.gameId, seed: rec.seed }).catch(arc3Failure);
      let last = reply.steps[0];
      for (const input of inputs.slice(1))
        last = await service.act(reply.run, null, { step: last.step + 1, ...input }).catch(arc3Failure);
      const stored = steps[steps.length - 1];
      if (stored && last.frameHash !== stored.frameHash)
        this.log(
          `Agent session ${guid} of ${rec.gameId} rebuilt to another frame than the one it answered last: the game changed since.`,
        );
      live.arc3 = { runId: reply.run, step: last.step, state: last.state };
    }
    this.lives.set(guid, live);
    return live;
  }
}

/**
 * An action outside `available_actions` on the built-in engine, as the official engine treats
 * one: counted (in the run and the level, so a later RESET is a level reset), nothing else changes.
 */
function countedNoop<S>(run: Run<S>): Run<S> {
  return { ...run, actions: run.actions + 1, levelActions: run.levelActions + 1, fullReset: false };
}

function ended(action: GameAction, state: GameState): AgentError {
  return new AgentError(
    400,
    'GAME_NOT_STARTED_ERROR',
    `${action} after ${state}: the game has ended and the action was not counted; send RESET to play again.`,
  );
}

function arc3Failure(e: unknown): never {
  if (e instanceof Arc3Error) {
    if (e.code === 'game_error')
      throw new AgentError(500, 'SERVER_ERROR', `the game failed on this action: ${e.message}`);
    if (e.code === 'unknown_game' || e.code === 'load_error')
      throw new AgentError(404, 'GAME_NOT_AVAILABLE_ERROR', e.message);
    throw new AgentError(503, 'SERVER_ERROR', `the game engine is not available (${e.message}); try again.`);
  }
  throw e;
}
