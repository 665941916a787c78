/**
 * The server's runs of ARC-AGI-3 games (arcengine folders and remote servers, `Arc3Source`):
 * the game list, opening runs, one action at a time per run, the frames of every step of a
 * session's run stored in `game_steps`, signatures that let a log be verified without reading
 * them back, recovery after a worker or the whole server restarted, and hot reload of a game's
 * file for designers.
 *
 * Over 600 lines: the catalog, the run host and the explorer still share `Arc3Service`'s state
 * (the step journal already stands apart, stepJournal.ts); splitting them is the next change here.
 */
import { randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { encodeFrames } from '../../core/formats/frames';
import {
  hashGrid,
  stepSigningText,
  type LoggedStep,
  type RunReplayReport,
  type ServerGameInfo,
  type ServerRunReply,
  type ServerStep,
} from '../../core/game/serverGame';
import type { GameAction, GameState } from '../../core/game/types';
import type { SessionStamp, Store } from '../store/types';
import type { DeterminismReport } from '../../core/game/determinism';
import { playTwice } from './determinism';
import { exploreArc3Level } from './graph';
import { summarizeGraph, type GraphShape, type GraphSummary } from '../../core/game/graphView';
import type { Arc3Source } from './source';
import type { GameFileStatus, OlderGameVersion } from '../../core/protocol/arc3';
import { gameVersion, type GameCodeStore } from './gameCode';
import { decodeStoredSteps } from './steps';
import {
  frameHashOf,
  lastFrameOf,
  RunFrames,
  StepJournal,
  StepRefused,
  type EncodedStep,
  type StepAdmission,
} from './stepJournal';
import { serverRunReplay, stepSignature, stepSigningKey, type ThreadReplay } from './replayCheck';
import type { Replayer } from './storedRuns';
import { Arc3Error, resolveGameId, type Arc3Action, type Arc3FrameData, type Arc3Inspection } from './worker';

export { KEYFRAME_EVERY, StepRefused, type StepAdmission } from './stepJournal';

/** What acting on a copy of a run that is behind the stored steps returns (see {@link Arc3Service.act}). */
const BEHIND = Symbol('behind');

/** A step's action as the game is sent it: a click (ACTION6), and only a click, with its cell. */
function actionOf(a: { action: string; x?: number | null; y?: number | null }): Arc3Action {
  return a.action === 'ACTION6'
    ? { action: 'ACTION6', x: a.x ?? 0, y: a.y ?? 0 }
    : { action: a.action as Arc3Action['action'] };
}

/**
 * What one session may hold of the game workers (docs/api.md, "ARC-AGI-3 games run by the
 * server"), so that a flood of runs from one participant cannot grow the workers' memory while
 * others play. A closed run is never lost: its next action rebuilds it from its stored steps.
 */
export interface RunLimits {
  /** Runs one session may open for one item, in all. */
  readonly runsPerItem: number;
  /** Runs one session may hold open in this server's workers at once. */
  readonly openRunsPerSession: number;
  /** Session runs open in this server's workers at once; past it the least recently used is closed. */
  readonly openRuns: number;
  /** A session's run nobody acted on for this long is closed in its worker, in minutes. */
  readonly idleMinutes: number;
}

/**
 * Where one step's time went on the server, in ms (filled by {@link Arc3Service.act} when given,
 * sent as a `Server-Timing` header when `ARC_STUDIO_SERVER_TIMING=1`, read by `npm run bench -- arc3`).
 */
export interface StepTiming {
  /** The action's round trip to the game's source (Python worker or remote server), frames decoded. */
  worker: number;
  /** Hashing the last frame and encoding the frames (the answer's, and the stored copy against the previous step). */
  frames: number;
  /** The step's signature. */
  sign: number;
  /** Building the `game_steps` row and committing it (with other runs' steps arriving meanwhile): the answer waits for it. */
  store: number;
  /** Waiting for the step's admission once the worker had answered (it is read while the worker plays). */
  admission?: number;
}

/** Runs not stored (playtests, agents' runs) cannot be rebuilt once closed: they are kept this long without an action. */
const UNSTORED_IDLE_MS = 30 * 60_000;

export const DEFAULT_RUN_LIMITS: RunLimits = {
  runsPerItem: 5,
  openRunsPerSession: 2,
  openRuns: 2_000,
  idleMinutes: 10,
};

/** Environment variables that change the run limits, with the field each sets. */
export const RUN_LIMIT_VARIABLES = {
  ARC_STUDIO_RUNS_PER_ITEM: 'runsPerItem',
  ARC_STUDIO_OPEN_RUNS_PER_SESSION: 'openRunsPerSession',
  ARC_STUDIO_MAX_OPEN_RUNS: 'openRuns',
  ARC_STUDIO_RUN_IDLE_MINUTES: 'idleMinutes',
} as const satisfies Record<string, keyof RunLimits>;

/** The run limits with the environment's overrides; throws a message naming a bad variable. */
export function runLimitsFromEnv(env: Record<string, string | undefined>): RunLimits {
  const out: Record<string, number> = { ...DEFAULT_RUN_LIMITS };
  for (const [name, field] of Object.entries(RUN_LIMIT_VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0 || (field !== 'idleMinutes' && !Number.isInteger(n))) {
      throw new Error(
        `${name}=${raw} is not a positive ${field === 'idleMinutes' ? 'number' : 'whole number'}; unset it or give one, e.g. ${name}=${DEFAULT_RUN_LIMITS[field]}.`,
      );
    }
    out[field] = n;
  }
  return out as unknown as RunLimits;
}

export interface Arc3ServiceOptions {
  readonly limits?: Partial<RunLimits>;
  /** The clock, in ms since the epoch (the app's, so that tests move time). */
  readonly now?: () => number;
  /**
   * Where versions of the arcengine games are kept (`gameCode.ts`): with it, every run plays the
   * version of the game it was opened on, after hot reloads and restarts alike; without it, runs
   * play the mounted folder's current files.
   */
  readonly code?: GameCodeStore;
  /**
   * For the crash test only (`ARC_STUDIO_TEST_UNSTORED_STEPS=1`): the steps after a run's
   * opening are answered and never stored, as when a database loses commits it acknowledged.
   */
  readonly unstoredSteps?: boolean;
}

export interface MountedSource {
  readonly source: Arc3Source;
  /** What runs its games, e.g. `arcengine 0.9.3` or the remote server's address. */
  readonly engine: string;
  /** Folders whose `.py` files are watched for hot reload (arcengine folders). */
  readonly watchDirs?: readonly string[];
}

interface LiveRun {
  readonly runId: string;
  readonly gameId: string;
  readonly mounted: MountedSource;
  readonly sessionId: string | null;
  /** The study item a session's run plays (null for a playtest). */
  readonly item: string | null;
  readonly seed: number;
  /** The level the run started at (a designer's playtest may start past level 1). */
  readonly level: number;
  /** The version of the game's code the run was opened on (arcengine games), and the folder holding it. */
  readonly codeHash: string | null;
  readonly codeDir: string | undefined;
  /** The actions after the opening RESET, to rebuild the run anywhere. */
  readonly actions: Arc3Action[];
  last: ServerStep;
  /** The run's last frame, which its next stored step is encoded against (`stepJournal.ts`). */
  readonly frames: RunFrames;
  /**
   * Set once an action played ahead of its admission was refused: from then on this run's
   * actions wait for their admission before the worker plays them, so a participant whose item
   * has ended cannot make the worker rebuild the run for every refused action.
   */
  refused: boolean;
  queue: Promise<unknown>;
  touched: number;
}

/** What a designer's playtest page watches: the game file's reload count, and its error if the last reload failed. */
export type { GameFileStatus };

export class Arc3Service {
  /** Full ids of every game, kept current: the study checks read it. */
  readonly ids = new Set<string>();
  private games = new Map<string, { mounted: MountedSource; info: ServerGameInfo; dir: string | null }>();
  private readonly runs = new Map<string, LiveRun>();
  private readonly status = new Map<string, GameFileStatus>();
  private readonly watchers: FSWatcher[] = [];
  private readonly sweeper: NodeJS.Timeout;
  private key: Buffer | null = null;
  private readonly listeners: (() => void)[] = [];
  private readonly thumbnails = new Map<string, Promise<string>>();
  /** State-graph explorations under way that a researcher named, to cancel them (`cancelGraph`). */
  private readonly explorations = new Map<string, AbortController>();
  /** Runs being opened or rebuilt per session, counted against its limits before they exist. */
  private readonly opening = new Map<string, { total: number; items: Map<string, number> }>();
  readonly limits: RunLimits;
  private readonly now: () => number;
  private readonly code: GameCodeStore | undefined;
  /** Writes session runs' steps before they are answered. */
  private readonly journal: StepJournal;

  constructor(
    private readonly sources: readonly MountedSource[],
    private readonly store: Store,
    private readonly log: (line: string) => void = () => {},
    opts: Arc3ServiceOptions = {},
  ) {
    this.limits = { ...DEFAULT_RUN_LIMITS, ...opts.limits };
    this.now = opts.now ?? Date.now;
    this.code = opts.code;
    this.journal = new StepJournal(store, opts.unstoredSteps === true);
    if (opts.unstoredSteps === true)
      this.log(
        'ARC_STUDIO_TEST_UNSTORED_STEPS=1: the steps of ARC-AGI-3 runs after their opening are answered and NOT stored (a test setting; unset it).',
      );
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(60_000, this.limits.idleMinutes * 30_000));
    this.sweeper.unref();
  }

  /** Reads the signing key (shared by every server on the database) and the game lists. */
  async start(): Promise<void> {
    this.key = await stepSigningKey(this.store);
    await this.refresh();
  }

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

  fileStatus(id: string): GameFileStatus {
    return this.status.get(id) ?? { revision: 0 };
  }

  private sign(text: string): string {
    if (!this.key) throw new Error('Arc3Service.start() was not called');
    return stepSignature(this.key, text);
  }

  private readonly keyOrThrow = (): Buffer => {
    if (!this.key) throw new Error('Arc3Service.start() was not called');
    return this.key;
  };

  /** Verification of a server-run game's log for the session summaries (`ReplayGame`); null for other games. */
  readonly replay = serverRunReplay((gameId) => this.games.has(gameId), this.keyOrThrow);

  /** What a digest thread needs to verify server-run games' logs as `replay` does (`replayCheck.ts`). */
  threadReplay(): ThreadReplay {
    return { key: this.keyOrThrow().toString('hex'), serverGames: [...this.games.keys()] };
  }

  /** Opens a run: a participant's (stored with every step) or a researcher's playtest (not stored). */
  async open(opts: {
    gameId: string;
    seed?: number;
    session?: { id: string; item: string; at?: number };
    level?: number;
    code?: { hash: string; dir: string };
  }): Promise<ServerRunReply> {
    const gameId = this.resolve(opts.gameId);
    const game = this.games.get(gameId)!;
    if (game.info.error) throw new Arc3Error('load_error', `${gameId} cannot start: ${game.info.error}`);
    const level = opts.session ? 0 : (opts.level ?? 0);
    if (level > 0 && game.mounted.source.kind !== 'arcengine')
      throw new Arc3Error('bad_request', `${gameId} is played on a remote server, which starts every game at level 1`);
    const runId = randomUUID();
    const seed = opts.seed ?? 0;
    const session = opts.session;
    const release = session ? await this.admitRun(session.id, session.item, true) : () => {};
    try {
      // The run plays the version kept when the game was last listed (a hot reload lists it again).
      // (A researcher's check of a stored run names the version it was recorded with.)
      const codeHash = opts.code?.hash ?? game.info.codeHash ?? null;
      const codeDir =
        opts.code?.dir ?? (codeHash ? ((await this.code?.folderFor(gameId, codeHash)) ?? undefined) : undefined);
      const { frame } = await game.mounted.source.open(runId, gameId, seed, level, codeDir);
      if (session) {
        await this.store.addGameRun({
          runId,
          sessionId: session.id,
          item: session.item,
          gameId,
          source: game.mounted.source.kind,
          engine: game.mounted.engine,
          seed,
          openedAt: session.at ?? this.now(),
          codeHash: codeDir ? codeHash : null,
        });
      }
      const live: LiveRun = {
        runId,
        gameId,
        mounted: game.mounted,
        sessionId: session?.id ?? null,
        item: session?.item ?? null,
        seed,
        level,
        actions: [],
        codeHash: codeDir ? codeHash : null,
        codeDir,
        last: null as unknown as ServerStep,
        frames: RunFrames.opening(),
        refused: false,
        queue: Promise.resolve(),
        touched: this.now(),
      };
      const step = await this.record(live, 0, { action: 'RESET' }, frame);
      // A new run's number is its own: its opening step is never stored by another server.
      if (step === BEHIND) throw new Arc3Error('internal', `run ${runId} was stored already`);
      this.runs.set(runId, live);
      return { run: runId, game: this.runGame(live), seed, steps: [step] };
    } catch (e) {
      // Not kept: the worker must not hold it either.
      await game.mounted.source.close(runId).catch(() => undefined);
      throw e;
    } finally {
      release();
    }
  }

  /**
   * The versions of `gameId` other than its current one that participants' runs open on this
   * server still play (they keep the code they were opened on), with how many runs each.
   */
  olderVersions(gameId: string): OlderGameVersion[] {
    const current = this.games.get(gameId)?.info.codeHash;
    const counts = new Map<string, number>();
    for (const live of this.runs.values()) {
      if (live.gameId !== gameId || live.sessionId === null || !live.codeHash || live.codeHash === current) continue;
      counts.set(live.codeHash, (counts.get(live.codeHash) ?? 0) + 1);
    }
    return [...counts].map(([codeHash, runs]) => ({ version: gameVersion(gameId, codeHash), codeHash, runs }));
  }

  /** How many runs this server holds open in its workers: all of them, or one session's. */
  openRunCount(sessionId?: string): number {
    let n = 0;
    for (const live of this.runs.values()) if (sessionId === undefined || live.sessionId === sessionId) n++;
    return n;
  }

  /**
   * Makes room for a new run of a session's item, or refuses it: runs of the session's other
   * items are closed (the admission rule lets only the current item be played), a session past
   * its open runs is refused until one idles out, an item past its runs in all is refused, and
   * past the server's open runs the least recently used session run is closed. Answers a release
   * to call once the run is open (or failed).
   */
  private async admitRun(sessionId: string, item: string, fresh: boolean): Promise<() => void> {
    const L = this.limits;
    for (const [id, live] of [...this.runs])
      if (live.sessionId === sessionId && live.item !== item) await this.forget(id);
    // From here to taking the place nothing awaits, so concurrent requests count each other.
    const pending = this.opening.get(sessionId) ?? { total: 0, items: new Map<string, number>() };
    const own = [...this.runs.values()].filter((r) => r.sessionId === sessionId);
    if (own.length + pending.total >= L.openRunsPerSession) {
      const oldest = Math.min(...own.map((r) => r.touched), this.now());
      const wait = Math.max(1, Math.ceil((oldest + L.idleMinutes * 60_000 - this.now()) / 1000));
      throw new Arc3Error(
        'too_many_open_runs',
        `this session already has ${L.openRunsPerSession} games open, the most it may at once; go on with the one on your page, or try again in ${wait} s, when the oldest has been idle for ${L.idleMinutes} minutes`,
        undefined,
        wait,
      );
    }
    pending.total++;
    pending.items.set(item, (pending.items.get(item) ?? 0) + 1);
    this.opening.set(sessionId, pending);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      pending.total--;
      pending.items.set(item, (pending.items.get(item) ?? 1) - 1);
      if (pending.total <= 0) this.opening.delete(sessionId);
    };
    try {
      if (fresh) {
        // Runs of this item stored, and being opened by the session's other requests.
        const stored = (await this.store.listGameRuns(sessionId)).filter((r) => r.item === item).length;
        if (stored + (pending.items.get(item) ?? 1) - 1 >= L.runsPerItem) {
          throw new Arc3Error(
            'too_many_runs',
            `item ${item} was started ${L.runsPerItem} times in this session, the most it may; reload the page to go on with the game you have`,
          );
        }
      }
      let sessionRuns = 0;
      let lru: LiveRun | null = null;
      for (const live of this.runs.values()) {
        if (live.sessionId === null) continue;
        sessionRuns++;
        if (!lru || live.touched < lru.touched) lru = live;
      }
      if (lru && sessionRuns >= L.openRuns) await this.forget(lru.runId);
    } catch (e) {
      release();
      throw e;
    }
    return release;
  }

  /**
   * One action of a run, as step `step` (the run's next). The step the run already answered last
   * is answered again without acting (a retried request); any other is refused.
   *
   * A session's step is answered once played, admitted and stored (`stepJournal.ts`): a step
   * whose write fails is not answered, and the page sends it again. A step past the stored ones
   * on a copy read from the stored steps (a database that lost commits it had acknowledged) is
   * answered `unknown_run`, and the page resumes the run with its log (`resume`).
   *
   * Servers sharing the database may each hold a copy of a session's run (the participant's
   * requests reached both): a step is stored only under a number still free, and a copy that is
   * behind the stored steps (a step past its next, or its step stored first by another server)
   * is dropped and rebuilt from the stored steps before the action is answered.
   *
   * `admission`, when given, is the step's admission being decided while the worker plays the
   * action: nothing is answered or stored before it says yes, and the step is stored only while
   * the session's row is the one it was decided on (when the row changed meanwhile, it is decided
   * again on the current row before the step is stored); when it says no, the worker's copy of
   * the run is closed (its next use rebuilds it from the actions taken) and {@link StepRefused}
   * is thrown.
   */
  async act(
    runId: string,
    sessionId: string | null,
    req: { step: number; action: GameAction; x?: number; y?: number },
    timing?: StepTiming,
    admission?: StepAdmission,
  ): Promise<ServerStep> {
    // A run this server does not hold is rebuilt on the worker only for an admitted action.
    if (admission && sessionId !== null && !this.runs.has(runId) && !(await admission.verdict)) throw new StepRefused();
    const first = await this.actOn(runId, sessionId, req, false, timing, admission);
    if (first !== BEHIND) return first;
    await this.forget(runId);
    const again = await this.actOn(runId, sessionId, req, true, timing, admission);
    if (again !== BEHIND) return again;
    await this.forget(runId);
    throw new Arc3Error(
      'bad_request',
      `step ${req.step} was answered by another server at the same moment; reload the page to continue from the server's state`,
    );
  }

  private actOn(
    runId: string,
    sessionId: string | null,
    req: { step: number; action: GameAction; x?: number; y?: number },
    rebuilt: boolean,
    timing?: StepTiming,
    admission?: StepAdmission,
  ): Promise<ServerStep | typeof BEHIND> {
    const admit = async () => {
      if (admission && !(await admission.verdict)) throw new StepRefused();
    };
    return this.withRun(runId, sessionId, async (live) => {
      if (req.step === live.last.step) {
        await admit();
        return live.last;
      }
      // Just read from the stored steps: an earlier step is a retried request another server answered.
      if (rebuilt && sessionId !== null && req.step < live.last.step) {
        const answered = (await this.storedSteps(live, req.step))[0];
        if (answered?.step === req.step && answered.action === req.action) {
          await admit();
          return answered;
        }
      }
      if (req.step > live.last.step + 1 && sessionId !== null && !rebuilt) return BEHIND;
      // Read from the stored steps and still behind: steps were answered that the database no
      // longer has (it lost commits it had acknowledged).
      if (req.step > live.last.step + 1 && sessionId !== null) {
        await admit();
        throw new Arc3Error(
          'unknown_run',
          `the server has the steps of run ${runId} up to ${live.last.step} only; resume it with the steps your log has after it`,
        );
      }
      if (req.step !== live.last.step + 1) {
        throw new Arc3Error(
          'bad_request',
          `step ${req.step} is not the run's next step (${live.last.step + 1}); reload the page to continue from the server's state`,
        );
      }
      const action = actionOf(req);
      if (live.refused) await admit();
      const t0 = performance.now();
      const playing = this.play(live, action).finally(() => {
        if (timing) timing.worker = performance.now() - t0;
      });
      // The admission is decided while the worker plays; a refused action is dropped from the
      // worker's copy (closed, then rebuilt from `live.actions` on its next use).
      const [played, verdict] = await Promise.allSettled([playing, admission?.verdict]);
      if (timing && admission) timing.admission = Math.max(0, performance.now() - t0 - timing.worker);
      if (verdict.status === 'rejected') {
        // The admission could not be decided (the database unreachable): the action the worker
        // played is not the run's, so the worker's copy is closed and rebuilt from `live.actions`
        // on its next use; kept, the step sent again would be played on top of it.
        if (played.status === 'fulfilled') await live.mounted.source.close(runId).catch(() => undefined);
        throw verdict.reason;
      }
      const refuse = async (): Promise<never> => {
        live.refused = true;
        if (played.status === 'fulfilled') await live.mounted.source.close(runId).catch(() => undefined);
        throw new StepRefused();
      };
      if (verdict.value === null) return refuse();
      if (played.status === 'rejected') throw played.reason;
      live.actions.push(action);
      const stamped = admission && verdict.value ? { stamp: verdict.value, admission } : undefined;
      try {
        return await this.record(live, req.step, action, played.value, timing, stamped);
      } catch (e) {
        // Not answered: the action is not the run's. The worker's copy played it, so it is
        // dropped and rebuilt from the stored steps on the next use.
        live.actions.pop();
        if (e instanceof StepRefused) return refuse();
        await this.forget(runId);
        throw e;
      }
    });
  }

  /** Plays one action on the run's source; a source that lost the run (its server restarted, or the run idled out) rebuilds it first. */
  private async play(live: LiveRun, action: Arc3Action): Promise<Arc3FrameData> {
    try {
      return await live.mounted.source.act(live.runId, action);
    } catch (e) {
      if (!(e instanceof Arc3Error) || e.code !== 'unknown_run') throw e;
      // A copy dropped meanwhile must not rebuild the run under the copy that replaced it.
      if (live.sessionId !== null && this.runs.get(live.runId) !== live)
        throw new Arc3Error(
          'unknown_run',
          `run ${live.runId} was read again from its stored steps meanwhile; resume it with the steps your log has`,
        );
      await live.mounted.source.resume(live.runId, live.gameId, live.seed, live.actions, live.codeDir);
      return live.mounted.source.act(live.runId, action);
    }
  }

  /** Drops this server's copy of a run (read again from the stored steps on its next use). */
  private async forget(runId: string): Promise<void> {
    const live = this.runs.get(runId);
    if (!live) return;
    this.runs.delete(runId);
    await live.mounted.source.close(runId).catch(() => undefined);
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
   * A playtest run's actions played twice, each time on a fresh run with its seed and level, every
   * frame compared (`determinism.ts`). The actions are read between the designer's actions; the
   * plays themselves take two runs of the game's workers, not the designer's.
   */
  async determinism(runId: string): Promise<DeterminismReport> {
    const run = await this.withRun(runId, null, (live) =>
      Promise.resolve({
        gameId: live.gameId,
        seed: live.seed,
        level: live.level,
        actions: [...live.actions],
        source: live.mounted.source,
      }),
    );
    try {
      return await playTwice(run.source, run.gameId, {
        seed: run.seed,
        level: run.level,
        actions: run.actions,
        runKey: `determinism-${randomUUID()}`,
      });
    } catch (e) {
      if (e instanceof RangeError) throw new Arc3Error('bad_request', e.message);
      throw e;
    }
  }

  /**
   * A level's state graph (`graph.ts`), explored on one of the game's workers within the budget:
   * the summary the studio shows and the shape it lays out. Participants' runs on that worker
   * wait between its expansions, each a few calls into Python. An exploration named by
   * `exploration` can be cancelled (`cancelGraph`), as can one whose `signal` aborts (its request
   * gone): it stops after the expansion under way, closes its run on the worker, and throws
   * `cancelled`.
   */
  async graph(
    id: string,
    o: {
      level: number;
      seed: number;
      maxStates: number;
      maxSeconds: number;
      exploration?: string;
      signal?: AbortSignal;
    },
  ): Promise<{ summary: GraphSummary; shape: GraphShape | null }> {
    const gameId = this.resolve(id);
    if (o.exploration !== undefined && this.explorations.has(o.exploration))
      throw new Arc3Error(
        'bad_request',
        `exploration "${o.exploration}" is already running; name each exploration anew`,
      );
    const source = this.games.get(gameId)!.mounted.source;
    if (!source.exploreStart || !source.exploreExpand)
      throw new Arc3Error(
        'bad_request',
        `${gameId} runs on a remote server, whose states cannot be copied, so its state graph cannot be explored`,
      );
    const explorer = {
      exploreStart: source.exploreStart.bind(source),
      exploreExpand: source.exploreExpand.bind(source),
      close: source.close.bind(source),
    };
    const t0 = performance.now();
    const stop = new AbortController();
    const gone = () => stop.abort();
    o.signal?.addEventListener('abort', gone);
    if (o.exploration !== undefined) this.explorations.set(o.exploration, stop);
    let g: Awaited<ReturnType<typeof exploreArc3Level>>;
    try {
      g = await exploreArc3Level(explorer, gameId, o.level, {
        seed: o.seed,
        maxStates: o.maxStates,
        maxSeconds: o.maxSeconds,
        runId: `graph-${randomUUID()}`,
        signal: stop.signal,
      });
    } finally {
      o.signal?.removeEventListener('abort', gone);
      if (o.exploration !== undefined) this.explorations.delete(o.exploration);
    }
    if (stop.signal.aborted)
      throw new Arc3Error(
        'cancelled',
        `The exploration of level ${o.level + 1} was cancelled after ${g.expanded.toLocaleString('en-US')} of ${g.states.toLocaleString('en-US')} states found (${((performance.now() - t0) / 1000).toFixed(1)} s); nothing more runs on the server. Explore again to start over.`,
      );
    return summarizeGraph(g, {
      recorded: null,
      maxStates: o.maxStates,
      maxSeconds: o.maxSeconds,
      seconds: (performance.now() - t0) / 1000,
    });
  }

  /**
   * Cancels the state-graph exploration named `exploration` (`graph`): true when one was running
   * (it stops after the expansion under way), false when there is none (it ended, or never began).
   */
  cancelGraph(exploration: string): boolean {
    const running = this.explorations.get(exploration);
    running?.abort();
    return running !== undefined;
  }

  /** A designer's view of a run (arcengine games). */
  inspect(runId: string, sessionId: string | null): Promise<Arc3Inspection> {
    return this.withRun(runId, sessionId, async (live) => {
      const source = live.mounted.source;
      if (!source.inspect)
        throw new Arc3Error('bad_request', `${live.gameId} runs on a remote server, which cannot be inspected`);
      return source.inspect(runId);
    });
  }

  /** The item a session's run plays, or null when the run is not this session's. */
  async runItem(runId: string, sessionId: string): Promise<{ item: string } | null> {
    const live = this.runs.get(runId);
    if (live) return live.sessionId === sessionId && live.item !== null ? { item: live.item } : null;
    const rec = await this.store.getGameRun(runId);
    return rec && rec.sessionId === sessionId ? { item: rec.item } : null;
  }

  /**
   * The steps of a session's run after `after` (the last one the browser logged), rebuilding the
   * run if needed. `logged` is the end of the browser's log of the run (contiguous, ending at
   * `after`, validated at the door): the steps of it past the server's last one were answered
   * but never stored (the server died between the two, or their write failed). They are played
   * again on the run, each checked against its logged frame hash, stored, and the reply's
   * `replay` says how many; a step that cannot be brought back (another frame: the game is not
   * deterministic; the game failed on it; the log does not reach back to the server's next step)
   * ends the replay there with a message, and the run goes on from the server's last step.
   */
  async resume(
    runId: string,
    sessionId: string,
    after: number,
    logged: readonly LoggedStep[] = [],
  ): Promise<ServerRunReply> {
    for (let attempt = 0; ; attempt++) {
      let reply: ServerRunReply | typeof BEHIND;
      try {
        reply = await this.withRun(runId, sessionId, (live) => this.resumeOn(live, after, logged));
      } catch (e) {
        // A replayed step whose write failed: the worker's copy played it, so it is read again.
        await this.forget(runId);
        throw e;
      }
      if (reply !== BEHIND) return reply;
      // Another server stored some of these steps first: read them, and replay what is left.
      await this.forget(runId);
      if (attempt >= 2)
        throw new Arc3Error(
          'bad_request',
          `the steps of run ${runId} were stored by another server at the same moment; reload the page to continue from the server's state`,
        );
    }
  }

  private async resumeOn(
    live: LiveRun,
    after: number,
    logged: readonly LoggedStep[],
  ): Promise<ServerRunReply | typeof BEHIND> {
    // The copy is compared with the database, not trusted: a database that lost commits it had
    // acknowledged no longer has this copy's last steps, and the log must bring them back.
    if (live.sessionId !== null) {
      const [there] = await this.store.readGameSteps(live.runId, { from: live.last.step, limit: 1 });
      if (there?.step !== live.last.step || there.frameHash !== live.last.frameHash) return BEHIND;
    }
    let replay: RunReplayReport | undefined;
    if (after > live.last.step && live.sessionId !== null) {
      const replayed = await this.replayLogged(live, after, logged);
      if (replayed === BEHIND) return BEHIND;
      replay = replayed;
    }
    const missing = after < live.last.step ? await this.storedSteps(live, after + 1) : [];
    return {
      run: live.runId,
      game: this.runGame(live),
      seed: live.seed,
      steps: missing.length ? missing : [live.last],
      ...(replay ? { replay } : {}),
    };
  }

  /**
   * Plays again the logged steps past the run's last one and stores each (see `resume`); BEHIND
   * when another server stored one of them first.
   */
  private async replayLogged(
    live: LiveRun,
    after: number,
    logged: readonly LoggedStep[],
  ): Promise<RunReplayReport | typeof BEHIND> {
    const from = live.last.step + 1;
    const todo = logged.filter((s) => s.step >= from);
    const keptInLog = (step: number) =>
      `steps ${step} to ${after} stay in your event log only, and the game goes on from step ${live.last.step}`;
    if (!todo.length || todo[0].step !== from) {
      return {
        stored: 0,
        stopped: {
          step: from,
          message: `The server has this run's steps up to ${live.last.step}, and the steps sent back begin at ${todo[0]?.step ?? after + 1}: ${keptInLog(from)}.`,
        },
      };
    }
    let stored = 0;
    for (const s of todo) {
      const action = actionOf(s);
      let fd: Arc3FrameData;
      try {
        fd = await this.play(live, action);
      } catch (e) {
        if (!(e instanceof Arc3Error) || (e.code !== 'game_error' && e.code !== 'load_error')) throw e;
        return {
          stored,
          stopped: {
            step: s.step,
            message: `The game failed on step ${s.step} played again (${e.message}): ${keptInLog(s.step)}.`,
          },
        };
      }
      const frameHash = frameHashOf(lastFrameOf(fd, live.frames.last));
      if (frameHash !== s.frameHash) {
        // The worker played a step that is not the run's: its copy is rebuilt from the actions on its next use.
        await live.mounted.source.close(live.runId).catch(() => undefined);
        this.log(
          `Run ${live.runId} of ${live.gameId}: step ${s.step} played again gave frame ${frameHash}, not the logged ${s.frameHash}; the replay stopped there.`,
        );
        return {
          stored,
          stopped: {
            step: s.step,
            message: `Step ${s.step} played again shows another frame than the one you saw (the game is not deterministic): ${keptInLog(s.step)}.`,
          },
        };
      }
      live.actions.push(action);
      if ((await this.record(live, s.step, action, fd)) === BEHIND) return BEHIND;
      stored++;
    }
    return { stored };
  }

  /** A run's game as its replies show it: the game's info with the version the run plays. */
  private runGame(live: LiveRun): ServerGameInfo {
    const { version: _current, codeHash: _hash, ...info } = this.games.get(live.gameId)!.info;
    return live.codeHash
      ? { ...info, version: gameVersion(live.gameId, live.codeHash), codeHash: live.codeHash }
      : info;
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

  /** Resolves once the step writes under way have settled (every answered step is stored before its answer). */
  stepsStored(): Promise<void> {
    return this.journal.settled();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.stepsStored();
    for (const w of this.watchers) w.close();
    await Promise.all(this.sources.map((s) => s.source.stop().catch(() => undefined)));
  }

  // ---- internals --------------------------------------------------------------------------------

  /** Runs `fn` on the run after its earlier actions, loading it from the database when this server does not hold it. */
  private async withRun<T>(runId: string, sessionId: string | null, fn: (live: LiveRun) => Promise<T>): Promise<T> {
    let live = this.runs.get(runId);
    if (live && live.sessionId !== sessionId) throw new Arc3Error('unknown_run', `no run ${runId} in this session`);
    if (!live) {
      if (sessionId === null)
        throw new Arc3Error(
          'unknown_run',
          `run ${runId} is no longer open (the server restarted); start the game again`,
        );
      live = await this.load(runId, sessionId);
    }
    const run = live;
    run.touched = this.now();
    // A session's copy dropped while this waited its turn (`forget`) is read again: two copies
    // never drive the run on the worker.
    const result = run.queue.then(() =>
      sessionId !== null && this.runs.get(runId) !== run ? this.withRun(runId, sessionId, fn) : fn(run),
    );
    run.queue = result.catch(() => undefined);
    return result;
  }

  /** Rebuilds a session's run from its stored steps (after this server restarted). */
  private async load(runId: string, sessionId: string): Promise<LiveRun> {
    const rec = await this.store.getGameRun(runId);
    if (!rec || rec.sessionId !== sessionId) throw new Arc3Error('unknown_run', `no run ${runId} in this session`);
    const game = this.games.get(rec.gameId);
    if (!game)
      throw new Arc3Error(
        'unknown_game',
        `the run's game ${rec.gameId} is not mounted on this server any more; tell the researcher`,
      );
    const steps = await this.store.readGameSteps(runId);
    if (!steps.length) throw new Arc3Error('unknown_run', `run ${runId} has no stored steps`);
    let codeDir: string | undefined;
    if (rec.codeHash) {
      const found = await this.codeFolder(rec.gameId, rec.codeHash);
      if ('error' in found)
        throw new Arc3Error('unknown_game', `run ${runId} cannot be rebuilt: ${found.error}; tell the researcher`);
      codeDir = found.dir;
    }
    const actions = steps.slice(1).map(actionOf);
    const raced = this.runs.get(runId);
    if (raced) return raced;
    const release = await this.admitRun(sessionId, rec.item, false);
    try {
      const again = this.runs.get(runId);
      if (again) return again;
      const fd = await game.mounted.source.resume(runId, rec.gameId, rec.seed, actions, codeDir);
      const lastRec = steps[steps.length - 1];
      const rebuilt = fd.frame.length ? fd.frame[fd.frame.length - 1] : null;
      // The next step is encoded against the stored frame, whatever the engine rebuilt.
      const { frames, damage } = RunFrames.stored(steps, rebuilt);
      if (damage)
        this.log(
          `Run ${runId} of ${rec.gameId} has stored steps that do not decode (${damage}); its next stored step stands alone. Run "arc-studio check" to find and repair damaged runs.`,
        );
      if (rebuilt && hashGrid(rebuilt) !== lastRec.frameHash)
        this.log(
          `Run ${runId} of ${rec.gameId} rebuilt to a frame other than the one stored for step ${lastRec.step}: ${await this.rebuildCause(rec.gameId, rec.codeHash ?? null)}.`,
        );
      const live: LiveRun = {
        runId,
        gameId: rec.gameId,
        mounted: game.mounted,
        sessionId,
        item: rec.item,
        seed: rec.seed,
        level: 0,
        actions,
        codeHash: codeDir ? (rec.codeHash ?? null) : null,
        codeDir,
        last: this.stepOf(
          runId,
          rec.gameId,
          lastRec.step,
          lastRec.action as GameAction,
          lastRec,
          fd.frame.length ? fd : { ...fd, frame: [] },
          lastRec.frameHash,
        ),
        frames,
        refused: false,
        queue: Promise.resolve(),
        touched: this.now(),
      };
      this.runs.set(runId, live);
      return live;
    } finally {
      release();
    }
  }

  private stepOf(
    runId: string,
    gameId: string,
    step: number,
    action: GameAction,
    xy: { x?: number | null; y?: number | null },
    fd: Arc3FrameData,
    frameHash: string,
    timing?: StepTiming,
    /** The frames encoded to stand alone, when the caller made them already. */
    frames?: string,
  ): ServerStep {
    const t0 = performance.now();
    const base = {
      run: runId,
      game_id: gameId,
      step,
      action,
      state: fd.state as GameState,
      levels_completed: fd.levels_completed,
      win_levels: fd.win_levels,
      available_actions: fd.available_actions,
      full_reset: fd.full_reset,
      frames: frames ?? encodeFrames(fd.frame, null),
      frameHash,
    };
    const x = action === 'ACTION6' ? (xy.x ?? 0) : undefined;
    const y = action === 'ACTION6' ? (xy.y ?? 0) : undefined;
    const t1 = performance.now();
    const sig = this.sign(
      stepSigningText({
        run: runId,
        game: gameId,
        step,
        action,
        x,
        y,
        level: fd.levels_completed,
        state: fd.state,
        frameHash,
      }),
    );
    if (timing) {
      timing.frames += t1 - t0;
      timing.sign = performance.now() - t1;
    }
    return x === undefined ? { ...base, sig } : { ...base, x, y, sig };
  }

  /**
   * Why a run rebuilt on the engine shows another frame than the one stored: the game's code
   * changed only when the version the run recorded is not the one that played it again.
   */
  private async rebuildCause(gameId: string, codeHash: string | null): Promise<string> {
    const mounted = this.games.get(gameId)?.info.codeHash ?? null;
    if (!codeHash)
      return `the run recorded no version of the game's code, and the mounted one (${mounted ? gameVersion(gameId, mounted) : 'unversioned'}) plays it differently; if its files changed since, that is why, otherwise the game is not deterministic`;
    const kept = await this.codeFolder(gameId, codeHash);
    if ('error' in kept)
      return `the code it was recorded with (${gameVersion(gameId, codeHash)}) is not available: ${kept.error}`;
    return `the game played again on the very code it was recorded with (${gameVersion(gameId, codeHash)}) gives another frame, so the game is not deterministic or the stored step is wrong; check the run with "arc-studio check"`;
  }

  /**
   * Builds a step's answer and, for a session's run, stores it with its frames before it is
   * answered (`stepJournal.ts`); with `admitted` (the stamp its admission was decided on, and how
   * to decide it again), only while the session's row has that stamp, or once the admission says
   * yes again on the current row ({@link StepRefused} when it says no). A write that fails
   * rejects, and the step is not answered. BEHIND when another server stored the step first.
   */
  private async record(
    live: LiveRun,
    step: number,
    action: Arc3Action,
    fd: Arc3FrameData,
    timing?: StepTiming,
    admitted?: { stamp: SessionStamp; admission: StepAdmission },
  ): Promise<ServerStep | typeof BEHIND> {
    const t0 = performance.now();
    const stored = live.sessionId !== null;
    const levelChanged = step > 0 && live.last && live.last.levels_completed !== fd.levels_completed;
    const encoded: EncodedStep = live.frames.encode(fd, {
      stored,
      restart: step === 0 || action.action === 'RESET' || levelChanged,
    });
    if (timing) timing.frames = performance.now() - t0;
    const answer = this.stepOf(
      live.runId,
      live.gameId,
      step,
      action.action,
      action,
      fd,
      encoded.frameHash,
      timing,
      encoded.alone,
    );
    if (stored) {
      const t2 = performance.now();
      const fresh = await this.journal.write(
        {
          runId: live.runId,
          step,
          action: action.action,
          x: action.x ?? null,
          y: action.y ?? null,
          state: fd.state,
          levelsCompleted: fd.levels_completed,
          winLevels: fd.win_levels,
          available: fd.available_actions,
          fullReset: fd.full_reset,
          frameHash: encoded.frameHash,
          frames: encoded.changes,
          keyframe: encoded.keyframe,
          at: this.now(),
        },
        admitted,
      );
      if (timing) timing.store = performance.now() - t2;
      // Another server of the database stored this step first: this copy is behind.
      if (!fresh && step > 0) return BEHIND;
    }
    live.frames.advance(encoded, stored);
    live.last = answer;
    return answer;
  }

  /** Stored steps from `from` on, as answers (their frames re-encoded to stand alone). */
  private async storedSteps(live: LiveRun, from: number): Promise<ServerStep[]> {
    const all = await this.store.readGameSteps(live.runId);
    return decodeStoredSteps(all)
      .filter((s) => s.record.step >= from)
      .map(({ record, frames }) =>
        this.stepOf(
          live.runId,
          live.gameId,
          record.step,
          record.action as GameAction,
          record,
          {
            game_id: live.gameId,
            guid: live.runId,
            frame: frames,
            state: record.state as Arc3FrameData['state'],
            levels_completed: record.levelsCompleted,
            win_levels: record.winLevels,
            available_actions: [...record.available],
            full_reset: record.fullReset,
          },
          record.frameHash,
        ),
      );
  }

  /** Closes in their workers the runs nobody acted on for `idleMinutes` (run every minute or so; a later action rebuilds them). */
  async closeIdle(): Promise<void> {
    const now = this.now();
    for (const [id, live] of [...this.runs]) {
      if (now - live.touched < (live.sessionId === null ? UNSTORED_IDLE_MS : this.limits.idleMinutes * 60_000))
        continue;
      this.runs.delete(id);
      await live.mounted.source.close(id).catch(() => undefined);
    }
  }
}

/** What the ARC-AGI-3 routes (`routes.ts`) are given: the service, the engine found, and how stored runs are checked. */
export interface Arc3RouteInfo {
  readonly service: Arc3Service;
  /** What the server found at start: the Python and arcengine versions, or what is missing. */
  readonly engine: { ok: boolean; message: string };
  /** What a check of stored runs plays on (`mount.ts`); the service itself when absent. */
  readonly checkReplayer?: () => { replayer: Replayer; release: () => Promise<void> };
}
