/**
 * A study's rows as an archive holds them (`server/export/archive.ts`, docs/formats/archive.md):
 * read table by table as the database's own JSON of each row, and written back on another
 * server, whole or merged, in one transaction. The tables are named here once; what derives from
 * them (results digests, campaign counters) is left out and made again from them.
 */
import type { Queryable, Transacting } from './driver';
import { keysetJsonPage } from './keyset';
import { lockCampaigns, recountCandidates } from './campaignStore';
import type { JsonPage } from './records';

/**
 * The tables of a study an archive holds, in the order they are restored (a row's foreign keys
 * before it): `owner` is the column (or expression) that ties a row to the study, a session, a
 * run or a game version; `key` an integer column read a page at a time; `omit` columns the
 * database makes itself (a claim's order number).
 */
export const ARCHIVE_TABLES = {
  studies: { owner: 'id', key: 'version', by: 'study' },
  study_game_pins: { owner: 'study_id', by: 'study' },
  graders: { owner: 'study_id', by: 'study' },
  centre_stations: { owner: 'study_id', by: 'study', order: 'created_at, id' },
  sessions: { owner: 'study_id', by: 'study', order: 'created_at, id' },
  centre_checkins: { owner: 'session_id', by: 'session', order: 'session_id' },
  events: { owner: 'session_id', key: 'seq', by: 'session' },
  submissions: { owner: 'session_id', by: 'session', order: 'session_id, at, key' },
  responses: { owner: 'session_id', by: 'session', order: 'session_id, at, key' },
  game_runs: { owner: 'session_id', by: 'session', order: 'session_id, opened_at, run_id' },
  game_steps: { owner: 'run_id', key: 'step', by: 'run' },
  game_code: { owner: `game_id || '@' || code_hash`, by: 'code', order: 'game_id, code_hash' },
  grades: { owner: 'session_id', by: 'session', order: 'session_id, item, test_index, grader_id' },
  adjudications: { owner: 'session_id', by: 'session', order: 'session_id, item, test_index' },
  campaign_claims: { owner: 'session_id', by: 'session', order: 'no', omit: 'no' },
  campaign_draws: { owner: 'session_id', by: 'session', order: 'session_id' },
} as const satisfies Record<string, ArchiveTableSpec>;

interface ArchiveTableSpec {
  readonly owner: string;
  readonly by: 'study' | 'session' | 'run' | 'code';
  readonly key?: string;
  readonly order?: string;
  readonly omit?: string;
}

export type ArchiveTable = keyof typeof ARCHIVE_TABLES;

export const ARCHIVE_TABLE_NAMES = Object.keys(ARCHIVE_TABLES) as ArchiveTable[];

export function isArchiveTable(name: unknown): name is ArchiveTable {
  return typeof name === 'string' && Object.hasOwn(ARCHIVE_TABLES, name);
}

/** One table's rows to restore, each the JSON object `readArchivePage`/`readArchiveRows` gave. */
export interface ArchivePart {
  readonly table: ArchiveTable;
  readonly rows: readonly Record<string, unknown>[];
}

/** Rows restored per table: `added` (or, for a session, brought up to the archive's), and `present` (there already, left as they were). */
export type RestoredRows = Record<ArchiveTable, { added: number; present: number }>;

/** Restoring onto a server that has the study already, without `merge`, or a merge that cannot be made. */
export class ArchiveConflict extends Error {
  override readonly name = 'ArchiveConflict';
}

/**
 * A session this database has already takes the archive's row when the archive's is further
 * along (more events stored): a session archived later than the one restored before it, so its
 * counters and state match the events the merge adds. Otherwise the row here stays.
 */
const SESSION_FURTHER = `ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, acked_through = EXCLUDED.acked_through,
  event_count = EXCLUDED.event_count, event_bytes = EXCLUDED.event_bytes, last_event_at = EXCLUDED.last_event_at,
  finished_at = EXCLUDED.finished_at, flags = EXCLUDED.flags, excluded_at = EXCLUDED.excluded_at,
  excluded_reason = EXCLUDED.excluded_reason
  WHERE EXCLUDED.event_count > sessions.event_count`;

/** Rows inserted per statement. */
const INSERT_ROWS = 1000;

/** Reading and restoring the rows of a study's archive. */
export interface ArchiveStore {
  /**
   * A page of a keyed table's rows (events, steps, study versions) of one owner, after `after`, as
   * the database's JSON of each row.
   */
  readArchivePage(table: ArchiveTable, owner: string, after: number, limit: number): Promise<JsonPage>;
  /** Every row of an unkeyed table whose owner is one of `owners`, as the JSON text of their array. */
  readArchiveRows(table: ArchiveTable, owners: readonly string[]): Promise<string>;
  /**
   * Writes a study's archived rows in one transaction. Refuses ({@link ArchiveConflict}) a study
   * this database has already unless `merge`, which adds only the rows it lacks (never a row
   * twice) and refuses a version whose definition differs, or a session of another study.
   */
  restoreArchive(studyId: string, parts: readonly ArchivePart[], opts: { merge: boolean }): Promise<RestoredRows>;
}

// The row's alias is a name no table has as a column (game_steps has an `x`).
const rowJson = (t: ArchiveTable) => {
  const spec: ArchiveTableSpec = ARCHIVE_TABLES[t];
  return spec.omit ? `to_jsonb(archived) - '${spec.omit}'` : 'to_jsonb(archived)';
};

export class SqlArchiveStore implements ArchiveStore {
  constructor(private readonly db: Queryable & Transacting) {}

