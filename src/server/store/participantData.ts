/**
 * One participant's data across studies, found and deleted on their request. A participant is
 * known by a recruitment platform's id as their sessions' params hold it (`PROLIFIC_PID`,
 * `workerId`, `participantId`: `core/study/draw.ts` `participantKey`); every session holding the
 * id under any of those names is theirs.
 *
 * The deletion runs in one transaction: every session and everything of it (`sessionRows.ts`),
 * an audit entry per study and one for the request as a whole, all naming the participant only
 * by a keyed hash of the id. The request's entry holds the receipt the researcher can send.
 */
import type { DeletedCounts, DeletionReceipt, ExportWritten, StudyDeletion } from '../../core/protocol/api';

export type { DeletionReceipt, ExportWritten, StudyDeletion } from '../../core/protocol/api';
import { lockCampaigns } from './campaignStore';
import type { Driver, Queryable } from './driver';
import { ms } from './columns';
import { deleteSessionRows, insertAudit } from './sessionRows';
import type { AuditEventInput } from './records';

/** The params names a participant's id is kept under, in `participantKey`'s order. */
export const PARTICIPANT_PARAMS = ['PROLIFIC_PID', 'workerId', 'participantId'] as const;

/** One of the participant's sessions, as the search lists it. */
export interface ParticipantSessionRow {
  readonly sessionId: string;
  readonly studyId: string;
  readonly studyVersion: number;
  readonly stage: string;
  readonly state: string;
  readonly createdAt: number;
  /** The SHA-256 of the session's token (a server forgets the sessions it deleted by it). */
  readonly tokenHash: string;
  /** Which params name held the id. */
  readonly param: (typeof PARTICIPANT_PARAMS)[number];
}

export interface ParticipantDataStore {
  /** Every session holding `participantId` under a platform's name, in `studies` (null: every study), oldest first. */
  findParticipant(participantId: string, studies: readonly string[] | null): Promise<ParticipantSessionRow[]>;
  /** Exports of these studies written at or after the given times (ms by study), oldest first. */
  exportsSince(since: ReadonlyMap<string, number>): Promise<ExportWritten[]>;
  /**
   * Deletes every session of the participant in `studies` (null: every study) and everything of
   * them, and records the audit entries (`participant.delete`: one per study, one for the
   * request with the receipt), in one transaction. The receipt, and the deleted sessions' token
   * hashes; nothing is recorded when no session matched (the receipt then lists no study).
   */
  deleteParticipant(req: {
    readonly participantId: string;
    readonly participantHash: string;
    readonly studies: readonly string[] | null;
    readonly receipt: string;
    readonly reason: string;
    readonly audit: Omit<AuditEventInput, 'studyId' | 'target' | 'action' | 'reason'>;
  }): Promise<{ receipt: DeletionReceipt; tokenHashes: string[] }>;
  /** A receipt by its id; null when there is none. */
  receipt(id: string): Promise<(DeletionReceipt & { readonly personId: string | null }) | null>;
  /** The receipts one person made (`personId`), or every receipt (absent), newest first. */
  receipts(opts: { readonly personId?: string }): Promise<DeletionReceipt[]>;
}

const MATCH_SQL = `(${PARTICIPANT_PARAMS.map((p) => `s.params ->> '${p}' = $1`).join(' OR ')})`;

const EMPTY: DeletedCounts = { studies: 0, sessions: 0, events: 0, submissions: 0, gameRuns: 0, gameSteps: 0 };

function add(a: DeletedCounts, b: DeletedCounts): DeletedCounts {
  return {
    studies: a.studies + b.studies,
    sessions: a.sessions + b.sessions,
    events: a.events + b.events,
    submissions: a.submissions + b.submissions,
    gameRuns: a.gameRuns + b.gameRuns,
    gameSteps: a.gameSteps + b.gameSteps,
  };
}

