import { describe, expect, it } from 'vitest';
import { advance, createRun, parseActions, step, type Run } from '../../core/game';
import { push, type PushLevel, type PushState } from './game';

function level(map: string, energy = 20): Run<PushState> {
  const game = {
    ...push,
    levels: [
      { map, energy },
      { map, energy },
    ] as PushLevel[],
  };
  return createRun(game, { level: 0 });
}
const play = (run: Run<PushState>, actions: string) => parseActions(actions).reduce(advance, run);
const blockAt = (s: PushState, x: number, y: number) => s.blocks[y * s.layout.w + x] === 1;

describe('push mechanics', () => {
  it('a block pushed onto ice slides until something stops it, one animation frame per cell', () => {
    const run = level(`
      ##########
      #@b~~~~.o#
      ##########`);
    const r = step(run, { action: 'ACTION4' });
    expect(blockAt(r.run.current, 7, 1)).toBe(true); // stopped on the floor past the ice
    expect(r.run.current.agent).toBe(1 * 10 + 2);
    expect(r.response.frame.length).toBe(5); // four cells of slide, then the settled frame
  });

  it('the agent slides on ice too, and stops before a block', () => {
    const run = level(`
      #########
      #@~~~b.o#
      #########`);
    expect(play(run, 'ACTION4').current.agent).toBe(9 + 4);
  });

  it('a block in a corner cannot be pushed out but can be pulled', () => {
    const run = level(`
      #####
      #b..#
      #@..#
      #..o#
      #####`);
    const faced = play(run, 'ACTION1'); // bump up into the block: it cannot move, the agent now faces it
    expect(faced.current.agent).toBe(2 * 5 + 1);
    const pulled = play(faced, 'ACTION5');
    expect(pulled.current.agent).toBe(3 * 5 + 1);
    expect(blockAt(pulled.current, 1, 2)).toBe(true);
    expect(blockAt(pulled.current, 1, 1)).toBe(false);
  });

  it('runs out of energy into GAME_OVER; undo gives energy back', () => {
    const run = level(
      `
      #######
      #@.b.o#
      #######`,
      3,
    );
    const two = play(run, 'ACTION3,ACTION3');
    expect(two.current.energy).toBe(1);
    expect(play(two, 'ACTION7').current.energy).toBe(2);
    expect(play(two, 'ACTION3').state).toBe('GAME_OVER');
    expect(play(run, 'ACTION4,ACTION4,ACTION4').levelsCompleted).toBe(1); // winning on the last unit wins
  });
});
