import { describe, expect, it } from 'vitest';
import type { GameBaselines } from '../../core/scoring';
import { officialScorecard, type CardStep } from './scorecard';

const GAME = 'push-0123456789ab';
const head = { cardId: 'card', tags: ['study:pilot'], sourceUrl: null, opaque: null };
/** One play: the opening RESET, then two actions, the second completing level 1. */
const steps: CardStep[] = [
  { guid: 'g', gameId: GAME, action: 'RESET', state: 'NOT_FINISHED', levelsCompleted: 0, fullReset: true },
  { guid: 'g', gameId: GAME, action: 'ACTION1', state: 'NOT_FINISHED', levelsCompleted: 0, fullReset: false },
  { guid: 'g', gameId: GAME, action: 'ACTION2', state: 'NOT_FINISHED', levelsCompleted: 1, fullReset: false },
];
const game = (levels: GameBaselines['levels']) => ({
  tags: [],
  baselines: { source: 'arc-studio' as const, games: { [GAME]: { participants: 3, levels } } },
  baselinesFrom: 'study:pilot',
});

describe('a scorecard against a study', () => {
  it('says so when the study has no human baseline for the game yet, instead of silent -1s', () => {
    const none = game([
      { level: 1, reached: 3, completers: 0, baseline: { 'upper-median': null, 'second-best': null } },
      { level: 2, reached: 0, completers: 0, baseline: { 'upper-median': null, 'second-best': null } },
    ]);
    const [run] = officialScorecard(head, steps, { [GAME]: none }).environments[0].runs;
    expect(run.score).toBe(0);
    expect(run.message).toMatch(/study "pilot" has no human baseline for any of its levels yet/);
  });

  it('scores against the levels that have one, without a message', () => {
    const some = game([
      { level: 1, reached: 3, completers: 2, baseline: { 'upper-median': 2, 'second-best': 2 } },
      { level: 2, reached: 2, completers: 0, baseline: { 'upper-median': null, 'second-best': null } },
    ]);
    const [run] = officialScorecard(head, steps, { [GAME]: some }).environments[0].runs;
    expect(run.message).toBeUndefined();
    expect(run.level_baseline_actions[0]).toBe(2);
    expect(run.score).toBeGreaterThan(0);
  });
});
