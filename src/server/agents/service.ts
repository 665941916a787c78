/**
 * Agents playing over the ARC-AGI-3 protocol: their keys, scorecards and game sessions (`guid`).
 *
 * - Built-in games run here on the TS engine (core/game), ids `push-<hash>` with their version.
 *   ARC-AGI-3 games of arcengine folders and remote servers run through `Arc3Service`.
 * - Every answered action is kept as a step (`agent_steps`): written in batches a few times a
 *   second, so a game session and its scorecard survive a restart (a crash loses at most the
 *   last batch). A session this server does not hold is rebuilt from its steps on first use.
 * - The rules that differ between engines follow the official engine (docs/api.md): an action
 *   outside `available_actions` is counted and leaves the game as it is on the built-in engine;
 *   any action but RESET after WIN or GAME_OVER is refused and not counted.
 *
 * Over 600 lines: keys, scorecards and game sessions still share this service's state; their
 * split into a key store, a scorecard store and the session host is the next change here.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { decodeFrames } from '../../core/formats/frames';
import {
  GameRuleError,
  advance,
  createRun,
  gameFps,
  hashFrame,
  respond,
  step,
  versionedGameId,
  type ActionInput,
  type FrameResponse,
  type GameAction,
  type GameState,
  type Run,
} from '../../core/game';
import { isScoringPreset, type Baselines, type ScoringPresetName } from '../../core/scoring';
import { cardOptions, REFERENCE_TAG, STUDY_TAG, versionBaselines, type CardOptions } from './baselines';
import { codeVersion } from '../../core/analysis/versions';
import { games as builtinGames, gameVersions, getGame } from '../../games';
import { hashToken, newToken, tokenMatches } from '../people/auth';
import type { Arc3Service } from '../arc3/runs';
import { Arc3Error } from '../arc3/worker';
import type { AgentKeyRecord, AgentRunRecord, AgentStepRecord, AgentStore, ScorecardRecord } from '../store/types';
import { clickOf, frameJson, type Command, type ProtocolError } from './protocol';
import { officialScorecard, rawGameCard, type CardGame, type CardStep } from './scorecard';
import type { AgentKeyEntry, AgentRunReplay, AgentRunRow, IssuedAgentKey } from '../../core/protocol/agents';

/** The key id of the researcher token. */
export const RESEARCHER = 'researcher';
/** Steps wait at most this long before they are written. */
const FLUSH_MS = 200;
/** A game session nobody acted on for this long is dropped from memory (its steps stay stored). */
const IDLE_MS = 30 * 60_000;
/** How long a checked key is trusted before it is read again (a revocation on another server shows within this). */
const KEY_TTL_MS = 10_000;
/** Rebuilds of a game session for one action before it is refused: each one follows a step another server stored. */
const REBUILDS = 8;
/** A study's baselines are computed again after this long (its results change as participants play). */
const STUDY_BASELINES_TTL_MS = 2_000;

/** A refusal: the HTTP status, the official error name and a message that says what to do. */
export class AgentError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 500 | 503,
    readonly error: ProtocolError,
    message: string,
  ) {
    super(message);
  }
}

/** A game as `GET /api/games` lists it. */
export interface AgentGame {
  readonly game_id: string;
  readonly title: string;
  readonly default_fps: number;
  readonly tags: readonly string[];
  readonly source: 'builtin' | 'arcengine' | 'remote';
  /** The official metadata's per-level human baseline (arcengine games), empty when none. */
  readonly baselineActions: readonly number[];
}

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

interface Card {
  readonly record: ScorecardRecord;
  /** The study and preset its tags name (agents/baselines.ts). */
  readonly options: CardOptions;
  closed: boolean;
  /** Steps of every session of the card in the order answered (null until read back from the store). */
  steps: CardStep[] | null;
  /** When the card was last used, for {@link AgentService.sweep}. */
  touched: number;
}

