/**
 * A testing centre in the store (`store.centre` of the `Store`): a study's stations (their
 * secrets kept as SHA-256 hashes), the sessions begun on them, proctors' notes and flags, and
 * sessions' breaks. The same SQL on PGlite and PostgreSQL (migration 17).
 */
import type { Pause } from '../../core/study/pauses';
import type { StoredEvent } from '../../core/study/rules';
import type { Queryable, Transacting } from './driver';

export interface StationRecord {
  readonly id: string;
  readonly studyId: string;
  readonly name: string;
  readonly secretHash: string;
  readonly createdAt: number;
  readonly createdBy: string;
  /** The station's last contact with the server; null before its first. */
  readonly lastSeenAt: number | null;
  /** Events the station's outbox held unacknowledged at its last contact. */
  readonly outboxPending: number;
  /** A participant the proctor checked in who has not begun at the station yet. */
  readonly pendingParticipant: string | null;
  /** When a proctor retired the station (it takes no one until un-retired); null: in service. */
  readonly retiredAt: number | null;
}

export interface CheckinRecord {
  readonly sessionId: string;
  readonly stationId: string;
  readonly studyId: string;
  readonly participant: string;
  readonly checkedInAt: number;
  /** When the station reported the session's data acknowledged and its storage cleared. */
  readonly clearedAt: number | null;
}

export interface NoteRecord {
  readonly id: number;
  readonly sessionId: string;
  readonly at: number;
  readonly actor: string;
  readonly personId: string | null;
  readonly text: string;
  readonly flag: boolean;
}

/** How a pause or a resume went: `changed` false when the session was already so. */
export type PauseOutcome = { readonly found: false } | { readonly found: true; readonly changed: boolean };

export interface CentreStore {
  /** Registers a station; false when the study has a station of that name already. */
  addStation(
    s: Omit<StationRecord, 'lastSeenAt' | 'pendingParticipant' | 'outboxPending' | 'retiredAt'>,
  ): Promise<boolean>;
  /** A study's stations in service, by name; the retired ones too with `withRetired`. */
  listStations(studyId: string, withRetired?: boolean): Promise<StationRecord[]>;
  /** The station of a secret, retired or not (its route refuses a retired one, saying so). */
  stationBySecret(secretHash: string): Promise<StationRecord | null>;
  /**
   * Retires a station at `at` (clearing any participant waiting for it), or with null puts it back
   * in service; the station after the change, null when the study has no such station.
   */
  setRetired(studyId: string, stationId: string, at: number | null): Promise<StationRecord | null>;
  /** Records the station's contact now, and the events its outbox still holds. */
  touchStation(id: string, at: number, outboxPending: number): Promise<void>;
  /** Sets (or with null clears) the participant waiting for the station; false when there is no such station. */
  setPending(studyId: string, stationId: string, participant: string | null): Promise<boolean>;
  /** Records a session begun on a station and clears its pending participant; false when recorded already. */
  checkIn(c: Omit<CheckinRecord, 'clearedAt'>): Promise<boolean>;
  /** Marks the station's storage of the session cleared. */
  cleared(sessionId: string, at: number): Promise<void>;
  /** A study's check-ins, oldest first; those at or after `since` when given. */
  checkins(studyId: string, since?: number): Promise<CheckinRecord[]>;
  checkinOf(sessionId: string): Promise<CheckinRecord | null>;
  /** A study's check-ins the stations have not cleared (of one station when given), oldest first. */
  openCheckins(studyId: string, stationId?: string): Promise<CheckinRecord[]>;
  /** Opens a break on a session (its `pauses`); `changed` false when one is open already. */
  pause(sessionId: string, at: number): Promise<PauseOutcome>;
  /** Ends the session's open break; `changed` false when none is open. */
  resume(sessionId: string, at: number): Promise<PauseOutcome>;
  /** The last event of each of `kinds` in each of the sessions (the console's reading of where they are). */
  lastEvents(sessionIds: readonly string[], kinds: readonly string[]): Promise<(StoredEvent & { sessionId: string })[]>;
  addNote(n: Omit<NoteRecord, 'id'> & { readonly studyId: string }): Promise<NoteRecord>;
  /** A study's notes, oldest first. */
  notes(studyId: string): Promise<NoteRecord[]>;
}

type Row = Record<string, unknown>;
const ms = (d: unknown): number => (d instanceof Date ? d.getTime() : new Date(String(d)).getTime());
const msOrNull = (d: unknown): number | null => (d === null || d === undefined ? null : ms(d));
const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

