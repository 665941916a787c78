/**
 * The state graph of a level, explored breadth-first from its start state, and what it says:
 * size, depth, merges, cycles, dead ends, GAME_OVER states, the shortest solution, and (when the
 * whole graph was explored) the exact probability that a uniform random policy wins within K
 * actions, from the graph as an absorbing Markov chain.
 *
 * Nodes are `stateKey`s (exact, never hashes). Edges are the actions other than undo and RESET,
 * as in `solveLevel`: undo returns to wherever the history says, which a state key does not hold,
 * so a walk with undo is not a walk on this graph. Winning the level leads to one absorbing node,
 * WIN. GAME_OVER states have one edge, the level RESET, back to the start.
 *
 * The random policy of the probabilities: in each state, uniform over the available actions
 * except undo (and RESET); a click at a uniformly random cell of the 64x64 frame, so all 4096
 * cells are tried in every state (a clickable thing usually covers many cells: one declared
 * target per thing would undercount its chance many times over). With `clicks: 'targets'` a click
 * goes to one of the game's declared `clickTargets` instead, as `games validate --clicks targets`
 * does. A no-op action still costs one step.
 * @example
 * const g = exploreLevel(game, 2, { maxStates: 100_000 });
 * const a = analyzeGraph(g);
 * a.shortest; // fewest actions to win, or null
 * winProbabilities(g, [10, 100]); // [{ k: 10, p: ... }, ...] when g.complete
 */
import type { GameDefinition } from './define';
import { advance, availableActions, createRun, stateKey, type Run } from './engine';
import type { ActionInput } from './types';

/** Node index of the absorbing WIN node. */
export const WIN_NODE = -1;

/** Options of `exploreLevel`. */
export interface GraphOptions {
  /** Seed of the run (the game's PRNG is part of the state). Default 0. */
  seed?: number;
  /** Stop after this many states (default 500,000). */
  maxStates?: number;
  /** Asked every 1,024 states: return true to stop (a time budget; `src/core` has no clock). */
  shouldStop?: () => boolean;
  /** Where the policy clicks: any cell (default) or, when the game declares them, its click targets. */
  clicks?: 'cells' | 'targets';
  /** Called every 1,024 states with the states found so far. */
  onProgress?: (states: number) => void;
}

/**
 * A level's state graph in compact arrays. State 0 is the start. The edges of state `i` are
 * `to[offsets[i] .. offsets[i+1])` with their action codes and the probabilities the random
 * policy takes them; `selfLoop[i]` is the probability of an action that changes nothing.
 * Only expanded states (the first `expanded`) have edges.
 */
export interface LevelGraph {
  readonly game: string;
  readonly level: number;
  readonly seed: number;
  /** States found (expanded or on the frontier). */
  readonly states: number;
  /** States whose actions were all tried. */
  readonly expanded: number;
  /** True when every reachable state was expanded within the budget. */
  readonly complete: boolean;
  readonly offsets: Int32Array;
  readonly to: Int32Array;
  /** Action code: 1-5 for ACTION1-5, 8 + y*64 + x for a click at (x, y), 0 for the RESET after GAME_OVER. */
  readonly action: Int32Array;
  readonly prob: Float64Array;
  readonly selfLoop: Float64Array;
  /** Breadth-first depth of each state from the start. */
  readonly depth: Int32Array;
  /** Parent state and action code on a shortest path from the start (-1 and 0 for the start). */
  readonly parent: Int32Array;
  readonly parentAction: Int32Array;
  /** 1 for GAME_OVER states. */
  readonly gameOver: Uint8Array;
  /** Where the policy clicks: the declared targets, every cell, or nowhere (ACTION6 never offered). */
  readonly clicks: 'targets' | 'cells' | 'none';
}

/** Text of an action code, e.g. `ACTION6:12:30`. */
export function actionCodeText(code: number): string {
  if (code === 0) return 'RESET';
  if (code < 8) return `ACTION${code}`;
  const c = code - 8;
  return `ACTION6:${c % 64}:${Math.floor(c / 64)}`;
}

