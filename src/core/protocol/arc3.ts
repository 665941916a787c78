/**
 * The designer's ARC-AGI-3 routes' wire types (docs/api.md, "ARC-AGI-3 games"): the game list with
 * the older versions open runs still play, a game file's reload status, and a run's inspection.
 */
import type { ServerGameInfo } from '../game/serverGame';

/** An official game's state, as arcengine names it. */
export type Arc3GameState = 'NOT_PLAYED' | 'NOT_FINISHED' | 'WIN' | 'GAME_OVER';

/** A version of a game that participants' open runs still play: they keep the code they were opened on. */
export interface OlderGameVersion {
  readonly version: string;
  readonly codeHash: string;
  readonly runs: number;
}

/** A game of `GET /api/admin/arc3/games`. */
export type ListedArc3Game = ServerGameInfo & { readonly olderVersions?: readonly OlderGameVersion[] };

/** `GET /api/admin/arc3/games`: whether the engine runs, and the games. */
export interface Arc3GamesReply {
  readonly engine: { readonly ok: boolean; readonly message: string };
  readonly games: readonly ListedArc3Game[];
}

/** `GET /api/admin/arc3/games/:id/status`: how many times the game's files were reloaded, and the last error. */
export interface GameFileStatus {
  readonly revision: number;
  readonly error?: string;
  readonly traceback?: string;
}

/** `GET /api/admin/arc3/runs/:run/inspect` (the worker's `inspect`): a designer's view of a run. */
export interface Arc3Inspection {
  level_index: number;
  levels: number;
  state: Arc3GameState;
  levels_completed: number;
  /** The game object's public attributes, summarised to JSON. */
  attributes: Record<string, unknown>;
  /** The camera: its place and size in the level's cells, and how it maps them onto the 64x64 frame. */
  camera: { x: number; y: number; width: number; height: number; scale: number; x_offset: number; y_offset: number };
  sprites: {
    name: string;
    x: number;
    y: number;
    width: number;
    height: number;
    layer: number;
    visible: boolean;
    tags: string[];
  }[];
}
