/**
 * The server's runs of ARC-AGI-3 games (arcengine folders and remote servers, `Arc3Source`), as
 * one service composed of its parts:
 *
 * - `catalog.ts`: the game list, the versions of the games' code kept for runs, thumbnails, and
 *   hot reload of a game's file for designers;
 * - `runHost.ts`: opening runs, one action at a time per run, rebuilding a session's run from
 *   its stored steps after a worker or the whole server restarted, and the limits on what one
 *   session may hold (`runLimits.ts`);
 * - `runSteps.ts`: every step built and signed, so a log can be verified without reading the
 *   steps back, and a session's steps stored in `game_steps` before they are answered (the
 *   writes batched by `stepJournal.ts`);
 * - `resume.ts`: a run resumed from the page, steps answered but never stored played again;
 * - `explorer.ts`: state graphs and determinism checks.
 */
import type { DeterminismReport } from '../../core/game/determinism';
import type { GraphShape, GraphSummary } from '../../core/game/graphView';
import type { ServerGameInfo, ServerRunReply, ServerStep } from '../../core/game/serverGame';
import type { GameFileStatus, OlderGameVersion } from '../../core/protocol/arc3';
import type { GameRunStore, SecretStore } from '../store/types';
import { Arc3Catalog, type MountedSource } from './catalog';
import { Arc3Explorer } from './explorer';
import type { GameCodeStore } from './gameCode';
import { serverRunReplay, type ThreadReplay } from './replayCheck';
import { resumeRun } from './resume';
import { RunHost } from './runHost';
import { DEFAULT_RUN_LIMITS, type RunLimits } from './runLimits';
import { RunSteps } from './runSteps';
import { StepJournal } from './stepJournal';
import type { Replayer } from './storedRuns';
import type { Arc3Inspection } from './worker';

export { KEYFRAME_EVERY, StepRefused, type StepAdmission } from './stepJournal';
export type { MountedSource } from './catalog';
export type { StepTiming } from './liveRun';
export { DEFAULT_RUN_LIMITS, RUN_LIMIT_VARIABLES, runLimitsFromEnv, type RunLimits } from './runLimits';

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

/** What a designer's playtest page watches: the game file's reload count, and its error if the last reload failed. */
export type { GameFileStatus };

