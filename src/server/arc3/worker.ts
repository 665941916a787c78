/**
 * Runs arcengine games (the official ARC-AGI-3 engine, in Python) for the server.
 *
 * `Arc3Worker` owns one long-lived `python3 worker.py --games DIR...` process and speaks its line
 * protocol (documented in one place, `protocol.ts`, whose schemas check every answer): one JSON
 * request per line on stdin, one JSON answer per line on stdout, answered in order.
 *
 * The worker keeps each run's actions. When the process dies (killed, crashed, or stuck past a
 * request's timeout and then killed), the request in flight fails with `worker_died` or `timeout`;
 * the next request starts a fresh process, and each run is restored on its next use by replaying
 * its actions in a new instance, so a participant goes on from the same state. This relies on the
 * games being deterministic for a seed, which the official benchmark requires of them. A run whose
 * game raised (`game_error`) is rebuilt the same way before its next action, since the exception
 * may have left the instance half-changed; the action that raised is not kept.
 *
 * A run opened at a later level (a designer's playtest) is rebuilt at that level.
 *
 * `Arc3Pool` (pool.ts) spreads runs over a few of them. `probe()` says which Python and
 * arcengine were found, or what is missing and how to install it.
 *
 * The Python used is `ARC_STUDIO_PYTHON` (default `python3`); `ARC_STUDIO_PYTHONPATH` is put in
 * front of `PYTHONPATH` (a folder holding `arcengine`, for machines without `pip install arc-agi`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { ROOT } from '../host/root';
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import { Arc3Error } from './errors';
import {
  decodeFrameData,
  ExpandReply,
  ExploredStateReply,
  FrameDataWire,
  HelloReply,
  InspectReply,
  ListReply,
  ReplyEnvelope,
  type Arc3Action,
  type Arc3ExploredState,
  type Arc3FrameData,
  type Arc3GameInfo,
  type Arc3Hello,
  type Arc3Inspection,
} from './protocol';

/** How fast a worker's recent busy time fades (see {@link Arc3Worker.recentBusyMs}). */
const BUSY_FADE_MS = 10_000;

/** The worker script beside this module. */
// From the package root, not this module: compiled, this code runs from dist-server/.
export const WORKER_SCRIPT = path.join(ROOT, 'src/server/arc3/worker.py');

export type {
  Arc3Action,
  Arc3ActionName,
  Arc3FrameData,
  Arc3GameInfo,
  Arc3GameState,
  Arc3Hello,
  Arc3Inspection,
} from './protocol';

// The engine's errors, where the modules that call a worker have always found them.
export { Arc3Error, type Arc3ErrorCode } from './errors';

export interface Arc3WorkerOptions {
  /** Folders in the toolkit's layout (`<game>/<version>/<game>.py` + `metadata.json`). */
  gameDirs: string[];
  /** Default: `ARC_STUDIO_PYTHON` or `python3`. */
  python?: string;
  /** Put in front of PYTHONPATH. Default: `ARC_STUDIO_PYTHONPATH`. */
  pythonPath?: string;
  /** Per-request timeout; a worker that does not answer in time is killed and restarted. Default 10 s. */
  timeoutMs?: number;
  /**
   * Added to the timeout of requests to a process that has not answered yet: Python's start and
   * the engine's imports, which on a busy machine alone can take longer than a request. Default 30 s.
   */
  startupMs?: number;
  /** Receives the worker's stderr (game prints, tracebacks). Default: discarded. */
  onStderr?: (text: string) => void;
  env?: NodeJS.ProcessEnv;
}

interface RunRecord {
  gameId: string;
  seed: number;
  /** The level it was opened at (0-based; a designer's playtest may start later). */
  level: number;
  /** The folder of the run's pinned version (`gameCode.ts`), when it has one. */
  codeDir?: string;
  actions: Arc3Action[];
  /** False after a restart until the run is replayed in the new process. */
  live: boolean;
  /** The run's last action until it is answered: the next one is sent after it. */
  acting?: Promise<unknown>;
}

