/**
 * Engine throughput per game, on one core: `actions_per_s` steps the engine without drawing
 * (what validation sweeps and solvers do), `frames_per_s` steps it with every frame drawn (what
 * a player, a replay or the REST protocol needs). Both play seeded random available actions on
 * every level, answering GAME_OVER with a level RESET. `solve_ms` is the breadth-first solver
 * (exact state keys) finding the shortest solution of every level, as `games verify --minimal` does.
 */
import { performance } from 'node:perf_hooks';
import {
  Rng,
  advance,
  availableActions,
  createRun,
  solveLevel,
  step,
  type ActionInput,
  type GameDefinition,
  type Run,
} from '../core/game';
import { games } from '../games';
import type { BenchResult } from './result';
import { percentile } from './measure';

const KEYS: ActionInput[] = [1, 2, 3, 4, 5].map((a) => ({ action: `ACTION${a}` }) as ActionInput);
const RESET: ActionInput = { action: 'RESET' };
const UNDO: ActionInput = { action: 'ACTION7' };

/** A random available action (clicks at random cells), or RESET after GAME_OVER. */
function pick(run: Run<unknown>, rng: Rng): ActionInput {
  if (run.state === 'GAME_OVER') return RESET;
  const offered = availableActions(run);
  const a = offered[rng.int(offered.length)];
  if (a === 6) return { action: 'ACTION6', x: rng.int(64), y: rng.int(64) };
  return a === 7 ? UNDO : KEYS[a - 1];
}

/** Runs `perLevel` random steps on each level, repeated until `budgetMs` is spent; counts steps and frames. */
function measure(
  game: GameDefinition<unknown, unknown>,
  draw: boolean,
  perLevel: number,
  budgetMs: number,
): { steps: number; frames: number; ms: number } {
  const rng = new Rng(42);
  let steps = 0,
    frames = 0;
  const t0 = performance.now();
  do {
    for (let level = 0; level < game.levels.length; level++) {
      let run = createRun(game, { level, seed: level });
      for (let i = 0; i < perLevel; i++) {
        const input = pick(run, rng);
        if (draw) {
          const r = step(run, input);
          run = r.run;
          frames += r.response.frame.length;
        } else {
          run = advance(run, input);
        }
        // A won level is restarted so every step plays the level under test.
        if (run.levelsCompleted > level) run = createRun(game, { level, seed: level });
      }
      steps += perLevel;
    }
  } while (performance.now() - t0 < budgetMs);
  return { steps, frames, ms: performance.now() - t0 };
}

/** The median rate over `samples` runs of about 200 ms each, after a warm-up: medians resist the noise of shared machines. */
function rate(game: GameDefinition<unknown, unknown>, draw: boolean, samples = 5): number {
  const perLevel = draw ? 1_000 : 5_000;
  measure(game, draw, perLevel, 300);
  const rates: number[] = [];
  for (let i = 0; i < samples; i++) {
    const m = measure(game, draw, perLevel, 200);
    rates.push(((draw ? m.frames : m.steps) / m.ms) * 1000);
  }
  return Math.round(percentile(rates, 50));
}

/** Milliseconds to solve every level of `game` breadth-first (one pass: it takes seconds). */
function solveAll(game: GameDefinition<unknown, unknown>): number {
  const t0 = performance.now();
  for (let level = 0; level < game.levels.length; level++) solveLevel(game, level);
  return Math.round(performance.now() - t0);
}

export function* run(): Iterable<BenchResult> {
  for (const game of Object.values(games)) {
    yield { name: `game.${game.id}.actions_per_s`, value: rate(game, false), unit: 'actions/s' };
    yield { name: `game.${game.id}.frames_per_s`, value: rate(game, true), unit: 'frames/s' };
    yield { name: `game.${game.id}.solve_ms`, value: solveAll(game), unit: 'ms' };
  }
}
