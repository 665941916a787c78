import { memo } from 'react';
import type { TaskPair } from '../../core/formats/arcTask';
import { GridCanvas, useFitCell } from '../grid/GridCanvas';

function Fitted({ grid, label, maxCell }: { grid: TaskPair['input']; label: string; maxCell: number }) {
  const [ref, cell] = useFitCell(grid.length, grid[0].length, 3, maxCell);
  return (
    <div ref={ref} className="flex h-full min-w-0 flex-1 items-center justify-center">
      <GridCanvas grid={grid} cell={cell} label={label} />
    </div>
  );
}

/** The demonstration pairs, input to output, fitted to the panel. */
export const DemoPairs = memo(function DemoPairs({ pairs }: { pairs: readonly TaskPair[] }) {
  // Shorter rows when there are many pairs, so that most tasks show every pair without scrolling.
  const rowHeight = pairs.length <= 2 ? 260 : pairs.length === 3 ? 205 : pairs.length === 4 ? 152 : 140;
  return (
    <ol className="flex flex-col gap-2" aria-label="Demonstration pairs">
      {pairs.map((p, i) => (
        <li key={i} className="rounded-lg border border-slate-800 bg-slate-900/60 p-2" data-testid="demo-pair">
          <div className="mb-1 flex justify-between text-[11px] uppercase tracking-wide text-slate-500">
            <span>Example {i + 1} · input {p.input.length}x{p.input[0].length}</span>
            <span>output {p.output.length}x{p.output[0].length}</span>
          </div>
          <div className="flex items-center gap-2" style={{ height: rowHeight }}>
            <Fitted grid={p.input} label={`Example ${i + 1} input`} maxCell={24} />
            <span className="text-slate-500" aria-hidden>→</span>
            <Fitted grid={p.output} label={`Example ${i + 1} output`} maxCell={24} />
          </div>
        </li>
      ))}
    </ol>
  );
});
