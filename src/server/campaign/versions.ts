/**
 * Which code each game candidate was played on, for the campaign's figures by version: a
 * server-run game keeps its id when a designer edits it, so the version is the code hash its first
 * run recorded (`game_runs.code_hash`), written `<game id>@<code hash>` (`arc3/gameCode.ts`).
 */
import type { CampaignSession } from '../../core/analysis/campaign';
import { mountedVersion, type MountedGame } from '../../core/analysis/versions';
import { gameVersion } from '../arc3/gameCode';
import type { Store } from '../store/types';

type RunVersions = NonNullable<CampaignSession['gameRuns']>;

/** By session id, each game item's first run: the version it was opened on and when. */
export async function firstRunVersions(
  store: Pick<Store, 'listStudyFirstRuns'>,
  studyId: string,
): Promise<Map<string, RunVersions>> {
  const out = new Map<string, Record<string, { version: string; at: number }>>();
  for (const r of await store.listStudyFirstRuns(studyId)) {
    let of = out.get(r.sessionId);
    if (!of) out.set(r.sessionId, (of = {}));
    of[r.item] = { version: gameVersion(r.gameId, r.codeHash), at: r.openedAt };
  }
  return out;
}

/** The version of a game mounted now, as its runs would record it; null for a game this server does not list. */
export function gameVersionNow(games: Readonly<Record<string, MountedGame>>): (game: string) => string | null {
  return (game) => mountedVersion(games[game], game);
}
