import { describe, expect, it } from 'vitest';
import { Rng } from '../game/rng';
import { campaignNeed, candidateNeed, MIN_SETTLED_DRAWS, type CandidateRecord } from './estimate';
import type { CandidateNeedView } from '../protocol/campaign';

/** A candidate's record after `draws` settled draws of a participant who solves with chance `rate`. */
function simulated(rate: number, draws: number, goal: number, inFlight: number, rng: Rng): CandidateRecord {
  let progress = 0;
  for (let k = 0; k < draws; k++) if (rng.next() < rate) progress++;
  return { goal, progress: Math.min(progress, goal - 1), settled: draws, inFlight, retired: false };
}

/** What the candidate truly needs on average: the solves left after those in flight, at the true rate. */
const truth = (r: CandidateRecord, rate: number) => Math.max(0, r.goal - r.progress - r.inFlight * rate) / rate;

describe('participants still needed, per candidate', () => {
  it('cannot be estimated from a thin record, nor at a rate of 0, whatever the campaign elsewhere', () => {
    expect(candidateNeed({ goal: 2, progress: 1, settled: 2, inFlight: 0, retired: false })).toEqual({
      state: 'unknown',
      reason: 'thin_record',
      settled: 2,
    });
    const rng = new Rng(4);
    for (const draws of [MIN_SETTLED_DRAWS, 10, 40]) {
      const need = candidateNeed(simulated(0, draws, 2, 3, rng));
      expect(need).toEqual({ state: 'unknown', reason: 'no_progress', settled: draws });
    }
    expect(candidateNeed({ goal: 2, progress: 2, settled: 9, inFlight: 1, retired: false })).toEqual({ state: 'met' });
    expect(candidateNeed({ goal: 2, progress: 0, settled: 10, inFlight: 0, retired: true })).toEqual({
      state: 'retired',
    });
  });

  it('counts sessions in flight at the observed rate, never as certain solves', () => {
    // 2 solves of 8 settled draws (rate 1/4), 2 still needed, 2 in flight: they give half a solve,
    // so 1.5 / 0.25 = 6 more participants; counted as certain, they would have given 0.
    const need = candidateNeed({ goal: 4, progress: 2, settled: 8, inFlight: 2, retired: false });
    expect(need).toMatchObject({ state: 'estimated', rate: 0.25, participants: 6 });
    // Near 1: 9 of 10, one left and one in flight: 0.1 of a solve still to come, so 1 participant.
    expect(candidateNeed({ goal: 10, progress: 9, settled: 10, inFlight: 1, retired: false })).toMatchObject({
      participants: 1,
    });
  });

  it('against simulated candidates of known solve rates, its interval holds what they truly need at least 90% of the time', () => {
    const rng = new Rng(20261206);
    for (const rate of [0.15, 0.3, 0.6, 0.97]) {
      for (const draws of [MIN_SETTLED_DRAWS, 8, 20]) {
        let held = 0;
        let estimated = 0;
        const trials = 400;
        for (let t = 0; t < trials; t++) {
          const record = simulated(rate, draws, 30, t % 3, rng);
          const need = candidateNeed(record);
          if (need.state !== 'estimated') {
            // Only a record without a solve goes unestimated.
            expect(need).toMatchObject({ state: 'unknown', reason: 'no_progress' });
            continue;
          }
          estimated++;
          const want = truth(record, rate);
          expect(need.low).toBeLessThanOrEqual(need.participants);
          if (need.high !== null) expect(need.high).toBeGreaterThanOrEqual(need.participants);
          if (need.low <= Math.ceil(want) && (need.high === null || Math.floor(want) <= need.high)) held++;
        }
        expect(held / estimated, `rate ${rate}, ${draws} draws`).toBeGreaterThanOrEqual(0.9);
      }
    }
  });
});

describe('participants still needed, overall', () => {
  const est = (participants: number, low: number, high: number | null): CandidateNeedView => ({
    state: 'estimated',
    rate: 0.5,
    participants,
    low,
    high,
  });

  it('is the most any candidate needs or the sum over the draws a session makes, whichever is larger', () => {
    // 3 draws a session: 4 + 4 + 4 = 12 draws is 4 sessions; a candidate needing 7 needs 7 sessions.
    expect(campaignNeed([est(4, 2, 9), est(4, 2, 9), est(4, 2, 9)], 3)).toMatchObject({
      participants: 4,
      low: 2,
      high: 9,
    });
    expect(campaignNeed([est(7, 5, 12), est(1, 1, 2), est(1, 1, 2)], 3)).toMatchObject({ participants: 7 });
    // Met and retired candidates need nobody.
    expect(campaignNeed([{ state: 'met' }, { state: 'retired' }], 3)).toMatchObject({ participants: 0, unknown: 0 });
  });

  it('says it cannot be estimated while any candidate still drawn cannot, with what the others need at least', () => {
    const v = campaignNeed([est(6, 4, null), { state: 'unknown', reason: 'no_progress', settled: 12 }], 2);
    expect(v).toMatchObject({ participants: null, low: null, high: null, atLeast: 4, unknown: 1 });
  });
});
