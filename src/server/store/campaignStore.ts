/**
 * Campaigns in the store: a session's claims on pool candidates and its recorded draw.
 * `store.campaigns` of the `Store`; the same SQL on PGlite and PostgreSQL.
 *
 * A draw is one transaction: it takes the campaign's advisory lock, reads every candidate's
 * standing (counted progress, claims in flight, whether this participant met it), lets the
 * caller choose (`core/study/draw.ts`), then inserts the session, its claims and the draw record.
 * Draws of one campaign are therefore serialised across every server on the database, and a
 * claim exists exactly when its session does: two servers never book the same last solve twice.
 * Within one server, draws and settlements of a campaign wait in its `CampaignLanes` queue
 * rather than on the database lock, so they never hold idle pooled connections.
 */
import type { CandidateCounts } from '../../core/analysis/campaign';
import type { CandidateStanding, ClaimState } from '../../core/study/draw';
import type { Driver, Queryable, Transacting } from './driver';
import { ms } from './columns';
import type { NewSession, StudyGamePin } from './records';
import { databaseUnavailable } from './unavailable';
import { pinStudyGames } from './gamePins';
import { INSERT_SESSION_SQL, sessionRowValues } from './sessionRow';
import { MAIN_STAGE } from '../../core/study/stages';
import type { Pause } from '../../core/study/pauses';
import type { SessionClock, SessionState } from '../../core/study/rules';

export type { ClaimState };

export interface ClaimRecord {
  readonly sessionId: string;
  readonly candidate: string;
  readonly campaign: string;
  readonly studyId: string;
  readonly pool: string;
  readonly participant: string | null;
  readonly position: number;
  readonly state: ClaimState;
  readonly claimedAt: number;
  readonly settledAt: number | null;
}

/** A claim with what the campaign's figures need of its session. */
export interface ClaimWithSession extends ClaimRecord {
  readonly excluded: boolean;
  /** The stage of the claim's session. */
  readonly stage: string;
  readonly sessionState: string;
  readonly sessionCreatedAt: number;
  /** The session's last event, else its start (ms). */
  readonly quietSince: number;
  /** The session's breaks (`core/study/pauses.ts`): a paused session is in flight, its clocks stopped. */
  readonly sessionPauses: readonly Pause[];
}

/**
 * One pool's part of a draw, as recorded: how many it drew, what, and the figures it drew on,
 * `[solves, attempts, inFlight, met (1/0), settled]` by candidate id for every candidate with any
 * figure (those not listed had none; draws recorded before `settled` was read have four), so
 * `drawCandidates` recomputes the draw with the session's seed.
 */
export interface PoolDraw {
  readonly pool: string;
  readonly count: number;
  readonly drawn: readonly string[];
  readonly figures: Readonly<Record<string, readonly [number, number, number, 0 | 1, number?]>>;
}

/** The recorded figures of a pool's standings (see `PoolDraw`). */
export function drawFigures(standings: readonly CandidateStanding[]): PoolDraw['figures'] {
  const out: Record<string, [number, number, number, 0 | 1, number]> = {};
  for (const s of standings)
    if (s.solves || s.attempts || s.inFlight || s.met || s.settled)
      out[s.id] = [s.solves, s.attempts, s.inFlight, s.met ? 1 : 0, s.settled ?? s.attempts];
  return out;
}

export interface DrawRequest {
  /** The campaign id, or `study:<id>` for a study without one. */
  readonly campaign: string;
  readonly participant: string | null;
  /** The same participant's key as pseudonymised by retention (their earlier claims may hold it); null: none. */
  readonly knownAs?: string | null;
  /** The pools and their candidates' ids, in the pool's order. */
  readonly pools: readonly { readonly id: string; readonly candidates: readonly string[] }[];
  /** Sessions silent since before this (ms) no longer hold their claims (abandoned). */
  readonly quietBefore: number;
  /** Sessions created before this (ms) no longer hold their claims (past the session's time). */
  readonly createdBefore: number;
  /** False: the standings are read and the choice made, but nothing is claimed (playtests). */
  readonly claim: boolean;
  /** The study's current game versions, pinned with the session for games not pinned yet (`pinStudyGames`). */
  readonly pins?: readonly StudyGamePin[];
}

