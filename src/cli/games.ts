/**
 * `arc-studio games`: list the games, play one headless from an action string, verify the
 * recorded solutions and the random-policy check.
 */
import type { Command } from './main';
import {
  GameRuleError, advance, availableActions, createRun, formatAction, hashFrame, parseActions, randomPolicy, renderRun,
  scorecard, solveLevel, type Run,
} from '../core/game';
import { games, getGame, solutions } from '../games';

const USAGE = 'games list | games play <id> --actions "RESET,ACTION1,ACTION6:12:30,ACTION7" [--seed N] | games verify [id...] [--steps N] [--minimal]';

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`${name} needs a value. Usage: arc-studio ${USAGE}`);
  return v;
}

function integerOption(args: string[], name: string, fallback: number): number {
  const v = option(args, name);
  if (v === undefined) return fallback;
  if (!/^-?\d+$/.test(v)) throw new Error(`${name} must be a whole number, got "${v}".`);
  return Number(v);
}

/** One line per game: id, title, levels, the actions it offers at its start. */
export function listGames(): string[] {
  return Object.values(games).map((g) => {
    const actions = availableActions(createRun(g, { level: 0 })).map((a) => `ACTION${a}`).join(',');
    return `${g.id}\t${g.title}\t${g.levels.length} levels\t${actions}`;
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
    ...scorecard(run), seed, available_actions: availableActions(run), full_reset: run.fullReset,
    frame_hash: hashFrame(renderRun(run)),
  };
}

export const gamesCommand: Command = {
  summary: 'List the games; play one headless and print its final state and per-level action counts as JSON; verify every recorded solution, that random play wins no level after the tutorial, and (--minimal) that no shorter solution exists.',
  usage: USAGE,
  async run(args) {
    const [sub, ...rest] = args;
    if (sub === 'list') {
      for (const line of listGames()) console.log(line);
      return 0;
    }
    if (sub === 'play') {
      const [id] = rest;
      if (!id || id.startsWith('--')) throw new Error(`name a game: ${Object.keys(games).join(', ')}. Usage: arc-studio ${USAGE}`);
      const actions = option(rest, '--actions');
      if (actions === undefined) throw new Error(`give the actions with --actions, e.g. --actions "RESET,ACTION1". Usage: arc-studio ${USAGE}`);
      console.log(JSON.stringify(playGame(id, actions, integerOption(rest, '--seed', 0))));
      return 0;
    }
    if (sub === 'verify') {
      const ids = rest.filter((a, i) => !a.startsWith('--') && rest[i - 1] !== '--steps');
      const steps = integerOption(rest, '--steps', 50_000);
      const minimal = rest.includes('--minimal');
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
    throw new Error(`unknown subcommand "${sub ?? ''}". Usage: arc-studio ${USAGE}`);
  },
};
