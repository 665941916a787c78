import { describe, expect, it } from 'vitest';
import { advance, createRun, parseActions, type Run } from '../../core/game';
import { flux, type FluxLevel, type FluxState } from './game';

function level(map: string, lives = 3): Run<FluxState> {
  return createRun(
    {
      ...flux,
      levels: [
        { map, lives },
        { map, lives },
      ] as FluxLevel[],
    },
    { level: 0 },
  );
}
const play = (run: Run<FluxState>, actions: string) => parseActions(actions).reduce(advance, run);
/** Clicks board cell (x, y). */
function click(run: Run<FluxState>, x: number, y: number): Run<FluxState> {
  const b = run.current.layout.board;
  return advance(run, { action: 'ACTION6', x: b.x0 + x * b.cell + 1, y: b.y0 + y * b.cell + 1 });
}

const ONE_MIRROR = String.raw`
  ########
  #>../..#
  #...R..#
  #@....E#
  ########`;

describe('flux mechanics', () => {
  it('a turned mirror steers the beam onto the receiver, which opens the exit', () => {
    const run = level(ONE_MIRROR);
    expect(run.current.open).toBe(false);
    expect(play(run, 'ACTION4,ACTION4,ACTION4,ACTION4,ACTION4').current.agent).toBe(3 * 8 + 5); // the closed exit blocks
    const turned = click(run, 4, 1);
    expect(turned.current.open).toBe(true);
    expect(play(turned, 'ACTION4,ACTION4,ACTION4,ACTION4,ACTION4').levelsCompleted).toBe(1);
  });

  it('a beam costs a life and sends the agent back to the start; no lives left is GAME_OVER', () => {
    const run = level(
      String.raw`
      ######
      #.@..#
      #>...#
      #..RE#
      ######`,
      2,
    );
    const hit = play(run, 'ACTION2');
    expect(hit.current.lives).toBe(1);
    expect(hit.current.agent).toBe(run.current.agent);
    expect(play(hit, 'ACTION2').state).toBe('GAME_OVER');
  });

  it('turning a mirror that swings the beam onto the agent costs a life too', () => {
    const run = level(String.raw`
      #######
      #>.../#
      #.....#
      #@...R#
      #....E#
      #######`);
    const below = play(run, 'ACTION1,ACTION4,ACTION4,ACTION4,ACTION4'); // under the mirror, where the beam will go
    expect(below.current.agent).toBe(2 * 7 + 5);
    const hit = click(below, 5, 1);
    expect(hit.current.lives).toBe(2);
    expect(hit.current.agent).toBe(run.current.agent);
    expect(hit.current.open).toBe(true); // the mirror stays turned
  });

  it('a heavy mirror turns only while the agent stands next to it', () => {
    const run = level(String.raw`
      #######
      #>..%R#
      #@....#
      #....E#
      #######`);
    expect(click(run, 4, 1).current.mirrors).toBe(run.current.mirrors);
    const beside = play(run, 'ACTION4,ACTION4,ACTION4');
    const turned = click(beside, 4, 1);
    expect(turned.current.mirrors[1 * 7 + 4]).not.toBe(beside.current.mirrors[1 * 7 + 4]);
  });
});
