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
 * database makes itself (a claim's order number, a note's id).
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
  centre_notes: {
    owner: 'session_id',
    by: 'session',
    order: 'session_id, at, id',
    omit: 'id',
    same: ['session_id', 'at', 'actor', 'text', 'flag'],
  },
  prolific_submissions: { owner: 'study_id', by: 'study', order: 'seen_at, submission_id' },
  prolific_bonus_batches: { owner: 'study_id', by: 'study', order: 'created_at, id' },
  prolific_bonus_lines: { owner: 'study_id', by: 'study', order: 'batch_id, participant_id' },
} as const satisfies Record<string, ArchiveTableSpec>;

interface ArchiveTableSpec {
  readonly owner: string;
  readonly by: 'study' | 'session' | 'run' | 'code';
  readonly key?: string;
  readonly order?: string;
  readonly omit?: string;
  /**
   * For a table whose key the database makes (`omit`): the columns that make two rows the same
   * row, so a merge never adds one twice.
   */
  readonly same?: readonly string[];
}

export type ArchiveTable = keyof typeof ARCHIVE_TABLES;

export const ARCHIVE_TABLE_NAMES = Object.keys(ARCHIVE_TABLES) as ArchiveTable[];

export function isArchiveTable(name: unknown): name is ArchiveTable {
  return typeof name === 'string' && Object.hasOwn(ARCHIVE_TABLES, name);
}

/**
 * Rows of one table to restore, each the JSON object `readArchivePage`/`readArchiveRows` gave. A
 * table's rows may come in several parts one after another, the tables in `ARCHIVE_TABLES` order.
 */
export interface ArchivePart {
  readonly table: ArchiveTable;
  readonly rows: readonly Record<string, unknown>[];
}

/** Rows restored per table: `added` (or, for a session, brought up to the archive's), and `present` (there already, left as they were). */
export type RestoredRows = Record<ArchiveTable, { added: number; present: number }>;

/** A stored game step as a restore hands it to {@link RestoreOptions.resign}, with its run's game. */
export interface StoredStep {
  readonly run_id: string;
  readonly game_id: string;
  readonly step: number;
  readonly action: string;
  readonly x: number | null;
  readonly y: number | null;
  readonly levels_completed: number;
  readonly state: string;
  readonly frame_hash: string;
}

export interface RestoreOptions {
  /** Add only what the database lacks to a study it has, instead of refusing it. */
  readonly merge: boolean;
  /**
   * Called, once every row is in, for each logged `game.action` of the study whose run and step
   * name a stored step: the event's data to store instead (signed again), or null to keep it.
   */
  readonly resign?: (logged: Record<string, unknown>, stored: StoredStep) => Record<string, unknown> | null;
}

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

/** Logged steps signed again per read. */
const RESIGN_PAGE = 500;

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
   * Writes a study's archived rows in one transaction, taking the parts as they come (a reader
   * that streams them holds one part at a time); an error from the parts undoes it all. Refuses
   * ({@link ArchiveConflict}) a study this database has already unless `merge`, which adds only
   * the rows it lacks (never a row twice) and refuses a version whose definition differs, or a
   * session of another study.
   */
  restoreArchive(
    studyId: string,
    parts: Iterable<ArchivePart> | AsyncIterable<ArchivePart>,
    opts: RestoreOptions,
  ): Promise<RestoredRows>;
}

// The row's alias is a name no table has as a column (game_steps has an `x`).
const rowJson = (t: ArchiveTable) => {
  const spec: ArchiveTableSpec = ARCHIVE_TABLES[t];
  return spec.omit ? `to_jsonb(archived) - '${spec.omit}'` : 'to_jsonb(archived)';
};

/** The statement that inserts a part's rows (`$1`, a JSON array) and returns a row for each added. */
function insertSql(table: ArchiveTable, columns: string): string {
  const spec: ArchiveTableSpec = ARCHIVE_TABLES[table];
  const from = `jsonb_populate_recordset(NULL::${table}, $1::jsonb) AS r`;
  if (spec.same) {
    const cols = spec.same.map((c) => `"${c}"`);
    return `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${from}
      WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE (${cols.map((c) => `t.${c}`).join(', ')}) = (${cols.map((c) => `r.${c}`).join(', ')}))
      RETURNING 1`;
  }
  return `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM ${from}
    ${table === 'sessions' ? SESSION_FURTHER : 'ON CONFLICT DO NOTHING'} RETURNING 1`;
}

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

  restoreArchive(
    studyId: string,
    parts: Iterable<ArchivePart> | AsyncIterable<ArchivePart>,
    opts: RestoreOptions,
  ): Promise<RestoredRows> {
    return this.db.transaction(async (tx) => {
      // The lock saveStudy and deleteStudy take: no session starts, no save, no second restore meanwhile.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('study:' || $1))`, [studyId]);
      if (!opts.merge) await refuseHere(tx, studyId);
      const out = Object.fromEntries(ARCHIVE_TABLE_NAMES.map((t) => [t, { added: 0, present: 0 }])) as RestoredRows;
      const columns = new Map<ArchiveTable, string>();
      const claimed = new Map<string, Set<string>>();
      let at = 0;
      for await (const part of parts) {
        const index = ARCHIVE_TABLE_NAMES.indexOf(part.table);
        if (index < at) throw new Error(`the parts of an archive come in table order; ${part.table} came late`);
        at = index;
        const rows = part.rows;
        if (part.table === 'studies') await refuseOtherDefinitions(tx, studyId, rows);
        if (part.table === 'sessions') await refuseForeignSessions(tx, studyId, rows);
        if (part.table === 'campaign_claims') {
          await lockCampaigns(
            tx,
            rows.map((c) => String(c.campaign)),
          );
          for (const c of rows) {
            const set = claimed.get(String(c.campaign)) ?? new Set<string>();
            claimed.set(String(c.campaign), set.add(String(c.candidate)));
          }
        }
        let cols = columns.get(part.table);
        if (cols === undefined) columns.set(part.table, (cols = await insertColumns(tx, part.table)));
        for (let i = 0; i < rows.length; i += INSERT_ROWS) {
          const r = await tx.query(insertSql(part.table, cols), [JSON.stringify(rows.slice(i, i + INSERT_ROWS))]);
          out[part.table].added += r.rows.length;
          out[part.table].present += Math.min(INSERT_ROWS, rows.length - i) - r.rows.length;
        }
        // A merge may have added events to sessions this database had: their digests are made again.
        if (opts.merge && part.table === 'sessions')
          await tx.query(`DELETE FROM session_digests WHERE session_id = ANY($1::text[])`, [
            rows.map((r) => String(r.id)),
          ]);
      }
      // The campaign counters are derived from the claims: counted again for every candidate restored.
      for (const [campaign, candidates] of claimed) await recountCandidates(tx, campaign, [...candidates]);
      if (opts.resign) await resignSteps(tx, studyId, opts.resign);
      return out;
    });
  }
}

