/**
 * The `Store` over SQL, shared by both back ends: a driver only runs queries and transactions.
 */
import type { SessionState, StoredEvent } from '../../core/study/rules';
import { migrations } from './migrations';
import type { AppendResult, EventInput, NewSession, SessionRecord, Store, StudyRecord, StudySource, StudySummary, SubmissionRecord } from './types';

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
  /** Runs several statements without parameters. */
  exec(sql: string): Promise<void>;
}

export interface Driver extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Applies the migrations not yet recorded, each in its own transaction; safe with several servers starting at once. */
export async function migrate(db: Driver): Promise<number[]> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await db.transaction(async (tx) => {
      // Serialises concurrent starts against the same schema.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.schema_migrations'))`);
      const seen = await tx.query(`SELECT 1 FROM schema_migrations WHERE version = $1`, [m.version]);
      if (seen.rows.length) return false;
      await tx.exec(m.sql);
      await tx.query(`INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}

const ms = (d: unknown): number => (d instanceof Date ? d.getTime() : new Date(String(d)).getTime());
const msOrNull = (d: unknown): number | null => (d === null || d === undefined ? null : ms(d));
const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

type Row = Record<string, unknown>;

function sessionFromRow(r: Row): SessionRecord {
  return {
    id: r.id as string,
    studyId: r.study_id as string,
    studyVersion: r.study_version as number,
    tokenHash: r.token_hash as string,
    params: json(r.params),
    seed: r.seed as number,
    order: json(r.item_order),
    state: r.state as SessionState,
    ackedThrough: r.acked_through as number,
    eventCount: r.event_count as number,
    createdAt: ms(r.created_at),
    lastEventAt: msOrNull(r.last_event_at),
    finishedAt: msOrNull(r.finished_at),
    flags: json(r.flags),
  };
}

function studyFromRow(r: Row): StudyRecord {
  return { id: r.id as string, version: r.version as number, definition: json(r.definition), source: r.source as StudySource, createdAt: ms(r.created_at) };
}

export class SqlStore implements Store {
  readonly kind: 'pglite' | 'postgres';

  constructor(private readonly db: Driver) {
    this.kind = db.kind;
  }

  async saveStudy(id: string, definition: unknown, source: StudySource, now: number): Promise<{ version: number; created: boolean }> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('study:' || $1))`, [id]);
      const latest = await tx.query<{ version: number; used: boolean }>(
        `SELECT version, EXISTS (SELECT 1 FROM sessions s WHERE s.study_id = st.id AND s.study_version = st.version) AS used
         FROM studies st WHERE id = $1 ORDER BY version DESC LIMIT 1`, [id]);
      const cur = latest.rows[0];
      const def = JSON.stringify(definition);
      if (cur && !cur.used) {
        await tx.query(`UPDATE studies SET definition = $3::jsonb, source = $4, created_at = $5 WHERE id = $1 AND version = $2`, [id, cur.version, def, source, new Date(now)]);
        return { version: cur.version, created: false };
      }
      const version = cur ? cur.version + 1 : 1;
      await tx.query(`INSERT INTO studies (id, version, definition, source, created_at) VALUES ($1, $2, $3::jsonb, $4, $5)`, [id, version, def, source, new Date(now)]);
      return { version, created: true };
    });
  }

  async getStudy(id: string, version?: number): Promise<StudyRecord | null> {
    const r = version === undefined
      ? await this.db.query(`SELECT * FROM studies WHERE id = $1 ORDER BY version DESC LIMIT 1`, [id])
      : await this.db.query(`SELECT * FROM studies WHERE id = $1 AND version = $2`, [id, version]);
    return r.rows[0] ? studyFromRow(r.rows[0]) : null;
  }

  async listStudies(): Promise<StudySummary[]> {
    const r = await this.db.query(
      `SELECT DISTINCT ON (st.id) st.*, (SELECT count(*)::int FROM sessions s WHERE s.study_id = st.id) AS sessions
       FROM studies st ORDER BY st.id, st.version DESC`);
    return r.rows.map((row) => ({ ...studyFromRow(row), sessions: row.sessions as number }));
  }

  async createSession(s: NewSession): Promise<void> {
    await this.db.query(
      `INSERT INTO sessions (id, study_id, study_version, token_hash, params, seed, item_order, state, created_at, flags)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, 'started', $8, $9::jsonb)`,
      [s.id, s.studyId, s.studyVersion, s.tokenHash, JSON.stringify(s.params), s.seed, JSON.stringify(s.order), new Date(s.createdAt), JSON.stringify(s.flags ?? [])]);
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    const r = await this.db.query(`SELECT * FROM sessions WHERE id = $1`, [id]);
    return r.rows[0] ? sessionFromRow(r.rows[0]) : null;
  }

  async getSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const r = await this.db.query(`SELECT * FROM sessions WHERE token_hash = $1`, [tokenHash]);
    return r.rows[0] ? sessionFromRow(r.rows[0]) : null;
  }

  async listSessions(studyId?: string): Promise<SessionRecord[]> {
    const r = studyId === undefined
      ? await this.db.query(`SELECT * FROM sessions ORDER BY created_at, id`)
      : await this.db.query(`SELECT * FROM sessions WHERE study_id = $1 ORDER BY created_at, id`, [studyId]);
    return r.rows.map(sessionFromRow);
  }

  async countSessionsWithParam(studyId: string, key: string, value: string): Promise<number> {
    const r = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions WHERE study_id = $1 AND params ->> $2 = $3`, [studyId, key, value]);
    return r.rows[0].n;
  }

  async setSessionState(id: string, state: SessionState, opts: { finishedAt?: number; flags?: readonly string[] } = {}): Promise<void> {
    await this.db.query(
      `UPDATE sessions SET state = $2, finished_at = COALESCE($3, finished_at), flags = COALESCE($4::jsonb, flags) WHERE id = $1`,
      [id, state, opts.finishedAt === undefined ? null : new Date(opts.finishedAt), opts.flags === undefined ? null : JSON.stringify(opts.flags)]);
  }

  async appendEvents(sessionId: string, events: readonly EventInput[], opts: { receivedAt: number; state: SessionState }): Promise<AppendResult> {
    return this.db.transaction(async (tx) => {
      // The row lock orders concurrent batches of one session, so acked_through only grows.
      const cur = await tx.query<{ acked_through: number }>(`SELECT acked_through FROM sessions WHERE id = $1 FOR UPDATE`, [sessionId]);
      if (!cur.rows[0]) throw new Error(`No session ${sessionId}.`);
      let acked = cur.rows[0].acked_through;
      let stored = 0;
      if (events.length) {
        const ins = await tx.query<{ n: number }>(
          `WITH ins AS (
             INSERT INTO events (session_id, seq, t, kind, data, received_at)
             SELECT $1, e.seq, e.t, e.kind, e.data, $3 FROM jsonb_to_recordset($2::jsonb) AS e(seq integer, t double precision, kind text, data jsonb)
             ON CONFLICT (session_id, seq) DO NOTHING RETURNING 1)
           SELECT count(*)::int AS n FROM ins`,
          [sessionId, JSON.stringify(events), new Date(opts.receivedAt)]);
        stored = ins.rows[0].n;
        // Only a batch holding the next expected seq can move the mark; then walk over what is held.
        if (stored > 0 && events.some((e) => e.seq === acked + 1)) {
          const held = await tx.query<{ seq: number }>(`SELECT seq FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq`, [sessionId, acked]);
          for (const { seq } of held.rows) {
            if (seq !== acked + 1) break;
            acked = seq;
          }
        }
      }
      await tx.query(
        `UPDATE sessions SET acked_through = $2, event_count = event_count + $3, state = $4, last_event_at = $5 WHERE id = $1`,
        [sessionId, acked, stored, opts.state, new Date(opts.receivedAt)]);
      return { ackedThrough: acked, stored, state: opts.state };
    });
  }

  async readEvents(sessionId: string, opts: { kinds?: readonly string[] } = {}): Promise<StoredEvent[]> {
    const r = opts.kinds
      ? await this.db.query(`SELECT seq, t, kind, data, received_at FROM events WHERE session_id = $1 AND kind = ANY($2::text[]) ORDER BY seq`, [sessionId, opts.kinds])
      : await this.db.query(`SELECT seq, t, kind, data, received_at FROM events WHERE session_id = $1 ORDER BY seq`, [sessionId]);
    return r.rows.map((row) => ({ seq: row.seq as number, t: row.t as number, kind: row.kind as string, data: json(row.data), receivedAt: ms(row.received_at) }));
  }

  async *streamEvents(sessionId: string, opts: { batchSize?: number; afterSeq?: number } = {}): AsyncGenerator<StoredEvent[]> {
    const size = Math.max(1, Math.floor(opts.batchSize ?? 5000));
    let after = opts.afterSeq ?? -1;
    for (;;) {
      const r = await this.db.query(
        `SELECT seq, t, kind, data, received_at FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [sessionId, after, size]);
      if (r.rows.length === 0) return;
      const page = r.rows.map((row) => ({ seq: row.seq as number, t: row.t as number, kind: row.kind as string, data: json<Record<string, unknown>>(row.data), receivedAt: ms(row.received_at) }));
      after = page[page.length - 1].seq;
      yield page;
      if (page.length < size) return;
    }
  }

  async addSubmission(s: SubmissionRecord): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO submissions (session_id, key, item, test_index, trial, grid, verdict, practice, at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING 1`,
      [s.sessionId, s.key, s.item, s.testIndex, s.trial, JSON.stringify(s.grid), s.verdict, s.practice, new Date(s.at)]);
    return r.rows.length === 1;
  }

  async listSubmissions(sessionId: string): Promise<SubmissionRecord[]> {
    const r = await this.db.query(`SELECT * FROM submissions WHERE session_id = $1 ORDER BY at, trial NULLS LAST, key`, [sessionId]);
    return r.rows.map((row) => ({
      sessionId: row.session_id as string, key: row.key as string, item: row.item as string, testIndex: row.test_index as number,
      trial: row.trial as number | null, grid: json(row.grid), verdict: row.verdict as SubmissionRecord['verdict'], practice: row.practice as boolean, at: ms(row.at),
    }));
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
