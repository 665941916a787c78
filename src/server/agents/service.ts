/**
 * Agents playing over the ARC-AGI-3 protocol: their keys, scorecards and game sessions (`guid`),
 * as one service composed of its parts:
 *
 * - `agentKeys.ts`: the API keys agents present;
 * - `agentGames.ts`: the games they can play, built-in games (core/game, ids `push-<hash>` with
 *   their version) and ARC-AGI-3 games of arcengine folders and remote servers (`Arc3Service`);
 * - `scorecards.ts`: scorecards, their figures, and the researcher's view of agents' sessions;
 * - `agentSessions.ts`: game sessions, one command at a time. Every answered action is kept as
 *   a step (`agent_steps`), written in batches a few times a second (`agentSteps.ts`), so a game
 *   session and its scorecard survive a restart (a crash loses at most the last batch). A session
 *   this server does not hold is rebuilt from its steps on first use.
 *
 * The rules that differ between engines follow the official engine (docs/api.md): an action
 * outside `available_actions` is counted and leaves the game as it is on the built-in engine;
 * any action but RESET after WIN or GAME_OVER is refused and not counted.
 */
import type { GameAction } from '../../core/game';
import type { AgentKeyEntry, AgentRunReplay, AgentRunRow, IssuedAgentKey } from '../../core/protocol/agents';
import { AgentGames, type AgentGame } from './agentGames';
import { AgentKeys } from './agentKeys';
import { AgentSessions, type CommandAnswer } from './agentSessions';
import { AgentStepWriter } from './agentSteps';
import type { AgentServiceOptions } from './common';
import type { Command } from './protocol';
import { Scorecards } from './scorecards';

export { AgentError, RESEARCHER, type AgentServiceOptions } from './common';
export type { AgentGame } from './agentGames';
export type { CommandAnswer } from './agentSessions';

/** A game session nobody acted on for this long is dropped from memory (its steps stay stored). */
const IDLE_MS = 30 * 60_000;

/** The agents' keys, games, scorecards and game sessions; each method is its part's (see the top of this file). */
export class AgentService {
  private readonly now: () => number;
  private readonly keys: AgentKeys;
  private readonly agentGames: AgentGames;
  private readonly writer: AgentStepWriter;
  private readonly cards: Scorecards;
  private readonly sessions: AgentSessions;
  private readonly sweeper: NodeJS.Timeout;

  constructor(opts: AgentServiceOptions) {
    this.now = opts.now ?? Date.now;
    const log = opts.log ?? (() => {});
    this.keys = new AgentKeys(opts.store, opts.adminTokenHash, this.now);
    this.agentGames = new AgentGames(opts.arc3);
    this.writer = new AgentStepWriter(opts.store, log);
    this.cards = new Scorecards(opts.store, opts, this.agentGames, this.writer, this.now);
    this.sessions = new AgentSessions(opts.store, opts, this.agentGames, this.cards, this.writer, this.now, log);
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  // ---- keys (agentKeys.ts) ------------------------------------------------------------------------

  /** The key id of a presented API key: `researcher` for the researcher token, an agent key's id, or null. */
  authenticate(key: string | undefined): Promise<string | null> {
    return this.keys.authenticate(key);
  }

  /** Issues a key: the key itself is in this answer only. */
  issueKey(name: string): Promise<IssuedAgentKey> {
    return this.keys.issueKey(name);
  }

  listKeys(): Promise<AgentKeyEntry[]> {
    return this.keys.listKeys();
  }

  revokeKey(id: string): Promise<boolean> {
    return this.keys.revokeKey(id);
  }

  // ---- games (agentGames.ts) ----------------------------------------------------------------------

  /** Every game agents can play, built-in games first. */
  games(): AgentGame[] {
    return this.agentGames.games();
  }

  /** The game of a full id (a retired built-in version included), or an `AgentError` naming the ids to use. */
  game(id: string): AgentGame {
    return this.agentGames.game(id);
  }

  /** The game `GET /api/games/<id>` describes: a full id, or the current version of a short one. */
  gameInfo(id: string): AgentGame {
    return this.agentGames.gameInfo(id);
  }

  // ---- scorecards (scorecards.ts) -----------------------------------------------------------------

  openCard(keyId: string, body: { tags?: string[]; source_url?: string | null; opaque?: unknown }): Promise<string> {
    return this.cards.openCard(keyId, body);
  }

  /** The scorecard as the official API answers it, scored under `preset`; with `gameId`, that game's raw card. */
  scorecard(keyId: string, cardId: string, gameId?: string, preset?: string): Promise<unknown> {
    return this.cards.scorecard(keyId, cardId, gameId, preset);
  }

  /** Closes a scorecard once its sessions' queued actions are answered, and answers its figures. */
  closeCard(keyId: string, cardId: string): Promise<unknown> {
    return this.cards.closeCard(keyId, cardId, this.sessions);
  }

  /** Every agent game session of the scorecards tagged with the study, with its figures, oldest first. */
  studyRuns(studyId: string): Promise<AgentRunRow[]> {
    return this.cards.studyRuns(studyId);
  }

  /** One agent game session for the replay viewer: its run, scorecard, key and every step. */
  runReplay(guid: string): Promise<AgentRunReplay | null> {
    return this.cards.runReplay(guid);
  }

  // ---- game sessions (agentSessions.ts, agentSteps.ts) --------------------------------------------

  /** One command of the protocol: RESET or ACTION1-7, answered with the official frame data. */
  command(keyId: string, action: GameAction, body: Command): Promise<CommandAnswer> {
    return this.sessions.command(keyId, action, body);
  }

  /** Writes the steps waiting to be stored. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /**
   * Forgets game sessions idle for {@link IDLE_MS} (an agent's next command rebuilds one from its
   * stored steps) and then the scorecards no held session uses that are as idle (read back from
   * the store when asked for): what the service holds stays bounded by the agents playing now.
   * Runs every minute.
   */
  sweep(): void {
    const now = this.now();
    const used = this.sessions.forgetIdle(now, IDLE_MS);
    this.cards.forgetIdle(now, IDLE_MS, used);
  }

  /** How many game sessions and scorecards the service holds in memory. */
  held(): { sessions: number; cards: number } {
    return { sessions: this.sessions.size, cards: this.cards.size };
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.writer.stop();
  }
}