export interface AgentServiceOptions {
  readonly store: AgentStore;
  readonly adminTokenHash: string;
  readonly arc3?: Arc3Service | null;
  /** The baselines file given to the server (`serve --agent-baselines`): games by full id, or by short id with their `version`. */
  readonly baselines?: () => Baselines | null;
  /** A study's human baselines, as its results show them (agents/baselines.ts `studyBaselines`); null when there is no such study. */
  readonly studyBaselines?: (studyId: string) => Promise<Baselines | null>;
  /** A game's reference group as baselines (server/reference `referenceBaselines`); null when the game has no such group. */
  readonly referenceBaselines?: (gameId: string, group: string) => Promise<Baselines | null>;
  /** The preset of scorecards whose tags name none (`serve --agent-preset`); `toolkit-2026-04` when absent. */
  readonly defaultPreset?: ScoringPresetName;
  readonly now?: () => number;
  readonly log?: (line: string) => void;
  /**
   * Other servers use the same database (PostgreSQL; `serve --workers N`, several machines): each
   * step is stored before it is answered, only if its number is still free, and a step another
   * server stored first makes this one read the game session again from the stored steps and act
   * on that. Without it, steps are written behind (up to {@link FLUSH_MS} later) and scorecards'
   * steps are kept in memory.
   */
  readonly shared?: boolean;
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

export class AgentService {
  private readonly store: AgentStore;
  private readonly now: () => number;
  private readonly log: (line: string) => void;
  private readonly lives = new Map<string, Live>();
  private readonly cards = new Map<string, Card>();
  private readonly keys = new Map<string, { id: string; at: number }>();
  private readonly studies = new Map<string, { at: number; baselines: Promise<Baselines | null> }>();
  private pending: AgentStepRecord[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly opts: AgentServiceOptions) {
    this.store = opts.store;
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => {});
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  // ---- keys ----------------------------------------------------------------------------------

  /** The key id of a presented API key: `researcher` for the researcher token, an agent key's id, or null. */
  async authenticate(key: string | undefined): Promise<string | null> {
    if (!key || key.length > 200) return null;
    if (tokenMatches(key, this.opts.adminTokenHash)) return RESEARCHER;
    const hash = hashToken(key);
    const hit = this.keys.get(hash);
    if (hit && this.now() - hit.at < KEY_TTL_MS) return hit.id;
    const rec = await this.store.agentKeyByHash(hash);
    if (!rec || rec.revokedAt !== null) {
      this.keys.delete(hash);
      return null;
    }
    if (this.keys.size > 10_000) this.keys.clear();
    this.keys.set(hash, { id: rec.id, at: this.now() });
    return rec.id;
  }

  /** Issues a key: the key itself is in this answer only. */
  async issueKey(name: string): Promise<IssuedAgentKey> {
    const key = `arcs_${newToken()}`;
    const rec: AgentKeyRecord = {
      id: `key_${randomBytes(6).toString('hex')}`,
      name,
      keyHash: hashToken(key),
      createdAt: this.now(),
      revokedAt: null,
    };
    await this.store.addAgentKey(rec);
    return { id: rec.id, name, key, createdAt: rec.createdAt };
  }

  async listKeys(): Promise<AgentKeyEntry[]> {
    return (await this.store.listAgentKeys()).map(({ id, name, createdAt, revokedAt }) => ({
      id,
      name,
      createdAt,
      revokedAt,
    }));
  }

  async revokeKey(id: string): Promise<boolean> {
    const done = await this.store.revokeAgentKey(id, this.now());
    for (const [hash, k] of this.keys) if (k.id === id) this.keys.delete(hash);
    return done;
  }

  // ---- games ---------------------------------------------------------------------------------

  /** Every game agents can play, built-in games first. */
  games(): AgentGame[] {
    const out: AgentGame[] = Object.values(builtinGames).map((g) => ({
      game_id: versionedGameId(g),
      title: g.title,
      default_fps: gameFps(g),
      tags: ['arc-studio'],
      source: 'builtin',
      baselineActions: [],
    }));
    for (const g of this.opts.arc3?.list() ?? []) {
      out.push({
        game_id: g.id,
        title: g.title,
        default_fps: g.fps,
        tags: [...g.tags],
        source: g.source,
        baselineActions: g.baselineActions,
      });
    }
    return out;
  }

