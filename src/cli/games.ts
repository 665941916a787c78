/**
 * `arc-studio games`: list the games, play one headless from an action string, verify the
 * recorded solutions and the random-policy check.
 */
import path from 'node:path';
import type { Command } from './command';
import { parseCommandArgs, selectSubcommand, usageError } from './args';
import {
  ENGINE_VERSION,
  GameRuleError,
  advance,
  availableActions,
  createRun,
  formatAction,
  hashFrame,
  parseActions,
  randomPolicy,
  renderRun,
  scorecard,
  solveLevel,
  versionedGameId,
  type Run,
} from '../core/game';
import { games, getGame, solutions } from '../games';
import { splitRuns } from '../core/game/accounting';
import { Arc3Error, Arc3Worker, resolveGameId, type Arc3FrameData } from '../server/arc3/worker';
import { probe } from '../server/arc3/probe';
import { verifySessionCommand } from './verifySession';
import { defaultThreads, graphBuiltIn, validateBuiltIn } from './validate';
import { graphArc3, validateArc3 } from './validateArc3';
import { ARC3_GRAPH_DEFAULTS } from '../server/arc3/graph';

const USAGE =
  'games list [--arc3-games DIR] | games play <id> --actions "RESET,ACTION1,ACTION6:12:30,ACTION7" [--seed N] [--arc3-games DIR] | games verify [id...] [--steps N] [--minimal] | games verify-session <sessionId> [--data-dir DIR] [--arc3-games DIR] [--arc3-server URL] [--json] | games validate <id> [--level N] [--steps N] [--seed S] [--json] | games graph <id> --level N [--max-states N] [--max-seconds S] [--json] [--arc3-games DIR]';

const ARC3_GAMES = {
  type: 'string',
  value: 'DIR',
  multiple: true,
  help: "a folder of arcengine games in the toolkit's layout (<game>/<version>/<game>.py + metadata.json); default: ARC_STUDIO_ARC3_GAMES",
} as const;

