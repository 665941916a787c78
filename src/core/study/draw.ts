/**
 * The campaign's assignment rule: which candidates of a pool a new session draws. Pure, so the
 * server runs it inside the database transaction that claims the candidates (`server/campaign`)
 * and tests and audits run it on recorded figures.
 *
 * The rule, in order:
 * 1. A candidate whose counted progress (solves by distinct participants, or counted attempts)
 *    has reached the pool's target is never drawn.
 * 2. A candidate of a `solves` target attempted `reviseAfter` times without a solve is never
 *    drawn again (status `revise`): its participants are better spent elsewhere.
 * 3. A candidate the participant met before (in any session of any study of the campaign) is
 *    never drawn.
 * 4. With `fill: "paced"` (the default), a candidate is not drawn while the sessions in flight
 *    that hold it are as many as it still needs at its observed rate: `inFlight >= ceil(remaining
 *    / rate)`, with `rate` its progress per settled draw counted as if the next draw were a
 *    solve, `(progress + 1) / (settled + 1)`: a candidate never drawn is held by as many sessions
 *    as solves it needs, and one failing often by more, as its record shows it needs; while it has
 *    no solve, no more than the attempts left before rule 2. So the last solve it needs is not
 *    handed to every session that starts at once. `fill: "fast"` skips this rule.
 * 5. The others are drawn furthest from their target first: `paced` by the solves still needed
 *    once those in flight give theirs at the rate (`remaining - inFlight * rate`), `fast` by
 *    `remaining - inFlight` (so two sessions starting together do not both take the last solve
 *    while another candidate is open).
 * 6. Ties are broken by a shuffle seeded with the session's seed, so no candidate is starved by
 *    its place in the pool and the draw can be recomputed from the recorded figures and seed.
 */
import { seededShuffle } from './shuffle';
import { type PoolTarget, REVISE_AFTER } from './schema';
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
  /** Claims settled solved, attempted or released (the draws its rate is observed on); `attempts` when not given. */
  readonly settled?: number;
}

/** How a pool draws (`PoolItem.reviseAfter` and `PoolItem.fill`). */
export interface DrawPolicy {
  readonly reviseAfter: number;
  readonly fill: 'paced' | 'fast';
}

/** The defaults of `PoolItem`. */
export const DEFAULT_DRAW_POLICY: DrawPolicy = { reviseAfter: REVISE_AFTER, fill: 'paced' };

/** The number a target asks for. */
export function targetCount(target: PoolTarget): number {
  return 'solves' in target ? target.solves : target.attempts;
}

/** A candidate's counted progress toward its target: its solves, or its attempts. */
export function progressOf(s: Pick<CandidateStanding, 'solves' | 'attempts'>, target: PoolTarget): number {
  return 'solves' in target ? s.solves : s.attempts;
}

/**
 * Whether a candidate is no longer drawn because it was attempted `reviseAfter` times without a
 * solve (rule 2; `solves` targets only).
 */
export function isRetired(
  s: Pick<CandidateStanding, 'solves' | 'attempts'>,
  target: PoolTarget,
  reviseAfter: number,
): boolean {
  return 'solves' in target && s.solves === 0 && s.attempts >= reviseAfter;
}

/**
 * A candidate's progress per settled draw, counted as if the next draw were a solve:
 * `(progress + 1) / (settled + 1)`. Never 0, so a candidate with no solve yet can still be
 * paced; at most its observed rate's optimistic end, so pacing errs toward fewer claims at once
 * (a slower fill) rather than solves beyond the target (measured: `drawSimulation.test.ts`).
 */
export function pacingRate(s: Pick<CandidateStanding, 'solves' | 'attempts' | 'settled'>, target: PoolTarget): number {
  const settled = Math.max(s.settled ?? s.attempts, progressOf(s, target));
  return (progressOf(s, target) + 1) / (settled + 1);
}

/**
 * How many sessions may hold the candidate at once under `paced` filling (rule 4):
 * `ceil(remaining / rate)`, and while it has no solve at most the attempts left before it retires.
 */
export function claimCap(s: CandidateStanding, target: PoolTarget, reviseAfter: number): number {
  const remaining = targetCount(target) - progressOf(s, target);
  if (remaining <= 0) return 0;
  const cap = Math.ceil(remaining / pacingRate(s, target) - 1e-9);
  return 'solves' in target && s.solves === 0 ? Math.min(cap, Math.max(0, reviseAfter - s.attempts)) : cap;
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
  policy: DrawPolicy = DEFAULT_DRAW_POLICY,
): string[] {
  const goal = targetCount(target);
  const paced = policy.fill === 'paced';
  const open = standings.filter(
    (s) =>
      !s.met &&
      progressOf(s, target) < goal &&
      !isRetired(s, target, policy.reviseAfter) &&
      (!paced || s.inFlight < claimCap(s, target, policy.reviseAfter)),
  );
  const need = (s: CandidateStanding) =>
    goal - progressOf(s, target) - s.inFlight * (paced ? pacingRate(s, target) : 1);
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
