/**
 * `Arc3Pool`: a server's arcengine workers (`Arc3Worker`, worker.ts), each run pinned to the least
 * loaded one when it opens.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Arc3Action, Arc3ExploredState, Arc3FrameData, Arc3GameInfo, Arc3Inspection } from './protocol';
import type { Arc3Source } from './source';
import { Arc3Error, Arc3Worker, resolveGameId, type Arc3WorkerOptions } from './worker';

/**
 * Workers whose recent busy time differs by less than this are taken as equally loaded (and the
 * one with fewer runs is chosen); a larger difference decides where a new run goes.
 */
const BUSY_SAME_MS = 100;

/** The Python workers a server starts by default: one per core. */
export function defaultArc3Workers(): number {
  return Math.max(1, availableParallelism());
}

/**
 * A few workers; each run stays on the worker that opened it, chosen as the least loaded: the
 * fewest commands waiting (a worker busy right now, e.g. with a slow game's step or a long
 * replay, is passed over), then the least time spent on commands lately (measured, so a worker
 * whose runs play a slow game weighs more than one with more runs of a quick game), then the
 * fewest runs. A run is never moved, so a worker busy with a slow game still delays the runs it
 * already holds; new runs go elsewhere, and more workers (`ARC_STUDIO_ARC3_WORKERS`) spread them.
 */
export class Arc3Pool implements Arc3Source {
  readonly kind = 'arcengine' as const;
  readonly label: string;
  readonly workers: Arc3Worker[];
  private readonly pinned = new Map<string, Arc3Worker>();
  /** The game ids of the last `list()`: opening a run resolves its id here, never waiting on a scan. */
  private ids: string[] | null = null;

  private readonly options: Arc3WorkerOptions;

  /** `first`, when given, is the pool's first worker (the one a `probe` started, say). */
  constructor(opts: Arc3WorkerOptions & { size?: number; first?: Arc3Worker }) {
    const { first, size, ...options } = opts;
    this.options = options;
    this.workers = Array.from({ length: Math.max(1, size ?? defaultArc3Workers()) }, (_, i) =>
      i === 0 && first ? first : new Arc3Worker(options),
    );
    this.label = opts.gameDirs.join(', ');
  }

  private leastBusy(): Arc3Worker {
    const now = performance.now();
    const busy = new Map(this.workers.map((w) => [w, w.recentBusyMs(now)]));
    // Negative when `a` is the less loaded.
    const compare = (a: Arc3Worker, b: Arc3Worker): number => {
      if (a.queued !== b.queued) return a.queued - b.queued;
      const spent = busy.get(a)! - busy.get(b)!;
      if (Math.abs(spent) >= BUSY_SAME_MS) return spent;
      return a.runCount !== b.runCount ? a.runCount - b.runCount : spent;
    };
    return this.workers.reduce((a, b) => (compare(b, a) < 0 ? b : a));
  }

  /**
   * Scans the game folders again (on the least loaded worker) and keeps the ids for `open`. The
   * first scan (at the server's start) also starts every other worker, so that no participant's
   * first action waits for a Python process to start and import the engine.
   */
  async list(): Promise<Arc3GameInfo[]> {
    const scanner = this.leastBusy();
    const others = this.ids
      ? []
      : this.workers.filter((w) => w !== scanner).map((w) => w.hello().catch(() => undefined));
    const games = await scanner.list();
    await Promise.all(others);
    this.ids = games.map((g) => g.game_id);
    return games;
  }

  /** The full id of `gameId`, from the ids known; the folders are scanned again only for an id not among them. */
  private async resolve(gameId: string): Promise<string> {
    if (this.ids) {
      try {
        return resolveGameId(gameId, this.ids);
      } catch (e) {
        if (!(e instanceof Arc3Error) || e.code !== 'unknown_game') throw e;
      }
    }
    return resolveGameId(
      gameId,
      (await this.list()).map((g) => g.game_id),
    );
  }

  /** Resolves `gameId` (full or short), opens it on the least loaded worker; answers the full id and the first frame data. */
  async open(
    runId: string,
    gameId: string,
    seed = 0,
    level = 0,
    codeDir?: string,
  ): Promise<{ gameId: string; frame: Arc3FrameData }> {
    // A pinned version names its game in full; it need not be in the mounted folders any more.
    const full = codeDir ? gameId : await this.resolve(gameId);
    const worker = this.pinned.get(runId) ?? this.leastBusy();
    const frame = await worker.open(runId, full, seed, level, codeDir);
    this.pinned.set(runId, worker);
    return { gameId: full, frame };
  }

  async resume(
    runId: string,
    gameId: string,
    seed: number,
    actions: readonly Arc3Action[],
    codeDir?: string,
  ): Promise<Arc3FrameData> {
    const worker = this.pinned.get(runId) ?? this.leastBusy();
    const frame = await worker.resume(runId, gameId, seed, actions, codeDir);
    this.pinned.set(runId, worker);
    return frame;
  }

  act(runId: string, action: Arc3Action): Promise<Arc3FrameData> {
    const worker = this.pinned.get(runId);
    if (!worker) return Promise.reject(new Arc3Error('unknown_run', `no open run ${runId}; open it first`));
    return worker.act(runId, action);
  }

  inspect(runId: string): Promise<Arc3Inspection> {
    const worker = this.pinned.get(runId);
    if (!worker) return Promise.reject(new Arc3Error('unknown_run', `no open run ${runId}; open it first`));
    return worker.inspect(runId);
  }

  async close(runId: string): Promise<void> {
    const worker = this.pinned.get(runId);
    this.pinned.delete(runId);
    await worker?.close(runId);
  }

  /** Starts exploring a level's state graph (`graph.ts`) on the least loaded worker, which keeps the run. */
  async exploreStart(
    runId: string,
    gameId: string,
    seed: number,
    level: number,
    codeDir?: string,
  ): Promise<Arc3ExploredState> {
    const full = codeDir ? gameId : await this.resolve(gameId);
    const worker = this.leastBusy();
    this.pinned.set(runId, worker);
    return worker.exploreStart(runId, full, seed, level, codeDir);
  }

  exploreExpand(runId: string, node: number, actions: readonly Arc3Action[]): Promise<Arc3ExploredState[]> {
    const worker = this.pinned.get(runId);
    if (!worker) return Promise.reject(new Arc3Error('unknown_run', `no open run ${runId}; open it first`));
    return worker.exploreExpand(runId, node, actions);
  }

  /**
   * A new engine process outside the pool, on the same games, with `env` over the pool's
   * environment: the determinism check plays the same actions there with another
   * `PYTHONHASHSEED`, since a game that orders by `id()` or by the hash of a string is the same
   * on every run within one process. The caller stops it.
   */
  freshProcess(env: Readonly<Record<string, string>>): Arc3Worker {
    const base = this.options.env ?? process.env;
    return new Arc3Worker({ ...this.options, env: { ...base, ...env } });
  }

  /** Reloads a game's file in every worker. */
  async reload(gameId: string): Promise<void> {
    await Promise.all(this.workers.map((w) => w.reload(gameId)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}