  /** The game of a full id (a retired built-in version included), or an `AgentError` naming the ids to use. */
  game(id: string): AgentGame {
    const listed = this.games();
    const exact = listed.find((g) => g.game_id === id);
    if (exact) return exact;
    const builtin = /^([a-z0-9]+)-([0-9a-f]{12})$/.exec(id);
    if (builtin && gameVersions(builtin[1]).some((g) => versionedGameId(g) === id)) {
      const g = getGame(id);
      return {
        game_id: id,
        title: g.title,
        default_fps: gameFps(g),
        tags: ['arc-studio'],
        source: 'builtin',
        baselineActions: [],
      };
    }
    const stem = id.split('-')[0];
    const versions = listed.filter((g) => g.game_id.split('-')[0] === stem).map((g) => g.game_id);
    if (versions.length && !id.includes('-')) {
      throw new AgentError(
        404,
        'GAME_NOT_AVAILABLE_ERROR',
        `game "${id}" needs its version: use ${versions.join(' or ')}. A game id names one version of a game, so that scores and recordings say which one was played.`,
      );
    }
    if (versions.length)
      throw new AgentError(
        404,
        'GAME_NOT_AVAILABLE_ERROR',
        `this server has no version "${id}"; it has ${versions.join(', ')}.`,
      );
    throw new AgentError(
      404,
      'GAME_NOT_AVAILABLE_ERROR',
      `no game "${id}" on this server; GET /api/games lists them (${listed.map((g) => g.game_id).join(', ') || 'none'}).`,
    );
  }

  /**
   * The game `GET /api/games/<id>` describes: a full id, or the current version of a short one
   * (the toolkit asks for `push` when it makes `push-<hash>`, then plays the id answered).
   */
  gameInfo(id: string): AgentGame {
    try {
      return this.game(id);
    } catch (e) {
      const current = !id.includes('-') && this.games().find((g) => g.game_id.startsWith(`${id}-`));
      if (current) return current;
      throw e;
    }
  }

  // ---- scorecards ----------------------------------------------------------------------------

  async openCard(
    keyId: string,
    body: { tags?: string[]; source_url?: string | null; opaque?: unknown },
  ): Promise<string> {
    const tags = [...(body.tags ?? [])];
    if (!tags.includes('human') && !tags.includes('agent')) tags.push('agent');
    const options = cardOptions(tags);
    if ('problem' in options)
      throw new AgentError(400, 'VALIDATION_ERROR', `POST /api/scorecard/open: ${options.problem}.`);
    if (options.study !== null && !(await this.studyFigures(options.study))) {
      throw new AgentError(
        404,
        'VALIDATION_ERROR',
        `no study "${options.study}" on this server (tag "${STUDY_TAG}${options.study}"); the studio's Studies page lists the ids.`,
      );
    }
    const record: ScorecardRecord = {
      cardId: randomUUID(),
      keyId,
      tags,
      sourceUrl: body.source_url ?? null,
      opaque: body.opaque ?? null,
      openedAt: this.now(),
      closedAt: null,
    };
    await this.store.addScorecard(record);
    this.cards.set(record.cardId, {
      record,
      options,
      closed: false,
      steps: this.opts.shared ? null : [],
      touched: this.now(),
    });
    return record.cardId;
  }

  /** A study's human baselines, computed at most every few seconds. */
  private studyFigures(studyId: string): Promise<Baselines | null> {
    const held = this.studies.get(studyId);
    if (held && this.now() - held.at < STUDY_BASELINES_TTL_MS) return held.baselines;
    const baselines = this.opts.studyBaselines?.(studyId) ?? Promise.resolve(null);
    if (this.studies.size > 100) this.studies.clear();
    this.studies.set(studyId, { at: this.now(), baselines });
    baselines.catch(() => this.studies.delete(studyId));
    return baselines;
  }

