/**
 * Agents' scorecards: opened and closed, scored under a preset against the human baselines
 * their tags choose (agents/baselines.ts), and the researcher's view of their game sessions.
 */
import { randomUUID } from 'node:crypto';
import { codeVersion } from '../../core/analysis/versions';
import type { GameAction, GameState } from '../../core/game';
import type { AgentRunReplay, AgentRunRow } from '../../core/protocol/agents';
import { isScoringPreset, type Baselines, type ScoringPresetName } from '../../core/scoring';
import type { AgentStore, ScorecardRecord } from '../store/types';
import type { AgentGame, AgentGames } from './agentGames';
import type { AgentStepWriter } from './agentSteps';
import { cardOptions, REFERENCE_TAG, STUDY_TAG, versionBaselines, type CardOptions } from './baselines';
import { AgentError, RESEARCHER, type AgentServiceOptions } from './common';
import { officialScorecard, rawGameCard, type CardGame, type CardStep } from './scorecard';

/** A study's baselines are computed again after this long (its results change as participants play). */
const STUDY_BASELINES_TTL_MS = 2_000;

export interface Card {
  readonly record: ScorecardRecord;
  /** The study and preset its tags name (agents/baselines.ts). */
  readonly options: CardOptions;
  closed: boolean;
  /** Steps of every session of the card in the order answered (null until read back from the store). */
  steps: CardStep[] | null;
  /** When the card was last used, for {@link Scorecards.forgetIdle}. */
  touched: number;
}

/** What closing a scorecard waits for and ends: its game sessions (`agentSessions.ts`). */
export interface CardSessions {
  /** Resolves once the actions queued on the card's sessions are answered. */
  settled(cardId: string): Promise<void>;
  /** Forgets the card's sessions. */
  drop(cardId: string): void;
}

/** The scorecards this server holds, read back from the store when asked for. */
export class Scorecards {
  private readonly cards = new Map<string, Card>();

  private readonly studies = new Map<string, { at: number; baselines: Promise<Baselines | null> }>();

  constructor(
    private readonly store: AgentStore,
    private readonly opts: AgentServiceOptions,
    private readonly games: AgentGames,
    private readonly writer: AgentStepWriter,
    private readonly now: () => number,
  ) {}

  /** The card `cardId` when this server holds it. */
  held(cardId: string): Card | undefined {
    return this.cards.get(cardId);
  }

  /** How many cards this server holds. */
  get size(): number {
    return this.cards.size;
  }

  /** Forgets the cards idle for `idleMs` that no held session (`used`) plays. */
  forgetIdle(now: number, idleMs: number, used: ReadonlySet<string>): void {
    for (const [id, c] of this.cards) if (!used.has(id) && now - c.touched > idleMs) this.cards.delete(id);
  }

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

  async card(keyId: string, cardId: string): Promise<Card> {
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
    await this.writer.flush();
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
        info = this.games.game(id);
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

  async closeCard(keyId: string, cardId: string, sessions: CardSessions): Promise<unknown> {
    const card = await this.card(keyId, cardId);
    if (card.closed)
      throw new AgentError(
        404,
        'VALIDATION_ERROR',
        `scorecard "${cardId}" is closed already; its figures stay readable at GET /api/scorecard/${cardId}.`,
      );
    // Let queued actions of its sessions finish, then write every step before the figures are computed.
    await sessions.settled(cardId);
    const steps = await this.cardSteps(card);
    await this.writer.flush();
    await this.store.closeScorecard(cardId, this.now());
    card.closed = true;
    card.steps = null;
    sessions.drop(cardId);
    return this.shape(card, steps, this.presetOf(card));
  }

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
    await this.writer.flush();
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
}

/** The options of a stored card; tags checked when it was opened, so a problem now means none. */
function optionsOf(tags: readonly string[]): CardOptions {
  const o = cardOptions(tags);
  return 'problem' in o ? { study: null, preset: null, reference: null } : o;
}
