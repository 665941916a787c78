/** The words of a verification that found a stored frame different from the engine's. */
import { describe, expect, it } from 'vitest';
import { frameDifferences } from './storedRuns';

const blank = (): number[][] => Array.from({ length: 64 }, () => Array<number>(64).fill(0));

describe('frameDifferences', () => {
  it("numbers a frame among the step's frames, not among the rows of one frame", () => {
    const stored = [blank(), blank(), blank()];
    const engine = [blank(), blank(), blank()];
    engine[1][5][7] = 4;
    expect(frameDifferences(stored, engine)).toEqual([
      'frame 2 of 3: 1 cell differs, first at (x 7, y 5): stored 0, engine 4',
    ]);
  });

  it('counts the cells that differ and names the first by x and y', () => {
    const engine = [blank()];
    engine[0][2][3] = 1;
    engine[0][9][1] = 1;
    expect(frameDifferences([blank()], engine)).toEqual([
      'frame 1 of 1: 2 cells differ, first at (x 3, y 2): stored 0, engine 1',
    ]);
  });

  it('says when the engine gave another number of frames', () => {
    expect(frameDifferences([blank()], [blank(), blank()])).toEqual(['2 frames where 1 was stored']);
    expect(frameDifferences([blank(), blank()], [blank(), blank()])).toEqual([]);
  });
});
