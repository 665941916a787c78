/**
 * Starting the server's ARC-AGI-3 games: the arcengine folders (`--arc3-games`, the official
 * engine in Python workers) and remote ARC-AGI-3 servers (`--arc3-server`), with a clear start
 * message saying which Python and arcengine were found, or what is missing and how to install it.
 */
import os from 'node:os';
import path from 'node:path';
import type { GameRunStore, SecretStore } from '../store/types';
import type { ReplayGame } from '../../core/study/rules';
import { versionedGameId } from '../../core/game';
import { games as builtinGames } from '../../games';
import { Arc3Service, runLimitsFromEnv, type MountedSource, type RunLimits } from './runs';
import type { Arc3Source } from './source';
import { Arc3Error, Arc3Worker } from './worker';
import { probe } from './probe';
import { Arc3Pool, defaultArc3Workers } from './pool';
import { serviceReplayer } from './adminRuns';
import { GameCodeStore } from './gameCode';
import { studioReplay } from './replayCheck';
import type { Replayer } from './storedRuns';

export interface Arc3Mount {
  /** Folders in the toolkit's layout. */
  readonly dirs: readonly string[];
  /** Remote ARC-AGI-3 servers: base URLs (the key is `ARC_API_KEY`). */
  readonly servers: readonly string[];
  /** Python workers for the arcengine folders; from the environment (`ARC_STUDIO_ARC3_WORKERS`, else one per core) when absent. */
  readonly workers?: number;
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Builds a remote source (injected so that this module does not load the HTTP client unless
   * needed), given the server's log for its outages and rebuilds.
   */
  readonly remote?: (baseUrl: string, log: (line: string) => void) => Arc3Source;
  /** What one session may hold of the workers; from the environment (`ARC_STUDIO_RUNS_PER_ITEM`, ...) when absent. */
  readonly runLimits?: Partial<RunLimits>;
  /** The clock, in ms since the epoch; `Date.now` when absent. */
  readonly now?: () => number;
  /**
   * Where kept versions of the arcengine games are written as folders for the workers (the data
   * dir's `arc3-code`; a folder under the system's temporary one when absent). The versions
   * themselves are kept in the database.
   */
  readonly codeDir?: string;
}

/** What the start found, for the log and `GET /api/admin/arc3/games`. */
export interface Arc3Started {
  readonly service: Arc3Service;
  /**
   * What a researcher's check of stored runs plays on: a fresh worker for the arcengine folders
   * (off the participants' workers), the service itself for remote games; `release` stops it.
   */
  readonly checkReplayer: () => { replayer: Replayer; release: () => Promise<void> };
  readonly engine: { ok: boolean; message: string };
  readonly notes: string[];
}

/** The Python workers for arcengine games: `ARC_STUDIO_ARC3_WORKERS`, else one per core; throws a message naming a bad value. */
export function arc3WorkersFromEnv(env: Record<string, string | undefined>): number {
  const raw = env.ARC_STUDIO_ARC3_WORKERS;
  if (raw === undefined || raw === '') return defaultArc3Workers();
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    throw new Error(
      `ARC_STUDIO_ARC3_WORKERS=${raw} is not a whole number from 1 to 64; unset it (one worker per core) or give one, e.g. ARC_STUDIO_ARC3_WORKERS=2.`,
    );
  }
  return n;
}