/** Each logged step of the study that names a stored step, handed to `resign`, a page at a time. */
async function resignSteps(tx: Queryable, studyId: string, resign: NonNullable<RestoreOptions['resign']>) {
  for (let after = ['', -1] as [string, number]; ;) {
    const page = await tx.query<{ session_id: string; seq: number; data: Record<string, unknown> } & StoredStep>(
      `SELECT e.session_id, e.seq, e.data, g.run_id, r.game_id, g.step, g.action, g.x, g.y, g.levels_completed,
              g.state, g.frame_hash
       FROM sessions s JOIN events e ON e.session_id = s.id
       JOIN game_steps g ON g.run_id = e.data ->> 'run' AND g.step::text = e.data ->> 'step'
       JOIN game_runs r ON r.run_id = g.run_id
       WHERE s.study_id = $1 AND e.kind = 'game.action' AND (e.session_id, e.seq) > ($2, $3)
       ORDER BY e.session_id, e.seq LIMIT ${RESIGN_PAGE}`,
      [studyId, after[0], after[1]],
    );
    for (const row of page.rows) {
      const data = resign(row.data, row);
      if (data)
        await tx.query(`UPDATE events SET data = $3::jsonb WHERE session_id = $1 AND seq = $2`, [
          row.session_id,
          row.seq,
          JSON.stringify(data),
        ]);
    }
    if (page.rows.length < RESIGN_PAGE) return;
    const last = page.rows[page.rows.length - 1];
    after = [last.session_id, last.seq];
  }
}

/** The columns an insert names: every column of the table but those the database makes (identity, `omit`). */
async function insertColumns(tx: Queryable, table: ArchiveTable): Promise<string> {
  const spec: ArchiveTableSpec = ARCHIVE_TABLES[table];
  const r = await tx.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND is_identity = 'NO' ORDER BY ordinal_position`,
    [table],
  );
  return r.rows
    .filter((c) => c.column_name !== spec.omit)
    .map((c) => `"${c.column_name}"`)
    .join(', ');
}

/** Refuses a restore onto a database that has the study (not a merge). */
async function refuseHere(tx: Queryable, studyId: string): Promise<void> {
  const here = await tx.query<{ version: number }>(`SELECT version FROM studies WHERE id = $1 ORDER BY version`, [
    studyId,
  ]);
  if (!here.rows.length) return;
  const n = (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM sessions WHERE study_id = $1`, [studyId]))
    .rows[0].n;
  throw new ArchiveConflict(
    `study "${studyId}" is on this server already (version${here.rows.length === 1 ? '' : 's'} ${here.rows.map((r) => r.version).join(', ')}, ${n} session${n === 1 ? '' : 's'}); nothing was restored. Restore with --merge to add only what it lacks, or delete the study first.`,
  );
}

/** Refuses a merge of two studies of one id: a version here whose definition is not the archive's. */
async function refuseOtherDefinitions(
  tx: Queryable,
  studyId: string,
  versions: readonly Record<string, unknown>[],
): Promise<void> {
  const here = await tx.query<{ version: number }>(
    `SELECT s.version FROM studies s JOIN jsonb_to_recordset($2::jsonb) AS a(version integer, definition jsonb)
       ON a.version = s.version
     WHERE s.id = $1 AND s.definition <> a.definition ORDER BY s.version`,
    [studyId, JSON.stringify(versions.map((v) => ({ version: v.version, definition: v.definition })))],
  );
  const differs = here.rows.map((r) => r.version);
  if (differs.length)
    throw new ArchiveConflict(
      `study "${studyId}" on this server has another definition for version${differs.length === 1 ? '' : 's'} ${differs.join(', ')} than the archive: they are two different studies and cannot be merged; nothing was restored. Restore onto another server, or delete or rename the study here first.`,
    );
}

/** Refuses sessions that are another study's here. */
async function refuseForeignSessions(
  tx: Queryable,
  studyId: string,
  sessions: readonly Record<string, unknown>[],
): Promise<void> {
  const foreign = await tx.query<{ id: string; study_id: string }>(
    `SELECT id, study_id FROM sessions WHERE id = ANY($1::text[]) AND study_id <> $2 LIMIT 3`,
    [sessions.map((s) => String(s.id)), studyId],
  );
  if (foreign.rows.length)
    throw new ArchiveConflict(
      `session ${foreign.rows[0].id} of the archive is a session of study "${foreign.rows[0].study_id}" on this server; nothing was restored. This archive cannot be restored onto this database.`,
    );
}
