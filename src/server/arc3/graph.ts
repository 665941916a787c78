/**
 * The state graph of an arcengine game's level: the one explorer of `core/game/graph.ts`, its
 * states stepped by the Python worker (`explore_start`, `explore_expand` of `protocol.ts`). A
 * state is told apart by the frame, the level's sprites and the game's public fields (the worker
 * hashes them), and each expansion plays every action on a copy of the state, so the graph is
 * the same one `games graph` draws for built-in games, with the same budgets.
 *
 * Clicks: an arcengine game declares no click targets, so the policy clicks at the centre of
 * each visible sprite (`clicks: 'targets'`, the default), or at every cell of the frame
 * (`'cells'`: 4,096 actions per state, each a call into Python: for small levels only).
 */
import { performance } from 'node:perf_hooks';
import {
  ALL_CELLS,
  exploreStates,
  type GraphExpansion,
  type GraphOptions,
  type GraphSuccessor,
  type LevelGraph,
} from '../../core/game/graph';
import type { Arc3Action, Arc3ExploredState } from './protocol';

/** What explores: a worker (`Arc3Worker`) or the pool that pins the run to one (`Arc3Pool`). */
export interface Arc3Explorer {
  exploreStart(
    runId: string,
    gameId: string,
    seed: number,
    level: number,
    codeDir?: string,
  ): Promise<Arc3ExploredState>;
  exploreExpand(runId: string, node: number, actions: readonly Arc3Action[]): Promise<Arc3ExploredState[]>;
  close(runId: string): Promise<void>;
}

/** Defaults of an arcengine graph: every state is a few calls into Python, so smaller than the built-in games'. */
export const ARC3_GRAPH_DEFAULTS = { maxStates: 5_000, maxSeconds: 60 } as const;

/** A state as the explorer keeps it: the worker's id, with the actions it offers. */
interface Held {
  readonly node: number;
  readonly offered: readonly number[];
  readonly targets: readonly (readonly [number, number])[];
}

function codeAction(code: number): Arc3Action {
  if (code < 8) return { action: `ACTION${code}` as Arc3Action['action'] };
  const c = code - 8;
  return { action: 'ACTION6', x: c % 64, y: Math.floor(c / 64) };
}

function successor(s: Arc3ExploredState): GraphSuccessor<Held> {
  return {
    value: {
      node: s.node,
      offered: (s.available_actions ?? []).filter((a) => a >= 1 && a <= 6),
      targets: s.targets ?? [],
    },
    key: String(s.node),
    gameOver: s.state === 'GAME_OVER',
    levelsCompleted: s.levels_completed,
  };
}

/**
 * Explores `level` (0-based) of arcengine game `gameId` breadth-first within the budget
 * (`maxStates`, and `maxSeconds` of wall time, looked at after every expanded state) or until
 * `signal` aborts; either way no call goes to the worker after that state, and its run is closed.
 * @example
 * const g = await exploreArc3Level(worker, 'ft09-0d8bbf25', 0, { maxStates: 2_000, maxSeconds: 30 });
 * analyzeGraph(g).shortest; // e.g. { length: 6, actions: 'ACTION6:12:30,...' }
 */
export async function exploreArc3Level(
  explorer: Arc3Explorer,
  gameId: string,
  level: number,
  options: Omit<GraphOptions, 'shouldStop'> & {
    maxSeconds?: number;
    runId?: string;
    codeDir?: string;
    /** Stops the exploration after the expansion under way, as the budget does (a researcher's Cancel). */
    signal?: AbortSignal;
  } = {},
): Promise<LevelGraph> {
  const runId = options.runId ?? `graph-${gameId}-${level}-${Date.now().toString(36)}`;
  const seed = options.seed ?? 0;
  const clicks = options.clicks ?? 'targets';
  const deadline = performance.now() + (options.maxSeconds ?? ARC3_GRAPH_DEFAULTS.maxSeconds) * 1000;
  try {
    const start = await explorer.exploreStart(runId, gameId, seed, level, options.codeDir);
    const it = exploreStates(gameId, level, successor(start), {
      seed,
      maxStates: options.maxStates ?? ARC3_GRAPH_DEFAULTS.maxStates,
      clicks,
      onProgress: options.onProgress,
      shouldStop: () => performance.now() > deadline || options.signal?.aborted === true,
      checkEvery: 1,
    });
    for (let step = it.next(); ;) {
      if (step.done) return step.value;
      const held = step.value.value;
      const offered = held.offered;
      const clickCodes = !offered.includes(6)
        ? []
        : clicks === 'cells'
          ? ALL_CELLS
          : held.targets.map(([x, y]) => 8 + y * 64 + x);
      const codes = [...offered.filter((a) => a !== 6), ...clickCodes];
      const results = codes.length ? await explorer.exploreExpand(runId, held.node, codes.map(codeAction)) : [];
      const expansion: GraphExpansion<Held> = {
        offered,
        clicks: clickCodes,
        next: results.map((r) => (r.node === held.node ? null : successor(r))),
      };
      step = it.next(expansion);
    }
  } finally {
    await explorer.close(runId).catch(() => undefined);
  }
}
