/**
 * Every original game, by id: the one place the client, the server and the CLI import games from.
 * Vite hot-reloads a game module edited during development.
 */
import type { GameDefinition } from '../core/game';
import { flux, solutions as fluxSolutions } from './flux';
import { glow, solutions as glowSolutions } from './glow';
import { push, solutions as pushSolutions } from './push';

/** The games, by id. */
export const games: Record<string, GameDefinition<unknown, unknown>> = {
  push: push as GameDefinition<unknown, unknown>,
  glow: glow as GameDefinition<unknown, unknown>,
  flux: flux as GameDefinition<unknown, unknown>,
};

/** Per game, the recorded solution of each level (action strings, one per level). */
export const solutions: Record<string, readonly string[]> = {
  push: pushSolutions,
  glow: glowSolutions,
  flux: fluxSolutions,
};

/** The game with this id, or an error naming the ids there are. */
export function getGame(id: string): GameDefinition<unknown, unknown> {
  const game = games[id];
  if (!game) throw new Error(`no game "${id}"; games: ${Object.keys(games).join(', ')}.`);
  return game;
}
