/**
 * Where ARC-AGI-3 games run for the studio: one interface over the arcengine worker pool (games
 * in a folder, run by the official engine in Python) and a remote ARC-AGI-3 server reached over
 * its REST protocol. The run manager (`runs.ts`), the routes and the CLI only see this.
 */
import type { Arc3Action, Arc3ExploredState, Arc3FrameData, Arc3GameInfo, Arc3Inspection } from './protocol';

/** The wire types are the Python worker protocol's (`protocol.ts`), which remote sources speak too. */
export type {
  Arc3Action,
  Arc3ActionName,
  Arc3FrameData,
  Arc3GameInfo,
  Arc3GameState,
  Arc3Inspection,
} from './protocol';

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
   * (a designer's playtest, arcengine folders only) starts at that level. `codeDir` (arcengine
   * folders only): a folder holding the version of the game to run (`gameCode.ts`), which the
   * run keeps after a worker restart; a remote source ignores it.
   */
  open(
    runId: string,
    gameId: string,
    seed?: number,
    level?: number,
    codeDir?: string,
  ): Promise<{ gameId: string; frame: Arc3FrameData }>;
  /**
   * Rebuilds run `runId` of the full id `gameId` by performing `actions` after the opening RESET
   * (after a restart of the server or of a worker); answers the last action's frame data (the
   * opening RESET's when `actions` is empty), on the version in `codeDir` when given.
   */
  resume(
    runId: string,
    gameId: string,
    seed: number,
    actions: readonly Arc3Action[],
    codeDir?: string,
  ): Promise<Arc3FrameData>;
  /** One action of an open run; an unknown run is an `Arc3Error` with code `unknown_run`. */
  act(runId: string, action: Arc3Action): Promise<Arc3FrameData>;
  close(runId: string): Promise<void>;
  /** A designer's view of a run (arcengine folders only). */
  inspect?(runId: string): Promise<Arc3Inspection>;
  /** Explores a level's state graph (arcengine folders only; `graph.ts`). */
  exploreStart?(
    runId: string,
    gameId: string,
    seed: number,
    level: number,
    codeDir?: string,
  ): Promise<Arc3ExploredState>;
  exploreExpand?(runId: string, node: number, actions: readonly Arc3Action[]): Promise<Arc3ExploredState[]>;
  /** Re-reads a game's code (arcengine folders only); runs opened afterwards use it. */
  reload?(gameId: string): Promise<void>;
  stop(): Promise<void>;
}