const stationOf = (r: Row): StationRecord => ({
  id: r.id as string,
  studyId: r.study_id as string,
  name: r.name as string,
  secretHash: r.secret_hash as string,
  createdAt: ms(r.created_at),
  createdBy: r.created_by as string,
  lastSeenAt: msOrNull(r.last_seen_at),
  outboxPending: Number(r.outbox_pending ?? 0),
  pendingParticipant: (r.pending_participant as string | null) ?? null,
  retiredAt: msOrNull(r.retired_at),
});

const checkinOf = (r: Row): CheckinRecord => ({
  sessionId: r.session_id as string,
  stationId: r.station_id as string,
  studyId: r.study_id as string,
  participant: r.participant as string,
  checkedInAt: ms(r.checked_in_at),
  clearedAt: msOrNull(r.cleared_at),
});

const noteOf = (r: Row): NoteRecord => ({
  id: Number(r.id),
  sessionId: r.session_id as string,
  at: ms(r.at),
  actor: r.actor as string,
  personId: (r.person_id as string | null) ?? null,
  text: r.text as string,
  flag: r.flag as boolean,
});

export class SqlCentreStore implements CentreStore {
  constructor(private readonly db: Queryable & Transacting) {}

  async addStation(
    s: Omit<StationRecord, 'lastSeenAt' | 'pendingParticipant' | 'outboxPending' | 'retiredAt'>,
  ): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO centre_stations (id, study_id, name, secret_hash, created_at, created_by)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (study_id, name) DO NOTHING RETURNING id`,
      [s.id, s.studyId, s.name, s.secretHash, new Date(s.createdAt), s.createdBy],
    );
    return r.rows.length === 1;
  }

  async listStations(studyId: string, withRetired = false): Promise<StationRecord[]> {
    return (
      await this.db.query(
        `SELECT * FROM centre_stations WHERE study_id = $1 AND ($2 OR retired_at IS NULL) ORDER BY name`,
        [studyId, withRetired],
      )
    ).rows.map(stationOf);
  }

  async stationBySecret(secretHash: string): Promise<StationRecord | null> {
    const r = await this.db.query(`SELECT * FROM centre_stations WHERE secret_hash = $1`, [secretHash]);
    return r.rows.length ? stationOf(r.rows[0]) : null;
  }

  async setRetired(studyId: string, stationId: string, at: number | null): Promise<StationRecord | null> {
    const r = await this.db.query(
      `UPDATE centre_stations SET retired_at = $3,
         pending_participant = CASE WHEN $3::timestamptz IS NULL THEN pending_participant END
       WHERE study_id = $1 AND id = $2 RETURNING *`,
      [studyId, stationId, at === null ? null : new Date(at)],
    );
    return r.rows.length ? stationOf(r.rows[0]) : null;
  }

  async touchStation(id: string, at: number, outboxPending: number): Promise<void> {
    await this.db.query(`UPDATE centre_stations SET last_seen_at = $2, outbox_pending = $3 WHERE id = $1`, [
      id,
      new Date(at),
      outboxPending,
    ]);
  }

  async setPending(studyId: string, stationId: string, participant: string | null): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE centre_stations SET pending_participant = $3 WHERE study_id = $1 AND id = $2 AND retired_at IS NULL RETURNING id`,
      [studyId, stationId, participant],
    );
    return r.rows.length === 1;
  }

  async checkIn(c: Omit<CheckinRecord, 'clearedAt'>): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query(
        `INSERT INTO centre_checkins (session_id, station_id, study_id, participant, checked_in_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (session_id) DO NOTHING RETURNING session_id`,
        [c.sessionId, c.stationId, c.studyId, c.participant, new Date(c.checkedInAt)],
      );
      await tx.query(`UPDATE centre_stations SET pending_participant = NULL WHERE id = $1`, [c.stationId]);
      return r.rows.length === 1;
    });
  }

  async cleared(sessionId: string, at: number): Promise<void> {
    await this.db.query(`UPDATE centre_checkins SET cleared_at = COALESCE(cleared_at, $2) WHERE session_id = $1`, [
      sessionId,
      new Date(at),
    ]);
  }

  async checkins(studyId: string, since?: number): Promise<CheckinRecord[]> {
    const r =
      since === undefined
        ? await this.db.query(`SELECT * FROM centre_checkins WHERE study_id = $1 ORDER BY checked_in_at, session_id`, [
            studyId,
          ])
        : await this.db.query(
            `SELECT * FROM centre_checkins WHERE study_id = $1 AND checked_in_at >= $2 ORDER BY checked_in_at, session_id`,
            [studyId, new Date(since)],
          );
    return r.rows.map(checkinOf);
  }

  async openCheckins(studyId: string, stationId?: string): Promise<CheckinRecord[]> {
    const r = await this.db.query(
      `SELECT * FROM centre_checkins WHERE study_id = $1 AND cleared_at IS NULL AND ($2::text IS NULL OR station_id = $2)
       ORDER BY checked_in_at, session_id`,
      [studyId, stationId ?? null],
    );
    return r.rows.map(checkinOf);
  }

  async checkinOf(sessionId: string): Promise<CheckinRecord | null> {
    const r = await this.db.query(`SELECT * FROM centre_checkins WHERE session_id = $1`, [sessionId]);
    return r.rows.length ? checkinOf(r.rows[0]) : null;
  }

  pause(sessionId: string, at: number): Promise<PauseOutcome> {
    return this.editPauses(sessionId, (list) => {
      if (list.length && list[list.length - 1].to === null) return null;
      return [...list, { from: at, to: null }];
    });
  }

  resume(sessionId: string, at: number): Promise<PauseOutcome> {
    return this.editPauses(sessionId, (list) => {
      const last = list[list.length - 1];
      if (!last || last.to !== null) return null;
      return [...list.slice(0, -1), { from: last.from, to: Math.max(at, last.from) }];
    });
  }

  /** Reads the session's breaks under a row lock and writes `edit`'s list; null from `edit`: no change. */
  private editPauses(sessionId: string, edit: (list: readonly Pause[]) => Pause[] | null): Promise<PauseOutcome> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query(`SELECT pauses FROM sessions WHERE id = $1 FOR UPDATE`, [sessionId]);
      if (!r.rows.length) return { found: false } as const;
      const next = edit(json<Pause[]>(r.rows[0].pauses ?? []));
      if (next === null) return { found: true, changed: false } as const;
      await tx.query(`UPDATE sessions SET pauses = $2::jsonb WHERE id = $1`, [sessionId, JSON.stringify(next)]);
      return { found: true, changed: true } as const;
    });
  }

  async lastEvents(
    sessionIds: readonly string[],
    kinds: readonly string[],
  ): Promise<(StoredEvent & { sessionId: string })[]> {
    if (!sessionIds.length) return [];
    const r = await this.db.query(
      `SELECT DISTINCT ON (session_id, kind) session_id, seq, t, kind, data, received_at FROM events
       WHERE session_id = ANY($1::text[]) AND kind = ANY($2::text[]) ORDER BY session_id, kind, seq DESC`,
      [sessionIds, kinds],
    );
    return r.rows.map((e) => ({
      sessionId: e.session_id as string,
      seq: e.seq as number,
      t: Number(e.t),
      kind: e.kind as string,
      data: json<Record<string, unknown>>(e.data),
      receivedAt: ms(e.received_at),
    }));
  }

  async addNote(n: Omit<NoteRecord, 'id'> & { readonly studyId: string }): Promise<NoteRecord> {
    const r = await this.db.query(
      `INSERT INTO centre_notes (session_id, study_id, at, actor, person_id, text, flag)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
      [n.sessionId, n.studyId, new Date(n.at), n.actor, n.personId, n.text, n.flag],
    );
    return noteOf(r.rows[0]);
  }

  async notes(studyId: string): Promise<NoteRecord[]> {
    return (await this.db.query(`SELECT * FROM centre_notes WHERE study_id = $1 ORDER BY at, id`, [studyId])).rows.map(
      noteOf,
    );
  }
}

/**
 * Removes a study's stations, check-ins and notes inside the transaction that deletes the study
 * (`deleteStudy`): its sessions' check-ins and notes go with the sessions already, the stations
 * are keyed by the study alone.
 */
export async function deleteCentreRows(tx: Queryable, studyId: string): Promise<void> {
  await tx.query(`DELETE FROM centre_notes WHERE study_id = $1`, [studyId]);
  await tx.query(`DELETE FROM centre_checkins WHERE study_id = $1`, [studyId]);
  await tx.query(`DELETE FROM centre_stations WHERE study_id = $1`, [studyId]);
}
