/**
 * Versions of games and of the engine, recorded in every `game.open` so that a log is replayed
 * on the game it was played on (see `replayRecordedVersion` in replay.ts).
 *
 * A game's version is a content hash: the first 12 hex digits of `hash64(versionText(game))`, the
 * 64-bit FNV-1a of the JSON text (object keys sorted, no spaces, typed arrays as arrays) of,
 * exactly:
 *
 * ```
 * { id, levels, actions, undo, fps, revision, starts }
 * ```
 *
 * - `id`, `levels` (the level data as declared, objects with their keys sorted), `actions`;
 * - `undo` (true unless the game opts out), `fps` (its animation speed, default 10);
 * - `revision`, the game's own counter for rule changes that leave its data alone (default 0);
 * - `starts`: the `hashFrame` of each level's start frame (seed 0), so a change to `init` or
 *   `render` that shows on a level's first frame changes the version by itself.
 *
 * The code of `step`, `outcome` and `render` is not hashed (its text differs between the
 * browser's bundle and the server), so a change to how a game plays that leaves its data alone
 * must bump `revision`; the golden replays in src/games/games.test.ts fail until it does.
 * Title and summary are presentation and are left out.
 */
import type { GameDefinition } from './define';
import { createRun, gameFps, renderRun } from './engine';
import { hash64, hashFrame } from './hash';

/**
 * The engine's version: bump it when a rule of the engine changes what a log replays to (RESET,
 * undo, accounting, the PRNG, the frames returned), so logs name the rules they were played under.
 */
export const ENGINE_VERSION = '1';

const versions = new WeakMap<GameDefinition<unknown, unknown>, string>();

/**
 * The text a game's version hashes (see the module comment): JSON with object keys sorted and
 * typed arrays written as arrays, so it can be rebuilt outside this code. It has its own
 * encoding, not `canonicalKey`'s, so that speeding up the solver's keys never moves a version.
 */
export function versionText(game: GameDefinition<unknown, unknown>): string {
  const content = {
    id: game.id,
    levels: game.levels,
    actions: game.actions,
    undo: game.undo !== false,
    fps: gameFps(game),
    revision: game.revision ?? 0,
    starts: game.levels.map((_, level) => hashFrame(renderRun(createRun(game, { level })))),
  };
  return JSON.stringify(content, (_key, v: unknown) => {
    if (ArrayBuffer.isView(v)) return Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(o)
          .sort()
          .map((k) => [k, o[k]]),
      );
    }
    return v;
  });
}

/**
 * The game's version: 12 hex digits of a content hash of its definition and levels, the same on
 * every machine and every run. Computed once per definition object.
 * @example gameVersion(games.push) // e.g. 'f39e6e1680aa'
 */
export function gameVersion(game: GameDefinition<unknown, unknown>): string {
  let v = versions.get(game);
  if (v === undefined) {
    v = hash64(versionText(game)).slice(0, 12);
    versions.set(game, v);
  }
  return v;
}

/**
 * The game's id with its version, `push-f39e6e1680aa`, the form used outward (the official ids
 * look alike, e.g. `ls20-fa137e247ce6`). Studies and URLs keep the short id.
 */
export function versionedGameId(game: GameDefinition<unknown, unknown>): string {
  return `${game.id}-${gameVersion(game)}`;
}
