/**
 * `games validate` and `games graph` for the built-in games: the validation tasks of
 * core/game/validate.ts spread over worker threads (one per core by default), a progress bar on
 * a terminal, a summary table or JSON; the state graph of core/game/graph.ts with a time budget.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { ENGINE_VERSION, versionedGameId, type GameDefinition } from '../core/game';
import { analyzeGraph, exploreLevel, winProbabilities, type LevelGraph } from '../core/game/graph';
import {
  FRAME_EVERY,
  planValidation,
  summarizeValidation,
  type LevelReport,
  type RegimeReport,
  type TaskResult,
  type ValidationOptions,
  type ValidationReport,
  type ValidationTask,
} from '../core/game/validate';
import { solutions } from '../games';
import type { TaskMessage, ThreadReply } from './validateWorker';

/** The threads used by default: one per core. */
export function defaultThreads(): number {
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

/** A progress bar on standard error, drawn only when it is a terminal, at most 10 times a second. */
export class ProgressBar {
  private last = 0;
  private readonly t0 = performance.now();
  private readonly tty = process.stderr.isTTY === true;
  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly unit = 'steps',
  ) {}

  update(done: number): void {
    if (!this.tty) return;
    const now = performance.now();
    if (now - this.last < 100 && done < this.total) return;
    this.last = now;
    const width = 20;
    const frac = this.total ? Math.min(1, done / this.total) : 1;
    const filled = Math.round(frac * width);
    const secs = (now - this.t0) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    const eta = rate > 0 && done < this.total ? ` ETA ${Math.ceil((this.total - done) / rate)} s` : '';
    const line = `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(frac * 100)}% ${compact(done)}/${compact(this.total)} ${this.unit}, ${compact(rate)}/s${eta}`;
    process.stderr.write(`\r${line.slice(0, (process.stderr.columns ?? 100) - 1)}\x1b[K`);
  }

  finish(): void {
    if (this.tty) process.stderr.write('\r\x1b[K');
  }
}

