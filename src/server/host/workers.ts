/**
 * `arc-studio serve --workers N`: N server processes on one port (Node's cluster module; the
 * primary accepts connections and hands them to the workers in turn). Every worker is a whole
 * server on the same PostgreSQL; the primary only starts them, restarts one that dies, and stops
 * them all on SIGINT / SIGTERM.
 */
import cluster, { type Worker } from 'node:cluster';

/** A worker that dies this soon after it started is crashing in a loop: restarts wait {@link RESTART_BACKOFF_MS}. */
const FLAPPING_MS = 10_000;
const RESTART_BACKOFF_MS = 2_000;

/** What a worker tells the primary once it listens. */
interface Ready {
  readonly arcStudioReady: string;
}

const isReady = (m: unknown): m is Ready =>
  typeof m === 'object' && m !== null && typeof (m as Ready).arcStudioReady === 'string';

/**
 * Why `--workers N` cannot run on this database, or null when it can: the embedded database
 * (PGlite) lives inside one process.
 */
export function workersProblem(workers: number, databaseUrl: string | undefined): string | null {
  if (workers <= 1 || databaseUrl) return null;
  return `--workers ${workers} needs PostgreSQL: the embedded database (PGlite) runs inside one process and cannot be shared. Set DATABASE_URL to a PostgreSQL server (docs/deploy.md), or serve with one worker.`;
}

/** Whether this process is a worker started by {@link runPrimary}. */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/** In a worker: tells the primary it listens at `url`, and stops the server when the primary goes away. */
export function reportWorkerReady(url: string, stop: () => void): void {
  process.send?.({ arcStudioReady: url } satisfies Ready);
  // The primary died (even by SIGKILL): no one hands out connections any more.
  process.once('disconnect', stop);
}

export interface PrimaryOptions {
  readonly workers: number;
  readonly log: (line: string) => void;
  /** Called once, when every first-generation worker listens. */
  readonly onReady: (url: string) => void;
}

/**
 * Runs the primary: forks `workers` copies of this command (the same arguments), restarts any
 * that exits while serving, and resolves with the exit code when the servers are stopped (or a
 * worker failed to start: its message is on standard error already).
 */
export function runPrimary(opts: PrimaryOptions): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    let started = false;
    const readyIds = new Set<number>();
    const startedAt = new Map<number, number>();

    const fork = (): Worker => {
      const w = cluster.fork();
      startedAt.set(w.id, Date.now());
      w.on('message', (m: unknown) => {
        if (!isReady(m)) return;
        readyIds.add(w.id);
        if (!started && readyIds.size >= opts.workers) {
          started = true;
          opts.onReady(m.arcStudioReady);
        }
      });
      return w;
    };

    const live = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    const stopAll = (code: number) => {
      if (stopping) return;
      stopping = true;
      const rest = live();
      if (!rest.length) {
        resolve(code);
        return;
      }
      let left = rest.length;
      for (const w of rest) {
        w.once('exit', () => {
          if (--left === 0) resolve(code);
        });
        w.process.kill('SIGTERM');
      }
      // A worker that does not close within 10 s (connections that never end) is killed.
      setTimeout(() => {
        for (const w of live()) w.process.kill('SIGKILL');
      }, 10_000).unref();
    };

    cluster.on('exit', (w, code, signal) => {
      const lifetime = Date.now() - (startedAt.get(w.id) ?? 0);
      startedAt.delete(w.id);
      const wasReady = readyIds.delete(w.id);
      if (stopping) return;
      if (!started && !wasReady) {
        // A worker that could not start (a bad setting, the port taken): the others would fail alike.
        opts.log(`A server worker exited (${signal ?? code}) before it was ready; stopping.`);
        stopAll(1);
        return;
      }
      const wait = lifetime < FLAPPING_MS ? RESTART_BACKOFF_MS : 0;
      opts.log(
        `Server worker ${w.process.pid} exited (${signal ?? `code ${code}`}); starting another${wait ? ` in ${wait / 1000} s` : ''}.`,
      );
      setTimeout(() => {
        if (!stopping) fork();
      }, wait);
    });
    process.once('SIGINT', () => stopAll(0));
    process.once('SIGTERM', () => stopAll(0));
    for (let i = 0; i < opts.workers; i++) fork();
  });
}
