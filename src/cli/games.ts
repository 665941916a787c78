/**
 * `arc-studio games`: list the games, play one headless from an action string, verify the
 * recorded solutions and the random-policy check.
 */
import type { Command } from './main';
import { parseCommandArgs, selectSubcommand, usageError } from './args';
import {
  ENGINE_VERSION, GameRuleError, advance, availableActions, createRun, formatAction, hashFrame, parseActions, randomPolicy,
  renderRun, scorecard, solveLevel, versionedGameId, type Run,
} from '../core/game';
import { games, getGame, solutions } from '../games';

const USAGE = 'games list | games play <id> --actions "RESET,ACTION1,ACTION6:12:30,ACTION7" [--seed N] | games verify [id...] [--steps N] [--minimal]';

/** The subcommands' arguments (parsed with ./args). */
const SUBCOMMANDS = {
  list: {
    command: 'games list', usage: 'games list', options: {},
    summary: 'One line per game: id, title, levels, the actions it offers at its start.',
  },
  play: {
    command: 'games play', usage: 'games play <id> --actions "RESET,ACTION1,ACTION6:12:30,ACTION7" [--seed N]',
    summary: 'Play a game headless from an action string and print its final state and per-level action counts as JSON.',
    positionals: { name: '<id>', help: 'the game to play' },
    options: {
      actions: { type: 'string', value: 'LIST', help: 'comma-separated actions: RESET, ACTION1-ACTION5, ACTION6:x:y, ACTION7' },
      seed: { type: 'integer', value: 'N', default: 0, help: 'seed of the game\'s random generator' },
    },
  },
  verify: {
    command: 'games verify', usage: 'games verify [id...] [--steps N] [--minimal]',
    summary: 'Check that every recorded solution wins and that random play wins no level after the tutorial.',
    positionals: { name: 'id...', help: 'games to check (default: all)' },
    options: {
      steps: { type: 'integer', value: 'N', min: 1, default: 50_000, help: 'random-play steps per level' },
      minimal: { type: 'boolean', help: 'also search for a shorter solution than the recorded one (slow)' },
    },
  },
} as const;

/** One line per game: id, title, levels, the actions it offers at its start, its version. */
export function listGames(): string[] {
  return Object.values(games).map((g) => {
    const actions = availableActions(createRun(g, { level: 0 })).map((a) => `ACTION${a}`).join(',');
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
      if (e instanceof GameRuleError) throw new Error(`action ${i + 1} (${formatAction(input)}) refused, ${e.code}: ${e.message}`);
      throw e;
    }
  });
  return {
    ...scorecard(run), version: versionedGameId(game), engine: ENGINE_VERSION, seed, available_actions: availableActions(run),
    full_reset: run.fullReset, frame_hash: hashFrame(renderRun(run)),
  };
}

export const gamesCommand: Command = {
  summary: 'List the games; play one headless and print its final state and per-level action counts as JSON; verify every recorded solution, that random play wins no level after the tutorial, and (--minimal) that no shorter solution exists.',
  usage: USAGE,
  async run(args) {
    const { sub, rest } = selectSubcommand({ command: 'games', usage: USAGE }, SUBCOMMANDS, args);
    if (sub === 'list') {
      parseCommandArgs(SUBCOMMANDS.list, rest);
      for (const line of listGames()) console.log(line);
      return 0;
    }
    if (sub === 'play') {
      const { values: { actions, seed }, positionals } = parseCommandArgs(SUBCOMMANDS.play, rest);
      if (positionals.length !== 1) throw usageError(SUBCOMMANDS.play, `name one game: ${Object.keys(games).join(', ')}.`);
      if (actions === undefined) throw usageError(SUBCOMMANDS.play, 'give the actions with --actions, e.g. --actions "RESET,ACTION1".');
      console.log(JSON.stringify(playGame(positionals[0], actions, seed)));
      return 0;
    }
    if (sub === 'verify') {
      const { values: { steps, minimal }, positionals: ids } = parseCommandArgs(SUBCOMMANDS.verify, rest);
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
          if (chance && chance.wonAt >= 0) problem += `${problem ? '; ' : ''}random play won it at step ${chance.wonAt}`;
          let note = '';
          if (minimal) {
            // Breadth-first search: the recorded solution should be as short as the shortest found.
            const best = solveLevel(game, level);
            const recorded = (solutions[id]?.[level] ?? '').split(',').length;
            if (!best) note = ', no solution found by search';
            else if (best.length < recorded) problem += `${problem ? '; ' : ''}recorded ${recorded} actions, search finds ${best.length}`;
            else note = `, minimal (${recorded})`;
          }
          if (problem) failures++;
          console.log(`${id} level ${level + 1}: ${problem || 'ok'}${note}`);
        });
      }
      return failures ? 1 : 0;
    }
    throw new Error(`subcommand "${sub satisfies never}" has no implementation.`);
  },
};
