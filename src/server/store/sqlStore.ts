/* eslint-disable max-lines -- `SqlStore` implements the whole `Store` that its callers still take; its methods move out to the narrow stores it composes (gradingStore.ts, centreStore.ts, ...) as the callers take those instead. */
/**
 * The `Store` over SQL, shared by both back ends: a driver only runs queries and transactions.
 */
import type { SessionState, StoredEvent } from '../../core/study/rules';
import { migrations } from './migrations';
import { ProlificStore, deleteProlificRows } from './prolificStore';
import { GroupCommit, type GroupMember } from './groupCommit';
import { type GradingStore, SqlGradingStore } from './gradingStore';
import { type CentreStore, SqlCentreStore, deleteCentreRows } from './centreStore';
import type { Pause } from '../../core/study/pauses';
import { CampaignStore, lockCampaigns, recountingSessions } from './campaignStore';
import { type PeopleStore, SqlPeopleStore } from './peopleStore';
import { type ReferenceStore, SqlReferenceStore } from './referenceStore';
import { pinStudyGames } from './gamePins';
import { INSERT_SESSION_SQL, sessionRowValues } from './sessionRow';
import { deleteSessionRows, insertAudit } from './sessionRows';
import { type StageStore, SqlStageStore } from './stageStore';
import { type ParticipantDataStore, SqlParticipantDataStore } from './participantData';
import { ALL_STAGES, MAIN_STAGE } from '../../core/study/stages';
import type { Driver, Queryable } from './driver';
import { keysetJsonPage, keysetPage } from './keyset';
import { type ArchiveStore, SqlArchiveStore } from './archiveStore';
import { type RetentionStore, SqlRetentionStore } from './retentionStore';
import type {
  AgentKeyRecord,
  AgentRunRecord,
  AuditEventInput,
  AuditEventRecord,
  DeletedRows,
  AgentStepRecord,
  AppendResult,
  DownloadTicket,
  EventInput,
  GameCodeFiles,
  GameRunRecord,
  GameStepRecord,
  NewSession,
  ResponseRecord,
  SessionRecord,
  SessionStamp,
  StepOutcome,
  StepToStore,
  Store,
  StoredDigest,
  StudyGameVersion,
  StudyFirstRun,
  StudyGamePin,
  StoredStudyGamePin,
  StudyRecord,
  StudySource,
  StudySummary,
  SubmissionRecord,
  ScorecardRecord,
  JsonPage,
} from './types';
import { SessionChanged } from './types';