/** The subcommands' arguments (parsed with ./args). */
const SUBCOMMANDS = {
  list: {
    command: 'games list',
    usage: 'games list [--arc3-games DIR]',
    options: { 'arc3-games': ARC3_GAMES },
    summary:
      'One line per game: id, title, levels, the actions it offers at its start, its version; arcengine games also their tags.',
  },
  play: {
    command: 'games play',
    usage: 'games play <id> --actions "RESET,ACTION1,ACTION6:12:30,ACTION7" [--seed N] [--arc3-games DIR]',
    summary:
      'Play a game headless from an action string and print its final state and per-level action counts as JSON.',
    positionals: { name: '<id>', help: 'the game to play' },
    options: {
      actions: {
        type: 'string',
        value: 'LIST',
        help: 'comma-separated actions: RESET, ACTION1-ACTION5, ACTION6:x:y, ACTION7',
      },
      seed: { type: 'integer', value: 'N', default: 0, help: "seed of the game's random generator" },
      'arc3-games': ARC3_GAMES,
    },
  },
  verify: {
    command: 'games verify',
    usage: 'games verify [id...] [--steps N] [--minimal]',
    summary: 'Check that every recorded solution wins and that random play wins no level after the tutorial.',
    positionals: { name: 'id...', help: 'games to check (default: all)' },
    options: {
      steps: { type: 'integer', value: 'N', min: 1, default: 50_000, help: 'random-play steps per level' },
      minimal: { type: 'boolean', help: 'also search for a shorter solution than the recorded one (slow)' },
    },
  },
  'verify-session': {
    command: 'games verify-session',
    usage: 'games verify-session <sessionId> [--data-dir DIR] [--arc3-games DIR] [--arc3-server URL] [--json]',
    summary:
      "Play every stored run of a session's ARC-AGI-3 games again (arcengine runs on the engine, a remote server's runs on that server) and report each step whose frames, state or counts differ from the stored ones; exit code 0 when all match. Reads the serve store: PGlite in --data-dir, or DATABASE_URL.",
    positionals: { name: '<sessionId>', help: 'the session to check' },
    options: {
      'data-dir': {
        type: 'string',
        value: 'DIR',
        default: '.arc-studio',
        help: 'the data folder "arc-studio serve" uses; ignored when DATABASE_URL is set',
      },
      'arc3-games': ARC3_GAMES,
      'arc3-server': {
        type: 'string',
        value: 'URL',
        help: 'the ARC-AGI-3 server to play runs of a remote source again on (default: the server each run recorded; ARC_API_KEY is sent)',
      },
      json: { type: 'boolean', help: 'print the check as JSON' },
    },
  },
  validate: {
    command: 'games validate',
    usage:
      'games validate <id> [--level N] [--steps N] [--seed S] [--clicks cells|targets] [--threads N] [--json] [--arc3-games DIR]',
    summary:
      'Validate a game as the ARC-AGI-3 paper does: per level a seeded random policy of 50,000 steps and of 1,000,000 steps must win no level after the tutorial (level 1), and a fuzz of 1,000,000 steps across the levels must meet no exception, no frame that is not 64x64 with values 0-15 and no state or level field out of range. Runs on every core; exit code 0 when all pass. Levels are numbered from 1. Arcengine games run on the official engine with smaller budgets (see --steps).',
    positionals: { name: '<id>', help: 'the game to validate' },
    options: {
      level: { type: 'integer', value: 'N', min: 1, help: 'only this level (from 1); default: every level' },
      steps: {
        type: 'integer',
        value: 'N',
        min: 1,
        help: 'steps of the long regime and of the fuzz; the short regime takes min(50,000, N) (default: 1,000,000; arcengine games 2,000)',
      },
      seed: { type: 'integer', value: 'S', default: 0, help: 'seed of the random policy' },
      clicks: {
        type: 'string',
        value: 'cells|targets',
        default: 'cells',
        help: "where random clicks go: random cells, or the game's declared click targets (built-in games)",
      },
      threads: { type: 'integer', value: 'N', min: 1, help: 'worker threads (default: one per core)' },
      json: { type: 'boolean', help: 'print the report as JSON' },
      'arc3-games': ARC3_GAMES,
    },
  },
  graph: {
    command: 'games graph',
    usage:
      'games graph <id> --level N [--max-states N] [--max-seconds S] [--seed S] [--clicks cells|targets] [--json] [--arc3-games DIR]',
    summary:
      "Explore a level's state graph from its start state (built-in games, and arcengine games through the official engine): states, edges, depth, merges, cycles, dead ends, winning and GAME_OVER states, the shortest solution beside the recorded one, and, when fully explored within the budget, the exact probability that a uniform random policy wins within K actions.",
    positionals: { name: '<id>', help: 'the game' },
    options: {
      level: { type: 'integer', value: 'N', min: 1, help: 'the level (from 1)' },
      'max-states': {
        type: 'integer',
        value: 'N',
        min: 1,
        help: 'stop exploring after this many states (default 500,000; arcengine games 5,000)',
      },
      'max-seconds': {
        type: 'integer',
        value: 'S',
        min: 1,
        help: 'stop exploring after this many seconds (default 60)',
      },
      seed: {
        type: 'integer',
        value: 'S',
        default: 0,
        help: "seed of the game's random generator (part of the state)",
      },
      clicks: {
        type: 'string',
        value: 'cells|targets',
        help: "where the random policy clicks: any cell (all 4,096 tried per state; the default for built-in games), or the game's declared click targets (for arcengine games the centre of each visible sprite, their default)",
      },
      json: { type: 'boolean', help: "print the graph's figures as JSON" },
      'arc3-games': ARC3_GAMES,
    },
  },
} as const;

/** Whether `id` names a built-in game (short or versioned id). */
function isBuiltIn(id: string): boolean {
  return Object.hasOwn(games, id) || (/^[a-z0-9]{4}-[0-9a-f]{12}$/.test(id) && Object.hasOwn(games, id.slice(0, 4)));
}

/** One line per game: id, title, levels, the actions it offers at its start, its version. */
export function listGames(): string[] {
  return Object.values(games).map((g) => {
    const actions = availableActions(createRun(g, { level: 0 }))
      .map((a) => `ACTION${a}`)
      .join(',');
    return `${g.id}\t${g.title}\t${g.levels.length} levels\t${actions}\t${versionedGameId(g)}`;
  });
}

