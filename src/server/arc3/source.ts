/**
 * Where ARC-AGI-3 games run for the studio: one interface over the arcengine worker pool (games
 * in a folder, run by the official engine in Python) and a remote ARC-AGI-3 server reached over
 * its REST protocol. The run manager (`runs.ts`), the routes and the CLI only see this.
 */
export type Arc3ActionName = 'RESET' | 'ACTION1' | 'ACTION2' | 'ACTION3' | 'ACTION4' | 'ACTION5' | 'ACTION6' | 'ACTION7';

/** One action as sent to a game; x and y (0-63) only for ACTION6. */
export interface Arc3Action {
  action: Arc3ActionName;
  x?: number;
  y?: number;
}

export type Arc3GameState = 'NOT_PLAYED' | 'NOT_FINISHED' | 'WIN' | 'GAME_OVER';

/** The official FrameData fields, as the engine returned them for one action. */
export interface Arc3FrameData {
  game_id: string;
  guid: string;
  /** Every frame the action rendered (64x64 grids of colour indices); empty after GAME_OVER/WIN for a non-RESET action. */
  frame: number[][][];
  state: Arc3GameState;
  levels_completed: number;
  win_levels: number;
  available_actions: number[];
  full_reset: boolean;
}

/** A game found in a mounted folder (from its metadata.json). */
export interface Arc3GameInfo {
  game_id: string;
  game: string;
  version: string;
  title: string;
  tags: string[];
  default_fps: number;
  baseline_actions: number[];
  class_name: string;
  dir: string;
  /** Known once the class was built; null when it could not be (see `error`). */
  level_count: number | null;
  error?: { code: string; message: string };
}

/** What `inspect` answers: a designer's view of a run. */
export interface Arc3Inspection {
  level_index: number;
  levels: number;
  state: Arc3GameState;
  levels_completed: number;
  /** The game object's public attributes, summarised to JSON. */
  attributes: Record<string, unknown>;
  /** The camera: its place and size in the level's cells, and how it maps them onto the 64x64 frame. */
  camera: { x: number; y: number; width: number; height: number; scale: number; x_offset: number; y_offset: number };
  sprites: { name: string; x: number; y: number; width: number; height: number; layer: number; visible: boolean; tags: string[] }[];
}

export type Arc3SourceKind = 'arcengine' | 'remote';

export interface Arc3Source {
  readonly kind: Arc3SourceKind;
  /** Where the games come from, for messages: the folders, or the server's base URL. */
  readonly label: string;
  /** The games this source has (a remote server's games have `level_count` null until played). */
  list(): Promise<Arc3GameInfo[]>;
  /**
   * Starts run `runId` on `gameId` (full `<game>-<version>` or a short id that resolves to one
   * version) with the opening RESET; answers the full id and that RESET's frame data. `level` > 0
   * (a designer's playtest, arcengine folders only) starts at that level.
   */
  open(runId: string, gameId: string, seed?: number, level?: number): Promise<{ gameId: string; frame: Arc3FrameData }>;
  /**
   * Rebuilds run `runId` of the full id `gameId` by performing `actions` after the opening RESET
   * (after a restart of the server or of a worker); answers the last action's frame data (the
   * opening RESET's when `actions` is empty).
   */
  resume(runId: string, gameId: string, seed: number, actions: readonly Arc3Action[]): Promise<Arc3FrameData>;
  /** One action of an open run; an unknown run is an `Arc3Error` with code `unknown_run`. */
  act(runId: string, action: Arc3Action): Promise<Arc3FrameData>;
  close(runId: string): Promise<void>;
  /** A designer's view of a run (arcengine folders only). */
  inspect?(runId: string): Promise<Arc3Inspection>;
  /** Re-reads a game's code (arcengine folders only); runs opened afterwards use it. */
  reload?(gameId: string): Promise<void>;
  stop(): Promise<void>;
}
