/**
 * Validation throughput, at the paper's full budgets. Per level, `steps_per_s` is the random
 * policy of `games validate` (seeded, `advance` only, nothing drawn) over 1,000,000 steps in this
 * one thread, and `million_steps_s` the seconds those 1,000,000 steps took (the goal: under 10 s).
 * Per game, `full_s` is the whole `games validate` (50,000 and 1,000,000 steps per level and a
 * 1,000,000-step fuzz that draws a frame every 64 steps) on worker threads, one per core, and
 * `chance_wins` the levels after the tutorial that chance won in it (0 is the paper's bar).
 */
import { performance } from 'node:perf_hooks';
import { planValidation, runValidationTask } from '../core/game/validate';
import { games } from '../games';
import type { BenchResult } from './result';
import { defaultThreads, validateBuiltIn } from '../cli/validate';

export async function* run(): AsyncIterable<BenchResult> {
  for (const game of Object.values(games)) {
    const plan = planValidation(game, { regimes: ['long'], seed: 1 });
    for (let level = 0; level < game.levels.length; level++) {
      const tasks = plan.tasks.filter((t) => t.level === level);
      runValidationTask(game, { ...tasks[0], steps: 20_000 });
      const t0 = performance.now();
      let steps = 0;
      for (const task of tasks) steps += runValidationTask(game, task).steps;
      const s = (performance.now() - t0) / 1000;
      yield {
        name: `validate.${game.id}.level${level + 1}.steps_per_s`,
        value: Math.round(steps / s),
        unit: 'steps/s',
      };
      yield {
        name: `validate.${game.id}.level${level + 1}.million_steps_s`,
        value: Number(((s * 1_000_000) / steps).toFixed(2)),
        unit: 's',
      };
    }
    const t0 = performance.now();
    const out = await validateBuiltIn(game, { threads: defaultThreads() });
    yield {
      name: `validate.${game.id}.full_s`,
      value: Number(((performance.now() - t0) / 1000).toFixed(1)),
      unit: 's',
    };
    yield {
      name: `validate.${game.id}.chance_wins`,
      value: out.report.levels.filter((l) => !l.tutorial && !l.ok).length,
      unit: 'levels',
    };
  }
}
