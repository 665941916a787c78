import { memo, useEffect, useRef, useState } from 'react';
import type { TaskPair } from '../../core/formats/arcTask';
import { GridCanvas, useFitCell } from '../grid/GridCanvas';

type Grid = TaskPair['input'];

/**
 * The smallest cell a demonstration is drawn with beside the test on a wide screen, in CSS px: a
 * 30x30 pair is read there cell by cell without enlarging it (`demoColumnWidth`).
 */
export const MIN_DEMO_CELL = 8;

/** Room a pair takes besides its cells: the card's padding and border, the arrow and gaps, a scrollbar. */
const PAIR_CHROME_PX = 70;

/**
 * The width of a demonstrations column in which every pair, input beside output, gets at least
 * `MIN_DEMO_CELL` px per cell (each grid takes the share of the row its columns need).
 */
export function demoColumnWidth(pairs: readonly TaskPair[]): number {
  return Math.max(...pairs.map((p) => p.input[0].length + p.output[0].length)) * MIN_DEMO_CELL + PAIR_CHROME_PX;
}

function Fitted({
  grid,
  label,
  min = 3,
  maxCell,
  showSymbols,
  testId,
  share = false,
}: {
  grid: Grid;
  label: string;
  min?: number;
  maxCell: number;
  showSymbols: boolean;
  testId?: string;
  /** Take a share of the row by the grid's columns (beside the other grid of its pair), not half. */
  share?: boolean;
}) {
  const [ref, cell] = useFitCell(grid.length, grid[0].length, min, maxCell);
  return (
    <div
      ref={ref}
      className="flex h-full min-h-0 min-w-0 flex-1 items-center justify-center"
      style={share ? { flex: `${grid[0].length} 1 0` } : undefined}
    >
      <GridCanvas grid={grid} cell={cell} label={label} showSymbols={showSymbols && cell >= 12} testId={testId} />
    </div>
  );
}

const size = (g: Grid) => `${g.length}x${g[0].length}`;

/**
 * The demonstration pairs, input to output, fitted to the panel; any pair opens large in the
 * pair viewer (click it, or its Enlarge button), so that a 30x30 demonstration can be read cell by
 * cell on any screen.
 */
export const DemoPairs = memo(function DemoPairs({
  pairs,
  showSymbols = false,
  compact = false,
  small = false,
}: {
  pairs: readonly TaskPair[];
  showSymbols?: boolean;
  compact?: boolean;
  /** A phone's strip: smaller pairs, so that the test and Submit fit under it (each pair enlarges). */
  small?: boolean;
}) {
  const [viewing, setViewing] = useState<number | null>(null);
  // Shorter rows when there are many pairs, so that most tasks show every pair without scrolling.
  const rowHeight = compact
    ? small
      ? 88
      : 150
    : pairs.length <= 2
      ? 260
      : pairs.length === 3
        ? 205
        : pairs.length === 4
          ? 152
          : 140;
  return (
    <>
      <ol className={compact ? 'flex gap-2' : 'flex flex-col gap-2'} aria-label="Demonstration pairs">
        {pairs.map((p, i) => (
          <li
            key={i}
            className={`rounded-lg border border-slate-800 bg-slate-900/60 p-2 ${compact ? (small ? 'w-56 shrink-0' : 'w-72 shrink-0') : ''}`}
            data-testid="demo-pair"
          >
            <div className="mb-1 flex items-center justify-between gap-2 text-[11px] uppercase tracking-wide text-slate-400">
              <span>
                Example {i + 1} · {size(p.input)} → {size(p.output)}
              </span>
              {/* The name is the visible word and then which example: "Enlarge example 2" (WCAG 2.5.3). */}
              <button
                type="button"
                onClick={() => setViewing(i)}
                title="Enlarge"
                className="relative shrink-0 whitespace-nowrap rounded border border-slate-700 px-1.5 py-0.5 normal-case tracking-normal text-slate-200 hover:bg-slate-800"
              >
                <span aria-hidden>⤢ </span>Enlarge<span className="sr-only"> example {i + 1}</span>
              </button>
            </div>
            {/* In the column, a pair is at least as tall as its grids need at MIN_DEMO_CELL. */}
            <div
              className="flex cursor-zoom-in items-center gap-2"
              onClick={() => setViewing(i)}
              style={{
                height: compact
                  ? rowHeight
                  : Math.max(rowHeight, Math.max(p.input.length, p.output.length) * MIN_DEMO_CELL + 4),
              }}
            >
              <Fitted
                grid={p.input}
                label={`Example ${i + 1} input`}
                maxCell={24}
                showSymbols={showSymbols}
                share={!compact}
              />
              <span className="text-slate-400" aria-hidden>
                →
              </span>
              <Fitted
                grid={p.output}
                label={`Example ${i + 1} output`}
                maxCell={24}
                showSymbols={showSymbols}
                share={!compact}
              />
            </div>
          </li>
        ))}
      </ol>
      {viewing !== null && (
        <PairViewer
          pairs={pairs}
          index={viewing}
          onIndex={setViewing}
          onClose={() => setViewing(null)}
          showSymbols={showSymbols}
        />
      )}
    </>
  );
});

