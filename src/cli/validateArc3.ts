/**
 * `games validate` for arcengine games: the same random policy and fuzz as for the built-in games
 * (core/game/validate.ts), played through the official engine in Python workers (`Arc3Pool`, one
 * process per thread). Every action crosses a process boundary, so the budgets are far smaller
 * than the paper's; the report says so and gives the steps actually run.
 *
 * Differences from the built-in fuzz: every frame the engine returns is checked (they come with
 * each action anyway); no action that is not offered is sent (what the official engine does with
 * one is its own rule, not a fault of the game); a game that raises is reported with its Python
 * traceback's last line, and its level is started again.
 */
import { performance } from 'node:perf_hooks';
import { Rng } from '../core/game';
import {
  CHUNK_STEPS,
  MAX_PROBLEMS,
  planValidation,
  summarizeValidation,
  type TaskResult,
  type ValidationProblem,
  type ValidationTask,
} from '../core/game/validate';
import { Arc3Error, resolveGameId, type Arc3Action, type Arc3FrameData } from '../server/arc3/worker';
import { Arc3Pool } from '../server/arc3/pool';
import { ProgressBar, formatValidation, graphReport } from './validate';
import { exploreArc3Level } from '../server/arc3/graph';
import { formatDeterminism } from '../core/game/determinism';
import { checkDeterminism } from '../server/arc3/determinism';

/** Steps per level (policy) and of the fuzz when `--steps` is not given. */
export const ARC3_DEFAULT_STEPS = 2_000;

const STATES = new Set(['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER']);

/** Why an engine response is out of range, or null. */
export function checkFrameData(fd: Arc3FrameData, levels: number): string | null {
  if (!STATES.has(fd.state)) return `state "${String(fd.state)}" is not an official state`;
  if (fd.win_levels !== levels) return `win_levels ${fd.win_levels} differs from the game's ${levels} levels`;
  if (!(Number.isInteger(fd.levels_completed) && fd.levels_completed >= 0 && fd.levels_completed <= levels))
    return `levels_completed ${fd.levels_completed} is outside 0-${levels}`;
  const seen = new Set<number>();
  for (const a of fd.available_actions) {
    if (!(Number.isInteger(a) && a >= 1 && a <= 7)) return `available action ${String(a)} is not an id 1-7`;
    if (seen.has(a)) return `available action ${a} is listed twice`;
    seen.add(a);
  }
  if (fd.state === 'NOT_FINISHED' && fd.available_actions.length === 0)
    return 'no action is available while the level is being played (only RESET)';
  for (const grid of fd.frame) {
    if (grid.length !== 64 || grid.some((row) => row.length !== 64))
      return `frame is ${grid.length}x${grid[0]?.length ?? 0}, not 64x64`;
    for (let y = 0; y < 64; y++) {
      for (let x = 0; x < 64; x++) {
        const v = grid[y][x];
        if (!(Number.isInteger(v) && v >= 0 && v <= 15))
          return `cell (${x}, ${y}) has value ${v}, outside the palette 0-15`;
      }
    }
  }
  return null;
}

