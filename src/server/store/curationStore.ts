/**
 * The researcher's exclusions and deletions, each recorded in the audit log in its own
 * transaction (`CurationStore`); the same SQL on PGlite and PostgreSQL.
 */
import type { Driver } from './driver';
import { json, ms } from './columns';
import { lockCampaigns, recountingSessions } from './campaignStore';
import { deleteSessionRows, insertAudit } from './sessionRows';
import { deleteCentreRows } from './centreStore';
import { deleteProlificRows } from './prolificStore';
import { sessionFromRow } from './sessionStore';
import type { SqlStudyStore } from './studyStore';
import type { AuditEventInput, AuditEventRecord, CurationStore, DeletedRows, SessionRecord } from './types';

export class SqlCurationStore implements CurationStore {
  /** `studies`: told of a deleted study, so that its shared read of the latest version is not answered after. */
  constructor(
    private readonly db: Driver,
    private readonly studies: Pick<SqlStudyStore, 'forgetLatestRead'>,
  ) {}

  async setSessionExclusion(
    id: string,
    exclude: { readonly reason: string | null } | null,
    audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action' | 'reason'>,
  ): Promise<{ session: SessionRecord; changed: boolean } | null> {
    return this.db.transaction(async (tx) => {
      const cur = await tx.query(`SELECT * FROM sessions WHERE id = $1 FOR UPDATE`, [id]);
      if (!cur.rows[0]) return null;
      const before = sessionFromRow(cur.rows[0]);
      if ((before.excludedAt !== null) === (exclude !== null)) return { session: before, changed: false };
      // An excluded session's claims stop counting: its candidates are counted again.
      const r = await recountingSessions(tx, [id], () =>
        tx.query(`UPDATE sessions SET excluded_at = $2, excluded_reason = $3 WHERE id = $1 RETURNING *`, [
          id,
          exclude ? new Date(audit.at) : null,
          exclude?.reason ?? null,
        ]),
      );
      await insertAudit(tx, {
        ...audit,
        studyId: before.studyId,
        target: id,
        action: exclude ? 'session.exclude' : 'session.include',
        reason: exclude?.reason ?? null,
      });
      return { session: sessionFromRow(r.rows[0]), changed: true };
    });
  }

  async deleteSession(
    id: string,
    audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action'>,
  ): Promise<DeletedRows | null> {
    return this.db.transaction(async (tx) => {
      const cur = await tx.query<{ study_id: string }>(`SELECT study_id FROM sessions WHERE id = $1 FOR UPDATE`, [id]);
      if (!cur.rows[0]) return null;
      const deleted = { studies: 0, ...(await deleteSessionRows(tx, [id])) };
      await insertAudit(
        tx,
        { ...audit, studyId: cur.rows[0].study_id, target: id, action: 'session.delete' },
        { deleted },
      );
      return deleted;
    });
  }

  async deleteStudy(
    id: string,
    audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action'>,
  ): Promise<DeletedRows | null> {
    return this.db
      .transaction(async (tx) => {
        // The same lock as saveStudy; the rows' lock holds off new sessions (their foreign key) until this commits.
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('study:' || $1))`, [id]);
        // Its campaigns' locks before the rows' locks, in the order a draw takes them (campaign, then
        // the study's row through the new session's foreign key): the two never wait on each other.
        await lockCampaigns(
          tx,
          (
            await tx.query<{ campaign: string }>(`SELECT DISTINCT campaign FROM campaign_claims WHERE study_id = $1`, [
              id,
            ])
          ).rows.map((r) => r.campaign),
        );
        const versions = await tx.query(`SELECT version FROM studies WHERE id = $1 FOR UPDATE`, [id]);
        if (!versions.rows.length) return null;
        const ids = (
          await tx.query<{ id: string }>(`SELECT id FROM sessions WHERE study_id = $1 ORDER BY id FOR UPDATE`, [id])
        ).rows.map((r) => r.id);
        const rows = await deleteSessionRows(tx, ids);
        // Their grades went with the sessions; the graders' links go with the study.
        await tx.query(`DELETE FROM graders WHERE study_id = $1`, [id]);
        await tx.query(`DELETE FROM study_game_pins WHERE study_id = $1`, [id]);
        await tx.query(`DELETE FROM study_stages WHERE study_id = $1`, [id]);
        await deleteCentreRows(tx, id);
        await deleteProlificRows(tx, id);
        // Its members and download links go too: a study made again under the id starts with no
        // one's role on it, and a link to the old study's export opens nothing.
        await tx.query(`DELETE FROM study_members WHERE study_id = $1`, [id]);
        await tx.query(`DELETE FROM download_tickets WHERE study_id = $1`, [id]);
        const studies = await tx.query(`DELETE FROM studies WHERE id = $1 RETURNING 1`, [id]);
        const deleted = { studies: studies.rows.length, ...rows };
        await insertAudit(tx, { ...audit, studyId: id, target: id, action: 'study.delete' }, { deleted });
        return deleted;
      })
      .finally(() => this.studies.forgetLatestRead(id));
  }

  async listAuditEvents(studyId: string): Promise<AuditEventRecord[]> {
    const r = await this.db.query(`SELECT * FROM audit_events WHERE study_id = $1 ORDER BY id DESC`, [studyId]);
    return r.rows.map((row) => ({
      id: Number(row.id),
      studyId: row.study_id as string,
      actor: row.actor as string,
      personId: (row.person_id as string | null) ?? null,
      credential: (row.credential as string | null) ?? null,
      action: row.action as AuditEventRecord['action'],
      target: row.target as string,
      reason: (row.reason as string | null) ?? null,
      detail: json(row.detail),
      at: ms(row.at),
    }));
  }
}
