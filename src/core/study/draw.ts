/**
 * The campaign's assignment rule: which candidates of a pool a new session draws. Pure, so the
 * server runs it inside the database transaction that claims the candidates (`server/campaign`)
 * and tests and audits run it on recorded figures.
 *
 * The rule, in order:
 * 1. A candidate whose counted progress (solves by distinct participants, or counted attempts)
 *    has reached the pool's target is never drawn.
 * 2. A candidate the participant met before (in any session of any study of the campaign) is
 *    never drawn.
 * 3. The others are drawn furthest from their target first: `need = target - progress - inFlight`,
 *    where `inFlight` counts the claims of sessions still in progress (so two sessions starting
 *    together do not both take the last solve a candidate needs).
 * 4. Ties are broken by a shuffle seeded with the session's seed, so no candidate is starved by
 *    its place in the pool and the draw can be recomputed from the recorded figures and seed.
 */
import { seededShuffle } from './shuffle';
import type { PoolTarget } from './schema';
import type { ItemSummary } from './summary';

/** Where a candidate stands when a session draws, as the database counts it. */
export interface CandidateStanding {
  readonly id: string;
  /** Counted full solves by distinct participants. */
  readonly solves: number;
  /** Counted attempts, solved or not. */
  readonly attempts: number;
  /** Claims of sessions still in progress and not yet counted. */
  readonly inFlight: number;
  /** The participant of this session met the candidate before. */
  readonly met: boolean;
}

/** The number a target asks for. */
export function targetCount(target: PoolTarget): number {
  return 'solves' in target ? target.solves : target.attempts;
}

/** A candidate's counted progress toward its target: its solves, or its attempts. */
export function progressOf(s: Pick<CandidateStanding, 'solves' | 'attempts'>, target: PoolTarget): number {
  return 'solves' in target ? s.solves : s.attempts;
}

/**
 * The candidates a session draws: at most `count`, in the order they are given (furthest from
 * target first). `standings` lists every candidate of the pool, in the pool's order.
 */
export function drawCandidates(
  standings: readonly CandidateStanding[],
  target: PoolTarget,
  count: number,
  seed: number,
): string[] {
  const goal = targetCount(target);
  const open = standings.filter((s) => !s.met && progressOf(s, target) < goal);
  const need = (s: CandidateStanding) => goal - progressOf(s, target) - s.inFlight;
  // The shuffle first, then a stable sort by need: ties keep their shuffled order.
  return seededShuffle(open, seed)
    .sort((a, b) => need(b) - need(a))
    .slice(0, Math.max(0, count))
    .map((s) => s.id);
}

/**
 * The participant's identity across sessions and studies of a campaign, from the parameters the
 * recruitment platform put in the study link: Prolific's `PROLIFIC_PID`, else MTurk's `workerId`,
 * else a `participantId` the researcher's own link sets. Null without any: such a session meets
 * only itself.
 */
export function participantKey(params: Readonly<Record<string, string>>): string | null {
  if (params.PROLIFIC_PID) return `prolific:${params.PROLIFIC_PID}`;
  if (params.workerId) return `worker:${params.workerId}`;
  if (params.participantId) return `participant:${params.participantId}`;
  return null;
}

/** How a session's claim on a candidate ends (see `server/store/campaignStore.ts`). */
export type ClaimOutcome = 'solved' | 'attempted' | 'released' | 'skipped';

/** held: in flight; solved / attempted: counted; released: ended without counting; skipped: never started. */
export type ClaimState = 'held' | ClaimOutcome;

/**
 * A drawn candidate's outcome from the session's summary: `skipped` when never started,
 * `solved` when fully solved (a task: every shown test input solved; a game: every level
 * completed, by the server's replay of a verified log), `attempted` when the attempt counts under
 * the study's attempt rule, else `released` (the candidate goes back to the pool).
 * `levels` gives a game's level count (null: unknown, never solved).
 */
export function claimOutcome(
  item: ItemSummary | undefined,
  levels: (game: string) => number | null,
  game: string | null,
): ClaimOutcome {
  if (!item || !item.started) return 'skipped';
  if (item.tests && item.tests.length > 0 && item.tests.every((t) => t.solved)) return 'solved';
  if (item.game && game !== null) {
    const n = levels(game);
    if (item.game.verified && n !== null && n > 0 && item.game.levelsCompleted >= n) return 'solved';
  }
  return item.counts ? 'attempted' : 'released';
}