function codeInput(code: number): ActionInput {
  if (code < 8) return { action: `ACTION${code}` as ActionInput['action'] };
  const c = code - 8;
  return { action: 'ACTION6', x: c % 64, y: Math.floor(c / 64) };
}

/** A growable Int32/Float64 array. */
class Grow<T extends Int32Array | Float64Array | Uint8Array> {
  length = 0;
  constructor(public data: T) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new (this.data.constructor as new (n: number) => T)(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  done(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

/** Every cell of the 64x64 frame as a click code. */
export const ALL_CELLS: readonly number[] = Array.from({ length: 4096 }, (_, i) => 8 + i);

/**
 * A state met by the explorer. `value` is what the stepper needs to expand it later (a run of the
 * built-in engine, a state id of the Python worker); `key` tells states apart (exact for built-in
 * games). Neither is read for a won level.
 */
export interface GraphSuccessor<S> {
  readonly value: S;
  readonly key: string;
  readonly gameOver: boolean;
  readonly levelsCompleted: number;
}

/** What the stepper answers for one expanded state: the moves the policy can make and where each leads. */
export interface GraphExpansion<S> {
  /** The actions offered (1-6), undo and RESET left out. */
  readonly offered: readonly number[];
  /** The click codes tried for ACTION6 (empty when no click can be tried). */
  readonly clicks: readonly number[];
  /**
   * Where the codes `[...offered without 6, ...clicks]` lead, in that order; null for a move that
   * changes nothing (the stepper may answer null or the state's own key).
   */
  readonly next: readonly (GraphSuccessor<S> | null)[];
}

/** What the explorer asks its stepper for: expand this state. */
export interface GraphRequest<S> {
  readonly value: S;
}

/**
 * The breadth-first explorer of a level's state graph, written once for every kind of game: it
 * yields each state to expand and is resumed with the stepper's {@link GraphExpansion}. Built-in
 * games answer synchronously (`exploreLevel`); arcengine games answer from the Python worker
 * (`src/server/arc3/graph.ts`). `game`, `seed` and `level` only label the result; `start` is the
 * level's start state.
 */
export function* exploreStates<S>(
  game: string,
  level: number,
  start: GraphSuccessor<S>,
  options: GraphOptions & { checkEvery?: number } = {},
): Generator<GraphRequest<S>, LevelGraph, GraphExpansion<S>> {
  const seed = options.seed ?? 0;
  const maxStates = options.maxStates ?? 500_000;
  // How often the budget and progress are looked at: every 1,024 states for the fast engine.
  const every = options.checkEvery ?? 1024;
  const ids = new Map<string, number>([[start.key, 0]]);
  const values: (S | null)[] = [start.value];
  const offsets = new Grow(new Int32Array(1024));
  const to = new Grow(new Int32Array(4096));
  const action = new Grow(new Int32Array(4096));
  const prob = new Grow(new Float64Array(4096));
  const selfLoop = new Grow(new Float64Array(1024));
  const depth = new Grow(new Int32Array(1024));
  const parent = new Grow(new Int32Array(1024));
  const parentAction = new Grow(new Int32Array(1024));
  const gameOver = new Grow(new Uint8Array(1024));
  depth.push(0);
  parent.push(-1);
  parentAction.push(0);
  gameOver.push(start.gameOver ? 1 : 0);
  let clicked = false;
  let expanded = 0;
  let stopped = false;
  const targets = new Map<number, number>();
  while (expanded < values.length) {
    if (expanded % every === 0 && expanded > 0) {
      options.onProgress?.(values.length);
      if (options.shouldStop?.()) {
        stopped = true;
        break;
      }
    }
    if (values.length >= maxStates) {
      stopped = true;
      break;
    }
    const i = expanded++;
    const value = values[i] as S;
    values[i] = null;
    offsets.push(to.length);
    if (gameOver.data[i]) {
      to.push(0);
      action.push(0);
      prob.push(1);
      selfLoop.push(0);
      continue;
    }
    const { offered, clicks, next } = yield { value };
    if (offered.length === 0) {
      // Nothing but undo: the policy can only RESET the level.
      to.push(0);
      action.push(0);
      prob.push(1);
      selfLoop.push(0);
      continue;
    }
    const pAction = 1 / offered.length;
    let loop = 0;
    targets.clear();
    let at = 0;
    const edge = (code: number, p: number) => {
      const n = next[at++];
      if (!n) {
        loop += p;
        return;
      }
      let target: number;
      if (n.levelsCompleted > level) target = WIN_NODE;
      else {
        let id = ids.get(n.key);
        if (id === undefined) {
          id = values.length;
          ids.set(n.key, id);
          values.push(n.value);
          depth.push(depth.data[i] + 1);
          parent.push(i);
          parentAction.push(code);
          gameOver.push(n.gameOver ? 1 : 0);
        }
        if (id === i) {
          loop += p;
          return;
        }
        target = id;
      }
      // Several actions leading to the same state make one edge with their probabilities summed.
      const e = targets.get(target);
      if (e !== undefined) prob.data[e] += p;
      else {
        targets.set(target, to.length);
        to.push(target);
        action.push(code);
        prob.push(p);
      }
    };
    for (const a of offered) if (a !== 6) edge(a, pAction);
    if (offered.includes(6)) {
      clicked = true;
      if (clicks.length === 0) loop += pAction;
      else {
        const pCell = pAction / clicks.length;
        for (const code of clicks) edge(code, pCell);
      }
    }
    selfLoop.push(loop);
  }
  offsets.push(to.length);
  return {
    game,
    level,
    seed,
    states: values.length,
    expanded,
    complete: !stopped && expanded === values.length,
    offsets: offsets.done(),
    to: to.done(),
    action: action.done(),
    prob: prob.done(),
    selfLoop: selfLoop.done(),
    depth: depth.done(),
    parent: parent.done(),
    parentAction: parentAction.done(),
    gameOver: gameOver.done(),
    clicks: clicked ? (options.clicks === 'targets' ? 'targets' : 'cells') : 'none',
  };
}

/** Explores `level` (0-based) of a built-in game breadth-first from its start, within the budget. */
export function exploreLevel(
  game: GameDefinition<unknown, unknown>,
  level: number,
  options: GraphOptions = {},
): LevelGraph {
  const start = createRun(game, { seed: options.seed ?? 0, level });
  const clickMode = options.clicks === 'targets' && game.clickTargets ? 'targets' : 'cells';
  const successor = (run: Run<unknown>): GraphSuccessor<Run<unknown>> => ({
    value: run,
    key: run.levelsCompleted > level ? '' : stateKey(run),
    gameOver: run.state === 'GAME_OVER',
    levelsCompleted: run.levelsCompleted,
  });
  const explorer = exploreStates(game.id, level, successor(start), { ...options, clicks: clickMode });
  for (let step = explorer.next(); ;) {
    if (step.done) return step.value;
    const run = step.value.value;
    const offered = availableActions(run).filter((a) => a !== 7);
    const clicks = !offered.includes(6)
      ? []
      : clickMode === 'targets'
        ? targetCodes(game.clickTargets!(run.current))
        : ALL_CELLS;
    const next: (GraphSuccessor<Run<unknown>> | null)[] = [];
    for (const code of [...offered.filter((a) => a !== 6), ...clicks]) {
      const after = advance(run, codeInput(code));
      const same =
        after.current === run.current && after.state === run.state && after.levelsCompleted === run.levelsCompleted;
      next.push(same ? null : successor(after));
    }
    step = explorer.next({ offered, clicks, next });
  }
}

/** Action codes of the declared targets; a target listed twice is drawn twice as often, as in `randomAction`. */
function targetCodes(cells: readonly (readonly [number, number])[]): number[] {
  return cells.filter(([x, y]) => x >= 0 && x < 64 && y >= 0 && y < 64).map(([x, y]) => 8 + y * 64 + x);
}

/** What the graph says about the level. */
export interface GraphAnalysis {
  readonly states: number;
  /** Distinct transitions between different states (including to WIN and the RESETs after GAME_OVER). */
  readonly edges: number;
  /** Largest breadth-first depth of a state. */
  readonly depth: number;
  /** States reached from more than one state (paths merge there). */
  readonly merges: number;
  /** Cycles: strongly connected groups of more than one state (RESET edges left out), and the states in them. */
  readonly cycles: { readonly components: number; readonly states: number };
  /** Expanded states, not GAME_OVER, from which no path reaches WIN (RESET edges left out); only exact when `complete`. */
  readonly deadEnds: number;
  /** States with no action that changes anything (besides GAME_OVER). */
  readonly stuck: number;
  readonly gameOverStates: number;
  /** Transitions into WIN and the states they leave from. */
  readonly winningMoves: number;
  readonly winningStates: number;
  /** Fewest actions from the start to WIN, with the actions, or null. */
  readonly shortest: { readonly length: number; readonly actions: string } | null;
  readonly complete: boolean;
}

/** Size, depth, merges, cycles, dead ends and the shortest solution of an explored graph. */
export function analyzeGraph(g: LevelGraph): GraphAnalysis {
  const n = g.states,
    m = g.expanded;
  const indegree = new Int32Array(n);
  let edges = 0,
    winningMoves = 0,
    winningStates = 0,
    stuck = 0,
    gameOverStates = 0;
  let best = -1,
    bestFrom = -1,
    bestCode = 0;
  for (let i = 0; i < m; i++) {
    let wins = false;
    let moves = 0;
    for (let e = g.offsets[i]; e < g.offsets[i + 1]; e++) {
      edges++;
      const t = g.to[e];
      if (g.action[e] === 0) continue;
      moves++;
      if (t === WIN_NODE) {
        winningMoves++;
        wins = true;
        if (best < 0 || g.depth[i] + 1 < best) {
          best = g.depth[i] + 1;
          bestFrom = i;
          bestCode = g.action[e];
        }
      } else indegree[t]++;
    }
    if (wins) winningStates++;
    if (!g.gameOver[i] && moves === 0) stuck++;
  }
  let merges = 0,
    depth = 0;
  for (let i = 0; i < n; i++) {
    if (indegree[i] > 1) merges++;
    if (g.depth[i] > depth) depth = g.depth[i];
    if (g.gameOver[i]) gameOverStates++;
  }
  let shortest: GraphAnalysis['shortest'] = null;
  if (bestFrom >= 0) {
    const codes = [bestCode];
    for (let s = bestFrom; s > 0; s = g.parent[s]) codes.push(g.parentAction[s]);
    shortest = { length: best, actions: codes.reverse().map(actionCodeText).join(',') };
  }
  return {
    states: n,
    edges,
    depth,
    merges,
    cycles: stronglyConnected(g),
    deadEnds: countDeadEnds(g),
    stuck,
    gameOverStates,
    winningMoves,
    winningStates,
    shortest,
    complete: g.complete,
  };
}

/** Expanded, non-GAME_OVER states that cannot reach WIN without a RESET. */
function countDeadEnds(g: LevelGraph): number {
  const n = g.states,
    m = g.expanded;
  // Reverse adjacency in CSR form, RESET edges left out.
  const count = new Int32Array(n + 1);
  for (let i = 0; i < m; i++)
    for (let e = g.offsets[i]; e < g.offsets[i + 1]; e++) if (g.action[e] !== 0 && g.to[e] >= 0) count[g.to[e] + 1]++;
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const from = new Int32Array(count[n]);
  const fill = count.slice(0, n);
  for (let i = 0; i < m; i++)
    for (let e = g.offsets[i]; e < g.offsets[i + 1]; e++)
      if (g.action[e] !== 0 && g.to[e] >= 0) from[fill[g.to[e]]++] = i;
  const reaches = new Uint8Array(n);
  const queue: number[] = [];
  for (let i = 0; i < m; i++) {
    for (let e = g.offsets[i]; e < g.offsets[i + 1]; e++) {
      if (g.to[e] === WIN_NODE && !reaches[i]) {
        reaches[i] = 1;
        queue.push(i);
      }
    }
  }
  // States on the frontier may reach WIN: count them as reaching, so a partial graph never overstates dead ends.
  for (let i = m; i < n; i++)
    if (!reaches[i]) {
      reaches[i] = 1;
      queue.push(i);
    }
  for (let q = 0; q < queue.length; q++) {
    const s = queue[q];
    for (let k = count[s]; k < count[s + 1]; k++)
      if (!reaches[from[k]]) {
        reaches[from[k]] = 1;
        queue.push(from[k]);
      }
  }
  let dead = 0;
  for (let i = 0; i < m; i++) if (!reaches[i] && !g.gameOver[i]) dead++;
  return dead;
}

/** Strongly connected components of more than one state (iterative Tarjan; RESET edges left out). */
function stronglyConnected(g: LevelGraph): { components: number; states: number } {
  const n = g.states,
    m = g.expanded;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  const edgeAt = new Int32Array(n);
  let next = 0,
    components = 0,
    states = 0;
  const work: number[] = [];
  for (let root = 0; root < n; root++) {
    if (index[root] >= 0) continue;
    work.push(root);
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = 1;
    edgeAt[root] = root < m ? g.offsets[root] : 0;
    while (work.length) {
      const v = work[work.length - 1];
      const end = v < m ? g.offsets[v + 1] : 0;
      let descended = false;
      while (edgeAt[v] < end) {
        const e = edgeAt[v]++;
        const w = g.to[e];
        if (w < 0 || g.action[e] === 0) continue;
        if (index[w] < 0) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = 1;
          edgeAt[w] = w < m ? g.offsets[w] : 0;
          work.push(w);
          descended = true;
          break;
        }
        if (onStack[w] && index[w] < low[v]) low[v] = index[w];
      }
      if (descended) continue;
      work.pop();
      if (work.length) {
        const u = work[work.length - 1];
        if (low[v] < low[u]) low[u] = low[v];
      }
      if (low[v] === index[v]) {
        let size = 0;
        for (;;) {
          const w = stack.pop()!;
          onStack[w] = 0;
          size++;
          if (w === v) break;
        }
        if (size > 1) {
          components++;
          states += size;
        }
      }
    }
  }
  return { components, states };
}

/** P(win within k actions) for one k. */
export interface WinProbability {
  readonly k: number;
  readonly p: number;
}

/**
 * The exact probability that the random policy (see the module's comment) wins within each `k`
 * actions, from the start: the absorbing chain's distribution pushed forward one action at a
 * time. `ks` is taken in increasing order; it stops before a `k` whose cost would exceed
 * `maxWork` edge visits (default 300 million), so the answer may hold fewer entries.
 * @throws Error when the graph was not fully explored (the chain would be wrong).
 */
export function winProbabilities(g: LevelGraph, ks: readonly number[], maxWork = 3e8): WinProbability[] {
  if (!g.complete)
    throw new Error(
      `the state graph of level ${g.level + 1} was not fully explored, so the exact probabilities are unknown: raise --max-states or --max-seconds.`,
    );
  const n = g.states;
  let p = new Float64Array(n);
  let q = new Float64Array(n);
  p[0] = 1;
  let won = 0;
  const out: WinProbability[] = [];
  const perStep = g.to.length + n;
  let t = 0;
  for (const k of [...ks].sort((a, b) => a - b)) {
    if ((k - t) * perStep > maxWork) break;
    maxWork -= (k - t) * perStep;
    for (; t < k; t++) {
      q.fill(0);
      for (let i = 0; i < n; i++) {
        const mass = p[i];
        if (mass === 0) continue;
        q[i] += mass * g.selfLoop[i];
        for (let e = g.offsets[i]; e < g.offsets[i + 1]; e++) {
          const to = g.to[e];
          if (to === WIN_NODE) won += mass * g.prob[e];
          else q[to] += mass * g.prob[e];
        }
      }
      [p, q] = [q, p];
    }
    out.push({ k, p: Math.min(1, won) });
  }
  return out;
}
