/**
 * Reference recordings in the store (`reference_groups`, `reference_recordings`, migration 21):
 * named groups of human runs recorded elsewhere, per game, each recording with its actions and
 * its first play's figures per level. `store.references` of the `Store`; the same SQL on
 * PGlite and PostgreSQL. A group is written whole in one transaction or not at all.
 */
import type { ReferenceLevel } from '../../core/scoring/reference';
import type { Queryable, Transacting } from './driver';
import { json, ms, type Row } from './columns';

/** A group as stored. */
export interface ReferenceGroupRecord {
  /** The game's full official id (`ls20-9607627b`). */
  readonly gameId: string;
  readonly name: string;
  /** The version the recordings were replayed on at import: `<id>@<code hash>`. */
  readonly version: string;
  /** The game's level count when known. */
  readonly winLevels: number | null;
  readonly createdAt: number;
  /** Who imported it (an email, or `researcher` for the researcher token). */
  readonly createdBy: string;
  /** Recordings in the group (filled when listed). */
  readonly recordings: number;
}

/** One recording of a group as stored. */
export interface ReferenceRecordingRecord {
  readonly file: string;
  readonly guid: string | null;
  readonly startedAt: string | null;
  readonly plays: number;
  readonly actions: number;
  readonly state: string;
  readonly levels: readonly ReferenceLevel[];
  /** Every action of the file in order (`RESET,ACTION6:12:30,...`). */
  readonly inputs: string;
}

export interface ReferenceStore {
  /**
   * Stores a group and its recordings in one transaction; `exists` (nothing written) when the
   * game already has a group of that name.
   */
  addReferenceGroup(
    group: Omit<ReferenceGroupRecord, 'recordings'>,
    recordings: readonly ReferenceRecordingRecord[],
  ): Promise<'added' | 'exists'>;
  /** A game's groups (every game's when `gameId` is null), by game then name. */
  listReferenceGroups(gameId: string | null): Promise<ReferenceGroupRecord[]>;
  /** A group's recordings in the order they were imported. */
  readReferenceRecordings(gameId: string, name: string): Promise<ReferenceRecordingRecord[]>;
  /** Deletes a group and its recordings; false when there was none. */
  deleteReferenceGroup(gameId: string, name: string): Promise<boolean>;
}

const groupOf = (r: Row): ReferenceGroupRecord => ({
  gameId: r.game_id as string,
  name: r.name as string,
  version: r.version as string,
  winLevels: (r.win_levels as number | null) ?? null,
  createdAt: ms(r.created_at),
  createdBy: r.created_by as string,
  recordings: Number(r.recordings ?? 0),
});

export class SqlReferenceStore implements ReferenceStore {
  constructor(private readonly db: Queryable & Transacting) {}

  async addReferenceGroup(
    group: Omit<ReferenceGroupRecord, 'recordings'>,
    recordings: readonly ReferenceRecordingRecord[],
  ): Promise<'added' | 'exists'> {
    return this.db.transaction(async (tx) => {
      const added = await tx.query(
        `INSERT INTO reference_groups (game_id, name, version, win_levels, created_at, created_by)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (game_id, name) DO NOTHING RETURNING 1`,
        [group.gameId, group.name, group.version, group.winLevels, new Date(group.createdAt), group.createdBy],
      );
      if (!added.rows.length) return 'exists';
      await tx.query(
        `INSERT INTO reference_recordings
           (game_id, group_name, seq, file, guid, started_at, plays, actions, state, levels, inputs)
         SELECT $1, $2, r.seq, r.file, r.guid, r.started_at, r.plays, r.actions, r.state, r.levels, r.inputs
         FROM jsonb_to_recordset($3::jsonb) AS r(seq integer, file text, guid text, started_at text,
           plays integer, actions integer, state text, levels jsonb, inputs text)`,
        [
          group.gameId,
          group.name,
          JSON.stringify(
            recordings.map((r, seq) => ({
              seq,
              file: r.file,
              guid: r.guid,
              started_at: r.startedAt,
              plays: r.plays,
              actions: r.actions,
              state: r.state,
              levels: r.levels,
              inputs: r.inputs,
            })),
          ),
        ],
      );
      return 'added';
    });
  }

  async listReferenceGroups(gameId: string | null): Promise<ReferenceGroupRecord[]> {
    const r = await this.db.query(
      `SELECT g.*, (SELECT count(*) FROM reference_recordings r WHERE r.game_id = g.game_id AND r.group_name = g.name) AS recordings
       FROM reference_groups g WHERE $1::text IS NULL OR g.game_id = $1 ORDER BY g.game_id, g.name`,
      [gameId],
    );
    return r.rows.map(groupOf);
  }

  async readReferenceRecordings(gameId: string, name: string): Promise<ReferenceRecordingRecord[]> {
    const r = await this.db.query(
      `SELECT * FROM reference_recordings WHERE game_id = $1 AND group_name = $2 ORDER BY seq`,
      [gameId, name],
    );
    return r.rows.map((row) => ({
      file: row.file as string,
      guid: (row.guid as string | null) ?? null,
      startedAt: (row.started_at as string | null) ?? null,
      plays: row.plays as number,
      actions: row.actions as number,
      state: row.state as string,
      levels: json<ReferenceLevel[]>(row.levels),
      inputs: row.inputs as string,
    }));
  }

  async deleteReferenceGroup(gameId: string, name: string): Promise<boolean> {
    const r = await this.db.query(`DELETE FROM reference_groups WHERE game_id = $1 AND name = $2 RETURNING 1`, [
      gameId,
      name,
    ]);
    return r.rows.length > 0;
  }
}
