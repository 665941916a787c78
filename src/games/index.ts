/**
 * Every original game, by id: the one place the client, the server and the CLI import games from.
 * Vite hot-reloads a game module edited during development.
 */
import { gameVersion, type GameDefinition } from '../core/game';
import { flux, solutions as fluxSolutions } from './flux';
import { levels43f2a4b18d3f as fluxLevels43f2a4b18d3f } from './flux/levels';
import { glow, solutions as glowSolutions } from './glow';
import { levels0772acacc911 as glowLevels0772acacc911 } from './glow/levels';
import { push, solutions as pushSolutions } from './push';
import { levelsF39e6e1680aa as pushLevelsF39e6e1680aa } from './push/levels';

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

/**
 * The game with this id, or an error naming the ids there are. A versioned id (`push-<hash>`,
 * see `versionedGameId`) gives that version when this build has it (the current one or a retired
 * one), and an error naming the versions it has otherwise.
 */
export function getGame(id: string): GameDefinition<unknown, unknown> {
  const versioned = /^([a-z0-9]{4})-([0-9a-f]{12})$/.exec(id);
  if (versioned) {
    const versions = gameVersions(versioned[1]);
    const found = versions.find((g) => gameVersion(g) === versioned[2]);
    if (found) return found;
    if (versions.length)
      throw new Error(
        `game "${versioned[1]}" has no version ${versioned[2]} here; versions: ${versions.map((g) => `${g.id}-${gameVersion(g)}`).join(', ')} (the first is current).`,
      );
  }
  const game = games[id];
  if (!game) throw new Error(`no game "${id}"; games: ${Object.keys(games).join(', ')}.`);
  return game;
}

/**
 * Earlier versions of games that logs may still be verified on: when a change to a game's levels
 * or rules gives it a new version (see docs/authoring-games.md), keep the old definition here
 * (e.g. `{ ...push, levels: oldLevels }`) for as long as studies hold logs recorded on it. Logs of
 * versions listed nowhere are reported as recorded on another version and not replayed.
 */
export const retiredGames: readonly GameDefinition<unknown, unknown>[] = [
  // Level 5 could be won by chance within 1,000,000 random steps.
  { ...push, levels: pushLevelsF39e6e1680aa } as GameDefinition<unknown, unknown>,
  // Level 2 could be won by chance within 1,000,000 random steps.
  { ...glow, levels: glowLevels0772acacc911 } as GameDefinition<unknown, unknown>,
  // Levels 2 and 4 could be won by chance within 1,000,000 random steps, level 3 within 50,000.
  { ...flux, levels: fluxLevels43f2a4b18d3f } as GameDefinition<unknown, unknown>,
];

/** Every version of a game this build can run, the current one first (none for an unknown id). */
export function gameVersions(id: string): GameDefinition<unknown, unknown>[] {
  const current = games[id];
  if (!current) return [];
  const seen = new Set([gameVersion(current)]);
  const out = [current];
  for (const g of retiredGames) {
    if (g.id === id && !seen.has(gameVersion(g))) {
      seen.add(gameVersion(g));
      out.push(g);
    }
  }
  return out;
}