/** One task on the official engine, as `runValidationTask` does it on the built-in engine. */
async function runArc3Task(
  pool: Arc3Pool,
  gameId: string,
  levels: number,
  task: ValidationTask,
  runId: string,
  onStep: () => void,
): Promise<TaskResult> {
  const rng = new Rng(task.seed);
  const fuzz = task.regime === 'fuzz';
  let wins = 0,
    firstWin = -1,
    gameOvers = 0,
    frames = 0,
    problemCount = 0,
    restarts = 0;
  const problems = new Map<string, ValidationProblem>();
  const report = (kind: ValidationProblem['kind'], i: number, action: string, message: string) => {
    problemCount++;
    const key = `${kind}|${message}`;
    const seen = problems.get(key);
    if (seen) problems.set(key, { ...seen, count: seen.count + 1 });
    else if (problems.size < MAX_PROBLEMS)
      problems.set(key, { kind, level: task.level, step: i, action, message, seed: task.seed, count: 1 });
  };
  const open = async () => (await pool.open(runId, gameId, task.seed + restarts, task.level)).frame;
  let fd = await open();
  try {
    for (let i = 1; i <= task.steps; i++) {
      let action: Arc3Action;
      if (fd.state === 'GAME_OVER' || fd.state === 'WIN' || (fuzz && rng.next() < 0.01)) action = { action: 'RESET' };
      else {
        const offered = fd.available_actions;
        const a = offered[rng.int(offered.length)];
        action =
          a === 6
            ? { action: 'ACTION6', x: rng.int(64), y: rng.int(64) }
            : { action: `ACTION${a}` as Arc3Action['action'] };
      }
      if (fd.state === 'GAME_OVER') gameOvers++;
      const text = action.action === 'ACTION6' ? `ACTION6:${action.x}:${action.y}` : action.action;
      const before = fd.levels_completed;
      try {
        fd = await pool.act(runId, action);
      } catch (e) {
        if (!(e instanceof Arc3Error) || e.code !== 'game_error') throw e;
        const last = e.traceback?.trim().split('\n').at(-1);
        report('exception', i, text, `${e.message}${last && !e.message.includes(last) ? ` (${last})` : ''}`);
        restarts++;
        await pool.close(runId);
        fd = await open();
        onStep();
        continue;
      }
      frames += fd.frame.length;
      const bad = checkFrameData(fd, levels);
      if (bad) report(/frame|cell/.test(bad) ? 'frame' : 'field', i, text, bad);
      if (fd.levels_completed > before && fd.levels_completed > task.level) {
        wins++;
        if (firstWin < 0) firstWin = i;
        // Start the level under test again.
        restarts++;
        await pool.close(runId);
        fd = await open();
      } else if (fd.full_reset && task.level > 0) {
        restarts++;
        await pool.close(runId);
        fd = await open();
      }
      onStep();
    }
  } finally {
    await pool.close(runId).catch(() => undefined);
  }
  return {
    task,
    steps: task.steps,
    wins,
    firstWin,
    gameOvers,
    frames: fuzz ? frames : 0,
    problems: [...problems.values()],
    problemCount,
  };
}

const processes = (n: number) => (n === 1 ? 'one engine process' : `${n} engine processes`);

/** `games validate` of an arcengine game, on `threads` engine processes. */
export async function validateArc3(
  dirs: string[],
  engine: string,
  id: string,
  options: { seed: number; steps?: number; level?: number; threads: number },
): Promise<{ ok: boolean; lines: string[]; json: Record<string, unknown> }> {
  const steps = options.steps ?? ARC3_DEFAULT_STEPS;
  const pool = new Arc3Pool({ gameDirs: dirs, size: options.threads, timeoutMs: 60_000 });
  try {
    const infos = await pool.list();
    const gameId = resolveGameId(
      id,
      infos.map((g) => g.game_id),
    );
    const info = infos.find((g) => g.game_id === gameId)!;
    if (info.error) throw new Error(`${gameId} cannot be loaded: ${info.error.message}`);
    const levels = info.level_count ?? (await pool.open('validate-probe', gameId)).frame.win_levels;
    await pool.close('validate-probe').catch(() => undefined);
    if (options.level !== undefined && options.level > levels)
      throw new Error(`level ${options.level} does not exist in ${gameId}: it has levels 1-${levels}.`);
    const outline = { id: gameId, levels: { length: levels } };
    // One policy run per level: with budgets this small the short regime would only repeat it.
    const plan = planValidation(outline, {
      seed: options.seed,
      steps,
      level: options.level !== undefined ? options.level - 1 : undefined,
      regimes: ['long', 'fuzz'],
    });
    const total = plan.tasks.reduce((s, t) => s + t.steps, 0);
    const bar = new ProgressBar(`validate ${gameId}`, total);
    const t0 = performance.now();
    let done = 0;
    const queue = [...plan.tasks];
    const results: TaskResult[] = [];
    try {
      await Promise.all(
        Array.from({ length: Math.min(options.threads, queue.length) }, async (_, lane) => {
          for (let task = queue.shift(); task; task = queue.shift()) {
            results.push(
              await runArc3Task(
                pool,
                gameId,
                levels,
                task,
                `validate-${lane}-${task.regime}-${task.level}-${task.chunk}`,
                () => bar.update(++done),
              ),
            );
          }
        }),
      );
    } finally {
      bar.finish();
    }
    const determinism = await checkDeterminism(pool, gameId, { seed: options.seed });
    const seconds = (performance.now() - t0) / 1000;
    const report = summarizeValidation(outline, plan, results);
    const rate = Math.round(report.totalSteps / seconds);
    const note = `on the official engine (${engine}): ${steps.toLocaleString('en-US')} policy steps per level and ${steps.toLocaleString('en-US')} fuzz steps, far below the paper's 50,000 and 1,000,000 (raise --steps; every action is a call into Python)`;
    const lines = formatValidation(
      report,
      note,
      () => null,
      'The fuzz adds a RESET (1%) to the policy and checks every frame and field the engine returns.',
    );
    lines.push(...formatDeterminism(determinism));
    lines.push(
      `${report.totalSteps.toLocaleString('en-US')} steps run in ${seconds.toFixed(1)} s on ${processes(Math.min(options.threads, plan.tasks.length))} (${rate.toLocaleString('en-US')} steps/s in all).`,
    );
    const json = {
      game: info.game,
      version: gameId,
      engine,
      ok: report.ok && determinism.deterministic,
      deterministic: determinism.deterministic,
      ...(determinism.deterministic ? {} : { divergence: determinism.divergence }),
      seed: report.seed,
      clicks: 'cells',
      steps: report.steps,
      total_steps: report.totalSteps,
      threads: Math.min(options.threads, plan.tasks.length),
      seconds: Number(seconds.toFixed(3)),
      steps_per_s: rate,
      levels: report.levels.map((l) => ({ ...l, level: l.level + 1 })),
      problems: report.problems.map((p) => ({ ...p, level: p.level + 1 })),
      problem_count: report.problemCount,
      note: 'arcengine: one policy regime of `steps` per level (the short regime is not run separately), every returned frame checked, no unoffered actions sent',
      chunk_steps: CHUNK_STEPS,
    };
    return { ok: report.ok && determinism.deterministic, lines, json };
  } finally {
    await pool.stop().catch(() => undefined);
  }
}

