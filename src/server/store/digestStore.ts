/**
 * The results digests of sessions and the event tails that extend them (`DigestStore`,
 * `server/digests`); the same SQL on PGlite and PostgreSQL.
 */
import type { StoredEvent } from '../../core/study/rules';
import type { Driver } from './driver';
import { json } from './columns';
import { EVENT_JSON } from './eventStore';
import type { DigestStore, StoredDigest } from './types';

export class SqlDigestStore implements DigestStore {
  constructor(private readonly db: Driver) {}

  async readDigests(studyId: string): Promise<Map<string, { key: string; digest: unknown }>> {
    const r = await this.db.query<{ session_id: string; key: string; digest: unknown }>(
      `SELECT d.session_id, d.key, d.digest FROM session_digests d JOIN sessions x ON x.id = d.session_id WHERE x.study_id = $1`,
      [studyId],
    );
    return new Map(r.rows.map((row) => [row.session_id, { key: row.key, digest: json(row.digest) }]));
  }

  async saveDigest(sessionId: string, key: string, digest: unknown, at: number, fold: unknown = null): Promise<void> {
    await this.saveDigests([{ sessionId, key, digest, fold }], at);
  }

  async saveDigests(rows: readonly StoredDigest[], at: number): Promise<void> {
    if (rows.length === 0) return;
    // A session deleted meanwhile has no row to refer to: nothing is stored for it. (OFFSET 0: a
    // lookup of each digest's session, never a join over every session.)
    await this.db.query(
      `INSERT INTO session_digests (session_id, key, digest, fold, computed_at)
       SELECT r.session_id, r.key, r.digest, r.fold, $2 FROM jsonb_to_recordset($1::jsonb) AS r(session_id text, key text, digest jsonb, fold jsonb)
       WHERE EXISTS (SELECT 1 FROM sessions WHERE id = r.session_id OFFSET 0)
       ON CONFLICT (session_id) DO UPDATE SET key = EXCLUDED.key, digest = EXCLUDED.digest, fold = EXCLUDED.fold, computed_at = EXCLUDED.computed_at`,
      [
        JSON.stringify(
          rows.map((r) => ({ session_id: r.sessionId, key: r.key, digest: r.digest, fold: r.fold ?? null })),
        ),
        new Date(at),
      ],
    );
  }

  async readDigestFolds(sessionIds: readonly string[]): Promise<Map<string, { key: string; fold: unknown }>> {
    if (sessionIds.length === 0) return new Map();
    const r = await this.db.query<{ session_id: string; key: string; fold: unknown }>(
      `SELECT session_id, key, fold FROM session_digests WHERE session_id = ANY($1::text[]) AND fold IS NOT NULL`,
      [sessionIds],
    );
    return new Map(r.rows.map((row) => [row.session_id, { key: row.key, fold: json(row.fold) }]));
  }

  async readEventTails(
    tails: readonly { sessionId: string; afterSeq: number; throughSeq: number }[],
  ): Promise<Map<string, StoredEvent[]>> {
    const out = new Map<string, StoredEvent[]>(tails.map((t) => [t.sessionId, []]));
    if (tails.length === 0) return out;
    // One index range per session (an aggregate is never turned into a join), each session's
    // events as one JSON text (`EVENT_JSON`): one value to decode per session, not five per event.
    const r = await this.db.query<{ session_id: string; page: string | null }>(
      `SELECT w.session_id, e.page
       FROM unnest($1::text[], $2::int[], $3::int[]) WITH ORDINALITY AS w(session_id, after_seq, through_seq, n)
       CROSS JOIN LATERAL (
         SELECT json_agg(${EVENT_JSON} ORDER BY seq)::text AS page FROM events
         WHERE session_id = w.session_id AND seq > w.after_seq AND seq <= w.through_seq
       ) e
       ORDER BY w.n`,
      [tails.map((t) => t.sessionId), tails.map((t) => t.afterSeq), tails.map((t) => t.throughSeq)],
    );
    for (const row of r.rows)
      if (row.page !== null) out.get(row.session_id)!.push(...(JSON.parse(row.page) as StoredEvent[]));
    return out;
  }
}
