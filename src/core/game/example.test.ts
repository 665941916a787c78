import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reach } from './example';
import { actionCounts, advance, createRun, formatActions, parseActions, solveLevel, step } from './index';

describe('the authoring guide example', () => {
  it('is quoted verbatim in docs/authoring-games.md', () => {
    const doc = readFileSync('docs/authoring-games.md', 'utf8');
    const source = readFileSync('src/core/game/example.ts', 'utf8').replace("from './index'", "from '../../core/game'");
    expect(doc).toContain(source.trim());
  });

  it('plays: level 1 in four moves, level 2 as the solver finds it, then WIN', () => {
    expect(formatActions(solveLevel(reach, 1)!)).toBe(
      'ACTION2,ACTION2,ACTION4,ACTION4,ACTION1,ACTION1,ACTION4,ACTION4,ACTION2,ACTION2',
    );
    let run = createRun(reach);
    for (const a of parseActions('RESET,ACTION4,ACTION4,ACTION4,ACTION4')) run = step(run, a).run;
    expect(run.levelsCompleted).toBe(1);
    for (const a of parseActions('ACTION2,ACTION2,ACTION4,ACTION4,ACTION1,ACTION1,ACTION4,ACTION4,ACTION2,ACTION2'))
      run = advance(run, a);
    expect(run.state).toBe('WIN');
    expect(actionCounts(run)).toEqual([4, 10]);
  });

  it('ends in GAME_OVER when the budget runs out', () => {
    let run = createRun(reach, { level: 0 });
    for (let i = 0; i < 8; i++) run = advance(run, { action: 'ACTION3' });
    expect(run.state).toBe('GAME_OVER');
  });
});