/** Plays `actions` from a new run and returns the final scorecard as printed by `games play`. */
export function playGame(id: string, actions: string, seed = 0): Record<string, unknown> {
  const game = getGame(id);
  const inputs = parseActions(actions);
  if (inputs.length === 0) throw new Error('--actions is empty: give a comma-separated list such as "RESET,ACTION1".');
  let run: Run<unknown> = createRun(game, { seed });
  inputs.forEach((input, i) => {
    try {
      run = advance(run, input);
    } catch (e) {
      if (e instanceof GameRuleError)
        throw new Error(`action ${i + 1} (${formatAction(input)}) refused, ${e.code}: ${e.message}`);
      throw e;
    }
  });
  return {
    ...scorecard(run),
    version: versionedGameId(game),
    engine: ENGINE_VERSION,
    seed,
    available_actions: availableActions(run),
    full_reset: run.fullReset,
    frame_hash: hashFrame(renderRun(run)),
  };
}

/**
 * The arcengine game folders: the `--arc3-games` values, or else `ARC_STUDIO_ARC3_GAMES` (several
 * separated by the platform's path delimiter).
 */
export function arc3GameDirs(flags: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  if (flags.length) return [...flags];
  return (env.ARC_STUDIO_ARC3_GAMES ?? '').split(path.delimiter).filter((d) => d !== '');
}

/** A worker for `dirs`, after checking that Python and arcengine are there; throws probe()'s message when not. */
async function startArc3(dirs: string[]): Promise<{ worker: Arc3Worker; engine: string }> {
  const found = await probe();
  if (!found.ok) throw new Error(`arcengine games cannot run: ${found.message}`);
  return { worker: new Arc3Worker({ gameDirs: dirs }), engine: `arcengine ${found.arcengine}` };
}

/** The last frame of a response as a flat grid, for `hashFrame`. */
function flatFrame(grid: number[][]): Uint8Array {
  return Uint8Array.from(grid.flat());
}

/** One line per arcengine game, in the shape of `listGames`, with its tags after the version. */
export async function listArc3Games(worker: Arc3Worker): Promise<string[]> {
  const lines: string[] = [];
  for (const g of await worker.list()) {
    const tags = g.tags.length ? g.tags.join(',') : '-';
    if (g.error) {
      lines.push(`${g.game}\t${g.title}\t? levels\t-\t${g.game_id}\t${tags}\t(cannot load: ${g.error.message})`);
      continue;
    }
    const runId = `list-${g.game_id}`;
    let first: Arc3FrameData;
    try {
      first = await worker.open(runId, g.game_id);
      await worker.close(runId);
    } catch (e) {
      if (!(e instanceof Arc3Error)) throw e;
      lines.push(
        `${g.game}\t${g.title}\t${g.level_count ?? '?'} levels\t-\t${g.game_id}\t${tags}\t(cannot start: ${e.message})`,
      );
      continue;
    }
    const actions = first.available_actions.map((a) => `ACTION${a}`).join(',');
    lines.push(`${g.game}\t${g.title}\t${g.level_count ?? first.win_levels} levels\t${actions}\t${g.game_id}\t${tags}`);
  }
  return lines;
}

/**
 * Plays `actions` in a new instance of an arcengine game (the toolkit's initial RESET is not
 * counted, as the official scorecard does not count it) and returns what `games play` prints.
 */
export async function playArc3Game(
  worker: Arc3Worker,
  engine: string,
  id: string,
  actions: string,
  seed = 0,
): Promise<Record<string, unknown>> {
  const inputs = parseActions(actions);
  if (inputs.length === 0) throw new Error('--actions is empty: give a comma-separated list such as "RESET,ACTION1".');
  const infos = await worker.list();
  const gameId = resolveGameId(
    id,
    infos.map((g) => g.game_id),
  );
  const info = infos.find((g) => g.game_id === gameId)!;
  const runId = 'cli-play';
  let last: Arc3FrameData = await worker.open(runId, gameId, seed);
  let grid = last.frame.at(-1);
  const steps = [];
  for (const [i, input] of inputs.entries()) {
    try {
      last = await worker.act(
        runId,
        input.action === 'ACTION6' ? { action: 'ACTION6', x: input.x, y: input.y } : { action: input.action },
      );
    } catch (e) {
      if (e instanceof Arc3Error)
        throw new Error(
          `action ${i + 1} (${formatAction(input)}) failed, ${e.code}: ${e.message}${e.traceback ? `\n${e.traceback}` : ''}`,
        );
      throw e;
    }
    grid = last.frame.at(-1) ?? grid;
    steps.push({
      action: input.action,
      levelsCompleted: last.levels_completed,
      state: last.state,
      fullReset: input.action === 'RESET' ? last.full_reset : undefined,
      emptyFrame: last.frame.length === 0,
    });
  }
  const runs = splitRuns(steps);
  const run = runs.at(-1);
  return {
    game: info.game,
    state: last.state,
    levels_completed: last.levels_completed,
    win_levels: last.win_levels,
    actions: run?.actions ?? 0,
    level_actions: run?.levelActions ?? [],
    runs: runs.length,
    version: gameId,
    engine,
    seed,
    available_actions: last.available_actions,
    full_reset: last.full_reset,
    frame_hash: grid ? hashFrame(flatFrame(grid)) : null,
  };
}

