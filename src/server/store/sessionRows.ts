/**
 * Writes that remove sessions, shared by the curation routes' deletions (`curationStore.ts`) and a
 * participant's deletion on request (`participantData.ts`), and the audit entry each records in
 * its own transaction.
 */
import { recountingSessions } from './campaignStore';
import type { Queryable } from './driver';
import type { DeletedCounts } from '../../core/protocol/api';
import type { AuditEventInput } from './records';

/**
 * Deletes the given sessions and everything of them (children first, for the foreign keys); the
 * rows that refer to a session by key go with it (responses, digests, grades, adjudications,
 * campaign claims and draws: ON DELETE CASCADE), and the campaign counters of its claims are
 * counted again.
 */
export async function deleteSessionRows(
  tx: Queryable,
  ids: readonly string[],
): Promise<Omit<DeletedCounts, 'studies'>> {
  const count = async (sql: string): Promise<number> =>
    (await tx.query<{ n: number }>(`WITH d AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM d`, [ids])).rows[0].n;
  const gameSteps = await count(
    `DELETE FROM game_steps WHERE run_id IN (SELECT run_id FROM game_runs WHERE session_id = ANY($1::text[]))`,
  );
  const gameRuns = await count(`DELETE FROM game_runs WHERE session_id = ANY($1::text[])`);
  const submissions = await count(`DELETE FROM submissions WHERE session_id = ANY($1::text[])`);
  const events = await count(`DELETE FROM events WHERE session_id = ANY($1::text[])`);
  // Their claims go with them (ON DELETE CASCADE): their candidates are counted again.
  const sessions = await recountingSessions(tx, ids, () => count(`DELETE FROM sessions WHERE id = ANY($1::text[])`));
  return { sessions, events, submissions, gameRuns, gameSteps };
}

/** Records an audit entry inside the transaction of the change it describes (`studyId` null: the server's as a whole). */
export async function insertAudit(
  tx: Queryable,
  e: Omit<AuditEventInput, 'studyId'> & { readonly studyId: string | null },
  detail: Record<string, unknown> = {},
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_events (study_id, actor, person_id, credential, action, target, reason, detail, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
    [
      e.studyId,
      e.actor,
      e.personId ?? null,
      e.credential ?? null,
      e.action,
      e.target,
      e.reason,
      JSON.stringify(detail),
      new Date(e.at),
    ],
  );
}