/** What the caller decides from the standings: the session's order and each pool's draw. */
export interface DrawChoice {
  readonly order: readonly number[];
  readonly pools: readonly PoolDraw[];
}

const FINAL_STATES = `('finished', 'timed_out', 'abandoned', 'withdrawn')`;

/**
 * Whether session `s` holds its claims as in flight, as `effectiveState` decides with its breaks
 * (`core/study/rules.ts`): on a break now, it is; else it is while it has been quiet since no
 * earlier than `$quiet` (its last event or the end of its last break) and its start, moved later
 * by its breaks, is no earlier than `$created` (ms since the epoch, as float8 parameters).
 */
const inFlightSql = (quiet: string, created: string) => `(s.state NOT IN ${FINAL_STATES} AND (
  (jsonb_array_length(s.pauses) > 0 AND s.pauses->-1->>'to' IS NULL)
  OR (greatest(extract(epoch FROM coalesce(s.last_event_at, s.created_at)) * 1000,
               coalesce((s.pauses->-1->>'to')::float8, 0)) >= ${quiet}
      AND extract(epoch FROM s.created_at) * 1000
        + coalesce((SELECT sum((p->>'to')::float8 - (p->>'from')::float8) FROM jsonb_array_elements(s.pauses) p), 0)
        >= ${created})))`;

export class CampaignStore {
  private readonly lanes: CampaignLanes;

  constructor(private readonly db: Driver) {
    this.lanes = new CampaignLanes(db);
  }

  /**
   * Creates a session of a study with pools: reads the standings, asks `choose`, and stores the
   * session with the chosen order, one claim per drawn candidate and the draw, atomically. The
   * choice, and the stage the session started in (the study's at the insert).
   */
  async createDrawnSession(
    session: Omit<NewSession, 'order'>,
    req: DrawRequest,
    choose: (standings: ReadonlyMap<string, CandidateStanding[]>) => DrawChoice,
  ): Promise<DrawChoice & { readonly stage: string }> {
    return this.lanes.run(req.campaign, async (tx) => {
      // Counted progress from the candidates' counters; in flight from the claims not settled
      // (their sessions' clocks decide); met from this participant's own claims.
      const rows = await tx.query<{
        candidate: string;
        solves: number;
        attempts: number;
        settled: number;
        in_flight: number;
        met: boolean;
      }>(
        `WITH k AS (SELECT candidate, solves, attempts, settled FROM campaign_candidates WHERE campaign = $1),
         f AS (SELECT c.candidate, count(*)::int AS in_flight
           FROM campaign_claims c JOIN sessions s ON s.id = c.session_id
           WHERE c.campaign = $1 AND c.state = 'held' AND ${inFlightSql('$2::float8', '$3::float8')}
           GROUP BY c.candidate),
         m AS (SELECT DISTINCT candidate FROM campaign_claims WHERE campaign = $1 AND (participant = $4 OR participant = $5) AND state <> 'skipped')
         SELECT candidate, coalesce(k.solves, 0) AS solves, coalesce(k.attempts, 0) AS attempts, coalesce(k.settled, 0) AS settled, coalesce(f.in_flight, 0) AS in_flight, m.candidate IS NOT NULL AS met
         FROM k FULL JOIN f USING (candidate) FULL JOIN m USING (candidate)`,
        [req.campaign, req.quietBefore, req.createdBefore, req.participant, req.knownAs ?? null],
      );
      const byId = new Map(rows.rows.map((r) => [r.candidate, r]));
      const standings = new Map<string, CandidateStanding[]>();
      for (const pool of req.pools) {
        standings.set(
          pool.id,
          pool.candidates.map((id) => {
            const r = byId.get(id);
            return {
              id,
              solves: r?.solves ?? 0,
              attempts: r?.attempts ?? 0,
              settled: r?.settled ?? 0,
              inFlight: r?.in_flight ?? 0,
              met: r?.met ?? false,
            };
          }),
        );
      }
      const choice = choose(standings);
      const sessionValues = sessionRowValues({ ...session, order: choice.order });
      const insertSession = INSERT_SESSION_SQL;
      if (!req.claim) {
        const made = await tx.query<{ stage: string }>(`${insertSession} RETURNING stage`, sessionValues);
        await pinStudyGames(tx, session, req.pins);
        return { ...choice, stage: made.rows[0].stage };
      }
      // The session, its claims, their counters and the draw in one statement: one round trip under the lock.
      const claims = choice.pools
        .flatMap((p) => p.drawn.map((candidate) => ({ candidate, pool: p.pool })))
        .map((c, position) => ({ ...c, position }));
      const made = await tx.query<{ stage: string }>(
        `WITH s AS (${insertSession} RETURNING id, stage),
         c AS (INSERT INTO campaign_claims (session_id, candidate, campaign, study_id, pool, participant, position, claimed_at)
           SELECT s.id, c.candidate, $10, $2, c.pool, $11, c.position, $8
           FROM s, jsonb_to_recordset($12::jsonb) AS c(candidate text, pool text, position integer)),
         k AS (INSERT INTO campaign_candidates (campaign, candidate, drawn, held)
           SELECT $10, c.candidate, (s.stage = '${MAIN_STAGE}')::int, (s.stage = '${MAIN_STAGE}')::int
           FROM s, jsonb_to_recordset($12::jsonb) AS c(candidate text)
           ON CONFLICT (campaign, candidate) DO UPDATE SET drawn = campaign_candidates.drawn + EXCLUDED.drawn, held = campaign_candidates.held + EXCLUDED.held),
         d AS (INSERT INTO campaign_draws (session_id, campaign, seed, pools, at) SELECT s.id, $10, $6, $13::jsonb, $8 FROM s)
         SELECT stage FROM s`,
        [...sessionValues, req.campaign, req.participant, JSON.stringify(claims), JSON.stringify(choice.pools)],
      );
      await pinStudyGames(tx, session, req.pins);
      return { ...choice, stage: made.rows[0].stage };
    });
  }