function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)}M`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
  return String(Math.round(n));
}

function group(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A task's result with the milliseconds its thread took. */
export interface TimedResult {
  readonly result: TaskResult;
  readonly ms: number;
}

/**
 * Runs `tasks` of the built-in game `gameId` on `threads` worker threads, longest first, each
 * thread taking the next task when done; `onProgress` receives the steps done in all.
 */
export async function runTasksOnThreads(
  gameId: string,
  tasks: readonly ValidationTask[],
  threads: number,
  onProgress?: (steps: number) => void,
): Promise<TimedResult[]> {
  const order = tasks.map((task, id) => ({ id, task })).sort((a, b) => b.task.steps - a.task.steps);
  const results: TimedResult[] = new Array(tasks.length);
  const progress = new Float64Array(tasks.length);
  let doneSteps = 0;
  let next = 0;
  const report = () => {
    let inFlight = 0;
    for (const p of progress) inFlight += p;
    onProgress?.(doneSteps + inFlight);
  };
  const url = new URL('./validateWorker.mjs', import.meta.url);
  const count = Math.max(1, Math.min(threads, tasks.length));
  const running: Worker[] = [];
  let stopped = false;
  // One failure stops every thread, so the command ends at once with its message.
  const fail = (reject: (e: Error) => void, e: Error) => {
    stopped = true;
    for (const t of running) void t.terminate();
    reject(e);
  };
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          // Every step allocates a new immutable run: a larger young generation than a thread's default
          // halves the time spent collecting it (measured: 465k -> 800k+ steps/s on push level 3).
          const thread = new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: 64 } });
          running.push(thread);
          const send = () => {
            if (stopped) return resolve();
            if (next >= order.length) {
              void thread.terminate().then(() => resolve());
              return;
            }
            const { id, task } = order[next++];
            thread.postMessage({ id, gameId, task } satisfies TaskMessage);
          };
          thread.on('message', (m: ThreadReply) => {
            if (m.type === 'progress') {
              progress[m.id] = m.steps;
              report();
            } else if (m.type === 'done') {
              progress[m.id] = 0;
              doneSteps += m.result.steps;
              results[m.id] = { result: m.result, ms: m.ms };
              report();
              send();
            } else fail(reject, new Error(`a validation thread failed: ${m.message}`));
          });
          thread.on('error', (e) => fail(reject, new Error(`a validation thread stopped: ${e.message}`)));
          thread.on('exit', (code) => {
            if (!stopped && next < order.length)
              fail(reject, new Error(`a validation thread exited with code ${code} before its work was done.`));
          });
          send();
        }),
    ),
  );
  return results;
}

/** `games validate` of a built-in game, as printed (text lines) or as JSON. */
export interface ValidateOutcome {
  readonly report: ValidationReport;
  readonly json: Record<string, unknown>;
  readonly lines: string[];
}

/** Runs the validation of a built-in game on worker threads and formats it. */
export async function validateBuiltIn(
  game: GameDefinition<unknown, unknown>,
  options: ValidationOptions & { threads: number },
): Promise<ValidateOutcome> {
  const plan = planValidation(game, options);
  const total = plan.tasks.reduce((s, t) => s + t.steps, 0);
  const bar = new ProgressBar(`validate ${game.id}`, total);
  const t0 = performance.now();
  let timed: TimedResult[];
  try {
    timed = await runTasksOnThreads(versionedGameId(game), plan.tasks, options.threads, (n) => bar.update(n));
  } finally {
    bar.finish();
  }
  const seconds = (performance.now() - t0) / 1000;
  const report = summarizeValidation(
    game,
    plan,
    timed.map((t) => t.result),
  );
  // One thread's speed per level, from the policy regimes (the fuzz draws frames, so it is slower).
  const rate = new Map<number, { steps: number; ms: number }>();
  for (const { result, ms } of timed) {
    if (result.task.regime === 'fuzz') continue;
    const r = rate.get(result.task.level) ?? { steps: 0, ms: 0 };
    rate.set(result.task.level, { steps: r.steps + result.steps, ms: r.ms + ms });
  }
  const stepsPerSecond = (level: number) => {
    const r = rate.get(level);
    return r && r.ms > 0 ? Math.round((r.steps / r.ms) * 1000) : null;
  };
  const threads = Math.min(options.threads, plan.tasks.length);
  const json = {
    game: game.id,
    version: versionedGameId(game),
    engine: ENGINE_VERSION,
    ok: report.ok,
    seed: report.seed,
    clicks: report.clicks,
    steps: report.steps,
    total_steps: report.totalSteps,
    threads,
    seconds: round(seconds, 3),
    frame_every: FRAME_EVERY,
    levels: report.levels.map((l) => ({ ...l, level: l.level + 1, steps_per_s_one_thread: stepsPerSecond(l.level) })),
    problems: report.problems.map((p) => ({ ...p, level: p.level + 1 })),
    problem_count: report.problemCount,
  };
  const lines = formatValidation(report, `${versionedGameId(game)}, engine ${ENGINE_VERSION}`, stepsPerSecond);
  lines.push(
    `${group(report.totalSteps)} steps in ${seconds.toFixed(1)} s on ${threads} thread${threads === 1 ? '' : 's'} (${compact(report.totalSteps / seconds)} steps/s in all).`,
  );
  return { report, json, lines };
}

function round(n: number, digits: number): number {
  return Number(n.toFixed(digits));
}

function regimeCell(r: RegimeReport | null): string {
  if (!r) return '-';
  if (r.wins === 0) return 'no win';
  return `won ${group(r.wins)}x, first at ${group(r.firstWin)}`;
}

function verdict(l: LevelReport): string {
  if ((l.fuzz?.problemCount ?? 0) + (l.short?.problemCount ?? 0) + (l.long?.problemCount ?? 0) > 0)
    return 'FAIL (problems)';
  if (l.tutorial) return 'tutorial, not judged';
  return l.ok ? 'ok' : 'FAIL (chance wins)';
}

/**
 * The summary table of a validation: one row per level (numbered from 1; level 1 is the
 * tutorial), the problems the fuzz found, and the verdict.
 */
export function formatValidation(
  report: ValidationReport,
  what: string,
  stepsPerSecond: (level: number) => number | null = () => null,
  fuzzNote = `The fuzz adds a RESET (1%) and an arbitrary action (1%) to the policy, checks every step's state and level fields, and draws and checks frames every ${FRAME_EVERY}th step and at every change of level or state.`,
): string[] {
  const s = report.steps;
  const lines = [
    `${report.game} (${what}): random policy over the available actions, clicks at ${report.clicks === 'cells' ? 'random cells' : 'declared click targets'}, seed ${report.seed}`,
  ];
  const header = [
    'level',
    s.short ? `${group(s.short)} steps` : '-',
    s.long ? `${group(s.long)} steps` : '-',
    'GAME_OVERs',
    'fuzz steps',
    'frames',
    'problems',
    'steps/s (1 thread)',
    'verdict',
  ];
  const rows = report.levels.map((l) => [
    String(l.level + 1),
    regimeCell(l.short),
    regimeCell(l.long),
    group((l.short?.gameOvers ?? 0) + (l.long?.gameOvers ?? 0)),
    l.fuzz ? group(l.fuzz.steps) : '-',
    l.fuzz ? group(l.fuzz.frames) : '-',
    l.fuzz ? group(l.fuzz.problemCount) : '-',
    stepsPerSecond(l.level) !== null ? compact(stepsPerSecond(l.level)!) : '-',
    verdict(l),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, ...rows])
    lines.push(
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
  lines.push(fuzzNote);
  for (const p of report.problems) {
    lines.push(
      `problem (${p.kind}) on level ${p.level + 1}, step ${group(p.step)} of the task with seed ${p.seed}, after ${p.action}: ${p.message}${p.count > 1 ? ` (${group(p.count)} times)` : ''}`,
    );
    if (p.reproduce)
      lines.push(
        `  to meet it again: level ${p.level + 1} from its start with seed ${p.reproduce.seed}, then ${p.reproduce.actions ? p.reproduce.actions : '(no action: the start itself)'}`,
      );
  }
  if (report.problemCount > report.problems.reduce((n, p) => n + p.count, 0))
    lines.push(`(${group(report.problemCount)} problems in all; the first of each kind are listed)`);
  const beaten = report.levels.filter((l) => !l.tutorial && ((l.short?.wins ?? 0) > 0 || (l.long?.wins ?? 0) > 0));
  const fails: string[] = [];
  for (const l of beaten) {
    const inShort = (l.short?.wins ?? 0) > 0;
    fails.push(
      `chance won level ${l.level + 1} ${inShort ? `within ${group(s.short)} steps` : `within ${group(s.long)} steps`} (make it need more actions, or fewer chances to win)`,
    );
  }
  if (report.problemCount)
    fails.push(`${group(report.problemCount)} problem${report.problemCount === 1 ? '' : 's'} (listed above)`);
  lines.push(report.ok ? 'verdict: ok' : `verdict: FAIL: ${fails.join('; ')}`);
  return lines;
}

/** The K of `games graph`'s probabilities (as many as the work budget allows). */
export const GRAPH_KS = [10, 50, 100, 500, 1_000, 5_000, 10_000, 50_000, 100_000, 1_000_000];

/**
 * `games graph` for a built-in game: the level's state graph within the budget, then
 * {@link graphReport}.
 */
export function graphBuiltIn(
  game: GameDefinition<unknown, unknown>,
  level: number,
  options: { maxStates: number; maxSeconds: number; seed: number; clicks: 'cells' | 'targets' },
): { lines: string[]; json: Record<string, unknown> } {
  const t0 = performance.now();
  const bar = new ProgressBar(`graph ${game.id} level ${level + 1}`, options.maxStates, 'states');
  let g;
  try {
    g = exploreLevel(game, level, {
      seed: options.seed,
      maxStates: options.maxStates,
      clicks: options.clicks,
      onProgress: (n) => bar.update(n),
      shouldStop: () => performance.now() - t0 > options.maxSeconds * 1000,
    });
  } finally {
    bar.finish();
  }
  const recordedText = solutions[game.id]?.[level];
  return graphReport(g, {
    version: versionedGameId(game),
    engine: ENGINE_VERSION,
    recorded: recordedText ? recordedText.split(',').length : null,
    maxStates: options.maxStates,
    maxSeconds: options.maxSeconds,
    seconds: (performance.now() - t0) / 1000,
    targets: 'clicks at uniformly random declared click targets',
  });
}

/**
 * What `games graph` prints of an explored graph, for built-in and arcengine games alike: the
 * lines, or the JSON. `targets` says where the policy clicks when `g.clicks` is 'targets'.
 */
export function graphReport(
  g: LevelGraph,
  o: {
    version: string;
    engine: string;
    recorded: number | null;
    maxStates: number;
    maxSeconds: number;
    seconds: number;
    targets: string;
  },
): { lines: string[]; json: Record<string, unknown> } {
  const level = g.level;
  const clickText =
    g.clicks === 'targets' ? o.targets : 'clicks at uniformly random cells (all 4,096 tried in every state)';
  const a = analyzeGraph(g);
  const probabilities = g.complete ? winProbabilities(g, GRAPH_KS) : null;
  const recorded = o.recorded;
  const json = {
    game: g.game,
    version: o.version,
    engine: o.engine,
    level: level + 1,
    seed: g.seed,
    complete: a.complete,
    states: a.states,
    expanded: g.expanded,
    edges: a.edges,
    depth: a.depth,
    merges: a.merges,
    cycles: a.cycles,
    dead_ends: a.deadEnds,
    stuck: a.stuck,
    game_over_states: a.gameOverStates,
    winning_moves: a.winningMoves,
    winning_states: a.winningStates,
    shortest: a.shortest,
    recorded_solution_length: recorded,
    clicks: g.clicks,
    win_probability: probabilities,
    seconds: round(o.seconds, 3),
    budget: { max_states: o.maxStates, max_seconds: o.maxSeconds },
    policy: `uniform over the available actions except undo; ${clickText}; GAME_OVER answered by a level RESET (one action)`,
  };
  const lines = [
    `${g.game} level ${level + 1} (${o.version}, seed ${g.seed}): ${a.complete ? 'fully explored' : `NOT fully explored: stopped at ${group(a.states)} states (${group(g.expanded)} expanded) by the budget (--max-states ${group(o.maxStates)}, --max-seconds ${o.maxSeconds})`} in ${o.seconds.toFixed(1)} s`,
    `states ${group(a.states)}, edges ${group(a.edges)}, depth ${a.depth}, merges ${group(a.merges)} (states reached from more than one state)`,
    `cycles: ${group(a.cycles.components)} strongly connected group${a.cycles.components === 1 ? '' : 's'} holding ${group(a.cycles.states)} states (undo and RESET left out)`,
    `dead ends: ${group(a.deadEnds)} states from which no win can be reached without RESET${a.complete ? '' : ' (among the expanded states)'}; ${group(a.stuck)} states where no action changes anything`,
    `GAME_OVER states ${group(a.gameOverStates)}; winning moves ${group(a.winningMoves)} from ${group(a.winningStates)} states`,
    a.shortest
      ? `shortest solution: ${a.shortest.length} actions${recorded !== null ? ` (recorded solution: ${recorded}${recorded > a.shortest.length ? ', LONGER than the shortest' : recorded === a.shortest.length ? ', minimal' : ''})` : ''}: ${a.shortest.actions}`
      : `shortest solution: none found${a.complete ? ': the level cannot be won from its start' : ' within the budget'}`,
  ];
  if (probabilities) {
    lines.push(
      `P(a random policy wins within K actions): ${probabilities.map(({ k, p }) => `K=${group(k)} ${formatP(p)}`).join(', ')}`,
    );
    lines.push(
      `  (exact, from the graph as an absorbing Markov chain; the policy picks uniformly among the available actions except undo, ${g.clicks === 'none' ? 'never clicks (no click offered)' : clickText}, and answers GAME_OVER with a level RESET that counts one action)`,
    );
  } else {
    lines.push(
      'P(a random policy wins within K actions): unknown, the graph was not fully explored; raise --max-states or --max-seconds.',
    );
  }
  return { lines, json };
}

function formatP(p: number): string {
  if (p === 0) return '0';
  if (p === 1) return '1';
  return p >= 0.001 ? p.toFixed(4) : p.toExponential(2);
}