/**
 * One demonstration pair as large as the screen allows (side by side on a landscape screen, one
 * above the other on a portrait one), the other pairs as thumbnails to switch to; arrow keys go
 * to the previous and next pair, Escape closes. A modal dialog: the page behind is inert.
 */
function PairViewer({
  pairs,
  index,
  onIndex,
  onClose,
  showSymbols,
}: {
  pairs: readonly TaskPair[];
  index: number;
  onIndex: (i: number) => void;
  onClose: () => void;
  showSymbols: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [symbols, setSymbols] = useState(showSymbols);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const pair = pairs[index];
  const go = (i: number) => {
    if (i >= 0 && i < pairs.length) onIndex(i);
  };
  return (
    <dialog
      ref={ref}
      aria-labelledby="pair-viewer-title"
      data-testid="pair-viewer"
      onClose={onClose}
      onKeyDown={(e) => {
        if (e.key === 'ArrowLeft') {
          e.preventDefault();
          go(index - 1);
        }
        if (e.key === 'ArrowRight') {
          e.preventDefault();
          go(index + 1);
        }
        // The player's shortcuts (tools, colours, undo) do not act behind the dialog.
        e.stopPropagation();
      }}
      className="m-auto h-[94dvh] max-h-none w-[96vw] max-w-none rounded-xl border border-slate-700 bg-slate-950 p-0 text-slate-100 shadow-2xl backdrop:bg-slate-950/85"
    >
      <div className="flex h-full flex-col gap-2 p-3">
        <div className="flex flex-wrap items-center gap-2">
          <h2 id="pair-viewer-title" className="text-sm font-semibold text-white">
            Example {index + 1} of {pairs.length}{' '}
            <span className="font-normal text-slate-300">
              · input {size(pair.input)} → output {size(pair.output)}
            </span>
          </h2>
          <div className="ml-auto flex items-center gap-2">
            <label className="flex items-center gap-1.5 text-xs text-slate-300">
              <input
                type="checkbox"
                checked={symbols}
                onChange={() => setSymbols(!symbols)}
                className="accent-sky-500"
              />
              Symbol numbers
            </label>
            <button
              type="button"
              onClick={() => go(index - 1)}
              disabled={index === 0}
              aria-label="Previous example"
              className="h-8 rounded-md border border-slate-700 bg-slate-800 px-2.5 text-sm hover:bg-slate-700 disabled:opacity-40"
            >
              ‹ Previous
            </button>
            <button
              type="button"
              onClick={() => go(index + 1)}
              disabled={index === pairs.length - 1}
              aria-label="Next example"
              className="h-8 rounded-md border border-slate-700 bg-slate-800 px-2.5 text-sm hover:bg-slate-700 disabled:opacity-40"
            >
              Next ›
            </button>
            <button
              type="button"
              onClick={() => ref.current?.close()}
              autoFocus
              className="h-8 rounded-md border border-sky-500 bg-sky-700 px-3 text-sm font-semibold text-white hover:bg-sky-800"
            >
              Close
            </button>
          </div>
        </div>
        <div className="flex min-h-0 flex-1 flex-col items-stretch gap-3 landscape:flex-row">
          <figure className="flex min-h-0 min-w-0 flex-1 flex-col">
            <figcaption className="mb-1 text-xs uppercase tracking-wide text-slate-400">
              Input {size(pair.input)}
            </figcaption>
            <Fitted
              key={`i${index}`}
              grid={pair.input}
              label={`Example ${index + 1} input, enlarged`}
              min={4}
              maxCell={48}
              showSymbols={symbols}
              testId="pair-viewer-input"
            />
          </figure>
          <figure className="flex min-h-0 min-w-0 flex-1 flex-col">
            <figcaption className="mb-1 text-xs uppercase tracking-wide text-slate-400">
              Output {size(pair.output)}
            </figcaption>
            <Fitted
              key={`o${index}`}
              grid={pair.output}
              label={`Example ${index + 1} output, enlarged`}
              min={4}
              maxCell={48}
              showSymbols={symbols}
              testId="pair-viewer-output"
            />
          </figure>
        </div>
        {pairs.length > 1 && (
          <nav aria-label="Examples" className="flex shrink-0 gap-2 overflow-x-auto pb-1">
            {pairs.map((p, i) => (
              <button
                key={i}
                type="button"
                onClick={() => go(i)}
                aria-current={i === index ? 'true' : undefined}
                aria-label={`Example ${i + 1}`}
                className={`flex h-16 shrink-0 items-center gap-1 rounded-md border p-1 ${i === index ? 'border-sky-400 bg-sky-900/40' : 'border-slate-700 bg-slate-900 hover:border-slate-500'}`}
              >
                <span className="w-6 text-xs text-slate-300">{i + 1}</span>
                <span className="flex h-full w-24 items-center gap-1" aria-hidden>
                  <Fitted
                    grid={p.input}
                    label={`Example ${i + 1} input, thumbnail`}
                    min={1}
                    maxCell={6}
                    showSymbols={false}
                  />
                  <Fitted
                    grid={p.output}
                    label={`Example ${i + 1} output, thumbnail`}
                    min={1}
                    maxCell={6}
                    showSymbols={false}
                  />
                </span>
              </button>
            ))}
          </nav>
        )}
      </div>
    </dialog>
  );
}