export const gamesCommand: Command = {
  summary:
    "List the games; play one headless and print its final state and per-level action counts as JSON; verify every recorded solution, that random play wins no level after the tutorial, and (--minimal) that no shorter solution exists; verify-session: play a session's stored ARC-AGI-3 runs again on the engine; validate a game with random policies and a fuzz as the ARC-AGI-3 paper does; graph: a level's state graph and the exact chance that random play wins it.",
  usage: USAGE,
  async run(args) {
    const { sub, rest } = selectSubcommand({ command: 'games', usage: USAGE }, SUBCOMMANDS, args);
    if (sub === 'list') {
      const { values } = parseCommandArgs(SUBCOMMANDS.list, rest);
      for (const line of listGames()) console.log(line);
      const dirs = arc3GameDirs(values['arc3-games']);
      if (!dirs.length) return 0;
      const { worker } = await startArc3(dirs);
      try {
        for (const line of await listArc3Games(worker)) console.log(line);
      } finally {
        await worker.stop();
      }
      return 0;
    }
    if (sub === 'play') {
      const {
        values: { actions, seed, 'arc3-games': arc3 },
        positionals,
      } = parseCommandArgs(SUBCOMMANDS.play, rest);
      if (positionals.length !== 1)
        throw usageError(SUBCOMMANDS.play, `name one game: ${Object.keys(games).join(', ')}.`);
      if (actions === undefined)
        throw usageError(SUBCOMMANDS.play, 'give the actions with --actions, e.g. --actions "RESET,ACTION1".');
      const dirs = arc3GameDirs(arc3);
      if (Object.hasOwn(games, positionals[0]) || !dirs.length) {
        console.log(JSON.stringify(playGame(positionals[0], actions, seed)));
        return 0;
      }
      const { worker, engine } = await startArc3(dirs);
      try {
        console.log(JSON.stringify(await playArc3Game(worker, engine, positionals[0], actions, seed)));
      } finally {
        await worker.stop();
      }
      return 0;
    }
    if (sub === 'verify') {
      const {
        values: { steps, minimal },
        positionals: ids,
      } = parseCommandArgs(SUBCOMMANDS.verify, rest);
      let failures = 0;
      for (const id of ids.length ? ids : Object.keys(games)) {
        const game = getGame(id);
        game.levels.forEach((_, level) => {
          let run: Run<unknown> = createRun(game, { level });
          let problem = '';
          try {
            for (const input of parseActions(solutions[id]?.[level] ?? '')) run = advance(run, input);
            if (run.levelsCompleted <= level) problem = 'recorded solution does not win';
          } catch (e) {
            problem = `recorded solution fails: ${(e as Error).message}`;
          }
          const chance = level > 0 ? randomPolicy(game, level, steps, 1234 + level) : null;
          if (chance && chance.wonAt >= 0)
            problem += `${problem ? '; ' : ''}random play won it at step ${chance.wonAt}`;
          let note = '';
          if (minimal) {
            // Breadth-first search: the recorded solution should be as short as the shortest found.
            const best = solveLevel(game, level);
            const recorded = (solutions[id]?.[level] ?? '').split(',').length;
            if (!best) note = ', no solution found by search';
            else if (best.length < recorded)
              problem += `${problem ? '; ' : ''}recorded ${recorded} actions, search finds ${best.length}`;
            else note = `, minimal (${recorded})`;
          }
          if (problem) failures++;
          console.log(`${id} level ${level + 1}: ${problem || 'ok'}${note}`);
        });
      }
      return failures ? 1 : 0;
    }
    if (sub === 'verify-session') {
      const { values, positionals } = parseCommandArgs(SUBCOMMANDS['verify-session'], rest);
      if (positionals.length !== 1)
        throw usageError(
          SUBCOMMANDS['verify-session'],
          'name one session id (the Replay page and the exports show it).',
        );
      return verifySessionCommand(
        positionals[0],
        values['data-dir'],
        arc3GameDirs(values['arc3-games']),
        values.json === true,
        values['arc3-server'],
      );
    }
    if (sub === 'validate') {
      const { values, positionals } = parseCommandArgs(SUBCOMMANDS.validate, rest);
      if (positionals.length !== 1)
        throw usageError(SUBCOMMANDS.validate, `name one game: ${Object.keys(games).join(', ')}.`);
      if (values.clicks !== 'cells' && values.clicks !== 'targets')
        throw usageError(SUBCOMMANDS.validate, `--clicks must be cells or targets, not "${values.clicks}".`);
      const threads = values.threads ?? defaultThreads();
      const dirs = arc3GameDirs(values['arc3-games']);
      const id = positionals[0];
      if (isBuiltIn(id) || !dirs.length) {
        const game = getGame(id);
        if (values.level !== undefined && values.level > game.levels.length)
          throw usageError(
            SUBCOMMANDS.validate,
            `level ${values.level} does not exist in "${game.id}": it has levels 1-${game.levels.length}.`,
          );
        const out = await validateBuiltIn(game, {
          seed: values.seed,
          steps: values.steps,
          level: values.level !== undefined ? values.level - 1 : undefined,
          clicks: values.clicks,
          threads,
        });
        if (values.json) console.log(JSON.stringify(out.json));
        else for (const line of out.lines) console.log(line);
        return out.report.ok ? 0 : 1;
      }
      const found = await probe();
      if (!found.ok) throw new Error(`arcengine games cannot run: ${found.message}`);
      const out = await validateArc3(dirs, `arcengine ${found.arcengine}`, id, {
        seed: values.seed,
        steps: values.steps,
        level: values.level,
        threads,
      });
      if (values.json) console.log(JSON.stringify(out.json));
      else for (const line of out.lines) console.log(line);
      return out.ok ? 0 : 1;
    }
    if (sub === 'graph') {
      const { values, positionals } = parseCommandArgs(SUBCOMMANDS.graph, rest);
      if (positionals.length !== 1)
        throw usageError(SUBCOMMANDS.graph, `name one game: ${Object.keys(games).join(', ')}.`);
      if (values.level === undefined) throw usageError(SUBCOMMANDS.graph, 'name the level with --level N (from 1).');
      const id = positionals[0];
      const clicks = values.clicks;
      if (clicks !== undefined && clicks !== 'cells' && clicks !== 'targets')
        throw usageError(SUBCOMMANDS.graph, `--clicks must be cells or targets, not "${clicks}".`);
      const dirs = arc3GameDirs(values['arc3-games']);
      if (!isBuiltIn(id) && dirs.length) {
        const found = await probe();
        if (!found.ok) throw new Error(`arcengine games cannot run: ${found.message}`);
        const out = await graphArc3(dirs, `arcengine ${found.arcengine}`, id, {
          level: values.level,
          seed: values.seed,
          clicks: clicks ?? 'targets',
          maxStates: values['max-states'] ?? ARC3_GRAPH_DEFAULTS.maxStates,
          maxSeconds: values['max-seconds'] ?? ARC3_GRAPH_DEFAULTS.maxSeconds,
        });
        if (values.json) console.log(JSON.stringify(out.json));
        else for (const line of out.lines) console.log(line);
        return 0;
      }
      const game = getGame(id);
      if (values.level > game.levels.length)
        throw usageError(
          SUBCOMMANDS.graph,
          `level ${values.level} does not exist in "${game.id}": it has levels 1-${game.levels.length}.`,
        );
      const out = graphBuiltIn(game, values.level - 1, {
        maxStates: values['max-states'] ?? 500_000,
        maxSeconds: values['max-seconds'] ?? 60,
        seed: values.seed,
        clicks: clicks ?? 'cells',
      });
      if (values.json) console.log(JSON.stringify(out.json));
      else for (const line of out.lines) console.log(line);
      return 0;
    }
    throw new Error(`subcommand "${sub satisfies never}" has no implementation.`);
  },
};
