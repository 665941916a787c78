/**
 * The versions figures are split by. A built-in game's id changes with its content (`push-<hash>`,
 * `core/game/version.ts`), but a server-run game keeps its official id (`ls20-9607627b`) when its
 * files change, and a task keeps its collection and id when its file is edited: what a participant
 * played is then named by a content hash the server recorded when it happened, the run's code
 * (`game_runs.code_hash`) or the judged task's content (`submissions.task_hash`).
 */
import type { ArcTask } from '../formats/arcTask';
import { hash64 } from '../game/hash';

/** Hex digits of a task's content hash. */
export const TASK_HASH_LENGTH = 12;

/**
 * A server-run game's code version as runs record it: `<game id>@<code hash>`, or the id alone
 * when no hash was recorded (a remote game, or a run older than code versions).
 */
export function codeVersion(gameId: string, codeHash: string | null | undefined): string {
  return codeHash ? `${gameId}@${codeHash}` : gameId;
}

/** What the results know of a game the server runs now (`ResultsInput['games']` entries fit). */
export interface MountedGame {
  /** The built-in game's versioned id (`push-<hash>`), or a server-run game's id. */
  readonly version?: string;
  /** A server-run game's code hash mounted now. */
  readonly codeHash?: string;
}

/**
 * The version of a game mounted now, named as its runs and logs name it: a server-run game's code
 * version, else its versioned id; null for a game the server does not list.
 */
export function mountedVersion(game: MountedGame | undefined, gameId: string): string | null {
  if (!game) return null;
  return game.codeHash ? codeVersion(gameId, game.codeHash) : (game.version ?? gameId);
}

/**
 * The content hash of a task: its demonstrations and test pairs (answers included), so an edit of
 * any grid makes another version while reformatting the file does not.
 */
export function taskContentHash(task: ArcTask): string {
  const text = JSON.stringify([
    task.train.map((p) => [p.input, p.output]),
    task.test.map((p) => [p.input, p.output ?? null]),
  ]);
  return hash64(text).slice(0, TASK_HASH_LENGTH);
}
