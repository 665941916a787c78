/**
 * A simulated campaign for the assignment rule (`draw.ts`): candidates of known solve rates,
 * participants arriving in waves that start together (so their claims are in flight at once),
 * each drawing from the pool by `drawCandidates` on the standings a database would hold, then
 * playing and settling. Pure and seeded: the tests hold the rule to its promises with it, and
 * `npm run bench -- campaign-policy` prints what it measures.
 */
import { Rng } from '../game/rng';
import { type CandidateStanding, type DrawPolicy, drawCandidates, isRetired } from './draw';
import type { PoolTarget } from './schema';

export interface SimulationSpec {
  /** Each candidate's true chance that a participant who draws it solves it. */
  readonly rates: readonly number[];
  readonly target: PoolTarget;
  readonly policy: DrawPolicy;
  /** Candidates each session draws. */
  readonly draw: number;
  /** Sessions that start together (their claims are in flight at once). */
  readonly wave: number;
  /** The most sessions the campaign may use. */
  readonly maxSessions: number;
  /** Chance that a participant leaves a drawn candidate without a counted attempt (released). */
  readonly releaseRate?: number;
  readonly seed: number;
}

export interface CandidateOutcome {
  readonly rate: number;
  readonly solves: number;
  readonly attempts: number;
  readonly drawn: number;
  /** Attempted `reviseAfter` times without a solve (no longer drawn). */
  readonly retired: boolean;
  /** Draws made after it was retired (the rule says none). */
  readonly drawnWhileRetired: number;
  /** The most sessions that held it at once. */
  readonly mostInFlight: number;
}

export interface SimulationOutcome {
  readonly candidates: readonly CandidateOutcome[];
  readonly sessions: number;
  /** Solves beyond each candidate's target, summed: bonuses paid for solves the campaign did not need. */
  readonly solvesBeyondTarget: number;
  /** Solves up to each candidate's target, summed. */
  readonly solvesNeeded: number;
  /** Whether it stopped because no candidate could be drawn any more (else the sessions ran out). */
  readonly settled: boolean;
}

/** Runs one simulated campaign (see the module comment). */
export function simulateCampaign(spec: SimulationSpec): SimulationOutcome {
  const rng = new Rng(spec.seed);
  const goal = 'solves' in spec.target ? spec.target.solves : spec.target.attempts;
  const state = spec.rates.map((rate, k) => ({
    id: `c${k}`,
    rate,
    solves: 0,
    attempts: 0,
    settled: 0,
    drawn: 0,
    drawnWhileRetired: 0,
    mostInFlight: 0,
  }));
  const byId = new Map(state.map((s) => [s.id, s]));
  let sessions = 0;
  let stalled = false;
  while (sessions < spec.maxSessions && !stalled) {
    const inFlight = new Map<string, number>();
    const waveDraws: string[][] = [];
    for (let w = 0; w < spec.wave && sessions < spec.maxSessions; w++) {
      const standings: CandidateStanding[] = state.map((s) => ({
        id: s.id,
        solves: s.solves,
        attempts: s.attempts,
        settled: s.settled,
        inFlight: inFlight.get(s.id) ?? 0,
        met: false,
      }));
      const drawn = drawCandidates(standings, spec.target, spec.draw, Math.floor(rng.next() * 2 ** 31), spec.policy);
      if (drawn.length === 0) break;
      sessions++;
      waveDraws.push(drawn);
      for (const id of drawn) {
        const s = byId.get(id)!;
        if (isRetired(s, spec.target, spec.policy.reviseAfter)) s.drawnWhileRetired++;
        s.drawn++;
        inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
        s.mostInFlight = Math.max(s.mostInFlight, inFlight.get(id)!);
      }
    }
    if (waveDraws.length === 0) stalled = true;
    // Every session of the wave plays and settles.
    for (const drawn of waveDraws)
      for (const id of drawn) {
        const s = byId.get(id)!;
        s.settled++;
        if (rng.next() < (spec.releaseRate ?? 0)) continue;
        s.attempts++;
        if (rng.next() < s.rate) s.solves++;
      }
  }
  const progress = (s: { solves: number; attempts: number }) => ('solves' in spec.target ? s.solves : s.attempts);
  return {
    candidates: state.map((s) => ({
      rate: s.rate,
      solves: s.solves,
      attempts: s.attempts,
      drawn: s.drawn,
      retired: isRetired(s, spec.target, spec.policy.reviseAfter),
      drawnWhileRetired: s.drawnWhileRetired,
      mostInFlight: s.mostInFlight,
    })),
    sessions,
    solvesBeyondTarget: state.reduce((n, s) => n + Math.max(0, progress(s) - goal), 0),
    solvesNeeded: state.reduce((n, s) => n + Math.min(goal, progress(s)), 0),
    settled: stalled,
  };
}
