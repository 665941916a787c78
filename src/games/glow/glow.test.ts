import { describe, expect, it } from 'vitest';
import { advance, createRun, type Run } from '../../core/game';
import { glow, type GlowLevel, type GlowState } from './game';

function level(map: string, charges = 5): Run<GlowState> {
  return createRun(
    {
      ...glow,
      levels: [
        { map, charges },
        { map, charges },
      ] as GlowLevel[],
    },
    { level: 0 },
  );
}
/** Clicks the lamp at board cell (x, y). */
function click(run: Run<GlowState>, x: number, y: number): Run<GlowState> {
  const b = run.current.layout.board;
  return advance(run, { action: 'ACTION6', x: b.x0 + x * b.cell + 2, y: b.y0 + y * b.cell + 2 });
}
const litMap = (s: GlowState) =>
  Array.from({ length: s.layout.h }, (_, y) =>
    Array.from({ length: s.layout.w }, (_, x) => s.lit[y * s.layout.w + x]).join(''),
  ).join('/');

describe('glow mechanics', () => {
  it('a plain lamp flips itself and its four neighbours', () => {
    expect(litMap(click(level('ooo\nooo\nooo'), 1, 1).current)).toBe('010/111/010');
    expect(litMap(click(level('OOo\nooo'), 0, 0).current)).toBe('000/100'); // lit lamps go dark
  });

  it('a star flips its row and column up to a gap', () => {
    expect(litMap(click(level('ooooo\noo.oo\nos.so\nooooo'), 1, 2).current)).toBe('01000/01000/11000/01000');
  });

  it('a sealed lamp cannot be clicked and a click beside the lamps costs nothing', () => {
    const run = level('oxo');
    const sealed = click(run, 1, 0);
    expect(sealed.current).toBe(run.current);
    expect(sealed.actions).toBe(1); // still an action on the scorecard
    const outside = advance(run, { action: 'ACTION6', x: 0, y: 63 });
    expect(outside.current.charges).toBe(5);
    expect(litMap(click(run, 0, 0).current)).toBe('110');
  });

  it('running out of charges with a dark lamp is GAME_OVER', () => {
    const run = click(level('ooo', 1), 0, 0);
    expect(run.state).toBe('GAME_OVER');
    expect(click(level('ooo', 1), 1, 0).levelsCompleted).toBe(1);
  });
});
