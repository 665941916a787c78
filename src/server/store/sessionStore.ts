/**
 * Participants' sessions (`SessionStore`): made with their study's first game versions, found,
 * listed and moved between states; the same SQL on PGlite and PostgreSQL. `sessionFromRow` reads
 * a session's row for every store that answers one.
 */
import type { SessionState } from '../../core/study/rules';
import type { Pause } from '../../core/study/pauses';
import { MAIN_STAGE } from '../../core/study/stages';
import type { Driver, Queryable } from './driver';
import { json, ms, msOrNull, type Row } from './columns';
import { type GroupCommit, type GroupMember, storeGroupCommit } from './groupCommit';
import { pinStudyGames } from './gamePins';
import { INSERT_SESSION_SQL, sessionRowValues } from './sessionRow';
import type { NewSession, SessionRecord, SessionStore, StoredStudyGamePin, StudyGamePin } from './types';

/** A session's breaks as stored (`pauses` jsonb, migration 17): present only when it had one. */
function pausesOf(v: unknown): { pauses?: Pause[] } {
  const list = v === null || v === undefined ? [] : json<Pause[]>(v);
  return list.length ? { pauses: list } : {};
}

/** A row of `sessions` as the record the stores answer. */
export function sessionFromRow(r: Row): SessionRecord {
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

/** A session start's question "how many sessions of this study hold this link parameter?". */
interface PendingParamCount extends GroupMember {
  readonly studyId: string;
  readonly param: string;
  readonly value: string;
  resolve(n: number): void;
}

export class SqlSessionStore implements SessionStore {
  /**
   * Session starts' repeat checks, one statement per group: under a burst of starts they would
   * otherwise queue one query each for a connection, ahead of the starts' draws.
   */
  private readonly paramCounts: GroupCommit<PendingParamCount>;
  private paramCountNo = 0;

  constructor(private readonly db: Driver) {
    this.paramCounts = storeGroupCommit(db.kind, (group) => this.runParamCounts(group));
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
}
