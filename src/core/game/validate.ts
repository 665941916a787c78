/**
 * Validation of a game as section 3.5 of the ARC-AGI-3 paper does it, split into tasks that any
 * number of threads can run (the CLI spreads them over worker threads; a Web Worker can run them
 * too):
 *
 * - `short`: per level, a seeded random policy of 50,000 steps must win no level after the
 *   tutorial (level index 0);
 * - `long`: per level, 1,000,000 steps must beat no level after the tutorial;
 * - `fuzz`: 1,000,000 steps split across the levels, with stray RESETs and actions that are not
 *   offered, reporting any exception, any frame that is not 64x64 with values 0-15 and any field
 *   of the run out of range.
 *
 * The random policy picks uniformly among the available actions (undo included); a click goes to
 * a uniformly random cell, or with `clicks: 'targets'` to one of the game's declared
 * `clickTargets` (uniformly random cells when it declares none). GAME_OVER is answered by a level
 * RESET, which counts as a step, and a won level is started again, so every step plays the level
 * under test.
 *
 * Every task is a pure function of the game, its kind, level, steps and seed: the same report on
 * any machine and any number of threads (tasks have a fixed size, `CHUNK_STEPS`).
 * @example
 * const plan = planValidation(game, { seed: 1, steps: 10_000 });
 * const report = summarizeValidation(game, plan, plan.tasks.map((t) => runValidationTask(game, t)));
 * report.ok; // false when chance won a level after the tutorial or the fuzz found a problem
 */
import type { GameDefinition } from './define';
import { advance, availableActions, createRun, renderRun, stateKey, step, type Run } from './engine';
import { Rng, mixSeed } from './rng';
import { FRAME_CELLS, GameRuleError, type ActionId, type ActionInput, type Frame, type GameState } from './types';

/** Steps of the short regime of the paper: chance must win no level after the tutorial. */
export const SHORT_STEPS = 50_000;
/** Steps of the long regime and of the fuzz. */
export const LONG_STEPS = 1_000_000;
/** The largest task: regimes are cut into tasks of at most this many steps, each with its own seed. */
export const CHUNK_STEPS = 125_000;
/** The fuzz draws every frame at least this often (and whenever the level or the state changes). */
export const FRAME_EVERY = 64;

/** Where random clicks go. */
export type ClickPolicy = 'cells' | 'targets';
/** The three checks. */
export type Regime = 'short' | 'long' | 'fuzz';

const KEYS: readonly ActionInput[] = [0, 1, 2, 3, 4, 5, 6, 7].map(
  (a) => ({ action: a === 0 ? 'RESET' : `ACTION${a}` }) as ActionInput,
);
const RESET = KEYS[0];

/**
 * One random action of the policy for `run` (which must be NOT_FINISHED): uniform over the
 * available actions; clicks at a random cell or, with `clicks: 'targets'`, a random declared target.
 */
export function randomAction(run: Run<unknown>, rng: Rng, clicks: ClickPolicy = 'cells'): ActionInput {
  const offered = availableActions(run);
  if (offered.length === 0) return RESET;
  const a = offered[rng.int(offered.length)];
  if (a !== 6) return KEYS[a];
  if (clicks === 'targets') {
    const targets = run.game.clickTargets?.(run.current);
    if (targets && targets.length) {
      const [x, y] = targets[rng.int(targets.length)];
      return { action: 'ACTION6', x, y };
    }
  }
  return { action: 'ACTION6', x: rng.int(64), y: rng.int(64) };
}

/** Options of `planValidation`. */
export interface ValidationOptions {
  /** Seed of the policy (default 0); each task derives its own. */
  seed?: number;
  /** Steps of the long regime and of the fuzz (default 1,000,000); the short regime takes min(50,000, steps). */
  steps?: number;
  /** Steps of the short regime (default min(50,000, steps)). */
  shortSteps?: number;
  /** Steps of the fuzz (default `steps`). */
  fuzzSteps?: number;
  /** Only this level (0-based); default all. The fuzz then stays on it too. */
  level?: number;
  /** Where random clicks go (default `cells`, as the paper's random agent). */
  clicks?: ClickPolicy;
  /** The regimes to run (default all three). */
  regimes?: readonly Regime[];
}