  readArchivePage(table: ArchiveTable, owner: string, after: number, limit: number): Promise<JsonPage> {
    const spec: ArchiveTableSpec = ARCHIVE_TABLES[table];
    if (!spec.key) throw new Error(`${table} is not read in pages`);
    return keysetJsonPage(
      this.db,
      {
        columns: rowJson(table),
        table: `${table} archived`,
        where: `${spec.owner} = $1`,
        params: [owner],
        key: spec.key,
      },
      after,
      limit,
    );
  }

  async readArchiveRows(table: ArchiveTable, owners: readonly string[]): Promise<string> {
    const spec: ArchiveTableSpec = ARCHIVE_TABLES[table];
    const r = await this.db.query<{ rows: string }>(
      `SELECT coalesce(json_agg(${rowJson(table)} ORDER BY ${spec.order ?? spec.key ?? spec.owner}), '[]')::text AS rows
       FROM ${table} archived WHERE ${spec.owner} = ANY($1::text[])`,
      [owners],
    );
    return r.rows[0].rows;
  }

  restoreArchive(studyId: string, parts: readonly ArchivePart[], opts: { merge: boolean }): Promise<RestoredRows> {
    return this.db.transaction(async (tx) => {
      // The lock saveStudy and deleteStudy take: no session starts, no save, no second restore meanwhile.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('study:' || $1))`, [studyId]);
      const rowsOf = (t: ArchiveTable) => parts.filter((p) => p.table === t).flatMap((p) => p.rows);
      await checkTarget(tx, studyId, rowsOf('studies'), rowsOf('sessions'), opts.merge);
      const claims = rowsOf('campaign_claims');
      const campaigns = [...new Set(claims.map((c) => String(c.campaign)))];
      await lockCampaigns(tx, campaigns);
      const out = {} as RestoredRows;
      for (const table of ARCHIVE_TABLE_NAMES) {
        const rows = rowsOf(table);
        let added = 0;
        const columns = await insertColumns(tx, table);
        for (let i = 0; i < rows.length; i += INSERT_ROWS) {
          const r = await tx.query(
            `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)
             ${table === 'sessions' ? SESSION_FURTHER : 'ON CONFLICT DO NOTHING'} RETURNING 1`,
            [JSON.stringify(rows.slice(i, i + INSERT_ROWS))],
          );
          added += r.rows.length;
        }
        out[table] = { added, present: rows.length - added };
      }
      // A merge may have added events to sessions this database had: their digests are made again.
      if (opts.merge)
        await tx.query(`DELETE FROM session_digests WHERE session_id = ANY($1::text[])`, [
          rowsOf('sessions').map((r) => String(r.id)),
        ]);
      // The campaign counters are derived from the claims: counted again for every candidate restored.
      for (const campaign of campaigns) {
        const candidates = [...new Set(claims.filter((c) => c.campaign === campaign).map((c) => String(c.candidate)))];
        await recountCandidates(tx, campaign, candidates);
      }
      return out;
    });
  }
}

/** The columns an insert names: every column of the table but those the database makes. */
async function insertColumns(tx: Queryable, table: ArchiveTable): Promise<string> {
  const r = await tx.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND is_identity = 'NO' ORDER BY ordinal_position`,
    [table],
  );
  return r.rows.map((c) => `"${c.column_name}"`).join(', ');
}

/** Refuses a restore onto a database that has the study (unless merging), or a merge that would mix two studies. */
async function checkTarget(
  tx: Queryable,
  studyId: string,
  versions: readonly Record<string, unknown>[],
  sessions: readonly Record<string, unknown>[],
  merge: boolean,
): Promise<void> {
  const here = await tx.query<{ version: number; same: boolean }>(
    `SELECT s.version, s.definition = a.definition AS same
     FROM studies s LEFT JOIN jsonb_to_recordset($2::jsonb) AS a(version integer, definition jsonb) ON a.version = s.version
     WHERE s.id = $1 ORDER BY s.version`,
    [studyId, JSON.stringify(versions.map((v) => ({ version: v.version, definition: v.definition })))],
  );
  if (here.rows.length && !merge) {
    const n = (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions WHERE study_id = $1`, [studyId]))
      .rows[0].n;
    throw new ArchiveConflict(
      `study "${studyId}" is on this server already (version${here.rows.length === 1 ? '' : 's'} ${here.rows.map((r) => r.version).join(', ')}, ${n} session${n === 1 ? '' : 's'}); nothing was restored. Restore with --merge to add only what it lacks, or delete the study first.`,
    );
  }
  const differs = here.rows.filter((r) => r.same === false).map((r) => r.version);
  if (differs.length)
    throw new ArchiveConflict(
      `study "${studyId}" on this server has another definition for version${differs.length === 1 ? '' : 's'} ${differs.join(', ')} than the archive: they are two different studies and cannot be merged; nothing was restored. Restore onto another server, or delete or rename the study here first.`,
    );
  const foreign = await tx.query<{ id: string; study_id: string }>(
    `SELECT id, study_id FROM sessions WHERE id = ANY($1::text[]) AND study_id <> $2 LIMIT 3`,
    [sessions.map((s) => String(s.id)), studyId],
  );
  if (foreign.rows.length)
    throw new ArchiveConflict(
      `session ${foreign.rows[0].id} of the archive is a session of study "${foreign.rows[0].study_id}" on this server; nothing was restored. This archive cannot be restored onto this database.`,
    );
}