interface Pending {
  proc: ChildProcessWithoutNullStreams;
  cmd: string;
  resolve: (v: Record<string, unknown>) => void;
  reject: (e: Error) => void;
  /** How long the worker may take once it is on this request (its timer starts then). */
  limit: number;
  /** Set once the request is the oldest one its process has not answered. */
  timer: NodeJS.Timeout | null;
  /** Sent before the process answered anything: its time includes Python's start, not counted as busy. */
  cold: boolean;
}

/** One Python worker process, restarted on demand, with the runs it serves. */
export class Arc3Worker {
  private proc: ChildProcessWithoutNullStreams | null = null;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  private starting: Promise<void> | null = null;
  /** The process that answered at least once: its requests get no startup allowance. */
  private warm: ChildProcessWithoutNullStreams | null = null;
  private readonly runs = new Map<string, RunRecord>();
  private queue: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private busy = { ms: 0, at: 0 };
  /** When the process began on the oldest request it has not answered yet. */
  private headSince = 0;
  /** How many times a process was started (1 after the first start). */
  starts = 0;

  constructor(private readonly opts: Arc3WorkerOptions) {}

  get python(): string {
    return this.opts.python ?? this.opts.env?.ARC_STUDIO_PYTHON ?? process.env.ARC_STUDIO_PYTHON ?? 'python3';
  }

  /** The process id of the running worker, or null when none runs. */
  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /** How many runs this worker holds. */
  get runCount(): number {
    return this.runs.size;
  }

  /** Commands waiting in this worker's queue or running. */
  get queued(): number {
    return this.waiting;
  }

  /**
   * The time this worker spent on commands lately, in ms, each command's share fading with a
   * 10 s time constant: a worker whose runs play a slow game, or many runs, weighs more.
   */
  recentBusyMs(now = performance.now()): number {
    return this.busy.ms * Math.exp(-(now - this.busy.at) / BUSY_FADE_MS);
  }

  async hello(): Promise<Arc3Hello> {
    return checked('hello', HelloReply, await this.call('hello', {}));
  }

  async list(): Promise<Arc3GameInfo[]> {
    return checked('list', ListReply, await this.call('list', {})).games;
  }

  /**
   * Starts run `runId` on `gameId` (a full `<game>-<version>` id); answers the initial RESET's
   * frame data. `level` > 0 (a designer's playtest) then sets that level with the engine's
   * `set_level`, the levels before it counted as completed; after a restart the run is rebuilt
   * at that level. `codeDir`: a folder holding the version of the game to run (`gameCode.ts`),
   * instead of the mounted folder's current files; a restart rebuilds the run on that version too.
   */
  async open(runId: string, gameId: string, seed = 0, level = 0, codeDir?: string): Promise<Arc3FrameData> {
    const fd = frameData(
      'open',
      await this.call('open', {
        run: runId,
        game_id: gameId,
        seed,
        ...(level ? { level } : {}),
        ...(codeDir ? { code_dir: codeDir } : {}),
      }),
    );
    this.runs.set(runId, { gameId, seed, level, codeDir, actions: [], live: true });
    return fd;
  }

  /**
   * Rebuilds run `runId` from its actions after the opening RESET (e.g. after the server
   * restarted); answers the last action's frame data.
   */
  async resume(
    runId: string,
    gameId: string,
    seed: number,
    actions: readonly Arc3Action[],
    codeDir?: string,
  ): Promise<Arc3FrameData> {
    const list = actions.map((a) => ({ ...a }));
    const fd = frameData(
      'replay',
      await this.call('replay', {
        run: runId,
        game_id: gameId,
        seed,
        actions: list,
        ...(codeDir ? { code_dir: codeDir } : {}),
      }),
    );
    this.runs.set(runId, { gameId, seed, level: 0, codeDir, actions: list, live: true });
    return fd;
  }

  /**
   * Performs one action in a run, restoring the run first if the worker was restarted. A run's
   * actions are sent one after the other; actions of a live run on a running worker are written
   * at once, without waiting for the commands of other runs before them to be answered (the
   * worker reads the next line as soon as it has answered one, so it never idles while the
   * server handles an answer). Everything else waits its turn.
   */
  act(runId: string, action: Arc3Action): Promise<Arc3FrameData> {
    const record = this.runs.get(runId);
    if (!record) return Promise.reject(new Arc3Error('unknown_run', `no open run ${runId}; open it first`));
    const before = record.acting;
    const acted = before ? before.then(() => this.actNow(runId, record, action)) : this.actNow(runId, record, action);
    const settled = acted.catch(() => undefined);
    record.acting = settled;
    void settled.then(() => {
      if (record.acting === settled) record.acting = undefined;
    });
    return acted;
  }