  /**
   * Settles a session's claims still held; others (a skip the participant was told of is final),
   * and candidates not named, stay as they are. Under the campaign's lock, with the candidates' counters counted again.
   */
  async settle(
    sessionId: string,
    outcomes: readonly { readonly candidate: string; readonly state: Exclude<ClaimState, 'held'> }[],
    now: number,
  ): Promise<void> {
    if (!outcomes.length) return;
    // A claim's campaign never changes, so it is read before the lock.
    const campaign = (
      await this.db.query<{ campaign: string }>(`SELECT campaign FROM campaign_claims WHERE session_id = $1 LIMIT 1`, [
        sessionId,
      ])
    ).rows[0]?.campaign;
    if (campaign === undefined) return;
    await this.lanes.run(campaign, async (tx) => {
      const r = await tx.query<{ candidate: string }>(
        `UPDATE campaign_claims c SET state = o.state, settled_at = $2
         FROM jsonb_to_recordset($3::jsonb) AS o(candidate text, state text)
         WHERE c.session_id = $1 AND c.candidate = o.candidate AND c.state = 'held'
         RETURNING c.candidate`,
        [sessionId, new Date(now), JSON.stringify(outcomes)],
      );
      await recountCandidates(
        tx,
        campaign,
        r.rows.map((x) => x.candidate),
      );
    });
  }

  /**
   * A campaign's per-candidate counters (candidates never drawn have none), counting the sessions
   * of one stage (`main`, the kept counters the draws read) or of every stage (null), counted
   * from the claims.
   */
  async counters(campaign: string, stage: string | null = MAIN_STAGE): Promise<CandidateCounters[]> {
    const r =
      stage === MAIN_STAGE
        ? await this.db.query<CandidateCounters>(
            `SELECT candidate, drawn, held, attempts, solves, settled FROM campaign_candidates WHERE campaign = $1 ORDER BY candidate`,
            [campaign],
          )
        : await this.db.query<CandidateCounters>(
            `SELECT c.candidate, ${counterColumns('($2::text IS NULL OR s.stage = $2)')}
             FROM campaign_claims c JOIN sessions s ON s.id = c.session_id
             WHERE c.campaign = $1 GROUP BY c.candidate ORDER BY c.candidate`,
            [campaign, stage],
          );
    return r.rows.map((x) => ({
      candidate: x.candidate,
      drawn: x.drawn,
      held: x.held,
      attempts: x.attempts,
      solves: x.solves,
      settled: x.settled,
    }));
  }

