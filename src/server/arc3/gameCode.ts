/**
 * Versions of an arcengine game's code. A game keeps its official id (`ls20-9607627b`) when its
 * files change (a designer's edit, hot reload, a new file at restart), so the id alone does not
 * say what a participant played: a version is the id plus a content hash of the game's folder
 * (its `.py` files and `metadata.json`), written `ls20-9607627b@3f2a9c01d4e5`.
 *
 * The files of every version a server runs are kept in the database (`game_code`), so that a run
 * is rebuilt (after a worker or server restart) and verified (`games verify-session`) on the code
 * it was opened on, whatever the folder holds now. A worker loads a version from a folder written
 * from those files under `root`, one per version, never changed once written.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GameRunStore, StudyGamePin } from '../store/types';
import { versionedGameId } from '../../core/game';
import { codeVersion } from '../../core/analysis/versions';
import { games as builtInGames } from '../../games';

/** Hex digits of a version's hash (48 bits: distinct for every edit a designer makes of one game). */
export const CODE_HASH_LENGTH = 12;

/** A game's version as logs and the studio show it: `<game id>@<code hash>`, or the id alone without a hash. */
export const gameVersion = codeVersion;

/**
 * The versions of games `ids` now, as a study pins them (`study_game_pins`): an arcengine game's
 * id and content hash, a built-in game's versioned id, a remote game's id; a game this server
 * does not have is left out. `serverGames`: the server-run games' list (`Arc3Service.list()`).
 */
export function currentGamePins(
  ids: Iterable<string>,
  serverGames: readonly { readonly id: string; readonly version?: string; readonly codeHash?: string }[],
): StudyGamePin[] {
  const server = new Map(serverGames.map((g) => [g.id, g]));
  const out: StudyGamePin[] = [];
  for (const id of new Set(ids)) {
    const g = server.get(id);
    const b = builtInGames[id];
    if (g) out.push({ gameId: id, version: g.version ?? id, codeHash: g.codeHash ?? null });
    else if (b) out.push({ gameId: id, version: versionedGameId(b), codeHash: null });
  }
  return out;
}

/** Which files of a game's folder make its version: the Python files and the metadata, caches left out. */
function isCodeFile(rel: string): boolean {
  return (
    rel.split('/').every((part) => !part.startsWith('.') && part !== '__pycache__') &&
    (rel.endsWith('.py') || rel === 'metadata.json')
  );
}

/** The content hash of a set of files: SHA-256 over each path, its size and its bytes, in path order. */
export function hashCodeFiles(files: ReadonlyMap<string, Buffer>): string {
  const h = createHash('sha256');
  for (const rel of [...files.keys()].sort()) {
    const bytes = files.get(rel)!;
    h.update(`${rel}\n${bytes.length}\n`);
    h.update(bytes);
  }
  return h.digest('hex').slice(0, CODE_HASH_LENGTH);
}

/** Reads a game's folder (the one holding its `metadata.json`): its code files and their hash. */
export async function readGameFolder(dir: string): Promise<{ hash: string; files: Map<string, Buffer> }> {
  const files = new Map<string, Buffer>();
  const walk = async (sub: string): Promise<void> => {
    for (const e of await readdir(path.join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && e.name !== '__pycache__') await walk(rel);
      } else if (e.isFile() && isCodeFile(rel)) {
        files.set(rel, await readFile(path.join(dir, rel)));
      }
    }
  };
  await walk('');
  return { hash: hashCodeFiles(files), files };
}

/** Why a run's code cannot be had, in words that say what to do (see {@link GameCodeStore.folderFor}). */
export class MissingGameCode extends Error {
  constructor(
    readonly gameId: string,
    readonly recorded: string,
    readonly current: string | null,
    hint: string,
  ) {
    super(
      `recorded with ${gameVersion(gameId, recorded)}; ${current ? `mounted now: ${gameVersion(gameId, current)}` : 'the game is not in the mounted folders'}; exact verification needs the recorded code: ${hint}`,
    );
    this.name = 'MissingGameCode';
  }
}

/**
 * The kept versions of the arcengine games: `keep` stores a folder's files under their hash (in
 * the database, once), `folderFor` answers a folder holding a version's files, written from the
 * database the first time it is asked for.
 */
export class GameCodeStore {
  private readonly kept = new Set<string>();
  private readonly writing = new Map<string, Promise<string>>();

  /** `root`: where versions are written as folders (the server's data dir's `arc3-code`). */
  constructor(
    private readonly store: Pick<GameRunStore, 'saveGameCode' | 'getGameCode'>,
    readonly root: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Hashes the game's folder and keeps its files under that hash; answers the hash. */
  async keep(gameId: string, dir: string): Promise<string> {
    const { hash, files } = await readGameFolder(dir);
    const key = `${gameId}@${hash}`;
    if (!this.kept.has(key)) {
      await this.store.saveGameCode(
        gameId,
        hash,
        Object.fromEntries([...files].map(([rel, bytes]) => [rel, bytes.toString('base64')])),
        this.now(),
      );
      this.kept.add(key);
    }
    return hash;
  }

  /**
   * A folder holding the files of version `hash` of `gameId`, in the toolkit's layout for the
   * worker (`<root>/<game>/<hash>/`, written once, `.part` then renamed); null when the database
   * does not hold that version.
   */
  async folderFor(gameId: string, hash: string): Promise<string | null> {
    if (!/^[0-9a-f]+$/.test(hash) || !/^[A-Za-z0-9_.-]+$/.test(gameId)) return null;
    const dir = path.join(this.root, gameId, hash);
    if (await exists(path.join(dir, 'metadata.json'))) return dir;
    const key = `${gameId}@${hash}`;
    let pending = this.writing.get(key);
    if (!pending) {
      pending = (async () => {
        const files = await this.store.getGameCode(gameId, hash);
        if (!files) return '';
        const part = `${dir}.${process.pid}.${Date.now()}.part`;
        for (const [rel, b64] of Object.entries(files)) {
          // Paths come from the database: one that would leave the folder is not written.
          const to = path.resolve(part, rel);
          if (!to.startsWith(path.resolve(part) + path.sep)) continue;
          await mkdir(path.dirname(to), { recursive: true });
          await writeFile(to, Buffer.from(b64, 'base64'));
        }
        try {
          await rename(part, dir);
        } catch (e) {
          // Another process wrote the same version first: its folder holds the same files.
          await rm(part, { recursive: true, force: true });
          if (!(await exists(path.join(dir, 'metadata.json')))) throw e;
        }
        return dir;
      })().finally(() => this.writing.delete(key));
      this.writing.set(key, pending);
    }
    return (await pending) || null;
  }

  /**
   * A folder holding version `hash` of `gameId`, for rebuilding or checking a run opened on it:
   * the kept version, or the game's current folder `current` when its files still hash the same
   * (then kept); otherwise why not, in words that say what to do.
   */
  async locate(gameId: string, hash: string, current: string | null): Promise<{ dir: string } | { error: string }> {
    const kept = await this.folderFor(gameId, hash);
    if (kept) return { dir: kept };
    let now: string | null = null;
    if (current) {
      now = (await readGameFolder(current)).hash;
      if (now === hash) return { dir: (await this.folderFor(gameId, await this.keep(gameId, current))) ?? current };
    }
    return {
      error: new MissingGameCode(
        gameId,
        hash,
        now,
        `no server of this database kept that version; put the game's files back as they were when the run was played (their hash must be ${hash}) and run the check again`,
      ).message,
    };
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
