/**
 * Study definitions and their versions (`StudyStore`); the same SQL on PGlite and PostgreSQL.
 */
import type { Driver } from './driver';
import { json, ms, type Row } from './columns';
import type { StudyRecord, StudySource, StudyStore, StudySummary } from './types';

function studyFromRow(r: Row): StudyRecord {
  return {
    id: r.id as string,
    version: r.version as number,
    definition: json(r.definition),
    source: r.source as StudySource,
    createdAt: ms(r.created_at),
  };
}

export class SqlStudyStore implements StudyStore {
  /**
   * Reads of a study's latest version in flight, shared by the requests arriving meanwhile (a
   * burst of starts reads one study). Dropped when this server saves or deletes the study, so a
   * request after the save never gets a read begun before it.
   */
  private readonly latestStudyReads = new Map<string, Promise<StudyRecord | null>>();

  constructor(private readonly db: Driver) {}

  /**
   * Forgets the read of a study's latest version in flight: for a change to the study made
   * elsewhere (its deletion, `curationStore.ts`), so that no request after it gets that read.
   */
  forgetLatestRead(id: string): void {
    this.latestStudyReads.delete(id);
  }

  async saveStudy(
    id: string,
    definition: unknown,
    source: StudySource,
    now: number,
  ): Promise<{ version: number; created: boolean }> {
    return this.db
      .transaction(async (tx) => {
        await tx.query(`SELECT pg_advisory_xact_lock(hashtext('study:' || $1))`, [id]);
        const latest = await tx.query<{ version: number; used: boolean }>(
          `SELECT version, EXISTS (SELECT 1 FROM sessions s WHERE s.study_id = st.id AND s.study_version = st.version) AS used
         FROM studies st WHERE id = $1 ORDER BY version DESC LIMIT 1`,
          [id],
        );
        const cur = latest.rows[0];
        const def = JSON.stringify(definition);
        if (cur && !cur.used) {
          await tx.query(
            `UPDATE studies SET definition = $3::jsonb, source = $4, created_at = $5 WHERE id = $1 AND version = $2`,
            [id, cur.version, def, source, new Date(now)],
          );
          return { version: cur.version, created: false };
        }
        const version = cur ? cur.version + 1 : 1;
        await tx.query(
          `INSERT INTO studies (id, version, definition, source, created_at) VALUES ($1, $2, $3::jsonb, $4, $5)`,
          [id, version, def, source, new Date(now)],
        );
        return { version, created: true };
      })
      .finally(() => this.forgetLatestRead(id));
  }

  async getStudy(id: string, version?: number): Promise<StudyRecord | null> {
    if (version !== undefined) {
      const r = await this.db.query(`SELECT * FROM studies WHERE id = $1 AND version = $2`, [id, version]);
      return r.rows[0] ? studyFromRow(r.rows[0]) : null;
    }
    const shared = this.latestStudyReads.get(id);
    if (shared) return shared;
    const read: Promise<StudyRecord | null> = this.db
      .query(`SELECT * FROM studies WHERE id = $1 ORDER BY version DESC LIMIT 1`, [id])
      .then((r) => (r.rows[0] ? studyFromRow(r.rows[0]) : null))
      .finally(() => {
        if (this.latestStudyReads.get(id) === read) this.latestStudyReads.delete(id);
      });
    this.latestStudyReads.set(id, read);
    return read;
  }

  async listStudies(): Promise<StudySummary[]> {
    const r = await this.db.query(
      `SELECT DISTINCT ON (st.id) st.*, (SELECT count(*)::int FROM sessions s WHERE s.study_id = st.id) AS sessions
       FROM studies st ORDER BY st.id, st.version DESC`,
    );
    return r.rows.map((row) => ({ ...studyFromRow(row), sessions: row.sessions as number }));
  }

  async studyUsage(studyId: string): Promise<{ events: number; bytes: number }> {
    const r = await this.db.query(
      `SELECT COALESCE(sum(event_count), 0)::float8 AS events, COALESCE(sum(event_bytes), 0)::float8 AS bytes FROM sessions WHERE study_id = $1`,
      [studyId],
    );
    return { events: Number(r.rows[0].events), bytes: Number(r.rows[0].bytes) };
  }
}
