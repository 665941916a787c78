/**
 * The ARC-AGI-3 games the server's sources offer: their list and ids, the versions of their code
 * kept for runs (`gameCode.ts`), their opening frames for thumbnails, and hot reload of a game's
 * file for designers.
 */
import { randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { encodeFrames } from '../../core/formats/frames';
import type { ServerGameInfo } from '../../core/game/serverGame';
import type { GameFileStatus } from '../../core/protocol/arc3';
import { gameVersion, type GameCodeStore } from './gameCode';
import type { Arc3Source } from './source';
import { Arc3Error, resolveGameId } from './worker';

export interface MountedSource {
  readonly source: Arc3Source;
  /** What runs its games, e.g. `arcengine 0.9.3` or the remote server's address. */
  readonly engine: string;
  /** Folders whose `.py` files are watched for hot reload (arcengine folders). */
  readonly watchDirs?: readonly string[];
}

/** A game as the catalog holds it: the source that runs it, what is shown of it, and its folder (arcengine games). */
export interface CatalogGame {
  readonly mounted: MountedSource;
  readonly info: ServerGameInfo;
  readonly dir: string | null;
}

/** The games of every mounted source, kept current by `refresh` and by reloads of their files. */
export class Arc3Catalog {
  /** Full ids of every game, kept current: the study checks read it. */
  readonly ids = new Set<string>();

  private games = new Map<string, { mounted: MountedSource; info: ServerGameInfo; dir: string | null }>();

  private readonly status = new Map<string, GameFileStatus>();

  private readonly watchers: FSWatcher[] = [];

  private readonly listeners: (() => void)[] = [];

  private readonly thumbnails = new Map<string, Promise<string>>();

  constructor(
    private readonly sources: readonly MountedSource[],
    private readonly code: GameCodeStore | undefined,
    private readonly log: (line: string) => void,
  ) {}

  /** Re-reads every source's game list (new folders, changed metadata). */
  async refresh(): Promise<void> {
    const games = new Map<string, { mounted: MountedSource; info: ServerGameInfo; dir: string | null }>();
    for (const mounted of this.sources) {
      let list;
      try {
        list = await mounted.source.list();
      } catch (e) {
        this.log(`ARC-AGI-3 games of ${mounted.source.label} could not be listed: ${(e as Error).message}`);
        continue;
      }
      for (const g of list) {
        if (games.has(g.game_id)) continue;
        let codeHash: string | undefined;
        if (this.code && mounted.source.kind === 'arcengine' && g.dir) {
          try {
            codeHash = await this.code.keep(g.game_id, g.dir);
          } catch (e) {
            this.log(
              `The files of ${g.game_id} in ${g.dir} could not be kept as a version (${(e as Error).message}); its runs play the folder's current files.`,
            );
          }
        }
        games.set(g.game_id, {
          mounted,
          dir: mounted.source.kind === 'arcengine' && g.dir ? g.dir : null,
          info: {
            id: g.game_id,
            title: g.title || g.game_id,
            levels: g.level_count,
            fps: g.default_fps || 5,
            tags: g.tags,
            source: mounted.source.kind,
            engine: mounted.engine,
            baselineActions: g.baseline_actions,
            ...(g.error ? { error: g.error.message } : {}),
            ...(g.available_actions ? { actions: g.available_actions } : {}),
            ...(codeHash ? { version: gameVersion(g.game_id, codeHash), codeHash } : {}),
          },
        });
      }
    }
    this.games = games;
    this.ids.clear();
    for (const id of games.keys()) this.ids.add(id);
    for (const f of this.listeners) f();
  }

  /** Calls `f` after every refresh of the game lists. */
  onRefresh(f: () => void): void {
    this.listeners.push(f);
  }

  list(): ServerGameInfo[] {
    return [...this.games.values()].map((g) => g.info).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** The full id of `id` (full, or a short id with one version), or an `Arc3Error` naming the versions. */
  resolve(id: string): string {
    return resolveGameId(id, [...this.games.keys()]);
  }

  has(id: string): boolean {
    return this.games.has(id);
  }

  info(id: string): ServerGameInfo | null {
    return this.games.get(id)?.info ?? null;
  }

  /** The game `id` (a full id) as the catalog holds it, or undefined. */
  game(id: string): CatalogGame | undefined {
    return this.games.get(id);
  }

  /** The folder holding the files of version `codeHash` of `gameId`, when this server keeps versions and has it. */
  async keptFolder(gameId: string, codeHash: string): Promise<string | undefined> {
    return (await this.code?.folderFor(gameId, codeHash)) ?? undefined;
  }

  /** The full ids of every game. */
  gameIds(): string[] {
    return [...this.games.keys()];
  }

  fileStatus(id: string): GameFileStatus {
    return this.status.get(id) ?? { revision: 0 };
  }

  /** The frame a game opens on (its opening RESET's last frame, encoded), for thumbnails; cached until the game's file is reloaded. */
  async openingFrame(id: string): Promise<string> {
    const gameId = this.resolve(id);
    const key = `${gameId}@${this.fileStatus(gameId).revision}`;
    let cached = this.thumbnails.get(key);
    if (!cached) {
      cached = (async () => {
        const game = this.games.get(gameId)!;
        const runId = randomUUID();
        try {
          const { frame } = await game.mounted.source.open(runId, gameId, 0);
          return encodeFrames(frame.frame.slice(-1), null);
        } finally {
          await game.mounted.source.close(runId).catch(() => undefined);
        }
      })();
      cached.catch(() => this.thumbnails.delete(key));
      this.thumbnails.set(key, cached);
    }
    return cached;
  }

  /**
   * Where the files of version `codeHash` of `gameId` are, for rebuilding or checking a run:
   * a folder, or why it is not available in words that say what to do.
   */
  async codeFolder(gameId: string, codeHash: string): Promise<{ dir: string } | { error: string }> {
    if (!this.code)
      return {
        error: `the run was opened on ${gameVersion(gameId, codeHash)} and this server keeps no versions of games`,
      };
    return this.code.locate(gameId, codeHash, this.games.get(gameId)?.dir ?? null);
  }

  /**
   * Why a run rebuilt on the engine shows another frame than the one stored: the game's code
   * changed only when the version the run recorded is not the one that played it again.
   */
  async rebuildCause(gameId: string, codeHash: string | null): Promise<string> {
    const mounted = this.games.get(gameId)?.info.codeHash ?? null;
    if (!codeHash)
      return `the run recorded no version of the game's code, and the mounted one (${mounted ? gameVersion(gameId, mounted) : 'unversioned'}) plays it differently; if its files changed since, that is why, otherwise the game is not deterministic`;
    const kept = await this.codeFolder(gameId, codeHash);
    if ('error' in kept)
      return `the code it was recorded with (${gameVersion(gameId, codeHash)}) is not available: ${kept.error}`;
    return `the game played again on the very code it was recorded with (${gameVersion(gameId, codeHash)}) gives another frame, so the game is not deterministic or the stored step is wrong; check the run with "arc-studio check"`;
  }

  /** Re-reads a game's file in its workers; runs opened afterwards play the new code. */
  async reload(gameId: string): Promise<GameFileStatus> {
    const game = this.games.get(gameId);
    const before = this.fileStatus(gameId);
    if (!game?.mounted.source.reload) return before;
    try {
      await game.mounted.source.reload(gameId);
      await this.refresh();
      const next = { revision: before.revision + 1 };
      this.status.set(gameId, next);
      this.log(`Reloaded ${gameId}`);
      return next;
    } catch (e) {
      const err = e instanceof Arc3Error ? e : new Arc3Error('internal', (e as Error).message);
      const next = {
        revision: before.revision + 1,
        error: err.message,
        ...(err.traceback ? { traceback: err.traceback } : {}),
      };
      this.status.set(gameId, next);
      this.log(`Reloading ${gameId} failed: ${err.message}${err.traceback ? `\n${err.traceback}` : ''}`);
      return next;
    }
  }

  /** Watches the arcengine folders: saving a game's `.py` file reloads that game. */
  watchFiles(): void {
    for (const mounted of this.sources) {
      for (const dir of mounted.watchDirs ?? []) {
        const pending = new Map<string, NodeJS.Timeout>();
        try {
          const w = watch(dir, { recursive: true }, (_event, file) => {
            if (!file || !String(file).endsWith('.py')) return;
            const abs = path.resolve(dir, String(file));
            const game = [...this.games.values()].find(
              (g) =>
                g.mounted === mounted &&
                abs.startsWith(
                  path.resolve(dir, g.info.id.split('-')[0], g.info.id.split('-').slice(1).join('-')) + path.sep,
                ),
            );
            if (!game) return;
            clearTimeout(pending.get(game.info.id));
            pending.set(
              game.info.id,
              setTimeout(() => {
                pending.delete(game.info.id);
                void this.reload(game.info.id);
              }, 150),
            );
          });
          w.on('error', (e) => this.log(`Stopped watching ${dir} for game changes: ${e.message}`));
          this.watchers.push(w);
        } catch (e) {
          this.log(
            `Game files in ${dir} are not watched (${(e as Error).message}); restart the server after changing a game.`,
          );
        }
      }
    }
  }

  /** Stops watching the games' folders. */
  stopWatching(): void {
    for (const w of this.watchers) w.close();
  }
}
