/**
 * A new session's row: the one INSERT both a plain session start (`sessionStore.ts`) and a campaign
 * draw (`campaignStore.ts`, inside its one-statement draw) write, and its parameters ($1-$9).
 */
import type { NewSession } from './records';

/**
 * The study's current stage as the session's row is written ($2: the study), read in the same
 * statement: a session started after a stage change commits is in the new stage, one before in
 * the old, never in between.
 */
export const STAGE_NOW_SQL = `COALESCE((SELECT st.stage FROM study_stages st WHERE st.study_id = $2), 'main')`;

export const INSERT_SESSION_SQL = `INSERT INTO sessions (id, study_id, study_version, token_hash, params, seed, item_order, state, created_at, flags, stage)
  VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, 'started', $8, $9::jsonb, ${STAGE_NOW_SQL})`;

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