async function findRows(
  q: Queryable,
  participantId: string,
  studies: readonly string[] | null,
  lock: boolean,
): Promise<ParticipantSessionRow[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT s.id, s.study_id, s.study_version, s.stage, s.state, s.created_at, s.token_hash, s.params
     FROM sessions s WHERE ${MATCH_SQL} AND ($2::text[] IS NULL OR s.study_id = ANY($2::text[]))
     ORDER BY s.created_at, s.id${lock ? ' FOR UPDATE' : ''}`,
    [participantId, studies],
  );
  return r.rows.map((row) => {
    const params = (typeof row.params === 'string' ? JSON.parse(row.params) : row.params) as Record<string, unknown>;
    return {
      sessionId: row.id as string,
      studyId: row.study_id as string,
      studyVersion: row.study_version as number,
      stage: row.stage as string,
      state: row.state as string,
      createdAt: ms(row.created_at),
      tokenHash: row.token_hash as string,
      param: PARTICIPANT_PARAMS.find((p) => params[p] === participantId) ?? 'participantId',
    };
  });
}

async function exportsSince(q: Queryable, since: ReadonlyMap<string, number>): Promise<ExportWritten[]> {
  if (since.size === 0) return [];
  const r = await q.query<Record<string, unknown>>(
    `SELECT a.study_id, a.detail, a.at FROM audit_events a
     JOIN jsonb_to_recordset($1::jsonb) AS f(study text, since double precision) ON f.study = a.study_id
     WHERE a.action = 'export.written' AND a.at >= to_timestamp(f.since / 1000.0)
     ORDER BY a.id`,
    [JSON.stringify([...since].map(([study, t]) => ({ study, since: t })))],
  );
  return r.rows.map((row) => {
    const d = (typeof row.detail === 'string' ? JSON.parse(row.detail) : row.detail) as Record<string, unknown>;
    return {
      studyId: row.study_id as string,
      file: String(d.file ?? ''),
      format: String(d.format ?? ''),
      sha256: String(d.sha256 ?? ''),
      bytes: Number(d.bytes ?? 0),
      at: ms(row.at),
    };
  });
}

/** Each study's earliest session start among the rows. */
function firstStarts(rows: readonly ParticipantSessionRow[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.studyId, Math.min(out.get(r.studyId) ?? Infinity, r.createdAt));
  return out;
}

export class SqlParticipantDataStore implements ParticipantDataStore {
  constructor(private readonly db: Driver) {}

  findParticipant(participantId: string, studies: readonly string[] | null): Promise<ParticipantSessionRow[]> {
    return findRows(this.db, participantId, studies, false);
  }

  exportsSince(since: ReadonlyMap<string, number>): Promise<ExportWritten[]> {
    return exportsSince(this.db, since);
  }

  deleteParticipant(
    req: Parameters<ParticipantDataStore['deleteParticipant']>[0],
  ): Promise<{ receipt: DeletionReceipt; tokenHashes: string[] }> {
    return this.db.transaction(async (tx) => {
      const rows = await findRows(tx, req.participantId, req.studies, true);
      // Every campaign's lock at once, in one order, before any study's rows go: deletions of
      // sessions of several studies of one campaign never wait on each other in a circle.
      await lockCampaigns(
        tx,
        (
          await tx.query<{ campaign: string }>(
            `SELECT DISTINCT campaign FROM campaign_claims WHERE session_id = ANY($1::text[])`,
            [rows.map((r) => r.sessionId)],
          )
        ).rows.map((r) => r.campaign),
      );
      const exports = await exportsSince(tx, firstStarts(rows));
      const byStudy = new Map<string, string[]>();
      for (const r of rows) byStudy.set(r.studyId, [...(byStudy.get(r.studyId) ?? []), r.sessionId]);
      const titles = await studyTitles(tx, [...byStudy.keys()]);
      const studies: StudyDeletion[] = [];
      let total = EMPTY;
      const target = `participant:${req.participantHash}`;
      for (const [studyId, sessions] of byStudy) {
        const deleted = { studies: 0, ...(await deleteSessionRows(tx, sessions)) };
        // What else names the person in this study: the submissions Prolific reported returned or
        // timed out, and a station they were checked in to without beginning. (The bonus ledger's
        // lines stay: a record of money paid, which the lab must keep; docs/researchers.md.)
        await tx.query(`DELETE FROM prolific_submissions WHERE study_id = $1 AND participant_id = $2`, [
          studyId,
          req.participantId,
        ]);
        await tx.query(
          `UPDATE centre_stations SET pending_participant = NULL WHERE study_id = $1 AND pending_participant = $2`,
          [studyId, req.participantId],
        );
        total = add(total, deleted);
        studies.push({
          studyId,
          title: titles.get(studyId) ?? studyId,
          sessions,
          deleted,
          exports: exports.filter((e) => e.studyId === studyId),
        });
        await insertAudit(
          tx,
          { ...req.audit, studyId, target, action: 'participant.delete', reason: req.reason },
          { deleted, receipt: req.receipt },
        );
      }
      const receipt: DeletionReceipt = {
        receipt: req.receipt,
        participantHash: req.participantHash,
        reason: req.reason,
        by: req.audit.actor,
        at: req.audit.at,
        studies,
        total,
      };
      if (studies.length > 0)
        await insertAudit(
          tx,
          // The request as a whole is the server's, not one study's: studyId null, as people's changes are.
          { ...req.audit, studyId: null, target, action: 'participant.delete', reason: req.reason },
          { receipt: req.receipt, document: receipt },
        );
      return { receipt, tokenHashes: rows.map((r) => r.tokenHash) };
    });
  }

  async receipt(id: string): Promise<(DeletionReceipt & { readonly personId: string | null }) | null> {
    const r = await this.db.query<{ detail: unknown; person_id: string | null }>(
      `${RECEIPTS_SQL} AND detail ->> 'receipt' = $1`,
      [id],
    );
    const row = r.rows[0];
    return row ? { ...receiptOf(row), personId: row.person_id ?? null } : null;
  }

  async receipts(opts: { readonly personId?: string }): Promise<DeletionReceipt[]> {
    const r = await this.db.query<{ detail: unknown }>(
      `${RECEIPTS_SQL} AND ($1::text IS NULL OR person_id = $1) ORDER BY id DESC LIMIT 1000`,
      [opts.personId ?? null],
    );
    return r.rows.map(receiptOf);
  }
}

const RECEIPTS_SQL = `SELECT detail, person_id FROM audit_events WHERE action = 'participant.delete' AND study_id IS NULL`;

function receiptOf(row: { detail: unknown }): DeletionReceipt {
  const d = (typeof row.detail === 'string' ? JSON.parse(row.detail) : row.detail) as { document: DeletionReceipt };
  return d.document;
}

async function studyTitles(q: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const r = await q.query<{ id: string; title: string | null }>(
    `SELECT DISTINCT ON (id) id, definition ->> 'title' AS title FROM studies WHERE id = ANY($1::text[]) ORDER BY id, version DESC`,
    [ids],
  );
  return new Map(r.rows.map((x) => [x.id, x.title ?? x.id]));
}