  private async actNow(runId: string, record: RunRecord, action: Arc3Action): Promise<Arc3FrameData> {
    const perform = async () => {
      try {
        const fd = frameData('act', await this.send('act', { run: runId, ...action }));
        record.actions.push(action);
        return fd;
      } catch (e) {
        // A game that raised may have left its instance half-changed: rebuild it from the actions
        // that succeeded before the next one.
        if (e instanceof Arc3Error && e.code === 'game_error') record.live = false;
        throw e;
      }
    };
    if (record.live && this.proc && this.warm === this.proc && this.runs.get(runId) === record) {
      this.waiting++;
      try {
        return await perform();
      } finally {
        this.waiting--;
      }
    }
    return this.serial(async () => {
      await this.ensureStarted();
      await this.restore(runId, record);
      return perform();
    });
  }

  /** A designer's view of an open run: public attributes, level, camera and sprites. */
  async inspect(runId: string): Promise<Arc3Inspection> {
    const record = this.runs.get(runId);
    if (!record) throw new Arc3Error('unknown_run', `no open run ${runId}; open it first`);
    return this.serial(async () => {
      await this.ensureStarted();
      await this.restore(runId, record);
      return checked('inspect', InspectReply, await this.send('inspect', { run: runId }));
    });
  }

  async close(runId: string): Promise<void> {
    const record = this.runs.get(runId);
    this.runs.delete(runId);
    if (record?.live && this.proc) await this.call('close', { run: runId });
  }

  /**
   * Opens run `runId` for exploring `level`'s state graph (`graph.ts`); answers the start state
   * (id 0). The run's states live in the worker until expanded; a restart loses them, so an
   * exploration is not restored (its next `exploreExpand` answers `unknown_run`).
   */
  async exploreStart(
    runId: string,
    gameId: string,
    seed: number,
    level: number,
    codeDir?: string,
  ): Promise<Arc3ExploredState> {
    const reply = await this.call('explore_start', {
      run: runId,
      game_id: gameId,
      seed,
      level,
      ...(codeDir ? { code_dir: codeDir } : {}),
    });
    // Recorded like an opened run so that `close` frees its states in the worker.
    this.runs.set(runId, { gameId, seed, level, codeDir, actions: [], live: true });
    return checked('explore_start', ExploredStateReply, reply);
  }

  /** Plays each of `actions` on a copy of state `node` of an exploration; answers where each led. */
  async exploreExpand(runId: string, node: number, actions: readonly Arc3Action[]): Promise<Arc3ExploredState[]> {
    // A click-every-cell expansion plays 4,096 actions in one request.
    const reply = await this.serial(() =>
      this.send('explore_expand', { run: runId, node, actions }, Math.max(this.timeout, 50 * actions.length)),
    );
    return checked('explore_expand', ExpandReply, reply).results;
  }

  /** Re-executes a game's file; runs opened afterwards use the new code. */
  async reload(gameId: string): Promise<void> {
    await this.call('reload', { game_id: gameId });
  }