/** Applies the migrations not yet recorded, each in its own transaction; safe with several servers starting at once. */
export async function migrate(db: Driver): Promise<number[]> {
  // Every step holds the same lock, which serialises concurrent starts against the same schema;
  // the table itself too, since two CREATE TABLE IF NOT EXISTS at once can collide.
  const lock = (tx: Queryable) =>
    tx.query(`SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.schema_migrations'))`);
  await db.transaction(async (tx) => {
    await lock(tx);
    await tx.exec(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
  });
  const applied: number[] = [];
  for (const m of migrations) {
    const done = await db.transaction(async (tx) => {
      await lock(tx);
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
const submissionOf = (row: Record<string, unknown>): SubmissionRecord => ({
  sessionId: row.session_id as string,
  key: row.key as string,
  item: row.item as string,
  testIndex: row.test_index as number,
  trial: row.trial as number | null,
  grid: json(row.grid),
  verdict: row.verdict as SubmissionRecord['verdict'],
  practice: row.practice as boolean,
  at: ms(row.at),
  taskHash: (row.task_hash as string | null | undefined) ?? null,
});
const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

const responseOf = (row: Record<string, unknown>): ResponseRecord => ({
  sessionId: row.session_id as string,
  key: row.key as string,
  item: row.item as string,
  kind: row.kind as ResponseRecord['kind'],
  part: row.part as string,
  value: json(row.value),
  at: ms(row.at),
});

type Row = Record<string, unknown>;

/** A stored event as a JSON object (`StoredEvent`), made by the database. */
const EVENT_JSON = `json_build_object('seq', seq, 't', t, 'kind', kind, 'data', data,
  'receivedAt', floor(extract(epoch FROM received_at) * 1000))`;

/** A stored step as `readGameSteps` answers it, as the database's JSON (`Store.readGameStepsJson`). */
const STEP_JSON = `json_build_object('runId', run_id, 'step', step, 'action', action, 'x', x, 'y', y,
  'state', state, 'levelsCompleted', levels_completed, 'winLevels', win_levels, 'available', available,
  'fullReset', full_reset, 'frameHash', frame_hash, 'frames', frames, 'keyframe', keyframe,
  'at', floor(extract(epoch FROM at) * 1000))`;

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

/** Most batches (or steps) merged into one statement. */
const GROUP_MAX = 256;

/** A session start's question "how many sessions of this study hold this link parameter?". */
interface PendingParamCount extends GroupMember {
  readonly studyId: string;
  readonly param: string;
  readonly value: string;
  resolve(n: number): void;
}

/**
 * The steps of many runs in one statement, several consecutive steps of a run among them. A step
 * whose write names its session's stamp is stored only while the row still has it (the admission
 * it was taken on still holds). A run's steps are stored up to the first that the run has already,
 * whose session changed or whose step before is neither stored nor in the statement (`gap`), and
 * none past it, so a run's stored steps never have a gap. One row back per step, with its outcome
 * (`StepOutcome`); a step missing from `ins` though neither there nor changed nor after a gap met
 * another server's insert of it in the meantime (`exists`).
 */
const ADD_STEPS_SQL = `
  WITH s AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS s(run_id text, step integer, action text, x integer, y integer, state text,
      levels_completed integer, win_levels integer, available jsonb, full_reset boolean, frame_hash text, frames text, keyframe boolean,
      at double precision, session_id text, session_state text, event_count integer, acked_through integer)),
  -- OFFSET 0 keeps each check a lookup of one session and one step, never a join over every session or step.
  c AS (
    SELECT s.*,
      s.session_id IS NULL OR EXISTS (
        SELECT 1 FROM sessions x WHERE x.id = s.session_id AND x.state = s.session_state
          AND x.event_count = s.event_count AND x.acked_through = s.acked_through OFFSET 0) AS held,
      EXISTS (SELECT 1 FROM game_steps g WHERE g.run_id = s.run_id AND g.step = s.step OFFSET 0) AS there,
      s.step > 0
        AND NOT EXISTS (SELECT 1 FROM game_steps g WHERE g.run_id = s.run_id AND g.step = s.step - 1 OFFSET 0)
        AND NOT EXISTS (SELECT 1 FROM s p WHERE p.run_id = s.run_id AND p.step = s.step - 1) AS gap
    FROM s),
  stop AS (SELECT run_id, min(step) AS step FROM c WHERE there OR NOT held OR gap GROUP BY run_id),
  ins AS (
    INSERT INTO game_steps (run_id, step, action, x, y, state, levels_completed, win_levels, available, full_reset, frame_hash, frames, keyframe, at)
    SELECT c.run_id, c.step, c.action, c.x, c.y, c.state, c.levels_completed, c.win_levels, c.available, c.full_reset, c.frame_hash, c.frames, c.keyframe, to_timestamp(c.at / 1000.0)
    FROM c WHERE NOT EXISTS (SELECT 1 FROM stop WHERE stop.run_id = c.run_id AND c.step >= stop.step)
    ON CONFLICT DO NOTHING
    RETURNING run_id, step)
  SELECT c.run_id, c.step, CASE
      WHEN EXISTS (SELECT 1 FROM ins WHERE ins.run_id = c.run_id AND ins.step = c.step) THEN 'stored'
      WHEN c.step > stop.step THEN 'after'
      WHEN NOT c.there AND NOT c.held THEN 'changed'
      WHEN NOT c.there AND c.gap THEN 'gap'
      ELSE 'exists' END AS outcome
  FROM c LEFT JOIN stop ON stop.run_id = c.run_id`;

/**
 * {@link ADD_STEPS_SQL} for a group of one step (one player, or a quiet moment: the common case),
 * with plain parameters and no common table expressions: a row back means stored. On PGlite
 * 0.45-0.47 ms a step, against 0.64-0.72 ms for the same check and insert written as common
 * table expressions (a probe of 1,000 steps each, two rounds). No row: the step was there
 * already, its session's row changed since the admission ({@link STEP_SESSION_HELD_SQL} tells
 * which), or the run lacks the step before it ({@link STEP_THERE_SQL}).
 */
const ADD_STEP_SQL = `
  INSERT INTO game_steps (run_id, step, action, x, y, state, levels_completed, win_levels, available, full_reset, frame_hash, frames, keyframe, at)
  SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, to_timestamp($14 / 1000.0)
  WHERE ($15::text IS NULL OR EXISTS (
    SELECT 1 FROM sessions x WHERE x.id = $15 AND x.state = $16 AND x.event_count = $17 AND x.acked_through = $18))
    AND ($2 = 0 OR EXISTS (SELECT 1 FROM game_steps g WHERE g.run_id = $1 AND g.step = $2 - 1))
  ON CONFLICT DO NOTHING
  RETURNING 1`;

/**
 * Whether a session's row still has a stamp. A row that changed stays changed (its state, event
 * count and mark only move on), so after a step's insert stored nothing this says whether the
 * stamp was the reason; a step found stored and then a change in between reads as the change,
 * which its caller handles the same way (decided again, then stored or found stored).
 */
const STEP_SESSION_HELD_SQL = `
  SELECT EXISTS (SELECT 1 FROM sessions x WHERE x.id = $1 AND x.state = $2 AND x.event_count = $3 AND x.acked_through = $4) AS ok`;

/** Whether a run has a step stored (after an insert of the next one stored nothing). */
const STEP_THERE_SQL = `SELECT EXISTS (SELECT 1 FROM game_steps WHERE run_id = $1 AND step = $2) AS there`;

/** One run's consecutive steps waiting for their group (one member per run in a group). */
interface PendingSteps extends GroupMember {
  readonly steps: readonly StepToStore[];
  resolve(outcomes: StepOutcome[]): void;
}

/** A session's breaks as stored (`pauses` jsonb, migration 17): present only when it had one. */
function pausesOf(v: unknown): { pauses?: Pause[] } {
  const list = v === null || v === undefined ? [] : json<Pause[]>(v);
  return list.length ? { pauses: list } : {};
}

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
    eventBytes: Number(r.event_bytes ?? 0),
    createdAt: ms(r.created_at),
    lastEventAt: msOrNull(r.last_event_at),
    finishedAt: msOrNull(r.finished_at),
    flags: json(r.flags),
    excludedAt: msOrNull(r.excluded_at),
    excludedReason: (r.excluded_reason as string | null | undefined) ?? null,
    stage: (r.stage as string | undefined) ?? MAIN_STAGE,
    ...pausesOf(r.pauses),
  };
}

/** Inserts a new session's row; the stage it started in (the study's at the insert). */
async function insertSession(q: Queryable, s: NewSession): Promise<{ stage: string }> {
  const r = await q.query<{ stage: string }>(`${INSERT_SESSION_SQL} RETURNING stage`, sessionRowValues(s));
  return { stage: r.rows[0].stage };
}

function studyFromRow(r: Row): StudyRecord {
  return {
    id: r.id as string,
    version: r.version as number,
    definition: json(r.definition),
    source: r.source as StudySource,
    createdAt: ms(r.created_at),
  };
}

export class SqlStore implements Store {
  readonly kind: 'pglite' | 'postgres';
  readonly grading: GradingStore;
  readonly campaigns: CampaignStore;
  readonly people: PeopleStore;
  readonly stages: StageStore;
  readonly participantData: ParticipantDataStore;
  readonly prolific: ProlificStore;
  readonly archives: ArchiveStore;
  readonly retention: RetentionStore;
  readonly references: ReferenceStore;
  readonly centre: CentreStore;

  /** Events of many sessions, one statement per group (see `appendEvents`). */
  private readonly appends: GroupCommit<PendingAppend>;
  /** Steps of many runs, one statement per group (see `addGameStep`). */
  private readonly steps: GroupCommit<PendingSteps>;
  /**
   * Session starts' repeat checks, one statement per group: under a burst of starts they would
   * otherwise queue one query each for a connection, ahead of the starts' draws.
   */
  private readonly paramCounts: GroupCommit<PendingParamCount>;
  private paramCountNo = 0;
  /**
   * Reads of a study's latest version in flight, shared by the requests arriving meanwhile (a
   * burst of starts reads one study). Dropped when this server saves or deletes the study, so a
   * request after the save never gets a read begun before it.
   */
  private readonly latestStudyReads = new Map<string, Promise<StudyRecord | null>>();

  constructor(private readonly db: Driver) {
    this.kind = db.kind;
    this.grading = new SqlGradingStore(db);
    this.campaigns = new CampaignStore(db);
    this.people = new SqlPeopleStore(db);
    this.stages = new SqlStageStore(db);
    this.participantData = new SqlParticipantDataStore(db);
    this.prolific = new ProlificStore(db);
    this.archives = new SqlArchiveStore(db);
    this.retention = new SqlRetentionStore(db);
    this.references = new SqlReferenceStore(db);
    this.centre = new SqlCentreStore(db);
    const parallel = db.kind === 'pglite' ? 1 : 4;
    this.appends = new GroupCommit({ parallel, max: GROUP_MAX, run: (group) => this.runGroup(group) });
    this.steps = new GroupCommit({ parallel, max: GROUP_MAX, run: (group) => this.runSteps(group) });
    this.paramCounts = new GroupCommit({ parallel, max: GROUP_MAX, run: (group) => this.runParamCounts(group) });
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
      .finally(() => this.latestStudyReads.delete(id));
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

  async createSession(s: NewSession, pins?: readonly StudyGamePin[]): Promise<{ stage: string }> {
    if (pins?.length) {
      // The session and its study's first game versions in one transaction: a session without its pins never exists.
      return this.db.transaction(async (tx) => {
        const made = await insertSession(tx, s);
        await pinStudyGames(tx, s, pins);
        return made;
      });
    }
    return insertSession(this.db, s);
  }

  async studyGamePins(studyId: string): Promise<StoredStudyGamePin[]> {
    const r = await this.db.query(
      `SELECT game_id, version, code_hash, session_id, pinned_at FROM study_game_pins WHERE study_id = $1 ORDER BY pinned_at, game_id`,
      [studyId],
    );
    return r.rows.map((row) => ({
      gameId: row.game_id as string,
      version: row.version as string,
      codeHash: (row.code_hash as string | null) ?? null,
      sessionId: row.session_id as string,
      pinnedAt: ms(row.pinned_at),
    }));
  }

  async getSession(id: string): Promise<SessionRecord | null> {
    const r = await this.db.query(`SELECT * FROM sessions WHERE id = $1`, [id]);
    return r.rows[0] ? sessionFromRow(r.rows[0]) : null;
  }

  async getSessions(ids: readonly string[]): Promise<SessionRecord[]> {
    if (!ids.length) return [];
    return (await this.db.query(`SELECT * FROM sessions WHERE id = ANY($1::text[])`, [ids])).rows.map(sessionFromRow);
  }

  async getSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const r = await this.db.query(`SELECT * FROM sessions WHERE token_hash = $1`, [tokenHash]);
    return r.rows[0] ? sessionFromRow(r.rows[0]) : null;
  }

  async listSessions(studyId?: string): Promise<SessionRecord[]> {
    const r =
      studyId === undefined
        ? await this.db.query(`SELECT * FROM sessions ORDER BY created_at, id`)
        : await this.db.query(`SELECT * FROM sessions WHERE study_id = $1 ORDER BY created_at, id`, [studyId]);
    return r.rows.map(sessionFromRow);
  }

  countSessionsWithParam(studyId: string, key: string, value: string): Promise<number> {
    return new Promise((resolve, reject) => {
      // Every question may share a group: its key only has to be its own.
      this.paramCounts.add({ key: String(this.paramCountNo++), studyId, param: key, value, resolve, reject });
    });
  }

  private async runParamCounts(group: readonly PendingParamCount[]): Promise<void> {
    const r = await this.db.query<{ k: number; n: number }>(
      `SELECT q.k, (SELECT count(*)::int FROM sessions s WHERE s.study_id = q.study AND s.params ->> q.param = q.value) AS n
       FROM jsonb_to_recordset($1::jsonb) AS q(k integer, study text, param text, value text)`,
      [JSON.stringify(group.map((m, k) => ({ k, study: m.studyId, param: m.param, value: m.value })))],
    );
    for (const row of r.rows) group[row.k].resolve(row.n);
  }

  async setSessionState(
    id: string,
    state: SessionState,
    opts: { finishedAt?: number; flags?: readonly string[] } = {},
  ): Promise<void> {
    await this.db.query(
      `UPDATE sessions SET state = $2, finished_at = COALESCE($3, finished_at), flags = COALESCE($4::jsonb, flags) WHERE id = $1`,
      [
        id,
        state,
        opts.finishedAt === undefined ? null : new Date(opts.finishedAt),
        opts.flags === undefined ? null : JSON.stringify(opts.flags),
      ],
    );
  }

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
        const studies = await tx.query(`DELETE FROM studies WHERE id = $1 RETURNING 1`, [id]);
        const deleted = { studies: studies.rows.length, ...rows };
        await insertAudit(tx, { ...audit, studyId: id, target: id, action: 'study.delete' }, { deleted });
        return deleted;
      })
      .finally(() => this.latestStudyReads.delete(id));
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

  async addSubmission(s: SubmissionRecord): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO submissions (session_id, key, item, test_index, trial, grid, verdict, practice, at, task_hash)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING 1`,
      [
        s.sessionId,
        s.key,
        s.item,
        s.testIndex,
        s.trial,
        JSON.stringify(s.grid),
        s.verdict,
        s.practice,
        new Date(s.at),
        s.taskHash ?? null,
      ],
    );
    return r.rows.length === 1;
  }

  async listSubmissions(sessionId: string): Promise<SubmissionRecord[]> {
    const r = await this.db.query(
      `SELECT * FROM submissions WHERE session_id = $1 ORDER BY at, trial NULLS LAST, key`,
      [sessionId],
    );
    return r.rows.map(submissionOf);
  }

  async addResponse(r: ResponseRecord): Promise<boolean> {
    const res = await this.db.query(
      `INSERT INTO responses (session_id, key, item, kind, part, value, at) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) ON CONFLICT DO NOTHING RETURNING 1`,
      [r.sessionId, r.key, r.item, r.kind, r.part, JSON.stringify(r.value), new Date(r.at)],
    );
    return res.rows.length === 1;
  }

  async listResponses(sessionId: string): Promise<ResponseRecord[]> {
    const res = await this.db.query(`SELECT * FROM responses WHERE session_id = $1 ORDER BY at, key`, [sessionId]);
    return res.rows.map(responseOf);
  }

  async listStudyResponses(studyId: string, kind: ResponseRecord['kind']): Promise<ResponseRecord[]> {
    const res = await this.db.query(
      `SELECT r.* FROM responses r JOIN sessions s ON s.id = r.session_id WHERE s.study_id = $1 AND r.kind = $2 ORDER BY r.at, r.session_id, r.key`,
      [studyId, kind],
    );
    return res.rows.map(responseOf);
  }

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

  async submissionCounts(studyId: string): Promise<Map<string, number>> {
    const r = await this.db.query<{ session_id: string; n: number }>(
      `SELECT s.session_id, count(*)::int AS n FROM submissions s JOIN sessions x ON x.id = s.session_id WHERE x.study_id = $1 GROUP BY s.session_id`,
      [studyId],
    );
    return new Map(r.rows.map((row) => [row.session_id, row.n]));
  }

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

  async listSubmissionsOf(sessionIds: readonly string[]): Promise<Map<string, SubmissionRecord[]>> {
    const out = new Map<string, SubmissionRecord[]>(sessionIds.map((id) => [id, []]));
    if (sessionIds.length === 0) return out;
    const r = await this.db.query(
      `SELECT * FROM submissions WHERE session_id = ANY($1::text[]) ORDER BY session_id, at, trial NULLS LAST, key`,
      [sessionIds],
    );
    for (const row of r.rows) out.get(row.session_id as string)!.push(submissionOf(row));
    return out;
  }

  async listResponsesOf(sessionIds: readonly string[]): Promise<Map<string, ResponseRecord[]>> {
    const out = new Map<string, ResponseRecord[]>(sessionIds.map((id) => [id, []]));
    if (sessionIds.length === 0) return out;
    const r = await this.db.query(
      `SELECT * FROM responses WHERE session_id = ANY($1::text[]) ORDER BY session_id, at, key`,
      [sessionIds],
    );
    for (const row of r.rows) out.get(row.session_id as string)!.push(responseOf(row));
    return out;
  }

  async listGameRunsOf(sessionIds: readonly string[]): Promise<Map<string, GameRunRecord[]>> {
    const out = new Map<string, GameRunRecord[]>(sessionIds.map((id) => [id, []]));
    if (sessionIds.length === 0) return out;
    const r = await this.db.query(
      `SELECT * FROM game_runs WHERE session_id = ANY($1::text[]) ORDER BY session_id, opened_at, run_id`,
      [sessionIds],
    );
    for (const row of r.rows) out.get(row.session_id as string)!.push(gameRunOf(row));
    return out;
  }

  async addGameRun(r: GameRunRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO game_runs (run_id, session_id, item, game_id, source, engine, seed, opened_at, code_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [r.runId, r.sessionId, r.item, r.gameId, r.source, r.engine, r.seed, new Date(r.openedAt), r.codeHash ?? null],
    );
  }

  async getGameRun(runId: string): Promise<GameRunRecord | null> {
    const r = await this.db.query(`SELECT * FROM game_runs WHERE run_id = $1`, [runId]);
    return r.rows.length ? gameRunOf(r.rows[0]) : null;
  }

  async listGameRuns(sessionId: string): Promise<GameRunRecord[]> {
    const r = await this.db.query(`SELECT * FROM game_runs WHERE session_id = $1 ORDER BY opened_at, run_id`, [
      sessionId,
    ]);
    return r.rows.map(gameRunOf);
  }

  async listGameRunsAfter(afterRunId: string | null, limit: number): Promise<GameRunRecord[]> {
    const r = await this.db.query(
      `SELECT * FROM game_runs WHERE $1::text IS NULL OR run_id > $1 ORDER BY run_id LIMIT $2`,
      [afterRunId, limit],
    );
    return r.rows.map(gameRunOf);
  }

  async removeGameSteps(runId: string, from: number): Promise<number> {
    const r = await this.db.query(`DELETE FROM game_steps WHERE run_id = $1 AND step >= $2 RETURNING step`, [
      runId,
      from,
    ]);
    return r.rows.length;
  }

  async studyUsage(studyId: string): Promise<{ events: number; bytes: number }> {
    const r = await this.db.query(
      `SELECT COALESCE(sum(event_count), 0)::float8 AS events, COALESCE(sum(event_bytes), 0)::float8 AS bytes FROM sessions WHERE study_id = $1`,
      [studyId],
    );
    return { events: Number(r.rows[0].events), bytes: Number(r.rows[0].bytes) };
  }

  async studyGameVersions(studyId: string): Promise<StudyGameVersion[]> {
    const r = await this.db.query(
      `SELECT g.game_id, g.code_hash, count(*)::int AS runs, min(g.opened_at) AS first_at, max(g.opened_at) AS last_at
       FROM game_runs g JOIN sessions s ON s.id = g.session_id WHERE s.study_id = $1
       GROUP BY g.game_id, g.code_hash ORDER BY min(g.opened_at), g.game_id`,
      [studyId],
    );
    return r.rows.map((row) => ({
      gameId: row.game_id as string,
      codeHash: (row.code_hash as string | null) ?? null,
      runs: row.runs as number,
      firstAt: ms(row.first_at),
      lastAt: ms(row.last_at),
    }));
  }

  async listStudyFirstRuns(studyId: string): Promise<StudyFirstRun[]> {
    const r = await this.db.query(
      `SELECT DISTINCT ON (g.session_id, g.item) g.session_id, g.item, g.game_id, g.code_hash, g.opened_at
       FROM game_runs g JOIN sessions s ON s.id = g.session_id WHERE s.study_id = $1
       ORDER BY g.session_id, g.item, g.opened_at, g.run_id`,
      [studyId],
    );
    return r.rows.map((row) => ({
      sessionId: row.session_id as string,
      item: row.item as string,
      gameId: row.game_id as string,
      codeHash: (row.code_hash as string | null) ?? null,
      openedAt: ms(row.opened_at),
    }));
  }

  async saveGameCode(gameId: string, codeHash: string, files: GameCodeFiles, at: number): Promise<void> {
    await this.db.query(
      `INSERT INTO game_code (game_id, code_hash, files, created_at) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT DO NOTHING`,
      [gameId, codeHash, JSON.stringify(files), new Date(at)],
    );
  }

  async getGameCode(gameId: string, codeHash: string): Promise<GameCodeFiles | null> {
    const r = await this.db.query(`SELECT files FROM game_code WHERE game_id = $1 AND code_hash = $2`, [
      gameId,
      codeHash,
    ]);
    return r.rows.length ? json<GameCodeFiles>(r.rows[0].files) : null;
  }

  /**
   * Group-committed like events: the steps of runs played at the same moment are written in one
   * statement, and each caller is answered once its step is committed (true), or was already
   * stored under that number (false).
   */
  async addGameStep(step: GameStepRecord, opts: { session?: SessionStamp } = {}): Promise<boolean> {
    const [outcome] = await this.addGameSteps([{ step, session: opts.session }]);
    if (outcome === 'changed') throw new SessionChanged(opts.session!.id);
    return outcome === 'stored';
  }

  addGameSteps(steps: readonly StepToStore[]): Promise<StepOutcome[]> {
    if (!steps.length) return Promise.resolve([]);
    const [{ step: first }] = steps;
    if (steps.some(({ step: s }, i) => s.runId !== first.runId || s.step !== first.step + i))
      return Promise.reject(new Error('addGameSteps takes consecutive steps of one run, in order'));
    return new Promise((resolve, reject) => this.steps.add({ key: steps[0].step.runId, steps, resolve, reject }));
  }

  private async runSteps(group: readonly PendingSteps[]): Promise<void> {
    if (group.length === 1 && group[0].steps.length === 1) {
      const [{ step: s, session }] = group[0].steps;
      const r = await this.db.query(ADD_STEP_SQL, [
        s.runId,
        s.step,
        s.action,
        s.x,
        s.y,
        s.state,
        s.levelsCompleted,
        s.winLevels,
        JSON.stringify(s.available),
        s.fullReset,
        s.frameHash,
        s.frames,
        s.keyframe,
        s.at,
        session?.id ?? null,
        session?.state ?? null,
        session?.eventCount ?? null,
        session?.ackedThrough ?? null,
      ]);
      if (r.rows.length > 0) return group[0].resolve(['stored']);
      if (session) {
        const held = await this.db.query<{ ok: boolean }>(STEP_SESSION_HELD_SQL, [
          session.id,
          session.state,
          session.eventCount,
          session.ackedThrough,
        ]);
        if (!held.rows[0].ok) return group[0].resolve(['changed']);
      }
      if (s.step > 0) {
        const before = await this.db.query<{ there: boolean }>(STEP_THERE_SQL, [s.runId, s.step]);
        if (!before.rows[0].there) {
          const prior = await this.db.query<{ there: boolean }>(STEP_THERE_SQL, [s.runId, s.step - 1]);
          if (!prior.rows[0].there) return group[0].resolve(['gap']);
        }
      }
      return group[0].resolve(['exists']);
    }
    const rows = JSON.stringify(
      group.flatMap((p) =>
        p.steps.map(({ step: s, session }) => ({
          run_id: s.runId,
          step: s.step,
          action: s.action,
          x: s.x,
          y: s.y,
          state: s.state,
          levels_completed: s.levelsCompleted,
          win_levels: s.winLevels,
          available: s.available,
          full_reset: s.fullReset,
          frame_hash: s.frameHash,
          frames: s.frames,
          keyframe: s.keyframe,
          at: s.at,
          ...(session
            ? {
                session_id: session.id,
                session_state: session.state,
                event_count: session.eventCount,
                acked_through: session.ackedThrough,
              }
            : {}),
        })),
      ),
    );
    const r = await this.db.query<{ run_id: string; step: number; outcome: StepOutcome }>(ADD_STEPS_SQL, [rows]);
    const outcomes = new Map(r.rows.map((row) => [`${row.step} ${row.run_id}`, row.outcome]));
    for (const p of group) p.resolve(p.steps.map(({ step: s }) => outcomes.get(`${s.step} ${s.runId}`) ?? 'exists'));
  }

  async readGameSteps(runId: string, opts: { from?: number; limit?: number } = {}): Promise<GameStepRecord[]> {
    const from = opts.from ?? 0;
    const rows =
      opts.limit === undefined
        ? (
            await this.db.query(`SELECT * FROM game_steps WHERE run_id = $1 AND step >= $2 ORDER BY step`, [
              runId,
              from,
            ])
          ).rows
        : await keysetPage(
            this.db,
            { columns: '*', table: 'game_steps', where: 'run_id = $1', params: [runId], key: 'step' },
            from - 1,
            opts.limit,
          );
    return rows.map((row) => ({
      runId: row.run_id as string,
      step: row.step as number,
      action: row.action as string,
      x: row.x as number | null,
      y: row.y as number | null,
      state: row.state as string,
      levelsCompleted: row.levels_completed as number,
      winLevels: row.win_levels as number,
      available: json(row.available) as number[],
      fullReset: row.full_reset as boolean,
      frameHash: row.frame_hash as string,
      frames: row.frames as string,
      keyframe: row.keyframe as boolean,
      at: ms(row.at),
    }));
  }

  readGameStepsJson(runId: string, opts: { from?: number; limit: number }): Promise<JsonPage> {
    return keysetJsonPage(
      this.db,
      { columns: STEP_JSON, table: 'game_steps', where: 'run_id = $1', params: [runId], key: 'step' },
      (opts.from ?? 0) - 1,
      opts.limit,
    );
  }

  async secret(name: string, make: () => string): Promise<string> {
    await this.db.query(`INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      name,
      make(),
    ]);
    const r = await this.db.query(`SELECT value FROM server_secrets WHERE name = $1`, [name]);
    return r.rows[0].value as string;
  }

  async addAgentKey(k: AgentKeyRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO agent_keys (id, name, key_hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5)`,
      [k.id, k.name, k.keyHash, new Date(k.createdAt), k.revokedAt === null ? null : new Date(k.revokedAt)],
    );
  }

  async listAgentKeys(): Promise<AgentKeyRecord[]> {
    const r = await this.db.query(`SELECT * FROM agent_keys ORDER BY created_at, id`);
    return r.rows.map(agentKeyOf);
  }

  async agentKeyByHash(keyHash: string): Promise<AgentKeyRecord | null> {
    const r = await this.db.query(`SELECT * FROM agent_keys WHERE key_hash = $1`, [keyHash]);
    return r.rows.length ? agentKeyOf(r.rows[0]) : null;
  }

  async revokeAgentKey(id: string, at: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE agent_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING 1`,
      [id, new Date(at)],
    );
    return r.rows.length === 1;
  }

  async addScorecard(c: ScorecardRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO scorecards (card_id, key_id, tags, source_url, opaque, opened_at, closed_at) VALUES ($1, $2, $3::jsonb, $4, $5::jsonb, $6, $7)`,
      [
        c.cardId,
        c.keyId,
        JSON.stringify(c.tags),
        c.sourceUrl,
        c.opaque === undefined ? null : JSON.stringify(c.opaque),
        new Date(c.openedAt),
        c.closedAt === null ? null : new Date(c.closedAt),
      ],
    );
  }

  async getScorecard(cardId: string): Promise<ScorecardRecord | null> {
    const r = await this.db.query(`SELECT * FROM scorecards WHERE card_id = $1`, [cardId]);
    return r.rows.length ? scorecardOf(r.rows[0]) : null;
  }

  async closeScorecard(cardId: string, at: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE scorecards SET closed_at = $2 WHERE card_id = $1 AND closed_at IS NULL RETURNING 1`,
      [cardId, new Date(at)],
    );
    return r.rows.length === 1;
  }

  async listScorecards(): Promise<ScorecardRecord[]> {
    const r = await this.db.query(`SELECT * FROM scorecards ORDER BY opened_at, card_id`);
    return r.rows.map(scorecardOf);
  }

  async addAgentRun(a: AgentRunRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO agent_runs (guid, card_id, game_id, source, seed, opened_at, code_hash) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [a.guid, a.cardId, a.gameId, a.source, a.seed, new Date(a.openedAt), a.codeHash ?? null],
    );
  }

  async getAgentRun(guid: string): Promise<AgentRunRecord | null> {
    const r = await this.db.query(`SELECT * FROM agent_runs WHERE guid = $1`, [guid]);
    return r.rows.length ? agentRunOf(r.rows[0]) : null;
  }

  async listAgentRuns(cardId: string): Promise<AgentRunRecord[]> {
    const r = await this.db.query(`SELECT * FROM agent_runs WHERE card_id = $1 ORDER BY opened_at, guid`, [cardId]);
    return r.rows.map(agentRunOf);
  }

  async addAgentSteps(steps: readonly AgentStepRecord[]): Promise<void> {
    if (!steps.length) return;
    // One statement for the whole batch: the rows travel as one JSON array.
    const rows = steps.map((s) => ({
      guid: s.guid,
      seq: s.seq,
      action: s.action,
      x: s.x,
      y: s.y,
      state: s.state,
      levels_completed: s.levelsCompleted,
      win_levels: s.winLevels,
      full_reset: s.fullReset,
      frame_hash: s.frameHash,
      frames: s.frames ?? null,
      reasoning: s.reasoning ?? null,
      at: new Date(s.at).toISOString(),
    }));
    await this.db.query(
      `INSERT INTO agent_steps (guid, seq, action, x, y, state, levels_completed, win_levels, full_reset, frame_hash, frames, reasoning, at)
       SELECT guid, seq, action, x, y, state, levels_completed, win_levels, full_reset, frame_hash, frames, reasoning, at
       FROM jsonb_to_recordset($1::jsonb) AS t(guid text, seq integer, action text, x integer, y integer, state text, levels_completed integer,
         win_levels integer, full_reset boolean, frame_hash text, frames text, reasoning jsonb, at timestamptz)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }

  async addAgentStepIfFree(s: AgentStepRecord): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO agent_steps (guid, seq, action, x, y, state, levels_completed, win_levels, full_reset, frame_hash, frames, reasoning, at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13
       FROM agent_runs r JOIN scorecards c ON c.card_id = r.card_id
       WHERE r.guid = $1 AND c.closed_at IS NULL
       ON CONFLICT DO NOTHING RETURNING seq`,
      [
        s.guid,
        s.seq,
        s.action,
        s.x,
        s.y,
        s.state,
        s.levelsCompleted,
        s.winLevels,
        s.fullReset,
        s.frameHash,
        s.frames ?? null,
        s.reasoning === null || s.reasoning === undefined ? null : JSON.stringify(s.reasoning),
        new Date(s.at).toISOString(),
      ],
    );
    return r.rows.length === 1;
  }

  async readAgentSteps(guid: string): Promise<AgentStepRecord[]> {
    const r = await this.db.query(`SELECT * FROM agent_steps WHERE guid = $1 ORDER BY seq`, [guid]);
    return r.rows.map((row) => ({
      guid: row.guid as string,
      seq: row.seq as number,
      action: row.action as string,
      x: row.x as number | null,
      y: row.y as number | null,
      state: row.state as string,
      levelsCompleted: row.levels_completed as number,
      winLevels: row.win_levels as number,
      fullReset: row.full_reset as boolean,
      frameHash: row.frame_hash as string,
      frames: (row.frames as string | null) ?? null,
      reasoning: json(row.reasoning) ?? null,
      at: ms(row.at),
    }));
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

function gameRunOf(row: Record<string, unknown>): GameRunRecord {
  return {
    runId: row.run_id as string,
    sessionId: row.session_id as string,
    item: row.item as string,
    gameId: row.game_id as string,
    source: row.source as GameRunRecord['source'],
    engine: row.engine as string,
    seed: row.seed as number,
    openedAt: ms(row.opened_at),
    codeHash: (row.code_hash as string | null) ?? null,
  };
}

function agentKeyOf(row: Record<string, unknown>): AgentKeyRecord {
  return {
    id: row.id as string,
    name: row.name as string,
    keyHash: row.key_hash as string,
    createdAt: ms(row.created_at),
    revokedAt: row.revoked_at === null || row.revoked_at === undefined ? null : ms(row.revoked_at),
  };
}

function scorecardOf(row: Record<string, unknown>): ScorecardRecord {
  return {
    cardId: row.card_id as string,
    keyId: row.key_id as string,
    tags: json(row.tags) as string[],
    sourceUrl: (row.source_url as string | null) ?? null,
    opaque: json(row.opaque) ?? null,
    openedAt: ms(row.opened_at),
    closedAt: row.closed_at === null || row.closed_at === undefined ? null : ms(row.closed_at),
  };
}

function agentRunOf(row: Record<string, unknown>): AgentRunRecord {
  return {
    guid: row.guid as string,
    cardId: row.card_id as string,
    gameId: row.game_id as string,
    source: row.source as AgentRunRecord['source'],
    seed: row.seed as number,
    openedAt: ms(row.opened_at),
    codeHash: (row.code_hash as string | null | undefined) ?? null,
  };
}