  private async card(keyId: string, cardId: string): Promise<Card> {
    let card = this.cards.get(cardId);
    if (!card) {
      const record = await this.store.getScorecard(cardId);
      if (record)
        this.cards.set(
          cardId,
          (card = {
            record,
            options: optionsOf(record.tags),
            closed: record.closedAt !== null,
            steps: null,
            touched: this.now(),
          }),
        );
    }
    if (card) card.touched = this.now();
    if (!card)
      throw new AgentError(
        404,
        'VALIDATION_ERROR',
        `no scorecard "${cardId}"; open one with POST /api/scorecard/open.`,
      );
    if (card.record.keyId !== keyId && keyId !== RESEARCHER)
      throw new AgentError(403, 'FORBIDDEN', `scorecard "${cardId}" was opened with another API key; use that key.`);
    return card;
  }

  private async cardSteps(card: Card): Promise<CardStep[]> {
    if (card.steps) return card.steps;
    await this.flush();
    const steps: CardStep[] = [];
    for (const run of await this.store.listAgentRuns(card.record.cardId)) {
      for (const s of await this.store.readAgentSteps(run.guid)) {
        steps.push({
          guid: run.guid,
          gameId: run.gameId,
          action: s.action as GameAction,
          state: s.state as GameState,
          levelsCompleted: s.levelsCompleted,
          fullReset: s.fullReset,
          at: s.at,
        });
      }
    }
    // On a shared database other servers add steps too: read them each time.
    if (!card.closed && !this.opts.shared) card.steps = steps;
    return steps;
  }

  /** Each played game's tags and the baselines it is scored against: the card's study, the server's file, the game's metadata. */
  private async cardGames(card: Card, steps: readonly CardStep[]): Promise<Record<string, CardGame>> {
    const out: Record<string, CardGame> = {};
    const study = card.options.study !== null ? await this.studyFigures(card.options.study) : null;
    const file = this.opts.baselines?.() ?? null;
    // The version of each game its runs were opened on (an arcengine game's code).
    const played = new Map<string, Set<string>>();
    if (study || file)
      for (const run of await this.store.listAgentRuns(card.record.cardId)) {
        let of = played.get(run.gameId);
        if (!of) played.set(run.gameId, (of = new Set()));
        of.add(codeVersion(run.gameId, run.codeHash));
      }
    for (const id of new Set(steps.map((s) => s.gameId))) {
      let info: AgentGame | null = null;
      try {
        info = this.game(id);
      } catch {
        /* a game no longer mounted: scored without baselines */
      }
      let baselines: Baselines | null = null;
      let from: string | null = null;
      const versions = [...(played.get(id) ?? [])];
      const reference = card.options.reference;
      const fromStudy =
        reference === null && study ? versionBaselines(study, id, versions, `study "${card.options.study}"`) : null;
      const fromFile = reference === null && file ? versionBaselines(file, id, versions, 'the baselines file') : null;
      // The first source that has the game decides: its figures of the version played, or a refusal
      // (figures of another version would score the agent against a game it did not play).
      const chosen = fromStudy ?? fromFile;
      if (chosen && 'problem' in chosen) {
        out[id] = { tags: info?.tags ?? [], baselines: null, baselinesFrom: null, refused: chosen.problem };
        continue;
      }
      if (reference !== null) {
        // The card chose its human baselines: no other source stands in for a game the group lacks.
        baselines = (await this.opts.referenceBaselines?.(id, reference)) ?? null;
        from = `${REFERENCE_TAG}${reference}`;
      } else if (chosen && fromStudy) {
        baselines = { source: study!.source, games: { [id]: chosen.game } };
        from = `${STUDY_TAG}${card.options.study}`;
      } else if (chosen) {
        baselines = { source: file!.source, games: { [id]: chosen.game } };
        from = 'file';
      } else if (info?.baselineActions.length) {
        baselines = {
          source: 'metadata',
          games: {
            [id]: {
              participants: null,
              levels: info.baselineActions.map((v, k) => ({
                level: k + 1,
                reached: null,
                completers: null,
                baseline: {},
                official: v,
              })),
            },
          },
        };
        from = 'metadata';
      }
      out[id] = { tags: info?.tags ?? [], baselines, baselinesFrom: from };
    }
    return out;
  }

