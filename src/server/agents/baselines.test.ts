import { describe, expect, it } from 'vitest';
import type { Baselines, GameBaselines } from '../../core/scoring';
import { versionBaselines } from './baselines';

const GAME = 'vc33-5430563c';
const figures = (actions: number, version?: string): GameBaselines => ({
  participants: 3,
  ...(version ? { version } : {}),
  levels: [{ level: 1, reached: 3, completers: 3, baseline: { best: actions } }],
});
const study: Baselines = {
  source: 'arc-studio',
  games: { [`${GAME}@aaaaaaaaaaaa`]: figures(5, `${GAME}@aaaaaaaaaaaa`) },
};

describe('the human baselines an agent is scored against', () => {
  it('are those of the code version the agent played', () => {
    const both: Baselines = {
      source: 'arc-studio',
      games: { ...study.games, [`${GAME}@bbbbbbbbbbbb`]: figures(3, `${GAME}@bbbbbbbbbbbb`) },
    };
    const found = versionBaselines(both, GAME, [`${GAME}@bbbbbbbbbbbb`], 'study "rev"');
    expect(found && 'game' in found && found.game.levels[0].baseline.best).toBe(3);
  });

  it('are refused, naming the versions there are, when the source has another version only', () => {
    expect(versionBaselines(study, GAME, [`${GAME}@bbbbbbbbbbbb`], 'study "rev"')).toEqual({
      problem: `study "rev" has human baselines of ${GAME}@aaaaaaaaaaaa only, and this agent played ${GAME}@bbbbbbbbbbbb; score it against a study whose participants played that version, or collect baselines of it`,
    });
  });

  it('are refused when the scorecard played two versions of the game', () => {
    const r = versionBaselines(study, GAME, [`${GAME}@aaaaaaaaaaaa`, `${GAME}@bbbbbbbbbbbb`], 'study "rev"');
    expect(r && 'problem' in r && r.problem).toContain('were played on 2 versions of its code');
  });

  it('come from an entry that names no version (a file written before versions) for any version, and are absent for another game', () => {
    const file: Baselines = { source: 'arc-studio', games: { [GAME]: figures(4) } };
    const found = versionBaselines(file, GAME, [`${GAME}@bbbbbbbbbbbb`], 'the baselines file');
    expect(found && 'game' in found && found.game.levels[0].baseline.best).toBe(4);
    expect(versionBaselines(file, 'ls20-9607627b', ['ls20-9607627b'], 'the baselines file')).toBeNull();
  });
});