/** One unit of work: `steps` steps of one regime on one level, from its own seed. */
export interface ValidationTask {
  readonly regime: Regime;
  readonly level: number;
  /** Index of this task among the tasks of its regime and level; steps before it: `chunk * CHUNK_STEPS`. */
  readonly chunk: number;
  readonly steps: number;
  readonly seed: number;
  readonly clicks: ClickPolicy;
}

/** What `planValidation` decided, with the tasks to run. */
export interface ValidationPlan {
  readonly seed: number;
  readonly clicks: ClickPolicy;
  readonly levels: readonly number[];
  readonly steps: Readonly<Record<Regime, number>>;
  readonly tasks: readonly ValidationTask[];
}

/** What planning and summing up need of a game: its id and its number of levels (arcengine games have no definition here). */
export type GameOutline = Pick<GameDefinition<unknown, unknown>, 'id'> & {
  readonly levels: { readonly length: number };
};

const REGIME_SALT: Record<Regime, number> = { short: 1, long: 2, fuzz: 3 };

/** Cuts the regimes into tasks of at most `CHUNK_STEPS` steps with derived seeds. */
export function planValidation(game: GameOutline, options: ValidationOptions = {}): ValidationPlan {
  const seed = (options.seed ?? 0) | 0;
  const long = options.steps ?? LONG_STEPS;
  const steps: Record<Regime, number> = {
    short: options.shortSteps ?? Math.min(SHORT_STEPS, long),
    long,
    fuzz: options.fuzzSteps ?? long,
  };
  for (const [regime, n] of Object.entries(steps)) {
    if (options.regimes && !options.regimes.includes(regime as Regime)) continue;
    if (!(Number.isInteger(n) && n >= 1))
      throw new RangeError(`the ${regime} regime needs a whole number of steps from 1, not ${n}.`);
  }
  const count = game.levels.length;
  if (
    options.level !== undefined &&
    !(Number.isInteger(options.level) && options.level >= 0 && options.level < count)
  ) {
    throw new RangeError(`level ${options.level + 1} does not exist in "${game.id}": it has levels 1-${count}.`);
  }
  const levels = options.level !== undefined ? [options.level] : Array.from({ length: count }, (_, i) => i);
  const clicks = options.clicks ?? 'cells';
  const regimes = options.regimes ?? ['short', 'long', 'fuzz'];
  // A regime that is not run has 0 steps in the plan and the report.
  for (const r of ['short', 'long', 'fuzz'] as const) if (!regimes.includes(r)) steps[r] = 0;
  const tasks: ValidationTask[] = [];
  const cut = (regime: Regime, level: number, total: number) => {
    for (let chunk = 0; chunk * CHUNK_STEPS < total; chunk++) {
      const n = Math.min(CHUNK_STEPS, total - chunk * CHUNK_STEPS);
      tasks.push({
        regime,
        level,
        chunk,
        steps: n,
        seed: mixSeed(mixSeed(seed, REGIME_SALT[regime]), level * 65_536 + chunk),
        clicks,
      });
    }
  };
  for (const regime of regimes) {
    if (regime === 'fuzz') {
      // The fuzz's budget is shared by the levels, the first ones taking the remainder.
      levels.forEach((level, i) => {
        const share = Math.floor(steps.fuzz / levels.length) + (i < steps.fuzz % levels.length ? 1 : 0);
        if (share > 0) cut('fuzz', level, share);
      });
    } else for (const level of levels) cut(regime, level, steps[regime]);
  }
  return { seed, clicks, levels, steps, tasks };
}

