/**
 * A new session's row: the one INSERT both a plain session start (`sqlStore.ts`) and a campaign
 * draw (`campaignStore.ts`, inside its one-statement draw) write, and its parameters ($1-$9).
 */
import type { NewSession } from './records';

export const INSERT_SESSION_SQL = `INSERT INTO sessions (id, study_id, study_version, token_hash, params, seed, item_order, state, created_at, flags)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, 'started', $8, $9::jsonb)`;

/** The parameters of {@link INSERT_SESSION_SQL}, in order. */
export function sessionRowValues(s: NewSession): unknown[] {
  return [
    s.id,
    s.studyId,
    s.studyVersion,
    s.tokenHash,
    JSON.stringify(s.params),
    s.seed,
    JSON.stringify(s.order),
    new Date(s.createdAt),
    JSON.stringify(s.flags ?? []),
  ];
}