/** The ARC-AGI-3 games this server runs; each method is its part's (see the top of this file). */
export class Arc3Service {
  /** Full ids of every game, kept current: the study checks read it. */
  readonly ids: Set<string>;
  readonly limits: RunLimits;
  /** Verification of a server-run game's log for the session summaries (`ReplayGame`); null for other games. */
  readonly replay: ReturnType<typeof serverRunReplay>;
  private readonly catalog: Arc3Catalog;
  private readonly steps: RunSteps;
  private readonly host: RunHost;
  private readonly explorer: Arc3Explorer;
  /** Writes session runs' steps before they are answered. */
  private readonly journal: StepJournal;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly sources: readonly MountedSource[],
    store: GameRunStore & SecretStore,
    log: (line: string) => void = () => {},
    opts: Arc3ServiceOptions = {},
  ) {
    this.limits = { ...DEFAULT_RUN_LIMITS, ...opts.limits };
    const now = opts.now ?? Date.now;
    this.catalog = new Arc3Catalog(sources, opts.code, log);
    this.ids = this.catalog.ids;
    this.journal = new StepJournal(store, opts.unstoredSteps === true);
    this.steps = new RunSteps(store, this.journal, now);
    this.host = new RunHost(this.catalog, this.steps, store, this.limits, now, log);
    this.explorer = new Arc3Explorer(this.catalog, this.host);
    this.replay = serverRunReplay((gameId) => this.catalog.has(gameId), this.steps.keyOrThrow);
    if (opts.unstoredSteps === true)
      log(
        'ARC_STUDIO_TEST_UNSTORED_STEPS=1: the steps of ARC-AGI-3 runs after their opening are answered and NOT stored (a test setting; unset it).',
      );
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(60_000, this.limits.idleMinutes * 30_000));
    this.sweeper.unref();
  }

  /** Reads the signing key (shared by every server on the database) and the game lists. */
  async start(): Promise<void> {
    await this.steps.start();
    await this.refresh();
  }

  // ---- the catalog (catalog.ts) -------------------------------------------------------------------

  /** Re-reads every source's game list (new folders, changed metadata). */
  refresh(): Promise<void> {
    return this.catalog.refresh();
  }

  /** Calls `f` after every refresh of the game lists. */
  onRefresh(f: () => void): void {
    this.catalog.onRefresh(f);
  }

  list(): ServerGameInfo[] {
    return this.catalog.list();
  }

  /** The full id of `id` (full, or a short id with one version), or an `Arc3Error` naming the versions. */
  resolve(id: string): string {
    return this.catalog.resolve(id);
  }

  has(id: string): boolean {
    return this.catalog.has(id);
  }

  info(id: string): ServerGameInfo | null {
    return this.catalog.info(id);
  }

  fileStatus(id: string): GameFileStatus {
    return this.catalog.fileStatus(id);
  }

  /** The frame a game opens on, encoded, for thumbnails ({@link Arc3Catalog.openingFrame}). */
  openingFrame(id: string): Promise<string> {
    return this.catalog.openingFrame(id);
  }

  /** Where the files of version `codeHash` of `gameId` are ({@link Arc3Catalog.codeFolder}). */
  codeFolder(gameId: string, codeHash: string): Promise<{ dir: string } | { error: string }> {
    return this.catalog.codeFolder(gameId, codeHash);
  }

  /** Re-reads a game's file in its workers; runs opened afterwards play the new code. */
  reload(gameId: string): Promise<GameFileStatus> {
    return this.catalog.reload(gameId);
  }

  /** Watches the arcengine folders: saving a game's `.py` file reloads that game. */
  watchFiles(): void {
    this.catalog.watchFiles();
  }

  /** What a digest thread needs to verify server-run games' logs as `replay` does (`replayCheck.ts`). */
  threadReplay(): ThreadReplay {
    return { key: this.steps.keyOrThrow().toString('hex'), serverGames: this.catalog.gameIds() };
  }

  // ---- the runs (runHost.ts, resume.ts) -----------------------------------------------------------

  /** Opens a run: a participant's (stored with every step) or a researcher's playtest ({@link RunHost.open}). */
  open(...args: Parameters<RunHost['open']>): Promise<ServerRunReply> {
    return this.host.open(...args);
  }

  /** One action of a run, as its next step ({@link RunHost.act}). */
  act(...args: Parameters<RunHost['act']>): Promise<ServerStep> {
    return this.host.act(...args);
  }

  /** The steps of a session's run after `after`, logged steps never stored played again ({@link resumeRun}). */
  resume(...args: Parameters<typeof resumeRun> extends [RunHost, ...infer R] ? R : never): Promise<ServerRunReply> {
    return resumeRun(this.host, ...args);
  }

  /** Older versions of `gameId` that runs open on this server still play ({@link RunHost.olderVersions}). */
  olderVersions(gameId: string): OlderGameVersion[] {
    return this.host.olderVersions(gameId);
  }

  /** How many runs this server holds open in its workers: all of them, or one session's. */
  openRunCount(sessionId?: string): number {
    return this.host.openRunCount(sessionId);
  }

  /** A designer's view of a run (arcengine games). */
  inspect(runId: string, sessionId: string | null): Promise<Arc3Inspection> {
    return this.host.inspect(runId, sessionId);
  }

  /** The item a session's run plays, or null when the run is not this session's. */
  runItem(runId: string, sessionId: string): Promise<{ item: string } | null> {
    return this.host.runItem(runId, sessionId);
  }

  /** Closes in their workers the runs nobody acted on for `idleMinutes` (a later action rebuilds them). */
  closeIdle(): Promise<void> {
    return this.host.closeIdle();
  }

  /** Resolves once the step writes under way have settled (every answered step is stored before its answer). */
  stepsStored(): Promise<void> {
    return this.journal.settled();
  }

  // ---- the explorer (explorer.ts) ------------------------------------------------------------------

  /** A playtest run's actions played twice, every frame compared ({@link Arc3Explorer.determinism}). */
  determinism(runId: string): Promise<DeterminismReport> {
    return this.explorer.determinism(runId);
  }

  /** A level's state graph, explored within the budget ({@link Arc3Explorer.graph}). */
  graph(...args: Parameters<Arc3Explorer['graph']>): Promise<{ summary: GraphSummary; shape: GraphShape | null }> {
    return this.explorer.graph(...args);
  }

  /** Cancels the state-graph exploration named `exploration`: true when one was running. */
  cancelGraph(exploration: string): boolean {
    return this.explorer.cancelGraph(exploration);
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.stepsStored();
    this.catalog.stopWatching();
    await Promise.all(this.sources.map((s) => s.source.stop().catch(() => undefined)));
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
