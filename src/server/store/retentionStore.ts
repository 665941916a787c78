/**
 * Retention in the database: the sessions whose study's retention period is over get their
 * identifiers replaced by pseudonyms (`core/study/retention.ts` says where they are) in every
 * table that holds them, one batch per transaction, by one server at a time (an advisory lock
 * each batch tries for; a server that does not get it leaves the batch to the one that did).
 * A session done is marked (`sessions.pseudonymised_at`, migration 20), so the work survives a
 * restart and is never done twice.
 */
import { participantKey } from '../../core/study/draw';
import {
  IDENTIFYING_PARAMS,
  type Pseudonym,
  pseudonymousAnswers,
  pseudonymousEventData,
  pseudonymousParams,
} from '../../core/study/retention';
import type { Queryable, Transacting } from './driver';
import { lockCampaigns, recountCandidates } from './campaignStore';

/** The events that can hold identifiers. */
const IDENTIFYING_KINDS = ['session.start', 'survey.answer', 'survey.submit'];

export interface RetentionStore {
  /**
   * Pseudonymises up to `limit` sessions whose study's retention period ended by `now` (the
   * period counts from the session's end: finished, else its last event, else its start), in one
   * transaction: the number done, or null when another server is doing it now.
   */
  pseudonymiseDue(now: number, p: Pseudonym, limit: number): Promise<number | null>;
}

interface Due {
  id: string;
  study_id: string;
  params: Record<string, string>;
  questions: string[] | null;
}

export class SqlRetentionStore implements RetentionStore {
  constructor(private readonly db: Transacting) {}

  pseudonymiseDue(now: number, p: Pseudonym, limit: number): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      const got = await tx.query<{ got: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('retention')) AS got`);
      if (!got.rows[0].got) return null;
      const due = (
        await tx.query<Due>(
          `SELECT s.id, s.study_id, s.params, st.definition -> 'retention' -> 'identifyingQuestions' AS questions
           FROM sessions s JOIN studies st ON st.id = s.study_id AND st.version = s.study_version
           WHERE s.pseudonymised_at IS NULL AND st.definition ? 'retention'
             AND coalesce(s.finished_at, s.last_event_at, s.created_at)
                 + (st.definition -> 'retention' ->> 'days')::float8 * interval '1 day' <= $1
           ORDER BY s.id LIMIT $2 FOR UPDATE OF s`,
          [new Date(now), limit],
        )
      ).rows;
      if (!due.length) return 0;
      const ids = due.map((d) => d.id);
      // The claims' campaigns are locked first, in the order a draw takes them.
      const claims = (
        await tx.query<{ campaign: string; candidate: string }>(
          `SELECT DISTINCT campaign, candidate FROM campaign_claims WHERE session_id = ANY($1::text[])`,
          [ids],
        )
      ).rows;
      await lockCampaigns(
        tx,
        claims.map((c) => c.campaign),
      );
      for (const d of due) await pseudonymiseSession(tx, d, p, new Date(now));
      for (const campaign of new Set(claims.map((c) => c.campaign)))
        await recountCandidates(
          tx,
          campaign,
          claims.filter((c) => c.campaign === campaign).map((c) => c.candidate),
        );
      // Digests are derived from the rows just changed: made again from them when next read.
      await tx.query(`DELETE FROM session_digests WHERE session_id = ANY($1::text[])`, [ids]);
      return due.length;
    });
  }
}

/** One session's identifiers replaced in its row, its log, its survey responses and its campaign claims. */
async function pseudonymiseSession(tx: Queryable, d: Due, p: Pseudonym, at: Date): Promise<void> {
  const identifying = new Set(d.questions ?? []);
  const params = pseudonymousParams(d.params, p);
  await tx.query(`UPDATE sessions SET params = $2::jsonb, pseudonymised_at = $3 WHERE id = $1`, [
    d.id,
    JSON.stringify(params),
    at,
  ]);
  await tx.query(`UPDATE campaign_claims SET participant = $2 WHERE session_id = $1`, [d.id, participantKey(params)]);
  // The name or id a proctor checked the participant in under, at a testing centre's station.
  const checkin = await tx.query<{ participant: string }>(
    `SELECT participant FROM centre_checkins WHERE session_id = $1`,
    [d.id],
  );
  for (const c of checkin.rows)
    await tx.query(`UPDATE centre_checkins SET participant = $2 WHERE session_id = $1`, [d.id, p(c.participant)]);
  // A station still waiting for the person under one of their ids (checked in again, not begun).
  const ids = new Set([...IDENTIFYING_PARAMS.map((k) => d.params[k]), ...checkin.rows.map((c) => c.participant)]);
  for (const id of ids)
    if (typeof id === 'string' && id)
      await tx.query(
        `UPDATE centre_stations SET pending_participant = $3 WHERE study_id = $1 AND pending_participant = $2`,
        [d.study_id, id, p(id)],
      );
  await pseudonymiseProlific(tx, d, p);
  const events = await tx.query<{ seq: number; kind: string; data: Record<string, unknown> }>(
    `SELECT seq, kind, data FROM events WHERE session_id = $1 AND kind = ANY($2::text[])`,
    [d.id, IDENTIFYING_KINDS],
  );
  for (const e of events.rows) {
    const data = pseudonymousEventData(e.kind, e.data, identifying, p);
    if (data)
      await tx.query(`UPDATE events SET data = $3::jsonb WHERE session_id = $1 AND seq = $2`, [
        d.id,
        e.seq,
        JSON.stringify(data),
      ]);
  }
  if (!identifying.size) return;
  const surveys = await tx.query<{ key: string; value: unknown }>(
    `SELECT key, value FROM responses WHERE session_id = $1 AND kind = 'survey'`,
    [d.id],
  );
  for (const r of surveys.rows)
    if (typeof r.value === 'object' && r.value !== null && !Array.isArray(r.value))
      await tx.query(`UPDATE responses SET value = $3::jsonb WHERE session_id = $1 AND key = $2`, [
        d.id,
        r.key,
        JSON.stringify(pseudonymousAnswers(r.value as Record<string, unknown>, identifying, p)),
      ]);
}

/**
 * The Prolific tables' rows of the session's Prolific id in its study (submissions returned or
 * timed out, bonus ledger lines), once no other session of the study holds the id as sent: the
 * bonus payer matches ledger lines to sessions by the id, so both change together and nothing
 * owed is paid twice.
 */
async function pseudonymiseProlific(tx: Queryable, d: Due, p: Pseudonym): Promise<void> {
  const pid = d.params.PROLIFIC_PID;
  if (typeof pid !== 'string' || !pid) return;
  const left = await tx.query(
    `SELECT 1 FROM sessions WHERE study_id = $1 AND pseudonymised_at IS NULL AND params ->> 'PROLIFIC_PID' = $2 LIMIT 1`,
    [d.study_id, pid],
  );
  if (left.rows.length) return;
  for (const table of ['prolific_submissions', 'prolific_bonus_lines'])
    await tx.query(`UPDATE ${table} SET participant_id = $3 WHERE study_id = $1 AND participant_id = $2`, [
      d.study_id,
      pid,
      p(pid),
    ]);
}