  /** The preset a card is scored under: the one asked for, else its tag's, else the server's default. */
  private presetOf(card: Card, asked?: string): ScoringPresetName {
    if (asked !== undefined) {
      if (!isScoringPreset(asked))
        throw new AgentError(400, 'VALIDATION_ERROR', `unknown preset "${asked}"; use toolkit-2026-04 or paper.`);
      return asked;
    }
    return card.options.preset ?? this.opts.defaultPreset ?? 'toolkit-2026-04';
  }

  /** The scorecard as the official API answers it, scored under `preset`; with `gameId`, that game's raw card. */
  async scorecard(keyId: string, cardId: string, gameId?: string, preset?: string): Promise<unknown> {
    const card = await this.card(keyId, cardId);
    const scoredUnder = this.presetOf(card, preset);
    const steps = await this.cardSteps(card);
    if (gameId !== undefined) return rawGameCard(steps, gameId);
    return this.shape(card, steps, scoredUnder);
  }

  private async shape(card: Card, steps: readonly CardStep[], preset: ScoringPresetName) {
    const r = card.record;
    return officialScorecard(
      { cardId: r.cardId, tags: r.tags, sourceUrl: r.sourceUrl, opaque: r.opaque },
      steps,
      await this.cardGames(card, steps),
      preset,
    );
  }

  async closeCard(keyId: string, cardId: string): Promise<unknown> {
    const card = await this.card(keyId, cardId);
    if (card.closed)
      throw new AgentError(
        404,
        'VALIDATION_ERROR',
        `scorecard "${cardId}" is closed already; its figures stay readable at GET /api/scorecard/${cardId}.`,
      );
    // Let queued actions of its sessions finish, then write every step before the figures are computed.
    await Promise.all([...this.lives.values()].filter((l) => l.cardId === cardId).map((l) => l.queue));
    const steps = await this.cardSteps(card);
    await this.flush();
    await this.store.closeScorecard(cardId, this.now());
    card.closed = true;
    card.steps = null;
    for (const [guid, l] of this.lives) if (l.cardId === cardId) this.lives.delete(guid);
    return this.shape(card, steps, this.presetOf(card));
  }

  // ---- the researcher's view ------------------------------------------------------------------

  /** Every agent game session of the scorecards tagged with the study, with its figures, oldest first. */
  async studyRuns(studyId: string): Promise<AgentRunRow[]> {
    const names = new Map((await this.store.listAgentKeys()).map((k) => [k.id, k.name]));
    const rows: AgentRunRow[] = [];
    for (const record of await this.store.listScorecards()) {
      if (!record.tags.includes(`${STUDY_TAG}${studyId}`)) continue;
      const card = await this.card(RESEARCHER, record.cardId);
      const steps = await this.cardSteps(card);
      const preset = this.presetOf(card);
      const games = await this.cardGames(card, steps);
      const scored = officialScorecard(
        { cardId: record.cardId, tags: record.tags, sourceUrl: record.sourceUrl, opaque: record.opaque },
        steps,
        games,
        preset,
      );
      for (const run of await this.store.listAgentRuns(record.cardId)) {
        const own = steps.filter((s) => s.guid === run.guid);
        const plays =
          scored.environments.find((e) => e.id === run.gameId)?.runs.filter((p) => p.guid === run.guid) ?? [];
        const last = own[own.length - 1];
        rows.push({
          guid: run.guid,
          cardId: record.cardId,
          keyId: record.keyId,
          keyName: record.keyId === RESEARCHER ? 'researcher token' : (names.get(record.keyId) ?? record.keyId),
          gameId: run.gameId,
          source: run.source,
          openedAt: run.openedAt,
          lastAt: last?.at ?? run.openedAt,
          cardClosed: record.closedAt !== null,
          steps: own.length,
          actions: plays.reduce((n, p) => n + p.actions, 0),
          plays: plays.length,
          levelsCompleted: Math.max(0, ...plays.map((p) => p.levels_completed)),
          state: last?.state ?? 'NOT_PLAYED',
          score: plays.length ? Math.max(...plays.map((p) => p.score)) : 0,
          preset,
          baselines: games[run.gameId]?.baselinesFrom ?? null,
          levelActions: plays[0]?.level_actions ?? [],
          levelBaselineActions: plays[0]?.level_baseline_actions ?? [],
          baselinesMessage: plays.find((p) => p.message)?.message ?? null,
        });
      }
    }
    return rows;
  }

