/**
 * Assignment of pool candidates to sessions (a campaign): the draw when a session starts, made
 * inside the database transaction that claims what it draws (`store.campaigns`), and the
 * settling of the claims when the session ends. The rule itself is `core/study/draw.ts`.
 */
import { mixSeed } from '../../core/game/rng';
import { type CandidateStanding, claimOutcome, drawCandidates, participantKey } from '../../core/study/draw';
import type { PoolPlan, StudyDefinition } from '../../core/study/schema';
import { type Pseudonym, pseudonymousParams } from '../../core/study/retention';
import { ITEM_END, ITEM_START, effectiveState, sessionProgress } from '../../core/study/rules';
import { sessionOrder } from '../../core/study/shuffle';
import type { SessionSummary } from '../../core/study/summary';
import { type PoolDraw, drawFigures } from '../store/campaignStore';
import type { EventStore, NewSession, SessionRecord, Store, StudyGamePin } from '../store/types';

/** What drawing and settling a session's candidates read and write: the campaign store and item marks. */
type CampaignReads = Pick<Store, 'campaigns'> & Pick<EventStore, 'readEvents'>;

/**
 * A pool with `draw: "time"` draws one candidate per this many minutes of the session's budget
 * (at most the pool's size): more than a participant is likely to reach, so the session never
 * runs out while time is left; those never started are released when the session ends.
 */
export const TIME_DRAW_MINUTES = 5;

/** The campaign a study's pools count toward: its `campaign.id`, else the study alone. */
export function campaignOf(studyId: string, study: StudyDefinition): string {
  return study.campaign ? study.campaign.id : `study:${studyId}`;
}

/** How many candidates a session draws from a pool. */
export function drawCount(study: StudyDefinition, pool: PoolPlan): number {
  if (pool.draw !== 'time') return Math.min(pool.draw, pool.candidates.length);
  return Math.min(pool.candidates.length, Math.max(1, Math.ceil(study.limits.sessionMinutes / TIME_DRAW_MINUTES)));
}

/**
 * Creates a session of a study with pools, drawing and claiming its candidates in one
 * transaction; returns the session's order. `claim: false` (a playtest) draws the same way but
 * claims nothing and records no draw. `pseudonym`: the retention job's, so a candidate met
 * before is known also from claims whose identifier was pseudonymised since.
 */
export async function createDrawnSession(
  store: CampaignReads,
  study: StudyDefinition,
  session: Omit<NewSession, 'order'>,
  now: number,
  claim: boolean,
  pins?: readonly StudyGamePin[],
  pseudonym?: Pseudonym,
): Promise<{ readonly order: readonly number[]; readonly stage: string }> {
  const ids = (pool: PoolPlan) => pool.candidates.map((i) => study.items[i].id);
  const choice = await store.campaigns.createDrawnSession(
    session,
    {
      campaign: campaignOf(session.studyId, study),
      participant: participantKey(session.params),
      // The participant's claims of sessions past their study's retention period carry the pseudonym.
      knownAs: pseudonym ? participantKey(pseudonymousParams(session.params, pseudonym)) : null,
      pools: study.pools.map((p) => ({ id: p.id, candidates: ids(p) })),
      quietBefore: now - study.limits.abandonAfterMinutes * 60_000,
      createdBefore: now - study.limits.sessionMinutes * 60_000,
      claim,
      pins,
    },
    (standings) => {
      const pools: PoolDraw[] = study.pools.map((pool, k) => {
        const mine: CandidateStanding[] = standings.get(pool.id) ?? [];
        const count = drawCount(study, pool);
        return {
          pool: pool.id,
          count,
          drawn: drawCandidates(mine, pool.target, count, mixSeed(session.seed, k), pool),
          figures: drawFigures(mine),
        };
      });
      const indexOf = new Map(study.items.map((item, i) => [item.id, i]));
      const drawn = new Map(pools.map((p) => [p.pool, p.drawn.map((id) => indexOf.get(id)!)]));
      return { order: sessionOrder(study, session.seed, drawn), pools };
    },
  );
  return { order: choice.order, stage: choice.stage };
}

/**
 * Settles the claims a session still holds when it ends (finished or withdrawn): solved,
 * attempted (counted), released (started, not counted) or skipped (never started), from its summary.
 */
export async function settleClaims(
  store: CampaignReads,
  study: StudyDefinition,
  session: SessionRecord,
  summary: SessionSummary,
  levels: (game: string) => number | null,
  now: number,
): Promise<void> {
  if (study.pools.length === 0) return;
  // Not the skipped ones: the participant was told to skip them, and what the log says of them
  // afterwards (a start sent anyway) counts toward nothing.
  const held = (await store.campaigns.sessionClaims(session.id)).filter((c) => c.state === 'held');
  if (!held.length) return;
  const byId = new Map(summary.items.map((i) => [i.id, i]));
  const games = new Map(study.items.flatMap((i) => (i.kind === 'game' ? [[i.id, i.game] as const] : [])));
  const outcomes = held.map((c) => ({
    candidate: c.candidate,
    state: claimOutcome(byId.get(c.candidate), levels, games.get(c.candidate) ?? null),
  }));
  await store.campaigns.settle(session.id, outcomes, now);
}

/**
 * The pool candidates of a session not started because too little of its time was left, as the
 * participant's session view told them (`skipped`): judged at the session's end (finished or
 * withdrawn; the last event of an abandoned one), else now. A candidate left unstarted by a
 * withdrawal with time to spare is not among them.
 */
export async function skippedCandidates(
  store: CampaignReads,
  study: StudyDefinition,
  session: SessionRecord,
  now: number,
): Promise<Set<string>> {
  if (study.pools.length === 0) return new Set();
  const state = effectiveState(session, study, now);
  const at = session.finishedAt ?? (state === 'abandoned' ? (session.lastEventAt ?? session.createdAt) : now);
  const marks = await store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] });
  const progress = sessionProgress(study, session.order, marks, undefined, {
    createdAt: session.createdAt,
    now: at,
    pauses: session.pauses,
  });
  return new Set(progress.items.filter((i) => i.skipped).map((i) => i.id));
}