  /** Asks the worker to exit and waits for it. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    try {
      await this.send('quit', {}, 2000);
    } catch {
      proc.kill('SIGKILL');
    }
    await exited;
  }

  private async restore(runId: string, record: RunRecord): Promise<void> {
    if (record.live) return;
    const level = record.level ? { level: record.level } : {};
    frameData(
      'replay',
      await this.send(
        'replay',
        {
          run: runId,
          game_id: record.gameId,
          seed: record.seed,
          ...level,
          actions: record.actions,
          ...(record.codeDir ? { code_dir: record.codeDir } : {}),
        },
        Math.max(this.timeout, 10 * record.actions.length),
      ),
    );
    record.live = true;
  }

  private get timeout(): number {
    return this.opts.timeoutMs ?? 10_000;
  }

  /** Sends one command after every earlier one finished (the worker answers in order anyway). */
  private call(cmd: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.serial(() => this.send(cmd, payload));
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    this.waiting++;
    const timed = async () => {
      try {
        return await fn();
      } finally {
        this.waiting--;
      }
    };
    const result = this.queue.then(timed, timed);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async send(
    cmd: string,
    payload: Record<string, unknown>,
    timeoutMs = this.timeout,
  ): Promise<Record<string, unknown>> {
    await this.ensureStarted();
    const proc = this.proc!;
    const id = this.nextId++;
    const limit = timeoutMs + (this.warm === proc ? 0 : (this.opts.startupMs ?? 30_000));
    return new Promise((resolve, reject) => {
      const p: Pending = { proc, cmd, resolve, reject, limit, timer: null, cold: this.warm !== proc };
      // The first request the process has not answered: the worker is on it now.
      const first = !this.oldest(proc);
      this.pending.set(id, p);
      if (first) this.begin(id, p);
      proc.stdin.write(JSON.stringify({ id, cmd, ...payload }) + '\n');
    });
  }

  /** The oldest request `proc` has not answered (requests are answered in order). */
  private oldest(proc: ChildProcessWithoutNullStreams): [number, Pending] | undefined {
    for (const entry of this.pending) if (entry[1].proc === proc) return entry;
    return undefined;
  }

  /**
   * The worker is on request `id` now: its timeout starts. A request written behind others is
   * timed from when the ones before it were answered, so a queue never times out a quick step.
   */
  private begin(id: number, p: Pending): void {
    this.headSince = performance.now();
    p.timer = setTimeout(() => {
      this.pending.delete(id);
      // Detach first, so the next request starts a new process instead of meeting this dying one.
      if (this.proc === p.proc) this.proc = null;
      p.proc.kill('SIGKILL');
      p.reject(
        new Arc3Error('timeout', `the arcengine worker did not answer ${p.cmd} within ${p.limit} ms; it was restarted`),
      );
    }, p.limit);
  }

  private ensureStarted(): Promise<void> {
    if (this.proc) return Promise.resolve();
    this.starting ??= this.start().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private start(): Promise<void> {
    const base = this.opts.env ?? process.env;
    const extra = this.opts.pythonPath ?? base.ARC_STUDIO_PYTHONPATH;
    const pythonPath = [extra, base.PYTHONPATH].filter(Boolean).join(path.delimiter);
    const args = [WORKER_SCRIPT, ...this.opts.gameDirs.flatMap((d) => ['--games', d])];
    const proc = spawn(this.python, args, {
      env: { ...base, PYTHONPATH: pythonPath, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    for (const record of this.runs.values()) record.live = false;
    this.starts++;
    return new Promise((resolve, reject) => {
      proc.once('spawn', () => {
        this.proc = proc;
        resolve();
      });
      proc.once('error', (err: NodeJS.ErrnoException) => {
        if (this.proc === proc) this.proc = null;
        const missing = err.code === 'ENOENT';
        reject(
          new Arc3Error(
            missing ? 'no_python' : 'worker_died',
            missing ? noPythonMessage(this.python) : `cannot start ${this.python}: ${err.message}`,
          ),
        );
      });
      proc.stdin.on('error', () => undefined);
      proc.stderr.setEncoding('utf8');
      proc.stderr.on('data', (text: string) => this.opts.onStderr?.(text));
      createInterface({ input: proc.stdout }).on('line', (line) => this.onLine(line));
      proc.once('exit', (code, signal) => {
        if (this.proc === proc) this.proc = null;
        const err = new Arc3Error(
          'worker_died',
          `the arcengine worker stopped (${signal ?? `exit code ${code}`}); it is restarted on the next action`,
        );
        for (const [id, p] of this.pending) {
          if (p.proc !== proc) continue;
          if (p.timer) clearTimeout(p.timer);
          p.reject(err);
          this.pending.delete(id);
        }
      });
    });
  }

  private onLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      this.opts.onStderr?.(`arc3 worker wrote a line that is not JSON: ${line.slice(0, 200)}\n`);
      return;
    }
    // The common answer (ok, with an integer id) is taken without a schema pass over its frames;
    // the command's own schema checks the fields (`frameData`, `checked`).
    const ok = raw as { id?: unknown; ok?: unknown } | null;
    if (ok !== null && typeof ok === 'object' && ok.ok === true && Number.isInteger(ok.id)) {
      const p = this.pending.get(ok.id as number);
      if (!p) return;
      this.settle(ok.id as number, p);
      const { id: _id, ok: _ok, ...fields } = raw as Record<string, unknown>;
      p.resolve(fields);
      return;
    }
    const msg = ReplyEnvelope.safeParse(raw);
    if (!msg.success) {
      this.opts.onStderr?.(`arc3 worker wrote a line that is not an answer (protocol.ts): ${line.slice(0, 200)}\n`);
      // An answer with a request's id that is not well formed still ends that request, with the reason.
      const id = (raw as { id?: unknown } | null)?.id;
      const p = typeof id === 'number' ? this.pending.get(id) : undefined;
      if (p)
        this.settle(id as number, p).reject(
          new Arc3Error(
            'internal',
            `the arcengine worker answered with something that is not an answer (${issueOf(msg.error)}); check that worker.py matches this server`,
          ),
        );
      return;
    }
    const p = this.pending.get(msg.data.id);
    if (!p) return;
    this.settle(msg.data.id, p);
    if (msg.data.ok) {
      const { id: _id, ok: _ok, ...fields } = msg.data;
      p.resolve(fields);
    } else {
      const { code, message, traceback } = msg.data.error;
      p.reject(new Arc3Error(code, message, traceback));
    }
  }

  private settle(id: number, p: Pending): Pending {
    this.pending.delete(id);
    if (p.timer) clearTimeout(p.timer);
    if (p.timer && !p.cold) {
      const now = performance.now();
      this.busy = { ms: this.recentBusyMs(now) + (now - this.headSince), at: now };
    }
    // The process has answered: its later requests get no startup allowance.
    this.warm = p.proc;
    const next = this.oldest(p.proc);
    if (next && !next[1].timer) this.begin(next[0], next[1]);
    return p;
  }
}

function issueOf(error: z.ZodError): string {
  const i = error.issues[0];
  return i ? `${i.path.join('.') || 'the answer'}: ${i.message}` : 'unknown';
}

/** A command's answer checked against its schema (protocol.ts); an `internal` error naming what is wrong otherwise. */
function checked<T>(cmd: string, schema: z.ZodType<T>, fields: Record<string, unknown>): T {
  const r = schema.safeParse(fields);
  if (!r.success)
    throw new Arc3Error(
      'internal',
      `the arcengine worker's answer to ${cmd} does not follow the protocol (${issueOf(r.error)}); check that worker.py matches this server`,
    );
  return r.data;
}

/** Frame data from an answer, checked and its frames decoded. */
function frameData(cmd: string, fields: Record<string, unknown>): Arc3FrameData {
  const wire = checked(cmd, FrameDataWire, fields);
  try {
    return decodeFrameData(wire);
  } catch (e) {
    throw new Arc3Error(
      'internal',
      `the arcengine worker's answer to ${cmd} does not follow the protocol (${(e as Error).message}); check that worker.py matches this server`,
    );
  }
}

function noPythonMessage(python: string): string {
  return `Python was not found at "${python}": install Python 3.10 or later and \`pip install arc-agi\`, or set ARC_STUDIO_PYTHON to a python3 binary.`;
}

/**
 * Resolves a game id against the games available: a full `<game>-<version>` id must exist as
 * given; a short id (`ls20`) resolves to its only version, and is refused with the list of
 * versions when there are several. Never picks a version silently.
 */
export function resolveGameId(requested: string, available: readonly string[]): string {
  if (available.includes(requested)) return requested;
  if (requested.includes('-')) {
    throw new Arc3Error('unknown_game', `no game ${requested}; games: ${available.join(', ') || 'none'}`);
  }
  const versions = available.filter((id) => id.split('-')[0] === requested);
  if (versions.length === 1) return versions[0];
  if (versions.length === 0)
    throw new Arc3Error('unknown_game', `no game ${requested}; games: ${available.join(', ') || 'none'}`);
  throw new Arc3Error(
    'ambiguous_game',
    `${requested} has several versions (${versions.join(', ')}); name one of them in full`,
  );
}
