import { describe, expect, it } from 'vitest';
import { ENGINE_VERSION, versionedGameId } from '../core/game';
import { games, solutions } from '../games';
import { runCli, spawnCli } from './testing';

/** In this process; the listing below is the one run of the real binary. */
const cli = (...args: string[]) => runCli(args);

describe('arc-studio games', () => {
  it('lists one game per line: id, title, levels, actions, version (the real binary)', () => {
    const r = spawnCli(['games', 'list']);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.map((l) => l.split('\t')[0])).toEqual(['push', 'glow', 'flux']);
    expect(lines[0]).toBe(
      `push\tPush\t6 levels\tACTION1,ACTION2,ACTION3,ACTION4,ACTION5,ACTION7\t${versionedGameId(games.push)}`,
    );
    expect(lines[1]).toBe(`glow\tGlow\t6 levels\tACTION6,ACTION7\t${versionedGameId(games.glow)}`);
  });

  it('plays a game headless and prints the final state and per-level counts as JSON', async () => {
    // Level 1 by its recorded solution, then a move, an undo, a level RESET and a move in level 2.
    const actions = `RESET,${solutions.push[0]},ACTION1,ACTION7,RESET,ACTION4`;
    const r = await cli('games', 'play', 'push', '--actions', actions);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    expect(out).toMatchObject({
      game: 'push',
      state: 'NOT_FINISHED',
      levels_completed: 1,
      win_levels: 6,
      runs: 1,
      level_actions: [solutions.push[0].split(',').length, 4],
      available_actions: [1, 2, 3, 4, 5, 7],
    });
    expect(out.frame_hash).toMatch(/^[0-9a-f]{8}$/);
    expect(out).toMatchObject({ version: versionedGameId(games.push), engine: ENGINE_VERSION });
  });

  it('plays clicks with their coordinates', async () => {
    const r = await cli('games', 'play', 'glow', '--actions', `RESET,${solutions.glow[0]}`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ levels_completed: 1, level_actions: [1, 0] });
  });

  it.each([
    ['ACTION9', /"ACTION9" is not an action; accepted: RESET, ACTION1-ACTION5, ACTION6:x:y/],
    ['ACTION6:99:1', /column x "99" must be a whole number from 0 to 63/],
    ['JUMP', /"JUMP" is not an action/],
  ])('refuses the bad action string %s with a clear message', async (bad, message) => {
    const r = await cli('games', 'play', 'push', '--actions', `RESET,${bad}`);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
  });

  it('refuses an action the rules forbid, naming it and the rule', async () => {
    const r = await cli('games', 'play', 'push', '--actions', 'ACTION1');
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/action 1 \(ACTION1\) refused, NOT_STARTED: .*send RESET first/);
  });
});
