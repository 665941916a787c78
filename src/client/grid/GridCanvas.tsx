import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { Cell, Grid, Rect } from '../../core/grid/grid';
import { cellAt, renderGrid } from './render';

export interface GridPointerHandlers {
  /** A press on a cell (mouse button, touch or pen). */
  onDown?(cell: Cell, e: PointerEvent): void;
  /** The pointer moved to another cell while pressed (clamped to the grid). */
  onDrag?(cell: Cell): void;
  /** The press ended (released, cancelled or lost). */
  onUp?(): void;
}

export interface GridCanvasProps extends GridPointerHandlers {
  readonly grid: Grid;
  readonly cell: number;
  readonly label: string;
  readonly showSymbols?: boolean;
  readonly selection?: Rect | null;
  readonly className?: string;
  readonly testId?: string;
  readonly cursor?: string;
  /** A selection that is not a whole rectangle, outlined cell by cell. */
  readonly selectedCells?: readonly Cell[] | null;
  /** The keyboard's cell cursor to draw, or null. */
  readonly cellCursor?: Cell | null;
  /**
   * Makes the grid a keyboard stop (Tab reaches it; a press focuses it) with this description of
   * its keys: an editable grid, not a picture, so assistive technology passes the keys through.
   */
  readonly keyboard?: { readonly side: string; readonly describedBy: string; onFocus(): void; onBlur(): void };
}

/** Follows the device pixel ratio, which changes with browser zoom and between screens. */
function useDevicePixelRatio(): number {
  const [dpr, setDpr] = useState(() => window.devicePixelRatio || 1);
  useEffect(() => {
    const mq = window.matchMedia(`(resolution: ${dpr}dppx)`);
    const onChange = () => setDpr(window.devicePixelRatio || 1);
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, [dpr]);
  return dpr;
}

/**
 * One ARC grid on a canvas, crisp at any size, with pointer input (mouse, touch and pen alike).
 * The grid's values are mirrored in `data-grid` so that what is on screen can be read back.
 */
export function GridCanvas(props: GridCanvasProps) {
  const {
    grid,
    cell,
    label,
    showSymbols = false,
    selection = null,
    selectedCells = null,
    cellCursor = null,
    keyboard,
  } = props;
  const ref = useRef<HTMLCanvasElement>(null);
  const dpr = useDevicePixelRatio();
  const handlers = useRef<GridPointerHandlers>(props);
  handlers.current = props;
  const rows = grid.length;
  const cols = rows ? grid[0].length : 0;

  useLayoutEffect(() => {
    if (ref.current)
      renderGrid(ref.current, grid, { cell, dpr, showSymbols, selection, selectedCells, cursor: cellCursor });
  }, [grid, cell, dpr, showSymbols, selection, selectedCells, cellCursor]);

  useEffect(() => {
    const canvas = ref.current;
    if (!canvas) return;
    let pressed: number | null = null;
    let last: Cell | null = null;
    const dims = () => ({ rows: Number(canvas.dataset.rows), cols: Number(canvas.dataset.cols) });
    const down = (e: PointerEvent) => {
      if (e.button !== 0 || pressed !== null) return;
      const { rows: r, cols: c } = dims();
      const at = cellAt(canvas, r, c, e.clientX, e.clientY, false);
      if (!at) return;
      e.preventDefault();
      // preventDefault keeps a drag from selecting text, and also the focus a press would give.
      if (canvas.tabIndex >= 0) canvas.focus({ preventScroll: true });
      pressed = e.pointerId;
      canvas.setPointerCapture?.(e.pointerId);
      last = at;
      handlers.current.onDown?.(at, e);
    };
    const move = (e: PointerEvent) => {
      if (pressed !== e.pointerId) return;
      const { rows: r, cols: c } = dims();
      // Coalesced events keep a fast stroke gap-free at any frame rate.
      const samples = typeof e.getCoalescedEvents === 'function' ? e.getCoalescedEvents() : [];
      for (const s of samples.length ? samples : [e]) {
        const at = cellAt(canvas, r, c, s.clientX, s.clientY, true);
        if (at && (!last || at.row !== last.row || at.col !== last.col)) {
          last = at;
          handlers.current.onDrag?.(at);
        }
      }
    };
    const up = (e: PointerEvent) => {
      if (pressed !== e.pointerId) return;
      pressed = null;
      last = null;
      handlers.current.onUp?.();
    };
    // Chromium delivers pointermove once per frame; pointerrawupdate arrives as soon as the
    // pointer moves, so a stroke paints up to a frame sooner where it exists.
    const moveType = 'onpointerrawupdate' in window ? 'pointerrawupdate' : 'pointermove';
    canvas.addEventListener('pointerdown', down);
    canvas.addEventListener(moveType, move as EventListener);
    canvas.addEventListener('pointerup', up);
    canvas.addEventListener('pointercancel', up);
    canvas.addEventListener('lostpointercapture', up);
    return () => {
      canvas.removeEventListener('pointerdown', down);
      canvas.removeEventListener(moveType, move as EventListener);
      canvas.removeEventListener('pointerup', up);
      canvas.removeEventListener('pointercancel', up);
      canvas.removeEventListener('lostpointercapture', up);
    };
  }, []);

  return (
    <canvas
      ref={ref}
      role={keyboard ? 'application' : 'img'}
      aria-label={`${label}, ${rows} by ${cols}`}
      aria-describedby={keyboard?.describedBy}
      tabIndex={keyboard ? 0 : undefined}
      data-grid-side={keyboard?.side}
      onFocus={keyboard?.onFocus}
      onBlur={keyboard?.onBlur}
      data-cursor={cellCursor ? `${cellCursor.row},${cellCursor.col}` : undefined}
      data-testid={props.testId}
      data-rows={rows}
      data-cols={cols}
      data-grid={JSON.stringify(grid)}
      className={`grid-canvas block ${keyboard ? 'rounded-sm focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 focus-visible:ring-offset-2 focus-visible:ring-offset-slate-900' : ''} ${props.className ?? ''}`}
      style={{ cursor: props.cursor }}
    />
  );
}

/**
 * The largest whole number of CSS pixels per cell at which a rows x cols grid fits in the
 * element's box, between `min` and `max`. Re-measures when the element is resized.
 */
export function useFitCell(
  rows: number,
  cols: number,
  min: number,
  max: number,
): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [box, setBox] = useState<{ w: number; h: number } | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setBox({ w: el.clientWidth, h: el.clientHeight });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  if (!box || rows === 0 || cols === 0) return [ref, min];
  const fit = Math.floor(Math.min((box.w - 1) / cols, (box.h - 1) / rows));
  return [ref, Math.max(min, Math.min(max, fit))];
}