  /**
   * The claims the campaign view reads: those of one study's sessions, and every claim of the
   * campaign still held (their sessions may be in flight, or ended and not settled yet), in the
   * order they were made, with their sessions' state. The rest of the campaign's history is in
   * the counters.
   */
  async viewClaims(campaign: string, studyId: string): Promise<ClaimWithSession[]> {
    const cols = `c.*, s.excluded_at IS NOT NULL AS excluded, s.stage, s.state AS session_state, s.created_at AS session_created_at,
         coalesce(s.last_event_at, s.created_at) AS quiet_since, s.pauses AS session_pauses`;
    const r = await this.db.query(
      `SELECT ${cols} FROM campaign_claims c JOIN sessions s ON s.id = c.session_id WHERE c.study_id = $2 AND c.campaign = $1
       UNION ALL
       SELECT ${cols} FROM campaign_claims c JOIN sessions s ON s.id = c.session_id WHERE c.campaign = $1 AND c.state = 'held' AND c.study_id <> $2
       ORDER BY no`,
      [campaign, studyId],
    );
    return r.rows.map(claimWithSessionFromRow);
  }

  /** How many claims of a campaign were started (not skipped), and by how many sessions. */
  async draws(campaign: string, stage: string | null = MAIN_STAGE): Promise<{ started: number; sessions: number }> {
    const r = await this.db.query<{ started: number; sessions: number }>(
      `SELECT count(*)::int AS started, count(DISTINCT c.session_id)::int AS sessions
       FROM campaign_claims c JOIN sessions s ON s.id = c.session_id
       WHERE c.campaign = $1 AND c.state <> 'skipped' AND ($2::text IS NULL OR s.stage = $2)`,
      [campaign, stage],
    );
    return { started: r.rows[0]?.started ?? 0, sessions: r.rows[0]?.sessions ?? 0 };
  }

  /** Every claim of a campaign, in the order they were made, with its session's state. */
  async claims(campaign: string): Promise<ClaimWithSession[]> {
    const r = await this.db.query(
      `SELECT c.*, s.excluded_at IS NOT NULL AS excluded, s.stage, s.state AS session_state, s.created_at AS session_created_at,
         coalesce(s.last_event_at, s.created_at) AS quiet_since, s.pauses AS session_pauses
       FROM campaign_claims c JOIN sessions s ON s.id = c.session_id WHERE c.campaign = $1 ORDER BY c.no`,
      [campaign],
    );
    return r.rows.map(claimWithSessionFromRow);
  }

  /** A session's claims, in draw order. */
  async sessionClaims(sessionId: string): Promise<ClaimRecord[]> {
    const r = await this.db.query(`SELECT * FROM campaign_claims WHERE session_id = $1 ORDER BY position`, [sessionId]);
    return r.rows.map(claimFromRow);
  }

  /** A session's recorded draw, or null (a session without pools, or a playtest). */
  async draw(sessionId: string): Promise<{ seed: number; pools: PoolDraw[] } | null> {
    const r = await this.db.query<{ seed: number; pools: unknown }>(
      `SELECT seed, pools FROM campaign_draws WHERE session_id = $1`,
      [sessionId],
    );
    const row = r.rows[0];
    if (!row) return null;
    return { seed: row.seed, pools: (typeof row.pools === 'string' ? JSON.parse(row.pools) : row.pools) as PoolDraw[] };
  }
}

/** A candidate's counters (the `campaign_candidates` table; migration 12 says what each counts). */
export interface CandidateCounters extends CandidateCounts {
  readonly candidate: string;
  /** Claims not settled yet. */
  readonly held: number;
}

type LaneJob = {
  readonly work: (tx: Queryable) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
};

