/**
 * A study's current stage (`core/study/stages.ts`): kept in `study_stages`, one row per study
 * that ever left `main`; read by every session start in the statement that writes the session
 * (`sessionRow.ts`), changed by one researcher action recorded in the audit trail in the same
 * transaction.
 */
import { MAIN_STAGE } from '../../core/study/stages';
import type { Driver } from './driver';
import { insertAudit } from './sessionRows';
import type { AuditEventInput } from './records';

/** A study's stage and when it was last changed (null: never, so `main`). */
export interface StudyStageRecord {
  readonly stage: string;
  readonly changedAt: number | null;
}

export interface StageStore {
  /** The stage new sessions of the study start in; `main` for a study never moved. */
  studyStage(studyId: string): Promise<StudyStageRecord>;
  /**
   * Moves a study to `stage` and records `study.stage` (`detail`: `{from, to}`) in the audit
   * trail, in one transaction; nothing changes or is recorded when the study is in it already.
   */
  setStudyStage(
    studyId: string,
    stage: string,
    audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action' | 'reason'>,
  ): Promise<{ from: string; to: string; changed: boolean }>;
  /** How many sessions the study has in each stage (stages without a session are absent). */
  stageCounts(studyId: string): Promise<Record<string, number>>;
}

export class SqlStageStore implements StageStore {
  constructor(private readonly db: Driver) {}

  async studyStage(studyId: string): Promise<StudyStageRecord> {
    const r = await this.db.query<{ stage: string; changed_at: Date | string }>(
      `SELECT stage, changed_at FROM study_stages WHERE study_id = $1`,
      [studyId],
    );
    const row = r.rows[0];
    return row
      ? { stage: row.stage, changedAt: new Date(row.changed_at).getTime() }
      : { stage: MAIN_STAGE, changedAt: null };
  }

  async setStudyStage(
    studyId: string,
    stage: string,
    audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action' | 'reason'>,
  ): Promise<{ from: string; to: string; changed: boolean }> {
    return this.db.transaction(async (tx) => {
      // The study's lock (as saving it takes), so two researchers' moves are recorded in the order they happened.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('study:' || $1))`, [studyId]);
      const cur = await tx.query<{ stage: string }>(`SELECT stage FROM study_stages WHERE study_id = $1`, [studyId]);
      const from = cur.rows[0]?.stage ?? MAIN_STAGE;
      if (from === stage) return { from, to: stage, changed: false };
      await tx.query(
        `INSERT INTO study_stages (study_id, stage, changed_at, person_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (study_id) DO UPDATE SET stage = $2, changed_at = $3, person_id = $4`,
        [studyId, stage, new Date(audit.at), audit.personId ?? null],
      );
      await insertAudit(
        tx,
        { ...audit, studyId, target: studyId, action: 'study.stage', reason: null },
        { from, to: stage },
      );
      return { from, to: stage, changed: true };
    });
  }

  async stageCounts(studyId: string): Promise<Record<string, number>> {
    const r = await this.db.query<{ stage: string; n: number }>(
      `SELECT stage, count(*)::int AS n FROM sessions WHERE study_id = $1 GROUP BY stage ORDER BY stage`,
      [studyId],
    );
    return Object.fromEntries(r.rows.map((x) => [x.stage, x.n]));
  }
}
