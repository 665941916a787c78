/**
 * One-time export download links (`DownloadStore`), claimed once whichever server is asked; the
 * same SQL on PGlite and PostgreSQL.
 */
import { ALL_STAGES } from '../../core/study/stages';
import type { Driver } from './driver';
import { ms } from './columns';
import type { DownloadStore, DownloadTicket } from './types';

export class SqlDownloadStore implements DownloadStore {
  constructor(private readonly db: Driver) {}

  async addDownloadTicket(t: DownloadTicket): Promise<void> {
    await this.db.query(`DELETE FROM download_tickets WHERE expires_at < $1`, [new Date(t.expiresAt - 24 * 3600_000)]);
    await this.db.query(
      `INSERT INTO download_tickets (token_hash, study_id, version, format, stage, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [t.tokenHash, t.studyId, t.version, t.format, t.stage ?? ALL_STAGES, new Date(t.expiresAt)],
    );
  }

  async claimDownloadTicket(tokenHash: string, now: number): Promise<DownloadTicket | 'missing' | 'used' | 'expired'> {
    const r = await this.db.query(
      `UPDATE download_tickets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING *`,
      [tokenHash, new Date(now)],
    );
    const row = r.rows[0];
    if (row)
      return {
        tokenHash,
        studyId: row.study_id as string,
        version: (row.version as number | null) ?? null,
        format: row.format as string,
        stage: row.stage === ALL_STAGES ? null : (row.stage as string),
        expiresAt: ms(row.expires_at),
      };
    const seen = (await this.db.query(`SELECT used_at FROM download_tickets WHERE token_hash = $1`, [tokenHash]))
      .rows[0];
    return !seen ? 'missing' : seen.used_at !== null ? 'used' : 'expired';
  }
}