  /** One agent game session for the replay viewer: its run, scorecard, key and every step (frames of engine games included). */
  async runReplay(guid: string): Promise<AgentRunReplay | null> {
    const run = await this.store.getAgentRun(guid);
    if (!run) return null;
    const card = await this.store.getScorecard(run.cardId);
    if (!card) return null;
    await this.flush();
    const key = card.keyId === RESEARCHER ? null : (await this.store.listAgentKeys()).find((k) => k.id === card.keyId);
    const study = optionsOf(card.tags).study;
    return {
      run,
      card: { cardId: card.cardId, tags: card.tags, openedAt: card.openedAt, closedAt: card.closedAt, study },
      keyName: card.keyId === RESEARCHER ? 'researcher token' : (key?.name ?? card.keyId),
      steps: (await this.store.readAgentSteps(guid)).map(
        ({ seq, action, x, y, state, levelsCompleted, winLevels, fullReset, frameHash, frames, at }) => ({
          seq,
          action,
          x,
          y,
          state,
          levelsCompleted,
          winLevels,
          fullReset,
          frameHash,
          frames: frames ?? null,
          at,
        }),
      ),
    };
  }

  // ---- actions -------------------------------------------------------------------------------

  /** One command of the protocol: RESET or ACTION1-7, answered with the official frame data. */
  async command(keyId: string, action: GameAction, body: Command): Promise<CommandAnswer> {
    const game = this.game(body.game_id);
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
      const card = await this.card(keyId, body.card_id);
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
    const card = this.cards.get(live.cardId);
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
    this.pending.push(step);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = null;
      void this.flush().catch((e: Error) => this.log(`Agent steps could not be stored: ${e.message}`));
    }, FLUSH_MS);
  }

  /** Writes the steps waiting to be stored. */
  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    const next = this.flushing.then(async () => {
      for (let i = 0; i < batch.length; i += 2000) await this.store.addAgentSteps(batch.slice(i, i + 2000));
    });
    this.flushing = next.catch(() => undefined);
    return next;
  }

  /** The session of `guid`: held here, or rebuilt from its stored steps (after a restart). */
  private async live(guid: string): Promise<Live | null> {
    const held = this.lives.get(guid);
    if (held) return held;
    const rec = await this.store.getAgentRun(guid);
    if (!rec) return null;
    const card = await this.store.getScorecard(rec.cardId);
    if (!card || card.closedAt !== null) return null;
    await this.flush();
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

  /**
   * Forgets game sessions idle for {@link IDLE_MS} (an agent's next command rebuilds one from its
   * stored steps) and then the scorecards no held session uses that are as idle (read back from
   * the store when asked for): what the service holds stays bounded by the agents playing now.
   * Runs every minute.
   */
  sweep(): void {
    const now = this.now();
    for (const [guid, l] of this.lives) if (now - l.touched > IDLE_MS) this.lives.delete(guid);
    const used = new Set([...this.lives.values()].map((l) => l.cardId));
    for (const [id, c] of this.cards) if (!used.has(id) && now - c.touched > IDLE_MS) this.cards.delete(id);
  }

  /** How many game sessions and scorecards the service holds in memory. */
  held(): { sessions: number; cards: number } {
    return { sessions: this.lives.size, cards: this.cards.size };
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    await this.flush().catch((e: Error) => this.log(`Agent steps could not be stored: ${e.message}`));
  }
}

/**
 * An action outside `available_actions` on the built-in engine, as the official engine treats
 * one: counted (in the run and the level, so a later RESET is a level reset), nothing else changes.
 */
function countedNoop<S>(run: Run<S>): Run<S> {
  return { ...run, actions: run.actions + 1, levelActions: run.levelActions + 1, fullReset: false };
}

/** The options of a stored card; tags checked when it was opened, so a problem now means none. */
function optionsOf(tags: readonly string[]): CardOptions {
  const o = cardOptions(tags);
  return 'problem' in o ? { study: null, preset: null, reference: null } : o;
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