/**
 * The work of one server on a campaign's claims (draws, settlements), queued per campaign and run
 * in batches: one transaction takes the campaign's advisory lock once and runs every job waiting
 * (up to `maxBatch`), each under its own savepoint, so a job that fails undoes only its own
 * writes and is answered with its own error. A job is answered once its batch has committed.
 *
 * Why: a draw that took a pooled connection and then waited for the lock held that connection
 * idle. Under a thousand simultaneous starts every connection of the pool waited on the lock,
 * every other request waited for a connection, and past the pool's connect timeout they failed.
 * Here a campaign uses at most one of this server's connections, only while it holds (or is next
 * for) the lock; the lock itself still orders the work of several servers on one database.
 */
export class CampaignLanes {
  private readonly queues = new Map<string, LaneJob[]>();

  constructor(
    private readonly db: Driver,
    private readonly maxBatch = 64,
  ) {}

  /** Runs `work` in a transaction holding `campaign`'s lock, after the jobs queued before it. */
  run<T>(campaign: string, work: (tx: Queryable) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const job: LaneJob = { work, resolve: resolve as (value: unknown) => void, reject };
      const queue = this.queues.get(campaign);
      if (queue) {
        queue.push(job);
        return;
      }
      this.queues.set(campaign, [job]);
      void this.drain(campaign);
    });
  }

  /**
   * Runs the campaign's queue batch after batch on one connection kept while the queue is not
   * empty. Why: under a burst of starts, every start's ordinary queries wait in the pool's queue;
   * a lane that asked for a connection again for each batch waited behind all of them, and past
   * the pool's connect timeout its draws failed. Kept, the connection is asked for once per burst.
   */
  private async drain(campaign: string): Promise<void> {
    const queue = this.queues.get(campaign)!;
    while (queue.length) {
      try {
        await this.db.hold(async (conn) => {
          // A batch that failed whole (its connection lost) ends the hold: the next gets a fresh one.
          while (queue.length) if (!(await this.runBatch(conn, campaign, queue.splice(0, this.maxBatch)))) return;
        });
      } catch (error) {
        // No connection to be had: every job waiting gets the reason.
        for (const job of queue.splice(0)) job.reject(error);
      }
    }
    this.queues.delete(campaign);
  }

  /** Runs one batch in one transaction and answers its jobs; false when the transaction failed whole. */
  private async runBatch(conn: Transacting, campaign: string, batch: readonly LaneJob[]): Promise<boolean> {
    const single = batch.length === 1;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      await conn.transaction(async (tx) => {
        await lockCampaigns(tx, [campaign]);
        for (const job of batch) {
          // One job alone needs no savepoint: its failure undoes the transaction, which is its own.
          if (!single) await tx.query('SAVEPOINT lane_job');
          try {
            const value = await job.work(tx);
            if (!single) await tx.query('RELEASE SAVEPOINT lane_job');
            outcomes.push({ ok: true, value });
          } catch (error) {
            if (single) throw error;
            // A failure here (the connection lost) fails the whole batch below.
            await tx.query('ROLLBACK TO SAVEPOINT lane_job');
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const job of batch) job.reject(error);
      // Rolled back, the connection serves the next batch, unless it was lost.
      return !databaseUnavailable(error);
    }
    batch.forEach((job, k) => {
      const o = outcomes[k];
      if (o.ok) job.resolve(o.value);
      else job.reject(o.error);
    });
    return true;
  }
}

/**
 * Takes the campaigns' advisory locks for the rest of the transaction, in one order (so two
 * transactions taking several never wait on each other in a circle). Every write to claims and
 * counters holds its campaign's lock.
 */
export async function lockCampaigns(tx: Queryable, campaigns: readonly string[]): Promise<void> {
  for (const c of [...new Set(campaigns)].sort())
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('campaign:' || $1))`, [c]);
}

/**
 * Counts the named candidates' counters again from their claims (the claims of one candidate,
 * never the whole campaign's), as migration 13 defines them, of sessions of the `main` stage
 * (migration 19); a candidate without a claim left loses its row. The caller holds the campaign's lock.
 */
/**
 * The counters' columns (drawn, held, attempts, solves, settled) over claims `c` of sessions `s`
 * in the stage `counted` selects; attempts, solves and settled of sessions not excluded only.
 * (What a draw reads as in flight comes from the claims themselves, of every stage.)
 */
function counterColumns(counted: string): string {
  const counts = `s.excluded_at IS NULL AND ${counted}`;
  return `count(*) FILTER (WHERE ${counted})::int AS drawn,
       count(*) FILTER (WHERE c.state = 'held' AND ${counted})::int AS held,
       count(*) FILTER (WHERE c.state IN ('solved', 'attempted') AND ${counts})::int AS attempts,
       count(DISTINCT coalesce(c.participant, c.session_id)) FILTER (WHERE c.state = 'solved' AND ${counts})::int AS solves,
       count(*) FILTER (WHERE c.state IN ('solved', 'attempted', 'released') AND ${counts})::int AS settled`;
}

export async function recountCandidates(tx: Queryable, campaign: string, candidates: readonly string[]): Promise<void> {
  if (!candidates.length) return;
  await tx.query(`DELETE FROM campaign_candidates WHERE campaign = $1 AND candidate = ANY($2::text[])`, [
    campaign,
    [...new Set(candidates)],
  ]);
  await tx.query(
    `INSERT INTO campaign_candidates (campaign, candidate, drawn, held, attempts, solves, settled)
     SELECT c.campaign, c.candidate, ${counterColumns(`s.stage = '${MAIN_STAGE}'`)}
     FROM campaign_claims c JOIN sessions s ON s.id = c.session_id
     WHERE c.campaign = $1 AND c.candidate = ANY($2::text[])
     GROUP BY c.campaign, c.candidate`,
    [campaign, [...new Set(candidates)]],
  );
}

/**
 * Runs `change` on sessions (an exclusion, a deletion) with their campaigns locked, then counts
 * their candidates again. The caller's transaction.
 */
export async function recountingSessions<T>(
  tx: Queryable,
  sessionIds: readonly string[],
  change: () => Promise<T>,
): Promise<T> {
  const pairs = (
    await tx.query<{ campaign: string; candidate: string }>(
      `SELECT DISTINCT campaign, candidate FROM campaign_claims WHERE session_id = ANY($1::text[])`,
      [sessionIds],
    )
  ).rows;
  await lockCampaigns(
    tx,
    pairs.map((p) => p.campaign),
  );
  const result = await change();
  const byCampaign = new Map<string, string[]>();
  for (const p of pairs) byCampaign.set(p.campaign, [...(byCampaign.get(p.campaign) ?? []), p.candidate]);
  for (const [campaign, candidates] of byCampaign) await recountCandidates(tx, campaign, candidates);
  return result;
}

function claimWithSessionFromRow(row: Record<string, unknown>): ClaimWithSession {
  return {
    ...claimFromRow(row),
    excluded: row.excluded as boolean,
    stage: row.stage as string,
    sessionState: row.session_state as string,
    sessionCreatedAt: ms(row.session_created_at),
    quietSince: ms(row.quiet_since),
    sessionPauses: pausesOf(row.session_pauses),
  };
}

/** The clocks of a claim's session, for `isInFlight` (`core/study/rules.ts`). */
export function claimSessionClock(c: ClaimWithSession): SessionClock {
  return {
    state: c.sessionState as SessionState,
    createdAt: c.sessionCreatedAt,
    lastEventAt: c.quietSince,
    pauses: c.sessionPauses,
  };
}

function pausesOf(v: unknown): Pause[] {
  const list = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
  return Array.isArray(list) ? (list as Pause[]) : [];
}

function claimFromRow(r: Record<string, unknown>): ClaimRecord {
  return {
    sessionId: r.session_id as string,
    candidate: r.candidate as string,
    campaign: r.campaign as string,
    studyId: r.study_id as string,
    pool: r.pool as string,
    participant: (r.participant as string | null) ?? null,
    position: r.position as number,
    state: r.state as ClaimState,
    claimedAt: ms(r.claimed_at),
    settledAt: r.settled_at === null || r.settled_at === undefined ? null : ms(r.settled_at),
  };
}
