/**
 * How many participants a campaign still needs, from each candidate's own record: the estimate
 * `GET /api/admin/studies/:id/campaign` gives per candidate and overall (docs/researchers.md,
 * "Participants still needed"). Pure.
 *
 * The method, per candidate still drawn and short of its target:
 * - its rate `p` is its progress (solves, or counted attempts for an `attempts` target) per
 *   settled draw (a draw that ended solved, attempted or released); the 95% Wilson interval of
 *   that proportion gives `[pLow, pHigh]`;
 * - the sessions holding it now are counted at that rate, never as certain solves: the progress
 *   still to come from new participants is `max(0, remaining - inFlight * p)`;
 * - the participants still needed are that divided by `p`, rounded up (one participant draws a
 *   candidate once); the interval's ends come from `pHigh` (fewest) and `pLow` (most, unbounded
 *   when `pLow` is 0);
 * - it cannot be estimated yet with fewer than {@link MIN_SETTLED_DRAWS} settled draws, or with no
 *   progress at all (a rate of 0 says nothing of how many more it takes: it may never be solved).
 *
 * Overall, a session draws several candidates but each at most once, so the campaign needs at
 * least the most any one candidate needs, and at least the sum over candidates divided by the
 * draws a session makes: the larger of the two. Candidates no longer drawn (`revise`) are left
 * out: no participant brings them closer.
 */
import type { CampaignNeededView, CandidateNeedView } from '../protocol/campaign';
import { wilsonInterval } from './wilson';

/** Fewest settled draws of a candidate before its rate is used. */
export const MIN_SETTLED_DRAWS = 5;

/** A candidate's record as the estimate reads it. */
export interface CandidateRecord {
  /** What its target asks for (solves, or attempts). */
  readonly goal: number;
  /** Its counted progress toward the target. */
  readonly progress: number;
  /** Its draws that ended: solved, attempted or released. */
  readonly settled: number;
  /** Sessions in progress holding it. */
  readonly inFlight: number;
  /** It is no longer drawn (`revise`). */
  readonly retired: boolean;
}

/** The method in words, as the campaign page and `CampaignView.needed.method` state it. */
export const ESTIMATE_METHOD =
  `Per candidate: its progress per settled draw (with a 95% Wilson interval) is its rate; sessions holding it now ` +
  `count at that rate, never as certain solves; what is left, divided by the rate, is the participants it still ` +
  `needs. It cannot be estimated with fewer than ${MIN_SETTLED_DRAWS} settled draws or no solve yet. Overall: the larger ` +
  `of the most any candidate needs and the sum over candidates divided by the draws a session makes; candidates ` +
  `no longer drawn are left out.`;

const draws = (remaining: number, inFlight: number, rate: number): number =>
  Math.ceil(Math.max(0, remaining - inFlight * rate) / rate - 1e-9);

/** The participants one candidate still needs (see the module comment). */
export function candidateNeed(c: CandidateRecord): CandidateNeedView {
  const remaining = c.goal - c.progress;
  if (remaining <= 0) return { state: 'met' };
  if (c.retired) return { state: 'retired' };
  // Progress is never more than the draws that made it (a solve is a settled draw).
  const settled = Math.max(c.settled, c.progress);
  if (settled < MIN_SETTLED_DRAWS) return { state: 'unknown', reason: 'thin_record', settled };
  if (c.progress === 0) return { state: 'unknown', reason: 'no_progress', settled };
  const rate = c.progress / settled;
  const interval = wilsonInterval(c.progress, settled)!;
  return {
    state: 'estimated',
    rate,
    participants: draws(remaining, c.inFlight, rate),
    low: draws(remaining, c.inFlight, interval.high),
    high: interval.low > 0 ? draws(remaining, c.inFlight, interval.low) : null,
  };
}

/**
 * The participants the campaign still needs, from each candidate's need and the draws a session
 * makes on average (`perSession`, at least 1 is assumed).
 */
export function campaignNeed(needs: readonly CandidateNeedView[], perSession: number): CampaignNeededView {
  const per = Math.max(1, perSession);
  const estimated = needs.flatMap((n) => (n.state === 'estimated' ? [n] : []));
  const unknown = needs.filter((n) => n.state === 'unknown').length;
  const total = (values: readonly number[]) =>
    values.length ? Math.max(...values, Math.ceil(values.reduce((a, b) => a + b, 0) / per - 1e-9)) : 0;
  const lows = total(estimated.map((n) => n.low));
  const highs = estimated.every((n) => n.high !== null) ? total(estimated.map((n) => n.high!)) : null;
  return {
    participants: unknown ? null : total(estimated.map((n) => n.participants)),
    low: unknown ? null : lows,
    high: unknown ? null : highs,
    atLeast: lows,
    unknown,
    method: ESTIMATE_METHOD,
  };
}
