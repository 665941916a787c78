/**
 * What a researcher or designer asks of a game beyond playing it: a level's state graph
 * explored on a game worker (`graph.ts`), and a playtest's actions played twice to check that
 * the game is deterministic (`determinism.ts`).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DeterminismReport } from '../../core/game/determinism';
import { summarizeGraph, type GraphShape, type GraphSummary } from '../../core/game/graphView';
import type { Arc3Catalog } from './catalog';
import { playTwice } from './determinism';
import { exploreArc3Level } from './graph';
import type { RunHost } from './runHost';
import { Arc3Error } from './worker';

/** Explorations of state graphs and determinism checks, on the games' workers. */
export class Arc3Explorer {
  /** State-graph explorations under way that a researcher named, to cancel them (`cancelGraph`). */
  private readonly explorations = new Map<string, AbortController>();

  constructor(
    private readonly catalog: Arc3Catalog,
    private readonly host: RunHost,
  ) {}

  /**
   * A playtest run's actions played twice, each time on a fresh run with its seed and level, every
   * frame compared (`determinism.ts`). The actions are read between the designer's actions; the
   * plays themselves take two runs of the game's workers, not the designer's.
   */
  async determinism(runId: string): Promise<DeterminismReport> {
    const run = await this.host.withRun(runId, null, (live) =>
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
    const gameId = this.catalog.resolve(id);
    if (o.exploration !== undefined && this.explorations.has(o.exploration))
      throw new Arc3Error(
        'bad_request',
        `exploration "${o.exploration}" is already running; name each exploration anew`,
      );
    const source = this.catalog.game(gameId)!.mounted.source;
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
}