/**
 * `games graph` for an arcengine game: the level's state graph explored through one Python
 * worker (`server/arc3/graph.ts`) within the budget, printed as for built-in games. `level` is
 * 1-based, as on the command line.
 */
export async function graphArc3(
  dirs: string[],
  engine: string,
  id: string,
  options: { level: number; seed: number; maxStates: number; maxSeconds: number; clicks: 'cells' | 'targets' },
): Promise<{ lines: string[]; json: Record<string, unknown> }> {
  const pool = new Arc3Pool({ gameDirs: dirs, size: 1, timeoutMs: 60_000 });
  try {
    const infos = await pool.list();
    const gameId = resolveGameId(
      id,
      infos.map((g) => g.game_id),
    );
    const info = infos.find((g) => g.game_id === gameId)!;
    if (info.error) throw new Error(`${gameId} cannot be loaded: ${info.error.message}`);
    const levels = info.level_count;
    if (levels !== null && options.level > levels)
      throw new Error(`level ${options.level} does not exist in ${gameId}: it has levels 1-${levels}.`);
    const bar = new ProgressBar(`graph ${gameId} level ${options.level}`, options.maxStates, 'states');
    const t0 = performance.now();
    let g;
    try {
      g = await exploreArc3Level(pool, gameId, options.level - 1, {
        seed: options.seed,
        maxStates: options.maxStates,
        maxSeconds: options.maxSeconds,
        clicks: options.clicks,
        onProgress: (n) => bar.update(n),
      });
    } finally {
      bar.finish();
    }
    const baseline = info.baseline_actions[options.level - 1];
    const out = graphReport(
      { ...g, game: info.game },
      {
        version: gameId,
        engine,
        recorded: null,
        maxStates: options.maxStates,
        maxSeconds: options.maxSeconds,
        seconds: (performance.now() - t0) / 1000,
        targets: 'clicks at the centre of a uniformly random visible sprite',
      },
    );
    out.lines.splice(
      1,
      0,
      `states told apart by the frame, the level's sprites and the game's public fields (a SHA-256 digest), each action played on a copy of the state in the official engine${baseline ? `; the game's baseline for this level: ${baseline} actions` : ''}`,
    );
    return {
      lines: out.lines,
      json: {
        ...out.json,
        baseline_actions: baseline ?? null,
        state_key: "sha256 of the frame, the level, state and score, the level's sprites and the game's public fields",
      },
    };
  } finally {
    await pool.stop().catch(() => undefined);
  }
}