/** A problem the fuzz found (or an exception a policy regime met). */
export interface ValidationProblem {
  readonly kind: 'exception' | 'refused' | 'frame' | 'field' | 'render' | 'mutation';
  readonly level: number;
  /** Step within the task, from 1. */
  readonly step: number;
  /** The action that led to it, e.g. `ACTION6:3:9`. */
  readonly action: string;
  readonly message: string;
  /** Seed of the task, to run it again. */
  readonly seed: number;
  /** How often this problem (same kind, level and message) occurred. */
  readonly count: number;
  /**
   * How to meet it again (fuzz problems): from `createRun(game, { seed, level })` play `actions`
   * (comma-separated, as `parseActions` reads them); absent when over `MAX_TRAIL` actions.
   */
  readonly reproduce?: { readonly seed: number; readonly actions: string };
}

/** The longest action trail a problem keeps to reproduce it. */
export const MAX_TRAIL = 2_000;

/** What one task found. */
export interface TaskResult {
  readonly task: ValidationTask;
  readonly steps: number;
  /** Levels won (each won level is started again). */
  readonly wins: number;
  /** Step (from 1, within the task) of the first win, or -1. */
  readonly firstWin: number;
  readonly gameOvers: number;
  /** Frames drawn and checked (fuzz only). */
  readonly frames: number;
  /** Distinct problems found (fuzz only), at most `MAX_PROBLEMS` kept; `problemCount` counts them all. */
  readonly problems: readonly ValidationProblem[];
  readonly problemCount: number;
}

/** Distinct problems kept per task and per report (the rest are only counted). */
export const MAX_PROBLEMS = 20;

const STATES: ReadonlySet<GameState> = new Set(['NOT_PLAYED', 'NOT_FINISHED', 'WIN', 'GAME_OVER']);

/** Why a frame is invalid (not 64x64 cells, or a value outside 0-15), or null when it is valid. */
export function checkFrame(frame: Frame): string | null {
  if (!(frame instanceof Uint8Array) || frame.length !== FRAME_CELLS) {
    return `frame has ${(frame as { length?: number })?.length ?? 'no'} cells, not 64x64 = 4096`;
  }
  for (let i = 0; i < FRAME_CELLS; i++) {
    if (frame[i] > 15) return `cell (${i % 64}, ${Math.floor(i / 64)}) has value ${frame[i]}, outside the palette 0-15`;
  }
  return null;
}

/** Why a run's fields are out of range or inconsistent, or null when they are fine. */
export function checkRun(run: Run<unknown>): string | null {
  const n = run.game.levels.length;
  if (!STATES.has(run.state)) return `state "${String(run.state)}" is not an official state`;
  if (!(Number.isInteger(run.levelsCompleted) && run.levelsCompleted >= 0 && run.levelsCompleted <= n))
    return `levels_completed ${run.levelsCompleted} is outside 0-${n}`;
  if (!(Number.isInteger(run.level) && run.level >= 0 && run.level < n))
    return `level index ${run.level} is outside 0-${n - 1}`;
  if ((run.state === 'WIN') !== (run.levelsCompleted === n))
    return `state ${run.state} with levels_completed ${run.levelsCompleted} of ${n}`;
  if (run.state !== 'WIN' && run.level !== run.levelsCompleted)
    return `level index ${run.level} differs from levels_completed ${run.levelsCompleted}`;
  if (!(Number.isInteger(run.actions) && run.actions >= 0))
    return `action count ${run.actions} is not a whole number from 0`;
  const offered = availableActions(run);
  const seen = new Set<number>();
  for (const a of offered) {
    if (!(Number.isInteger(a) && a >= 1 && a <= 7)) return `available action ${String(a)} is not an id 1-7`;
    if (seen.has(a)) return `available action ${a} is listed twice`;
    seen.add(a);
  }
  if (run.state === 'NOT_FINISHED') {
    if (offered.length === 0) return 'no action is available while the level is being played (only RESET)';
    const outcome = run.game.outcome(run.current);
    if (outcome !== 'playing')
      return `the level is being played but its state is ${outcome === 'won' ? 'won' : 'lost'} (a level that starts ${outcome === 'won' ? 'won' : 'lost'}?)`;
  }
  return null;
}

function describe(input: ActionInput): string {
  return input.action === 'ACTION6' ? `ACTION6:${input.x}:${input.y}` : input.action;
}

