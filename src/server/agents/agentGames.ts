/**
 * The games agents can play: the built-in games on the TS engine (ids `push-<hash>` with their
 * version) and the ARC-AGI-3 games of the server's `Arc3Service`.
 */
import { gameFps, versionedGameId } from '../../core/game';
import { games as builtinGames, gameVersions, getGame } from '../../games';
import type { Arc3Service } from '../arc3/runs';
import { AgentError } from './common';

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

/** The games of the built-in engine and of the ARC-AGI-3 service, by the ids agents use. */
export class AgentGames {
  constructor(private readonly arc3: Arc3Service | null | undefined) {}

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
    for (const g of this.arc3?.list() ?? []) {
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
}
