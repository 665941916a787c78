/**
 * What the commands that read a server's stored game runs share (`games verify-session`,
 * `check`): the serve store (PGlite in the data folder, or `DATABASE_URL`), and a replayer that
 * plays runs on a fresh engine pool with the versions of the games' code kept in that store.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { GameCodeStore, gameVersion, readGameFolder } from '../server/arc3/gameCode';
import type { Replayer } from '../server/arc3/storedRuns';
import type { Arc3Pool } from '../server/arc3/pool';
import { openStore, redact } from '../server/store/open';
import type { Store } from '../server/store/types';

/** The store `arc-studio serve` uses with `--data-dir` (PGlite), or `DATABASE_URL`, with words naming it. */
export async function openServeStore(dataDirFlag: string): Promise<{ store: Store; dataDir: string; where: string }> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = path.resolve(dataDirFlag);
  if (!databaseUrl && !existsSync(path.join(dataDir, 'db'))) {
    throw new Error(
      `no database in ${path.join(dataDir, 'db')}: give the --data-dir that "arc-studio serve" uses (default .arc-studio), or set DATABASE_URL for PostgreSQL.`,
    );
  }
  const store = await openStore(databaseUrl ? { databaseUrl } : { dataDir });
  return {
    store,
    dataDir,
    where: databaseUrl ? `PostgreSQL at ${redact(databaseUrl)}` : `PGlite in ${path.join(dataDir, 'db')}`,
  };
}

/** Plays runs on `pool`, each on the version of its game's code the store kept (`gameCode.ts`). */
export function poolReplayer(store: Store, pool: Arc3Pool, dataDir: string): Replayer {
  const code = new GameCodeStore(store, path.join(dataDir, 'arc3-code'));
  let folders: Map<string, string> | null = null;
  const folderOf = async (gameId: string) => {
    folders ??= new Map((await pool.list()).map((g) => [g.game_id, g.dir]));
    return folders.get(gameId) ?? null;
  };
  return {
    open: (...args) => pool.open(...args),
    act: (id, action) => pool.act(id, action),
    close: (id) => pool.close(id),
    async code(gameId, codeHash) {
      return code.locate(gameId, codeHash, await folderOf(gameId));
    },
    async mounted(gameId) {
      const dir = await folderOf(gameId);
      return dir ? gameVersion(gameId, (await readGameFolder(dir)).hash) : null;
    },
  };
}