/** Progress callback: called with the steps done so far in the task, about every 65,536 steps. */
export type ProgressCallback = (stepsDone: number) => void;

const PROGRESS_EVERY = 65_536;

/** Runs one task. Pure: the same task gives the same result. */
export function runValidationTask(
  game: GameDefinition<unknown, unknown>,
  task: ValidationTask,
  onProgress?: ProgressCallback,
): TaskResult {
  return task.regime === 'fuzz' ? fuzz(game, task, onProgress) : chance(game, task, onProgress);
}

/** The random policy on one level: counts wins and GAME_OVERs. The hot loop: `advance` only. */
function chance(
  game: GameDefinition<unknown, unknown>,
  task: ValidationTask,
  onProgress?: ProgressCallback,
): TaskResult {
  const rng = new Rng(task.seed);
  const level = task.level;
  let run = createRun(game, { seed: task.seed, level });
  let wins = 0,
    firstWin = -1,
    gameOvers = 0,
    restarts = 0,
    problemCount = 0;
  const problems: ValidationProblem[] = [];
  for (let i = 1; i <= task.steps; i++) {
    let input = RESET;
    try {
      if (run.state === 'GAME_OVER') {
        gameOvers++;
        run = advance(run, RESET);
      } else {
        input = randomAction(run, rng, task.clicks);
        run = advance(run, input);
        if (run.levelsCompleted > level) {
          wins++;
          if (firstWin < 0) firstWin = i;
          run = createRun(game, { seed: task.seed + ++restarts, level });
        }
      }
    } catch (e) {
      // The fuzz looks for these; here they are counted, the first one kept, and the level started again.
      problemCount++;
      if (!problems.length)
        problems.push({
          kind: e instanceof GameRuleError ? 'refused' : 'exception',
          level,
          step: i,
          action: describe(input),
          message: errorText(e),
          seed: task.seed,
          count: 1,
        });
      run = createRun(game, { seed: task.seed + ++restarts, level });
    }
    if (onProgress && (i & (PROGRESS_EVERY - 1)) === 0) onProgress(i);
  }
  if (problems.length) problems[0] = { ...problems[0], count: problemCount };
  return { task, steps: task.steps, wins, firstWin, gameOvers, frames: 0, problems, problemCount };
}

/**
 * The fuzz: the random policy plus a stray RESET (1%) and an arbitrary action (1%: any id 1-7,
 * clicks possibly off the frame) that the rules must either take or refuse with a
 * `GameRuleError`. Every step's run is checked (`checkRun`); frames are drawn through `step`
 * (animation frames included) every `FRAME_EVERY` steps and whenever the level or the official
 * state changes, and checked (`checkFrame`), with the previous run's `stateKey` compared before
 * and after to catch a `step` that mutates its state.
 */
