import { floodFill, makeGrid, paste, resize } from '../core/grid/grid';
import { timeMicros } from './measure';
import type { BenchResult } from './result';

export function* run(): Iterable<BenchResult> {
  const empty = makeGrid(30, 30, 0);
  // A comb: the fill must wind through every column of a 30x30 grid.
  const comb = empty.map((row, r) => row.map((_, c) => (c % 2 === 1 && (c % 4 === 1 ? r < 29 : r > 0) ? 5 : 0)));
  const block = makeGrid(30, 30, 7);
  yield { name: 'grid.floodfill.30x30.open', value: timeMicros(() => floodFill(empty, 15, 15, 3)), unit: 'us' };
  yield { name: 'grid.floodfill.30x30.maze', value: timeMicros(() => floodFill(comb, 0, 0, 3)), unit: 'us' };
  yield { name: 'grid.paste.30x30', value: timeMicros(() => paste(empty, block, 5, 5)), unit: 'us' };
  yield { name: 'grid.resize.3x3-to-30x30', value: timeMicros(() => resize(makeGrid(3, 3, 1), 30, 30)), unit: 'us' };
  yield { name: 'grid.resize.30x30-to-15x20', value: timeMicros(() => resize(block, 15, 20)), unit: 'us' };
}
