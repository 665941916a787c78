/**
 * Sessions' event logs (`EventStore`): every batch stored exactly once on `(session, seq)` in
 * the group commit (`groupCommit.ts`), read whole or a page at a time; the same SQL on PGlite
 * and PostgreSQL.
 */
import type { SessionState, StoredEvent } from '../../core/study/rules';
import type { Driver, Queryable } from './driver';
import { json, ms } from './columns';
import { type GroupCommit, type GroupMember, storeGroupCommit } from './groupCommit';
import { keysetJsonPage } from './keyset';
import type { AppendResult, EventInput, EventStore, JsonPage } from './types';

/** A stored event as a JSON object (`StoredEvent`), made by the database. */
export const EVENT_JSON = `json_build_object('seq', seq, 't', t, 'kind', kind, 'data', data,
  'receivedAt', floor(extract(epoch FROM received_at) * 1000))`;

/** A session's events after `afterSeq`, pages of `batchSize` as JSON text (`Store.streamEventsJson`). */
async function* eventPages(
  db: Queryable,
  sessionId: string,
  opts: { batchSize?: number; afterSeq?: number },
): AsyncGenerator<JsonPage> {
  const size = Math.max(1, Math.floor(opts.batchSize ?? 5000));
  let after = opts.afterSeq ?? -1;
  for (;;) {
    const page = await keysetJsonPage(
      db,
      { columns: EVENT_JSON, table: 'events', where: 'session_id = $1', params: [sessionId], key: 'seq' },
      after,
      size,
    );
    if (page.count === 0) return;
    after = page.last;
    yield page;
    if (page.count < size) return;
  }
}

/**
 * Batches of many sessions in one statement (group commit): insert what is new, then move each
 * session's `acked_through` over the run of consecutive seqs right after it (events held past a
 * gap join the run once it fills), and record the heartbeat. Only events after each old mark are
 * read, so the cost follows the batches and what is held, not the length of the logs.
 */
const APPEND_SQL = `
  WITH b AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS b(sid text, seq integer, t double precision, kind text, data jsonb, r double precision)),
  req AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS q(sid text, past boolean, r double precision)),
  -- The sessions by their ids ($3), an index lookup each: never a scan of every session.
  s AS (SELECT id, acked_through FROM sessions WHERE id = ANY($3::text[]) ORDER BY id FOR UPDATE),
  ins AS (
    INSERT INTO events (session_id, seq, t, kind, data, received_at)
    SELECT b.sid, b.seq, b.t, b.kind, b.data, to_timestamp(b.r / 1000.0) FROM b JOIN s ON s.id = b.sid
    ON CONFLICT (session_id, seq) DO NOTHING
    RETURNING session_id, seq, octet_length(data::text) AS bytes),
  after AS (
    -- An index range per session, never a scan of the events table: OFFSET 0 keeps the planner
    -- from turning the LATERAL into a join, which without statistics (PGlite gathers none) it
    -- made a hash join over every stored event, in every group commit.
    SELECT s.id AS session_id, e.seq FROM s CROSS JOIN LATERAL (
      SELECT seq FROM events WHERE events.session_id = s.id AND events.seq > s.acked_through OFFSET 0) e
    UNION SELECT session_id, seq FROM ins),
  run AS (
    SELECT r.session_id, max(r.seq) AS top
    FROM (SELECT session_id, seq, seq - row_number() OVER (PARTITION BY session_id ORDER BY seq) AS k FROM after) r
    JOIN s ON s.id = r.session_id WHERE r.k = s.acked_through GROUP BY r.session_id),
  cnt AS (SELECT session_id, count(*)::int AS n, sum(bytes)::bigint AS bytes FROM ins GROUP BY session_id)
  UPDATE sessions SET
    acked_through = COALESCE(run.top, sessions.acked_through),
    event_count = sessions.event_count + COALESCE(cnt.n, 0),
    event_bytes = sessions.event_bytes + COALESCE(cnt.bytes, 0),
    state = CASE WHEN sessions.state IN ('finished', 'timed_out', 'withdrawn') THEN sessions.state WHEN req.past THEN 'timed_out' ELSE 'active' END,
    last_event_at = to_timestamp(req.r / 1000.0)
  FROM s JOIN req ON req.sid = s.id LEFT JOIN run ON run.session_id = s.id LEFT JOIN cnt ON cnt.session_id = s.id
  WHERE sessions.id = ANY($3::text[]) AND sessions.id = s.id
  RETURNING sessions.id, sessions.acked_through, COALESCE(cnt.n, 0)::int AS stored, sessions.state,
    sessions.event_count, sessions.event_bytes::float8 AS event_bytes`;