function fuzz(game: GameDefinition<unknown, unknown>, task: ValidationTask, onProgress?: ProgressCallback): TaskResult {
  const rng = new Rng(task.seed);
  const level = task.level;
  let run = createRun(game, { seed: task.seed, level });
  let wins = 0,
    firstWin = -1,
    gameOvers = 0,
    frames = 0,
    problemCount = 0,
    restarts = 0;
  // The first occurrence of each distinct problem, with a count.
  const problems = new Map<string, ValidationProblem>();
  const report = (kind: ValidationProblem['kind'], i: number, input: ActionInput | null, message: string) => {
    problemCount++;
    const key = `${kind}|${run.level}|${message}`;
    const seen = problems.get(key);
    if (seen) problems.set(key, { ...seen, count: seen.count + 1 });
    else if (problems.size < MAX_PROBLEMS) {
      const reproduce =
        trail.length <= MAX_TRAIL ? { seed: trailSeed, actions: trail.map(describe).join(',') } : undefined;
      problems.set(key, {
        kind,
        level: run.level,
        step: i,
        action: input ? describe(input) : '(level start)',
        message,
        seed: task.seed,
        count: 1,
        reproduce,
      });
    }
  };
  // The actions since the level under test was last at its start (a restart or a RESET), and the
  // run's seed: from `createRun(game, { seed, level })` they lead to the problem.
  let trail: ActionInput[] = [];
  let trailSeed = task.seed;
  const restart = () => {
    restarts++;
    trailSeed = task.seed + restarts;
    trail = [];
    run = createRun(game, { seed: trailSeed, level });
  };
  const startProblem = checkRun(run);
  if (startProblem) report('field', 0, null, startProblem);
  for (let i = 1; i <= task.steps; i++) {
    let input: ActionInput;
    let stray = false;
    const roll = rng.next();
    if (run.state === 'GAME_OVER' || run.state === 'WIN' || run.state === 'NOT_PLAYED' || roll < 0.01) input = RESET;
    else if (roll < 0.02) {
      stray = true;
      const a = 1 + rng.int(7);
      input = a === 6 ? { action: 'ACTION6', x: rng.int(68) - 2, y: rng.int(68) - 2 } : KEYS[a];
    } else input = randomAction(run, rng, task.clicks);
    if (run.state === 'GAME_OVER') gameOvers++;
    if (input !== RESET) trail.push(input);
    const before = run;
    const draw = i % FRAME_EVERY === 0;
    const keyBefore = draw ? safeKey(before) : null;
    try {
      if (draw) {
        const r = step(before, input);
        run = r.run;
        for (const f of r.response.frame) {
          frames++;
          const bad = checkFrame(f);
          if (bad) report('frame', i, input, bad);
        }
      } else run = advance(before, input);
    } catch (e) {
      if (e instanceof GameRuleError) {
        if (!stray || !isRefusable(before, input))
          report('refused', i, input, `the engine refused an action it offers: ${e.code}: ${e.message}`);
        trail.pop();
        continue;
      }
      report('exception', i, input, errorText(e));
      restart();
      continue;
    }
    if (input === RESET && run.level === level) trail = [];
    if (keyBefore !== null && safeKey(before) !== keyBefore) {
      report(
        'mutation',
        i,
        input,
        'the previous state changed after the action: `step` must return a new state and leave the old one as it was',
      );
    }
    if (run.levelsCompleted > before.levelsCompleted) {
      wins++;
      if (firstWin < 0) firstWin = i;
    }
    const bad = checkRun(run);
    if (bad) {
      report('field', i, input, bad);
      restart();
      continue;
    }
    if (!draw && (run.level !== before.level || run.state !== before.state)) {
      try {
        const f = renderRun(run);
        frames++;
        const badFrame = checkFrame(f);
        if (badFrame) report('frame', i, input, badFrame);
      } catch (e) {
        report('render', i, input, `render threw: ${errorText(e)}`);
        restart();
      }
    }
    // Keep the fuzz on its level: a won level is started again.
    if (run.state === 'NOT_FINISHED' && run.level !== level) restart();
    if (onProgress && (i & (PROGRESS_EVERY - 1)) === 0) onProgress(i);
  }
  return { task, steps: task.steps, wins, firstWin, gameOvers, frames, problems: [...problems.values()], problemCount };
}

/** Whether the rules may refuse `input` in `run`: it is not offered, or a click is off the frame. */
function isRefusable(run: Run<unknown>, input: ActionInput): boolean {
  if (input.action === 'RESET') return false;
  const id = Number(input.action.slice(6)) as ActionId;
  if (run.state !== 'NOT_FINISHED' || !availableActions(run).includes(id)) return true;
  return id === 6 && !(input.x! >= 0 && input.x! < 64 && input.y! >= 0 && input.y! < 64);
}

function safeKey(run: Run<unknown>): string {
  try {
    return stateKey(run);
  } catch (e) {
    return `(state key threw: ${errorText(e)})`;
  }
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    const where = e.stack
      ?.split('\n')
      .find((l) => l.trim().startsWith('at '))
      ?.trim();
    return `${e.name}: ${e.message}${where ? ` (${where})` : ''}`;
  }
  return `threw ${String(e)}`;
}

