/**
 * The games of a study's stored data, mounted as `arc-studio serve` mounts them: the built-in
 * games, and the arcengine games of `--arc3-games` (or `ARC_STUDIO_ARC3_GAMES`). The commands that
 * read a study's games (`export`, `score --baselines study:ID`) use this, so a game the server ran
 * is never silently left out of a baseline.
 */
import path from 'node:path';
import { getGame } from '../games';
import { startArc3, studioGames, type GameInfo } from '../server/arc3/mount';
import type { ExportContext } from '../server/export/context';
import { replayWithEngine } from '../server/study/studies';
import type { ReplayGame } from '../core/study/rules';
import type { Store } from '../server/store/types';
import { arc3GameDirs } from './games';

export interface StudyGames {
  readonly replay: ReplayGame;
  /** The games mounted (built-in and arcengine), or undefined for the built-in games alone. */
  readonly games: GameInfo | undefined;
  /** The arcengine folders mounted (absolute). */
  readonly dirs: readonly string[];
  readonly stop: () => Promise<void>;
}

/** Mounts the built-in games and the arcengine folders of `flags` (else `ARC_STUDIO_ARC3_GAMES`). */
export async function mountStudyGames(
  store: Store,
  flags: readonly string[],
  log: (line: string) => void,
): Promise<StudyGames> {
  const dirs = arc3GameDirs(flags).map((d) => path.resolve(d));
  if (!dirs.length) return { replay: replayWithEngine, games: undefined, dirs, stop: async () => {} };
  const arc3 = await startArc3({ dirs, servers: [], workers: 1 }, store, log);
  if (!arc3.engine.ok) log(`The arcengine games cannot run: ${arc3.engine.message}`);
  const { replay, gameInfo } = studioGames(arc3);
  return { replay, games: gameInfo(), dirs, stop: () => arc3.service.stop() };
}

/** The game ids a study's items play that neither the built-in games nor the mounted ones resolve, sorted. */
export function unresolvedGames(ctx: ExportContext): string[] {
  const missing = new Set<string>();
  for (const def of ctx.versions.values()) {
    for (const item of def.items) {
      if (item.kind !== 'game' || ctx.games[item.game]) continue;
      if (!builtIn(item.game)) missing.add(item.game);
    }
  }
  return [...missing].sort();
}

/** Why a command refuses a study whose games it cannot resolve: which games, and the flag that mounts them. */
export function unresolvedMessage(studyId: string, missing: readonly string[], dirs: readonly string[]): string {
  const which = missing.map((g) => `"${g}"`).join(', ');
  const where = dirs.length
    ? `among the arcengine games of ${dirs.join(', ')}`
    : 'mounted (no --arc3-games folder and no ARC_STUDIO_ARC3_GAMES)';
  return `study "${studyId}" plays ${which}, which ${missing.length === 1 ? 'is' : 'are'} not built in and not ${where}: give the folders "arc-studio serve" ran ${missing.length === 1 ? 'it' : 'them'} from with --arc3-games DIR (or ARC_STUDIO_ARC3_GAMES). Nothing was written.`;
}

function builtIn(id: string): boolean {
  try {
    getGame(id);
    return true;
  } catch {
    return false;
  }
}