interface PendingAppend extends GroupMember {
  readonly sessionId: string;
  /** The batch's rows as JSON array elements, serialised when the batch arrived. */
  readonly rows: string;
  readonly receivedAt: number;
  readonly pastSessionLimit: boolean;
  resolve(r: AppendResult): void;
}

export class SqlEventStore implements EventStore {
  /** Events of many sessions, one statement per group (see `appendEvents`). */
  private readonly appends: GroupCommit<PendingAppend>;

  constructor(private readonly db: Driver) {
    this.appends = storeGroupCommit(db.kind, (group) => this.runGroup(group));
  }

  /**
   * Concurrent calls are merged into one statement per group (at most one batch per session in a
   * group), so under load the database sees few large statements instead of many small ones;
   * each caller still gets its own result only once its events are committed.
   */
  appendEvents(
    sessionId: string,
    events: readonly EventInput[],
    opts: { receivedAt: number; pastSessionLimit: boolean },
  ): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      // Serialised here, alone: a batch that cannot be serialised fails by itself, never its group.
      let rows: string;
      try {
        rows = events
          .map((e) =>
            JSON.stringify({ sid: sessionId, seq: e.seq, t: e.t, kind: e.kind, data: e.data, r: opts.receivedAt }),
          )
          .join(',');
      } catch (e) {
        reject(new Error(`The batch cannot be stored: ${(e as Error).message}`));
        return;
      }
      this.appends.add({
        key: sessionId,
        sessionId,
        rows,
        receivedAt: opts.receivedAt,
        pastSessionLimit: opts.pastSessionLimit,
        resolve,
        reject,
      });
    });
  }

  private async runGroup(group: readonly PendingAppend[]): Promise<void> {
    const rows = `[${group
      .map((p) => p.rows)
      .filter((r) => r !== '')
      .join(',')}]`;
    const reqs = JSON.stringify(group.map((p) => ({ sid: p.sessionId, past: p.pastSessionLimit, r: p.receivedAt })));
    const ids = [...new Set(group.map((p) => p.sessionId))].sort();
    // PGlite runs one statement at a time, so the statement is atomic and sees every earlier
    // group. PostgreSQL takes the row locks first, so that the statement's snapshot, taken
    // after them, holds every group committed before (READ COMMITTED).
    type Out = {
      id: string;
      acked_through: number;
      stored: number;
      state: SessionState;
      event_count: number;
      event_bytes: number;
    };
    const run = (q: Queryable) => q.query<Out>(APPEND_SQL, [rows, reqs, ids]);
    const result =
      this.db.kind === 'pglite'
        ? await run(this.db)
        : await this.db.transaction(async (tx) => {
            await tx.query(`SELECT 1 FROM sessions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [ids]);
            return run(tx);
          });
    const results = new Map(
      result.rows.map((r) => [
        r.id,
        {
          ackedThrough: r.acked_through,
          stored: r.stored,
          state: r.state,
          eventCount: r.event_count,
          eventBytes: Number(r.event_bytes),
        },
      ]),
    );
    for (const p of group) {
      const r = results.get(p.sessionId);
      if (r) p.resolve(r);
      else p.reject(new Error(`No session ${p.sessionId}.`));
    }
  }

  async readEvents(sessionId: string, opts: { kinds?: readonly string[] } = {}): Promise<StoredEvent[]> {
    const r = opts.kinds
      ? await this.db.query(
          `SELECT seq, t, kind, data, received_at FROM events WHERE session_id = $1 AND kind = ANY($2::text[]) ORDER BY seq`,
          [sessionId, opts.kinds],
        )
      : await this.db.query(`SELECT seq, t, kind, data, received_at FROM events WHERE session_id = $1 ORDER BY seq`, [
          sessionId,
        ]);
    return r.rows.map((row) => ({
      seq: row.seq as number,
      t: row.t as number,
      kind: row.kind as string,
      data: json(row.data),
      receivedAt: ms(row.received_at),
    }));
  }

  async *streamEvents(
    sessionId: string,
    opts: { batchSize?: number; afterSeq?: number } = {},
  ): AsyncGenerator<StoredEvent[]> {
    for await (const page of eventPages(this.db, sessionId, opts)) yield JSON.parse(page.json) as StoredEvent[];
  }

  streamEventsJson(sessionId: string, opts: { batchSize?: number; afterSeq?: number } = {}): AsyncGenerator<JsonPage> {
    return eventPages(this.db, sessionId, opts);
  }
}
