/**
 * Records that both the `Store` interface (`types.ts`, which re-exports them) and the stores it is
 * made of (`campaignStore.ts`) speak, kept apart so neither has to import the other.
 */
import type { AuditAction } from '../../core/protocol/api';

export interface NewSession {
  readonly id: string;
  readonly studyId: string;
  readonly studyVersion: number;
  readonly tokenHash: string;
  readonly params: Record<string, string>;
  readonly seed: number;
  readonly order: readonly number[];
  readonly createdAt: number;
  readonly flags?: readonly string[];
}

/** A game's version when the first session of a study that had the game started (`createSession`'s `pins`). */
export interface StudyGamePin {
  readonly gameId: string;
  /** `<game id>@<code hash>` for an arcengine game, the versioned id of a built-in game, the id of a remote one. */
  readonly version: string;
  /** The content hash of an arcengine game's files; null for other games. */
  readonly codeHash: string | null;
}

/** A page of a keyset read as the JSON text of its array of records. */
export interface JsonPage {
  readonly json: string;
  /** How many records the array holds. */
  readonly count: number;
  /** The key of its last record. */
  readonly last: number;
}

/** What a researcher did, as the audit log names it. */
export type { AuditAction } from '../../core/protocol/api';

/** One researcher action on a study or one of its sessions, for the study's audit log. */
export interface AuditEventInput {
  readonly studyId: string;
  /** Who: the person's email, or `researcher` for the bootstrap researcher token. */
  readonly actor: string;
  /** The person's id; absent or null for the bootstrap token. */
  readonly personId?: string | null;
  /** The credential used: `session:<id>`, `token:<id>` or `admin-token`. */
  readonly credential?: string | null;
  readonly action: AuditAction;
  /** The session id, or the study id for `study.delete`. */
  readonly target: string;
  readonly reason: string | null;
  readonly at: number;
}
