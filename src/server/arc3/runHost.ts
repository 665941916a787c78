/**
 * The runs this server holds in its game workers: opening them, one action at a time per run,
 * rebuilding a session's run from its stored steps (after a restart, or on another server), and
 * the limits on what one session may hold (`runLimits.ts`).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { hashGrid, type ServerGameInfo, type ServerRunReply, type ServerStep } from '../../core/game/serverGame';
import type { GameAction } from '../../core/game/types';
import type { OlderGameVersion } from '../../core/protocol/arc3';
import type { GameRunStore } from '../store/types';
import type { Arc3Catalog } from './catalog';
import { gameVersion } from './gameCode';
import { actionOf, BEHIND, type LiveRun, type StepTiming } from './liveRun';
import { UNSTORED_IDLE_MS, type RunLimits } from './runLimits';
import type { RunSteps } from './runSteps';
import { RunFrames, StepRefused, type StepAdmission } from './stepJournal';
import { Arc3Error, type Arc3Action, type Arc3FrameData, type Arc3Inspection } from './worker';

/** Holds the live runs of this server, one action at a time per run. */
export class RunHost {
  /** The runs this server holds, by id. */
  private readonly runs = new Map<string, LiveRun>();

  /** Runs being opened or rebuilt per session, counted against its limits before they exist. */
  private readonly opening = new Map<string, { total: number; items: Map<string, number> }>();

  constructor(
    readonly catalog: Arc3Catalog,
    readonly steps: RunSteps,
    readonly store: GameRunStore,
    readonly limits: RunLimits,
    readonly now: () => number,
    readonly log: (line: string) => void,
  ) {}

  /** Opens a run: a participant's (stored with every step) or a researcher's playtest (not stored). */
  async open(opts: {
    gameId: string;
    seed?: number;
    session?: { id: string; item: string; at?: number };
    level?: number;
    code?: { hash: string; dir: string };
  }): Promise<ServerRunReply> {
    const gameId = this.catalog.resolve(opts.gameId);
    const game = this.catalog.game(gameId)!;
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
      const codeDir = opts.code?.dir ?? (codeHash ? await this.catalog.keptFolder(gameId, codeHash) : undefined);
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
      const step = await this.steps.record(live, 0, { action: 'RESET' }, frame);
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
    const current = this.catalog.game(gameId)?.info.codeHash;
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
        const answered = (await this.steps.storedSteps(live, req.step))[0];
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
        return await this.steps.record(live, req.step, action, played.value, timing, stamped);
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
  async play(live: LiveRun, action: Arc3Action): Promise<Arc3FrameData> {
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
  async forget(runId: string): Promise<void> {
    const live = this.runs.get(runId);
    if (!live) return;
    this.runs.delete(runId);
    await live.mounted.source.close(runId).catch(() => undefined);
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

  /** A run's game as its replies show it: the game's info with the version the run plays. */
  runGame(live: LiveRun): ServerGameInfo {
    const { version: _current, codeHash: _hash, ...info } = this.catalog.game(live.gameId)!.info;
    return live.codeHash
      ? { ...info, version: gameVersion(live.gameId, live.codeHash), codeHash: live.codeHash }
      : info;
  }

  /** Runs `fn` on the run after its earlier actions, loading it from the database when this server does not hold it. */
  async withRun<T>(runId: string, sessionId: string | null, fn: (live: LiveRun) => Promise<T>): Promise<T> {
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
    const game = this.catalog.game(rec.gameId);
    if (!game)
      throw new Arc3Error(
        'unknown_game',
        `the run's game ${rec.gameId} is not mounted on this server any more; tell the researcher`,
      );
    const steps = await this.store.readGameSteps(runId);
    if (!steps.length) throw new Arc3Error('unknown_run', `run ${runId} has no stored steps`);
    let codeDir: string | undefined;
    if (rec.codeHash) {
      const found = await this.catalog.codeFolder(rec.gameId, rec.codeHash);
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
          `Run ${runId} of ${rec.gameId} rebuilt to a frame other than the one stored for step ${lastRec.step}: ${await this.catalog.rebuildCause(rec.gameId, rec.codeHash ?? null)}.`,
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
        last: this.steps.stepOf(
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
