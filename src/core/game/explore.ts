/**
 * Designer tools on top of the engine: a breadth-first solver (the fewest actions to win a
 * level) and a seeded random policy (does chance win a level?). Both use `advance`, which draws
 * nothing, so they run at engine speed.
 */
import { advance, availableActions, createRun, stateKey, type Run } from './engine';
import type { GameDefinition } from './define';
import { Rng } from './rng';
import { GameRuleError, type ActionInput } from './types';

const KEYS: Record<number, ActionInput> = {
  1: { action: 'ACTION1' },
  2: { action: 'ACTION2' },
  3: { action: 'ACTION3' },
  4: { action: 'ACTION4' },
  5: { action: 'ACTION5' },
};

/** Options of `solveLevel`. */
export interface SolveOptions {
  /** Cells to try for ACTION6 (default: the game's `clickTargets` of each state, else none). */
  clicks?: readonly (readonly [number, number])[];
  /** Give up after visiting this many states (default 2,000,000). */
  maxStates?: number;
  seed?: number;
}

/**
 * The fewest actions that win `level` from its start (undo and RESET never help and are not
 * tried), or null when none is found within `maxStates`.
 */
export function solveLevel(
  game: GameDefinition<unknown, unknown>,
  level: number,
  options: SolveOptions = {},
): ActionInput[] | null {
  const toClicks = (cells: readonly (readonly [number, number])[]) =>
    cells.map(([x, y]) => ({ action: 'ACTION6', x, y }) as ActionInput);
  const fixed = options.clicks ? toClicks(options.clicks) : null;
  const maxStates = options.maxStates ?? 2_000_000;
  const start = createRun(game, { seed: options.seed, level });
  // Exact keys, never hashes: a collision would prune a state and could hide a shorter solution.
  const seen = new Set<string>([stateKey(start)]);
  type Node = { run: Run<unknown>; input: ActionInput | null; parent: Node | null };
  let frontier: Node[] = [{ run: start, input: null, parent: null }];
  while (frontier.length && seen.size < maxStates) {
    const next: Node[] = [];
    for (const node of frontier) {
      const offered = availableActions(node.run);
      const inputs: ActionInput[] = [];
      for (const a of offered) if (a <= 5) inputs.push(KEYS[a]);
      if (offered.includes(6)) inputs.push(...(fixed ?? toClicks(game.clickTargets?.(node.run.current) ?? [])));
      for (const input of inputs) {
        const run = advance(node.run, input);
        if (run.current === node.run.current) continue;
        const child = { run, input, parent: node };
        if (run.levelsCompleted > level) {
          const path: ActionInput[] = [];
          for (let n: Node | null = child; n && n.input; n = n.parent) path.push(n.input);
          return path.reverse();
        }
        if (run.state !== 'NOT_FINISHED') continue;
        const h = stateKey(run);
        if (seen.has(h)) continue;
        seen.add(h);
        next.push(child);
      }
    }
    frontier = next;
  }
  return null;
}

/** What a random policy did on one level. */
export interface RandomPolicyResult {
  /** Counted steps taken (actions and level RESETs). */
  steps: number;
  /** Step at which the level was first won, or -1. */
  wonAt: number;
  /** GAME_OVERs met (each followed by a level RESET). */
  gameOvers: number;
}

/**
 * Plays `steps` uniformly random available actions on `level` (clicks at uniformly random cells),
 * answering GAME_OVER with a level RESET, and reports whether chance won the level.
 */
export function randomPolicy(
  game: GameDefinition<unknown, unknown>,
  level: number,
  steps: number,
  seed: number,
): RandomPolicyResult {
  const rng = new Rng(seed);
  let run = createRun(game, { seed, level });
  let gameOvers = 0;
  for (let i = 0; i < steps; i++) {
    if (run.state === 'GAME_OVER') {
      gameOvers++;
      run = advance(run, { action: 'RESET' });
      continue;
    }
    const offered = availableActions(run);
    const a = offered[rng.int(offered.length)];
    const input: ActionInput =
      a === 6
        ? { action: 'ACTION6', x: rng.int(64), y: rng.int(64) }
        : { action: `ACTION${a}` as ActionInput['action'] };
    try {
      run = advance(run, input);
    } catch (e) {
      if (e instanceof GameRuleError) throw new Error(`random policy hit a refused action at step ${i}: ${e.message}`);
      throw e;
    }
    if (run.levelsCompleted > level) return { steps: i + 1, wonAt: i + 1, gameOvers };
  }
  return { steps, wonAt: -1, gameOvers };
}