/** Mounts the sources and starts the service; never throws for a missing Python (the message says what to do). */
export async function startArc3(
  mount: Arc3Mount,
  store: GameRunStore & SecretStore,
  log: (line: string) => void,
): Promise<Arc3Started> {
  const sources: MountedSource[] = [];
  const notes: string[] = [];
  let engine = { ok: true, message: 'no arcengine folders are mounted' };
  if (mount.dirs.length) {
    const options = {
      gameDirs: [...mount.dirs],
      env: mount.env,
      onStderr: (text: string) => {
        for (const line of text.split('\n')) if (line.trim()) log(`[arcengine] ${line}`);
      },
    };
    const size = mount.workers ?? arc3WorkersFromEnv(mount.env ?? process.env);
    // The pool's first worker answers the probe: a server starts one Python process fewer.
    const first = new Arc3Worker(options);
    const found = await probe(first);
    if (found.ok) {
      engine = { ok: true, message: found.message };
      notes.push(`ARC-AGI-3 games: ${mount.dirs.join(', ')} with ${found.message}`);
      const pool = new Arc3Pool({ ...options, size, first });
      sources.push({ source: pool, engine: `arcengine ${found.arcengine}`, watchDirs: mount.dirs });
    } else {
      await first.stop().catch(() => undefined);
      engine = { ok: false, message: found.message };
      notes.push(
        `ARC-AGI-3 games in ${mount.dirs.join(', ')} are not available: ${found.message} The built-in games work as usual.`,
      );
    }
  }
  for (const url of mount.servers) {
    if (!mount.remote) throw new Error('remote ARC-AGI-3 servers need a remote source');
    sources.push({ source: mount.remote(url, log), engine: `remote ${url}` });
    notes.push(
      `ARC-AGI-3 games of the server at ${url}${(mount.env ?? process.env).ARC_API_KEY ? ' (with ARC_API_KEY)' : ' (no ARC_API_KEY set)'}`,
    );
  }
  const code = new GameCodeStore(store, mount.codeDir ?? path.join(os.tmpdir(), 'arc-studio-code'), mount.now);
  const service = new Arc3Service(sources, store, log, {
    limits: { ...runLimitsFromEnv(mount.env ?? process.env), ...mount.runLimits },
    now: mount.now,
    code,
    unstoredSteps: (mount.env ?? process.env).ARC_STUDIO_TEST_UNSTORED_STEPS === '1',
  });
  await service.start();
  const count = service.list().length;
  if (sources.length)
    notes.push(
      `${count} ARC-AGI-3 game${count === 1 ? '' : 's'}: ${
        service
          .list()
          .map((g) => g.id)
          .join(', ') || 'none found'
      }`,
    );
  service.watchFiles();
  const dirs = engine.ok ? [...mount.dirs] : [];
  const mounted = (gameId: string) => Promise.resolve(service.info(gameId)?.version ?? null);
  const checkReplayer = () => {
    const fallback = serviceReplayer(service);
    if (!dirs.length)
      return {
        replayer: {
          ...fallback,
          code: (gameId: string, codeHash: string) => service.codeFolder(gameId, codeHash),
          mounted,
        },
        release: () => Promise.resolve(),
      };
    const pool = new Arc3Pool({ gameDirs: dirs, size: 1, env: mount.env });
    const onPool = new Set<string>();
    const replayer: Replayer = {
      code: (gameId, codeHash) => service.codeFolder(gameId, codeHash),
      mounted,
      async open(id, gameId, seed, level, codeDir) {
        try {
          const r = await pool.open(id, gameId, seed, level, codeDir);
          onPool.add(id);
          return r;
        } catch (e) {
          if (!(e instanceof Arc3Error) || e.code !== 'unknown_game') throw e;
          return fallback.open(id, gameId, seed);
        }
      },
      act: (id, action) => (onPool.has(id) ? pool.act(id, action) : fallback.act(id, action)),
      close: (id) => (onPool.delete(id) ? pool.close(id) : fallback.close(id)),
    };
    return { replayer, release: () => pool.stop() };
  };
  return { service, engine, notes, checkReplayer };
}

/** Per game id: its title, how many levels it has and the version the server runs (`push-<hash>`). */
export type GameInfo = Record<string, { title: string; levels: number; version?: string; codeHash?: string }>;

const builtinGameInfo: GameInfo = Object.fromEntries(
  Object.values(builtinGames).map((g) => [
    g.id,
    { title: g.title, levels: g.levels.length, version: versionedGameId(g) },
  ]),
);

/**
 * Every game the server runs, built-in and ARC-AGI-3, as the results and exports see them: the
 * verification of a game log (the official engine's for its games, the built-in engine's for the
 * rest) and the games' level counts and versions, current as the ARC-AGI-3 lists change.
 */
export function studioGames(arc3: Arc3Started): { replay: ReplayGame; gameInfo: () => GameInfo } {
  return {
    replay: studioReplay(arc3.service.replay),
    gameInfo: () => {
      const out: GameInfo = { ...builtinGameInfo };
      // Results and agents' baselines count a game's logs under its id, whatever code version each
      // run played (the versions are in the logs' game.open and the runs' records).
      // The code hash says which files an arcengine game is mounted from now (exports name it).
      for (const g of arc3.service.list())
        out[g.id] = {
          title: g.title,
          levels: g.levels ?? 0,
          version: g.id,
          ...(g.codeHash ? { codeHash: g.codeHash } : {}),
        };
      return out;
    },
  };
}
