/**
 * Starting the server's ARC-AGI-3 games: the arcengine folders (`--arc3-games`, the official
 * engine in Python workers) and remote ARC-AGI-3 servers (`--arc3-server`), with a clear start
 * message saying which Python and arcengine were found, or what is missing and how to install it.
 */
import type { Store } from '../store/types';
import { Arc3Service, type MountedSource } from './runs';
import type { Arc3Source } from './source';
import { Arc3Pool, probe } from './worker';

export interface Arc3Mount {
  /** Folders in the toolkit's layout. */
  readonly dirs: readonly string[];
  /** Remote ARC-AGI-3 servers: base URLs (the key is `ARC_API_KEY`). */
  readonly servers: readonly string[];
  /** Python workers for the arcengine folders (default 2). */
  readonly workers?: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Builds a remote source (injected so that this module does not load the HTTP client unless needed). */
  readonly remote?: (baseUrl: string) => Arc3Source;
}

/** What the start found, for the log and `GET /api/admin/arc3/games`. */
export interface Arc3Started {
  readonly service: Arc3Service;
  readonly engine: { ok: boolean; message: string };
  readonly notes: string[];
}

/** Mounts the sources and starts the service; never throws for a missing Python (the message says what to do). */
export async function startArc3(mount: Arc3Mount, store: Store, log: (line: string) => void): Promise<Arc3Started> {
  const sources: MountedSource[] = [];
  const notes: string[] = [];
  let engine = { ok: true, message: 'no arcengine folders are mounted' };
  if (mount.dirs.length) {
    const found = await probe({ env: mount.env });
    if (found.ok) {
      engine = { ok: true, message: found.message };
      notes.push(`ARC-AGI-3 games: ${mount.dirs.join(', ')} with ${found.message}`);
      const pool = new Arc3Pool({
        gameDirs: [...mount.dirs], size: mount.workers ?? 2, env: mount.env,
        onStderr: (text) => { for (const line of text.split('\n')) if (line.trim()) log(`[arcengine] ${line}`); },
      });
      sources.push({ source: pool, engine: `arcengine ${found.arcengine}`, watchDirs: mount.dirs });
    } else {
      engine = { ok: false, message: found.message };
      notes.push(`ARC-AGI-3 games in ${mount.dirs.join(', ')} are not available: ${found.message} The built-in games work as usual.`);
    }
  }
  for (const url of mount.servers) {
    if (!mount.remote) throw new Error('remote ARC-AGI-3 servers need a remote source');
    sources.push({ source: mount.remote(url), engine: `remote ${url}` });
    notes.push(`ARC-AGI-3 games of the server at ${url}${(mount.env ?? process.env).ARC_API_KEY ? ' (with ARC_API_KEY)' : ' (no ARC_API_KEY set)'}`);
  }
  const service = new Arc3Service(sources, store, log);
  await service.start();
  const count = service.list().length;
  if (sources.length) notes.push(`${count} ARC-AGI-3 game${count === 1 ? '' : 's'}: ${service.list().map((g) => g.id).join(', ') || 'none found'}`);
  service.watchFiles();
  return { service, engine, notes };
}
