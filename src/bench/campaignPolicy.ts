/**
 * The assignment rule's spending of participants, on simulated campaigns (`core/study/drawSimulation.ts`):
 * 41 candidates (11 nobody solves, 30 from a 20% to a 95% solve rate; then 41 solved 97% of the
 * time), target 2 solves, 3 drawn per session, 40 sessions starting at once, a tenth of the drawn
 * candidates left without an attempt; 200 seeded campaigns per case, paced and filled fast. Prints
 * the solves beyond the targets (bonuses the campaign did not need) as a share of the solves the
 * targets need, the mean and the worst campaign, the participants used and the most sessions that
 * held one candidate at once. docs/researchers.md states the bound the tests hold paced filling to.
 */
import type { BenchResult } from './result';
import { simulateCampaign } from '../core/study/drawSimulation';

const CASES = {
  mixed: [...Array<number>(11).fill(0), ...Array.from({ length: 30 }, (_, k) => 0.2 + (0.75 * k) / 29)],
  easy: Array<number>(41).fill(0.97),
};
const SEEDS = 200;

export function* run(): Iterable<BenchResult> {
  for (const [name, rates] of Object.entries(CASES))
    for (const fill of ['paced', 'fast'] as const) {
      let beyond = 0;
      let needed = 0;
      let worst = 0;
      let sessions = 0;
      let mostHeld = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const o = simulateCampaign({
          rates,
          target: { solves: 2 },
          policy: { reviseAfter: 10, fill },
          draw: 3,
          wave: 40,
          maxSessions: 5000,
          releaseRate: 0.1,
          seed,
        });
        beyond += o.solvesBeyondTarget;
        needed += o.solvesNeeded;
        worst = Math.max(worst, o.solvesBeyondTarget / o.solvesNeeded);
        sessions += o.sessions;
        mostHeld = Math.max(mostHeld, ...o.candidates.map((c) => c.mostInFlight));
      }
      const at = `campaign-policy ${name} ${fill}`;
      yield { name: `${at}: solves beyond targets, mean`, value: (100 * beyond) / needed, unit: '% of needed' };
      yield { name: `${at}: solves beyond targets, worst`, value: 100 * worst, unit: '% of needed' };
      yield { name: `${at}: participants`, value: sessions / SEEDS, unit: 'sessions' };
      yield { name: `${at}: most sessions holding one candidate`, value: mostHeld, unit: 'sessions' };
    }
}