/** One level's line of the report. */
export interface LevelReport {
  /** Level index, 0-based (0 is the tutorial, never judged). */
  readonly level: number;
  readonly tutorial: boolean;
  readonly short: RegimeReport | null;
  readonly long: RegimeReport | null;
  readonly fuzz: RegimeReport | null;
  /** False when chance won this level (after the tutorial) or a regime met a problem on it (an exception, an invalid frame...). */
  readonly ok: boolean;
}

/** What one regime found on one level. */
export interface RegimeReport {
  readonly steps: number;
  readonly wins: number;
  /** Step of the first win over the regime's steps (from 1), or -1. */
  readonly firstWin: number;
  readonly gameOvers: number;
  readonly frames: number;
  readonly problemCount: number;
}

/** The validation of a game. */
export interface ValidationReport {
  readonly game: string;
  readonly seed: number;
  readonly clicks: ClickPolicy;
  readonly steps: Readonly<Record<Regime, number>>;
  readonly levels: readonly LevelReport[];
  /** The distinct problems the fuzz found (first occurrence, with a count), over all levels. */
  readonly problems: readonly ValidationProblem[];
  readonly problemCount: number;
  /** Steps run in all. */
  readonly totalSteps: number;
  readonly ok: boolean;
}

/** Puts the tasks' results together, per level and regime. */
export function summarizeValidation(
  game: GameOutline,
  plan: ValidationPlan,
  results: readonly TaskResult[],
): ValidationReport {
  const byKey = new Map<string, TaskResult[]>();
  for (const r of results) {
    const k = `${r.task.regime}:${r.task.level}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const regime = (name: Regime, level: number): RegimeReport | null => {
    const rs = (byKey.get(`${name}:${level}`) ?? []).slice().sort((a, b) => a.task.chunk - b.task.chunk);
    if (!rs.length) return null;
    let firstWin = -1;
    for (const r of rs) {
      if (r.firstWin >= 0) {
        firstWin = r.task.chunk * CHUNK_STEPS + r.firstWin;
        break;
      }
    }
    const sum = (f: (r: TaskResult) => number) => rs.reduce((s, r) => s + f(r), 0);
    return {
      steps: sum((r) => r.steps),
      wins: sum((r) => r.wins),
      firstWin,
      gameOvers: sum((r) => r.gameOvers),
      frames: sum((r) => r.frames),
      problemCount: sum((r) => r.problemCount),
    };
  };
  const levels = plan.levels.map((level): LevelReport => {
    const short = regime('short', level),
      long = regime('long', level),
      fz = regime('fuzz', level);
    const tutorial = level === 0;
    const chanceWon = !tutorial && ((short?.wins ?? 0) > 0 || (long?.wins ?? 0) > 0);
    const problemCount = (short?.problemCount ?? 0) + (long?.problemCount ?? 0) + (fz?.problemCount ?? 0);
    return { level, tutorial, short, long, fuzz: fz, ok: !chanceWon && problemCount === 0 };
  });
  const merged = new Map<string, ValidationProblem>();
  for (const r of [...results].sort((a, b) => a.task.level - b.task.level || a.task.chunk - b.task.chunk)) {
    for (const p of r.problems) {
      const key = `${p.kind}|${p.level}|${p.message}`;
      const seen = merged.get(key);
      if (seen) merged.set(key, { ...seen, count: seen.count + p.count });
      else if (merged.size < MAX_PROBLEMS) merged.set(key, p);
    }
  }
  const problems = [...merged.values()];
  const problemCount = results.reduce((s, r) => s + r.problemCount, 0);
  return {
    game: game.id,
    seed: plan.seed,
    clicks: plan.clicks,
    steps: plan.steps,
    levels,
    problems,
    problemCount,
    totalSteps: results.reduce((s, r) => s + r.steps, 0),
    ok: levels.every((l) => l.ok) && problemCount === 0,
  };
}

/** Plans, runs every task in this thread and summarizes: for tests and small budgets. */
export function validateGame(
  game: GameDefinition<unknown, unknown>,
  options: ValidationOptions = {},
): ValidationReport {
  const plan = planValidation(game, options);
  return summarizeValidation(
    game,
    plan,
    plan.tasks.map((t) => runValidationTask(game, t)),
  );
}
