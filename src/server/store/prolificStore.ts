/**
 * Prolific in the store (migration 18): sealed secrets, the bonus ledger (bulk bonuses and their
 * lines), and the submissions seen returned or timed out. `store.prolific` of the `Store`; the
 * same SQL on PGlite and PostgreSQL.
 */
import type { Driver, Queryable } from './driver';
import { ms } from './columns';

/** A bulk bonus's state in the ledger (migration 18 says what each means). */
export type BatchState = 'intent' | 'created' | 'paying' | 'paid' | 'unconfirmed' | 'failed';

export interface BonusLine {
  readonly participantId: string;
  readonly submissionId: string | null;
  readonly cents: number;
}

export interface BonusBatch {
  readonly id: string;
  readonly studyId: string;
  readonly prolificStudyId: string;
  readonly state: BatchState;
  readonly bulkId: string | null;
  readonly error: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lines: readonly BonusLine[];
}

/** A submission seen returned or timed out. */
export interface SeenSubmission {
  readonly studyId: string;
  readonly submissionId: string;
  readonly participantId: string;
  readonly status: string;
  readonly via: 'webhook' | 'poll';
  readonly at: number;
}

export class ProlificStore {
  /** Pays in progress on this server, by study: the cross-server lock is the database's. */
  private readonly local = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Driver) {}

  /** A sealed secret, or null. */
  async secret(name: string): Promise<{ sealed: string; setAt: number } | null> {
    const r = await this.db.query<{ sealed: string; set_at: unknown }>(
      `SELECT sealed, set_at FROM prolific_secrets WHERE name = $1`,
      [name],
    );
    return r.rows[0] ? { sealed: r.rows[0].sealed, setAt: ms(r.rows[0].set_at) } : null;
  }

  async setSecret(name: string, sealed: string | null, at: number): Promise<void> {
    if (sealed === null) await this.db.query(`DELETE FROM prolific_secrets WHERE name = $1`, [name]);
    else
      await this.db.query(
        `INSERT INTO prolific_secrets (name, sealed, set_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET sealed = EXCLUDED.sealed, set_at = EXCLUDED.set_at`,
        [name, sealed, new Date(at)],
      );
  }

  /**
   * Runs `fn` while no other pay of the study runs, on this server (a queue) or on any other on
   * the database (a PostgreSQL session lock on a connection held meanwhile, released when `fn`
   * settles or the server dies).
   *
   * WARNING: `fn` must not use `hold` itself on PGlite (one connection).
   */
  async withPayLock<T>(studyId: string, fn: () => Promise<T>): Promise<T> {
    const before = this.local.get(studyId) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(() => this.locked(studyId, fn));
    this.local.set(studyId, mine);
    try {
      return await mine;
    } finally {
      if (this.local.get(studyId) === mine) this.local.delete(studyId);
    }
  }

  private locked<T>(studyId: string, fn: () => Promise<T>): Promise<T> {
    if (this.db.kind === 'pglite') return fn();
    return this.db.hold(async (conn) => {
      await conn.transaction((tx) => tx.query(`SELECT pg_advisory_lock(hashtext('prolific-pay:' || $1))`, [studyId]));
      try {
        return await fn();
      } finally {
        await conn
          .transaction((tx) => tx.query(`SELECT pg_advisory_unlock(hashtext('prolific-pay:' || $1))`, [studyId]))
          .catch(() => {});
      }
    });
  }

  /** A study's bulk bonuses, oldest first, with their lines. */
  async batches(studyId: string): Promise<BonusBatch[]> {
    const b = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM prolific_bonus_batches WHERE study_id = $1 ORDER BY created_at, id`,
      [studyId],
    );
    const l = await this.db.query<{
      batch_id: string;
      participant_id: string;
      submission_id: string | null;
      amount_cents: number;
    }>(
      `SELECT batch_id, participant_id, submission_id, amount_cents FROM prolific_bonus_lines WHERE study_id = $1 ORDER BY participant_id`,
      [studyId],
    );
    const lines = new Map<string, BonusLine[]>();
    for (const r of l.rows) {
      const list = lines.get(r.batch_id) ?? [];
      list.push({ participantId: r.participant_id, submissionId: r.submission_id, cents: r.amount_cents });
      lines.set(r.batch_id, list);
    }
    return b.rows.map((r) => ({
      id: r.id as string,
      studyId: r.study_id as string,
      prolificStudyId: r.prolific_study_id as string,
      state: r.state as BatchState,
      bulkId: (r.bulk_id as string | null) ?? null,
      error: (r.error as string | null) ?? null,
      createdAt: ms(r.created_at),
      updatedAt: ms(r.updated_at),
      lines: lines.get(r.id as string) ?? [],
    }));
  }

  /** Records a bulk bonus's intent and its lines, in one transaction, before Prolific is asked. */
  async addBatch(batch: Pick<BonusBatch, 'id' | 'studyId' | 'prolificStudyId' | 'lines'>, at: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO prolific_bonus_batches (id, study_id, prolific_study_id, state, created_at, updated_at)
         VALUES ($1, $2, $3, 'intent', $4, $4)`,
        [batch.id, batch.studyId, batch.prolificStudyId, new Date(at)],
      );
      await tx.query(
        `INSERT INTO prolific_bonus_lines (batch_id, study_id, participant_id, submission_id, amount_cents)
         SELECT $1, $2, l.p, l.s, l.c FROM jsonb_to_recordset($3::jsonb) AS l(p text, s text, c integer)`,
        [
          batch.id,
          batch.studyId,
          JSON.stringify(batch.lines.map((x) => ({ p: x.participantId, s: x.submissionId, c: x.cents }))),
        ],
      );
    });
  }

  /** Moves a bulk bonus to `state` (with Prolific's id once known, or the error met). */
  async setBatch(
    id: string,
    state: BatchState,
    at: number,
    more: { bulkId?: string; error?: string | null } = {},
  ): Promise<void> {
    await this.db.query(
      `UPDATE prolific_bonus_batches SET state = $2, updated_at = $3, bulk_id = COALESCE($4, bulk_id),
         error = CASE WHEN $5::boolean THEN $6 ELSE error END WHERE id = $1`,
      [id, state, new Date(at), more.bulkId ?? null, more.error !== undefined, more.error ?? null],
    );
  }

  /** Records a submission returned or timed out; false when it was already recorded so. */
  async seeSubmission(s: SeenSubmission): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO prolific_submissions (study_id, submission_id, participant_id, status, via, seen_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (study_id, submission_id) DO UPDATE SET status = EXCLUDED.status, via = EXCLUDED.via, seen_at = EXCLUDED.seen_at
         WHERE prolific_submissions.status <> EXCLUDED.status
       RETURNING 1`,
      [s.studyId, s.submissionId, s.participantId, s.status, s.via, new Date(s.at)],
    );
    return r.rows.length > 0;
  }

  /** The submissions of a study seen returned or timed out; of one participant when named. */
  async seenSubmissions(studyId: string, participantId?: string): Promise<SeenSubmission[]> {
    const r = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM prolific_submissions WHERE study_id = $1 AND ($2::text IS NULL OR participant_id = $2) ORDER BY seen_at`,
      [studyId, participantId ?? null],
    );
    return r.rows.map((x) => ({
      studyId: x.study_id as string,
      submissionId: x.submission_id as string,
      participantId: x.participant_id as string,
      status: x.status as string,
      via: x.via as 'webhook' | 'poll',
      at: ms(x.seen_at),
    }));
  }

  /** The sessions a Prolific participant started (their `PROLIFIC_PID`), in any study, with their `SESSION_ID`. */
  async sessionsOfParticipant(
    participantId: string,
  ): Promise<{ sessionId: string; studyId: string; submissionId: string | null }[]> {
    const r = await this.db.query<{ id: string; study_id: string; sub: string | null }>(
      `SELECT id, study_id, params ->> 'SESSION_ID' AS sub FROM sessions WHERE params ->> 'PROLIFIC_PID' = $1 ORDER BY created_at`,
      [participantId],
    );
    return r.rows.map((x) => ({ sessionId: x.id, studyId: x.study_id, submissionId: x.sub ?? null }));
  }
}

/**
 * Removes a study's Prolific rows (its bulk bonuses and their lines, the submissions seen returned
 * or timed out) inside the transaction that deletes the study (`deleteStudy`). The sealed secrets
 * are the server's, not a study's, and stay.
 */
export async function deleteProlificRows(tx: Queryable, studyId: string): Promise<void> {
  await tx.query(`DELETE FROM prolific_bonus_lines WHERE study_id = $1`, [studyId]);
  await tx.query(`DELETE FROM prolific_bonus_batches WHERE study_id = $1`, [studyId]);
  await tx.query(`DELETE FROM prolific_submissions WHERE study_id = $1`, [studyId]);
}
