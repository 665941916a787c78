/**
 * `games verify-session`: every stored run of a session played again and compared step by step
 * with what was stored. A run of an arcengine game is played on a fresh `Arc3Pool`, on the
 * version of the game it was recorded with (kept in the database, `gameCode.ts`; the folder's
 * files when they still hash the same); a run of a remote source on that ARC-AGI-3 server (the
 * one the run recorded, or `--arc3-server`), as a new play on a scorecard of its own. Prints one
 * line per run and per differing step (or JSON); 0 when all match, 1 otherwise.
 */
import { RemoteArc3Source } from '../server/arc3/remote';
import type { Arc3Source } from '../server/arc3/source';
import { formatSessionCheck, verifySession, type Replayer } from '../server/arc3/storedRuns';
import { probe } from '../server/arc3/probe';
import { Arc3Pool } from '../server/arc3/pool';
import { openServeStore, poolReplayer } from './runStore';

/** The server a remote run was played on, from the engine it recorded (`remote <url>`); null when it names none. */
export function recordedServer(engine: string): string | null {
  const m = /^remote (https?:\/\/\S+)$/.exec(engine);
  return m ? m[1] : null;
}

/** Runs `games verify-session` for `sessionId`; the exit code. */
export async function verifySessionCommand(
  sessionId: string,
  dataDirFlag: string,
  dirs: string[],
  json: boolean,
  serverFlag?: string,
): Promise<number> {
  const { store, dataDir, where } = await openServeStore(dataDirFlag);
  let pool: Arc3Pool | null = null;
  const remotes = new Map<string, RemoteArc3Source>();
  try {
    if (!(await store.getSession(sessionId))) {
      throw new Error(`no session ${sessionId} in ${where}; copy its id from the Replay page or an export.`);
    }
    const runs = await store.listGameRuns(sessionId);
    // Which server each remote game's runs go back to: the flag's, else the one they recorded.
    const remoteGames = new Map<string, string | null>();
    for (const r of runs) if (r.source === 'remote') remoteGames.set(r.gameId, serverFlag ?? recordedServer(r.engine));
    let engine: string | undefined;
    if (runs.some((r) => r.source === 'arcengine')) {
      if (!dirs.length)
        throw new Error(
          'no arcengine game folders: give the folders "arc-studio serve" ran the games from with --arc3-games DIR (or ARC_STUDIO_ARC3_GAMES).',
        );
      const found = await probe();
      if (!found.ok) throw new Error(`arcengine games cannot run: ${found.message}`);
      engine = `arcengine ${found.arcengine}`;
      pool = new Arc3Pool({ gameDirs: dirs, size: 1, timeoutMs: 60_000 });
    }
    const arcengine = pool;
    const remote = (gameId: string): Arc3Source => {
      const url = remoteGames.get(gameId);
      if (!url)
        throw new Error(
          `the run was played on a remote ARC-AGI-3 server whose address it did not record; give it with --arc3-server URL (and ARC_API_KEY when that server needs a key)`,
        );
      let source = remotes.get(url);
      if (!source) remotes.set(url, (source = new RemoteArc3Source({ baseUrl: url })));
      return source;
    };
    const local = arcengine ? poolReplayer(store, arcengine, dataDir) : null;
    /** The source each replayed run was opened on. */
    const via = new Map<string, Pick<Arc3Source, 'act' | 'close'>>();
    const replayer: Replayer = {
      async open(id, gameId, seed, level, codeDir) {
        const source = remoteGames.has(gameId) ? remote(gameId) : arcengine!;
        via.set(id, source);
        return source.open(id, gameId, seed, level, codeDir);
      },
      act: (id, action) => via.get(id)!.act(id, action),
      async close(id) {
        const source = via.get(id);
        via.delete(id);
        await source?.close(id);
      },
      ...(local ? { code: local.code, mounted: local.mounted } : {}),
    };
    const check = await verifySession(store, replayer, sessionId);
    const servers = [...new Set([...remoteGames.values()].filter((u): u is string => u !== null))];
    if (json)
      console.log(
        JSON.stringify({
          ...check,
          ...(engine ? { engine } : {}),
          ...(servers.length ? { remoteServers: servers } : {}),
        }),
      );
    else for (const line of formatSessionCheck(check)) console.log(line);
    return check.ok ? 0 : 1;
  } finally {
    await pool?.stop().catch(() => undefined);
    await Promise.all([...remotes.values()].map((s) => s.stop().catch(() => undefined)));
    await store.close();
  }
}
