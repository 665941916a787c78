/**
 * The game versions a study started with (`study_game_pins`, migration 15): written in the
 * transaction that creates a session, for each of the study's games that has none yet, so the
 * first session that had a game pins it and no later one changes it.
 */
import type { Queryable } from './driver';
import type { StudyGamePin } from './records';

/** Records the pins not recorded yet for the session's study, in the caller's transaction. */
export async function pinStudyGames(
  tx: Queryable,
  session: { readonly id: string; readonly studyId: string; readonly createdAt: number },
  pins: readonly StudyGamePin[] | undefined,
): Promise<void> {
  if (!pins?.length) return;
  await tx.query(
    `INSERT INTO study_game_pins (study_id, game_id, version, code_hash, session_id, pinned_at)
     SELECT $1, p.game_id, p.version, p.code_hash, $2, $3
     FROM jsonb_to_recordset($4::jsonb) AS p(game_id text, version text, code_hash text)
     ON CONFLICT (study_id, game_id) DO NOTHING`,
    [
      session.studyId,
      session.id,
      new Date(session.createdAt),
      JSON.stringify(pins.map((p) => ({ game_id: p.gameId, version: p.version, code_hash: p.codeHash }))),
    ],
  );
}
