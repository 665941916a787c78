/**
 * The check of a session's game logs for its summary and its results digest, as one rule for
 * the main thread and the digest threads: a built-in game's log replays on its engine
 * (`replayWithEngine`); a server-run game's log (arcengine or remote) is checked step by step
 * against the server's signatures (`verifyServerRunLog`), which needs the signing key every
 * server on the database shares. `ThreadReplay` is what a digest thread needs for the same check.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { verifyServerRunLog } from '../../core/game/serverGame';
import type { ReplayGame } from '../../core/study/rules';
import { gameIds, replayWithEngine } from '../study/studies';
import type { SecretStore } from '../store/types';

/** What a thread needs to check server-run games' logs as the server does: plain data. */
export interface ThreadReplay {
  /** The steps' signing key, hex. */
  readonly key: string;
  /** The server-run games' ids the server lists now. */
  readonly serverGames: readonly string[];
}

/** Good signatures a check keeps (about 200 bytes each). */
const GOOD_SIGNATURES = 50_000;

/** The steps' signing key: made by the first server on the database, the same for every server on it afterwards. */
export async function stepSigningKey(store: SecretStore): Promise<Buffer> {
  return Buffer.from(await store.secret('game-steps', () => randomBytes(32).toString('hex')), 'hex');
}

/** A step's signature under the key (`stepSigningText` of the step). */
export function stepSignature(key: Uint8Array, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex').slice(0, 32);
}

/**
 * The check of server-run games' logs: null for a game that is not server-run (neither listed
 * nor named like an official id, e.g. `ls20-9607627b`).
 */
export function serverRunReplay(
  isServerGame: (gameId: string) => boolean,
  key: () => Uint8Array,
): (gameId: string, events: Parameters<ReplayGame>[1]) => ReturnType<ReplayGame> | null {
  // Signatures found good, with the text they sign: an export checks each session's log once per
  // file that counts it, and a text seen with its signature before needs no HMAC again.
  const good = new Map<string, string>();
  return (gameId, events) => {
    if (!isServerGame(gameId) && !/^[a-z0-9]+-[0-9a-f]{4,}$/.test(gameId)) return null;
    const r = verifyServerRunLog(gameId, events, (text, sig) => {
      if (good.get(sig) === text) return true;
      const want = Buffer.from(stepSignature(key(), text));
      const got = Buffer.from(sig);
      const ok = want.length === got.length && timingSafeEqual(want, got);
      if (ok) {
        if (good.size >= GOOD_SIGNATURES) good.clear();
        good.set(sig, text);
      }
      return ok;
    });
    return { problems: r.problems, levelsCompleted: r.levelsCompleted, version: gameId };
  };
}

/** The studio's check: built-in games on their engine, the others as server-run games. */
export function studioReplay(
  serverRun: (gameId: string, events: Parameters<ReplayGame>[1]) => ReturnType<ReplayGame> | null,
): ReplayGame {
  return (gameId, events) =>
    (gameIds.has(gameId) ? null : serverRun(gameId, events)) ?? replayWithEngine(gameId, events);
}

/** The studio's check on a digest thread, from what the server handed it. */
export function threadStudioReplay(spec: ThreadReplay): ReplayGame {
  const games = new Set(spec.serverGames);
  const key = Buffer.from(spec.key, 'hex');
  return studioReplay(
    serverRunReplay(
      (id) => games.has(id),
      () => key,
    ),
  );
}
