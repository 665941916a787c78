/**
 * What a person can do in the grid player. Every change goes through `emit`: the action becomes
 * a logged event, and the pure reducer turns the event into the next state. The UI never edits
 * the state directly, so the downloaded log replays to exactly what was on screen.
 */
import {
  type Cell,
  type FlipAxis,
  type Grid,
  type Rotation,
  gridsEqual,
  inBounds,
  lineCells,
  makeGrid,
  parseSize,
  rectFrom,
  regionAt,
} from '../../core/grid/grid';
import type { ArcTask } from '../../core/formats/arcTask';
import type { LogEvent } from '../../core/log/events';
import {
  type GridEventData,
  type GridEventKind,
  type GridSide,
  type Tool,
  cellPairs,
  currentTest,
  GRID_EDIT_KINDS,
  initialPlayer,
  isDuplicateWrong,
  type PlayerState,
  reduce,
  replay,
  selectionBlock,
  selectionHas,
  taskSolved,
} from '../../core/log/gridPlayer';
import type { Judge } from './judge';
import { currentSubject, notify, usePlayer } from './store';

/** The attribute that marks a player grid that takes the keyboard, with its side as value. */
export const GRID_SIDE_ATTR = 'data-grid-side';

/** Where events go: the practice log in the browser, or a study session's outbox. */
export interface EventSink {
  append(kind: string, data: Record<string, unknown>): LogEvent;
}

export interface OpenTask {
  readonly task: ArcTask;
  readonly taskId: string;
  readonly collection: string;
}

/**
 * A press on a grid in progress: painting a stroke, dragging out a selection (joining the one
 * before with Shift), or dragging the output selection's cells to a new place.
 */
type Drag =
  | { readonly kind: 'select'; readonly side: GridSide; readonly anchor: Cell; readonly add: boolean }
  | { readonly kind: 'move'; readonly from: Cell };

export class PlayerController {
  private stroke = 0;
  private strokeLast: Cell | null = null;
  private drag: Drag | null = null;
  /** Where a Shift+arrow selection started, so further Shift+arrows stretch the same rectangle. */
  private keyAnchor: { side: GridSide; cell: Cell } | null = null;
  private readonly resumed: PlayerState | null;
  private started = false;

  /**
   * Prepares the task; nothing is logged or shown until `start()`. With `resume` (the events
   * this task already logged, e.g. before a reload), the state is rebuilt from them.
   */
  constructor(
    private readonly sink: EventSink,
    private readonly judge: Judge,
    readonly open: OpenTask,
    private readonly trials = 3,
    resume: readonly LogEvent[] = [],
  ) {
    this.resumed = resume.some((e) => e.kind === 'task.open') ? replay(resume) : null;
    // A stroke or drag cut off by the reload cannot continue.
    if (this.resumed)
      this.stroke = Math.max(0, ...resume.filter((e) => e.kind === 'paint').map((e) => Number(e.data.stroke) || 0));
  }

  /**
   * Shows the task in the player: a resumed task continues where it was; otherwise `task.open`
   * is logged and the task starts fresh. Only the first call does anything, so an effect that
   * React runs twice (StrictMode) logs the opening once.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const resumed = this.resumed;
    usePlayer.setState({
      state: resumed ? { ...resumed, stroke: null } : initialPlayer(),
      dragSelection: null,
      dragMove: null,
      notice: null,
      submitting: false,
      cursor: { input: { row: 0, col: 0 }, output: { row: 0, col: 0 } },
      // A grid keeps the focus across tasks when the next task is opened from the keyboard.
      focused: focusedSide(),
    });
    if (!resumed)
      this.emit('task.open', {
        taskId: this.open.taskId,
        collection: this.open.collection,
        tests: this.open.task.test.length,
        trials: this.trials,
      });
  }

  private get state() {
    return usePlayer.getState().state;
  }

  /** Logs one event and applies it; an edit of the grid is counted, and clears the status line (`notify`). */
  emit<K extends GridEventKind>(kind: K, data: GridEventData[K]): void {
    const e = this.sink.append(kind, data as unknown as Record<string, unknown>);
    usePlayer.setState((s) => ({ state: reduce(s.state, e), edits: s.edits + (GRID_EDIT_KINDS.has(kind) ? 1 : 0) }));
  }

  /** The grid shown for a side of the current test input. */
  grid(side: GridSide): Grid | undefined {
    return side === 'input' ? this.open.task.test[this.state.testIndex]?.input : currentTest(this.state)?.output;
  }

  private editable(): boolean {
    const t = currentTest(this.state);
    if (!t) return false;
    if (t.status !== 'open') {
      notify(
        'info',
        t.status === 'solved'
          ? 'This test input is solved; its grid can no longer change.'
          : 'No trials are left for this test input; its grid can no longer change.',
      );
      return false;
    }
    return true;
  }

  setTool(tool: Tool): void {
    if (this.state.tool !== tool) this.emit('tool', { tool });
  }

  /** Picks a colour; with output cells selected, recolours them too. */
  setColor(color: number): void {
    if (this.state.color !== color) this.emit('color', { color });
    const sel = this.state.selection;
    if (sel?.side === 'output' && currentTest(this.state)?.status === 'open') {
      this.emit(
        'recolor',
        sel.cells ? { rect: sel.rect, color, cells: cellPairs(sel.cells) } : { rect: sel.rect, color },
      );
    }
  }

  toggleSymbols(): void {
    this.emit('symbols', { show: !this.state.showSymbols });
  }

  // --- pointer input on a grid -------------------------------------------------------------

  /** A press on a cell; `add` when Shift is held (the selection tools then add to the selection). */
  pointerDown(side: GridSide, cell: Cell, add = false): void {
    this.setCursor(side, cell);
    this.keyAnchor = null;
    const tool = this.state.tool;
    const sel = this.state.selection;
    if (
      (tool === 'select' || tool === 'wand') &&
      !add &&
      side === 'output' &&
      sel?.side === 'output' &&
      selectionHas(sel, cell.row, cell.col)
    ) {
      // A press inside the output selection picks its cells up; the release puts them down.
      this.drag = { kind: 'move', from: cell };
      usePlayer.setState({ dragMove: { dr: 0, dc: 0 } });
      return;
    }
    if (tool === 'select') {
      this.drag = { kind: 'select', side, anchor: cell, add };
      usePlayer.setState({ dragSelection: { side, rect: rectFrom(cell, cell) } });
      return;
    }
    if (tool === 'wand') {
      this.wand(side, cell, add);
      return;
    }
    this.applyAt('output', cell, side);
  }

  pointerDrag(cell: Cell): void {
    const drag = this.drag;
    if (drag?.kind === 'select') {
      usePlayer.setState({ dragSelection: { side: drag.side, rect: rectFrom(drag.anchor, cell) } });
      return;
    }
    if (drag?.kind === 'move') {
      usePlayer.setState({ dragMove: { dr: cell.row - drag.from.row, dc: cell.col - drag.from.col } });
      return;
    }
    if (!this.strokeLast) return;
    for (const c of lineCells(this.strokeLast, cell).slice(1)) this.paintCell(c);
    this.strokeLast = cell;
  }

  pointerUp(): void {
    const drag = this.drag;
    this.drag = null;
    if (drag?.kind === 'select') {
      const rect = usePlayer.getState().dragSelection?.rect;
      usePlayer.setState({ dragSelection: null });
      if (rect) this.emit('select', drag.add ? { side: drag.side, rect, add: true } : { side: drag.side, rect });
      return;
    }
    if (drag?.kind === 'move') {
      const move = usePlayer.getState().dragMove;
      usePlayer.setState({ dragMove: null });
      if (move && (move.dr !== 0 || move.dc !== 0)) this.moveSelection(move.dr, move.dc);
      // A click that did not move does what a click outside would: the wand selects the cell's
      // area, the Select tool just the cell.
      else if (this.state.tool === 'wand') this.wand('output', drag.from, false);
      else this.emit('select', { side: 'output', rect: rectFrom(drag.from, drag.from) });
      return;
    }
    if (this.strokeLast) {
      this.strokeLast = null;
      if (this.state.stroke === this.stroke) this.emit('stroke.end', { stroke: this.stroke });
    }
  }

  /** Paints or fills at a cell of the output, as a click with the Edit or Fill tool does. */
  private applyAt(target: 'output', cell: Cell, side: GridSide): void {
    if (side !== target) {
      notify('info', 'The test input cannot be changed. Use the Select tool (S) or the Wand (W) to copy from it.');
      return;
    }
    if (!this.editable()) return;
    const out = this.grid('output')!;
    if (!inBounds(out, cell.row, cell.col)) return;
    if (this.state.tool === 'fill') {
      if (out[cell.row][cell.col] !== this.state.color)
        this.emit('fill', { row: cell.row, col: cell.col, color: this.state.color });
      return;
    }
    this.stroke++;
    this.strokeLast = cell;
    this.paintCell(cell);
  }

  /** Selects the 4-connected same-colour region under a cell (joining the selection with `add`). */
  private wand(side: GridSide, cell: Cell, add: boolean): void {
    const grid = this.grid(side);
    if (!grid) return;
    const cells = regionAt(grid, cell.row, cell.col);
    if (cells.length === 0) return;
    this.emit('select.wand', { side, row: cell.row, col: cell.col, ...(add ? { add } : {}), cells: cellPairs(cells) });
  }

  // --- the keyboard's cell cursor ----------------------------------------------------------

  private setCursor(side: GridSide, cell: Cell): void {
    usePlayer.setState((s) => ({ cursor: { ...s.cursor, [side]: cell } }));
  }

  /** The cursor of a side, kept inside its grid (the grid may have shrunk since). */
  cursorOf(side: GridSide): Cell {
    const c = usePlayer.getState().cursor[side];
    const g = this.grid(side);
    if (!g) return c;
    return { row: Math.min(c.row, g.length - 1), col: Math.min(c.col, g[0].length - 1) };
  }

  /**
   * Moves a grid's cursor by one cell, stopping at the edges. With `extend` (Shift+arrow) the
   * rectangle from where the extension started to the cursor becomes the selection.
   */
  moveCursor(side: GridSide, dr: number, dc: number, extend: boolean): void {
    const g = this.grid(side);
    if (!g) return;
    const from = this.cursorOf(side);
    const to = {
      row: Math.max(0, Math.min(g.length - 1, from.row + dr)),
      col: Math.max(0, Math.min(g[0].length - 1, from.col + dc)),
    };
    this.setCursor(side, to);
    if (!extend) {
      this.keyAnchor = null;
      return;
    }
    const sel = this.state.selection;
    if (this.keyAnchor?.side !== side || sel?.side !== side) this.keyAnchor = { side, cell: from };
    this.emit('select', { side, rect: rectFrom(this.keyAnchor.cell, to) });
  }

  /**
   * Space: what a click with the current tool does, at the cursor. Edit paints the cell, Fill
   * fills its area, Select selects the cell and the Wand its region (with `add`, joining the
   * selection).
   */
  actAtCursor(side: GridSide, add: boolean): void {
    const cell = this.cursorOf(side);
    const tool = this.state.tool;
    this.keyAnchor = null;
    if (tool === 'select')
      this.emit('select', add ? { side, rect: rectFrom(cell, cell), add } : { side, rect: rectFrom(cell, cell) });
    else if (tool === 'wand') this.wand(side, cell, add);
    else {
      this.applyAt('output', cell, side);
      if (this.strokeLast) this.pointerUp();
    }
  }

  // --- moving and turning ------------------------------------------------------------------

  /** Moves the output selection's cells; the cursor moves with them. */
  moveSelection(dr: number, dc: number): void {
    if (this.state.selection?.side !== 'output' || !this.editable()) return;
    this.emit('move', { dr, dc });
    const c = this.cursorOf('output');
    const g = this.grid('output')!;
    this.setCursor('output', {
      row: Math.max(0, Math.min(g.length - 1, c.row + dr)),
      col: Math.max(0, Math.min(g[0].length - 1, c.col + dc)),
    });
  }

  /** Turns the output selection a quarter, or the whole output when nothing of it is selected. */
  rotate(dir: Rotation): void {
    if (this.editable()) this.emit('rotate', { dir });
  }

  /** Mirrors the output selection, or the whole output when nothing of it is selected. */
  flip(axis: FlipAxis): void {
    if (this.editable()) this.emit('flip', { axis });
  }

  /** Cuts the output down to the selection's bounding box. */
  crop(): void {
    const sel = this.state.selection;
    if (sel?.side !== 'output') {
      notify('info', 'Select the part of your output to keep first (Select S or Wand W), then crop (K).');
      return;
    }
    if (!this.editable()) return;
    this.emit('crop', { rect: sel.rect });
  }

  private paintCell(cell: Cell): void {
    const out = this.grid('output');
    if (!out || !inBounds(out, cell.row, cell.col) || out[cell.row][cell.col] === this.state.color) return;
    this.emit('paint', { row: cell.row, col: cell.col, color: this.state.color, stroke: this.stroke });
  }

  clearSelection(): void {
    if (this.state.selection) this.emit('select.clear', {});
  }

  // --- clipboard ---------------------------------------------------------------------------

  copy(): void {
    const sel = this.state.selection;
    if (!sel) {
      notify(
        'info',
        'Nothing is selected. Drag over the input or the output with the Select tool (S), or Shift+arrows, then copy.',
      );
      return;
    }
    const block = selectionBlock(this.grid(sel.side)!, sel.rect);
    if (!block) return;
    this.emit(
      'copy',
      sel.cells
        ? { side: sel.side, rect: sel.rect, block, cells: cellPairs(sel.cells) }
        : { side: sel.side, rect: sel.rect, block },
    );
    const what = sel.cells
      ? `${sel.cells.length} selected cells (a ${block.length}x${block[0].length} block)`
      : `${block.length}x${block[0].length} cells`;
    notify('info', `Copied ${what}. Select an output cell and paste (V) to place its top-left corner there.`);
  }

  paste(): void {
    const clip = this.state.clipboard;
    if (!clip) {
      notify('info', 'The clipboard is empty. Select cells and copy them (C) first.');
      return;
    }
    const sel = this.state.selection;
    // The top-left corner goes to the output selection, or else to the keyboard's cursor.
    const at =
      sel?.side === 'output'
        ? { row: sel.rect.r0, col: sel.rect.c0 }
        : usePlayer.getState().focused === 'output'
          ? this.cursorOf('output')
          : null;
    if (!at) {
      notify(
        'info',
        'Select the output cell where the top-left corner of the copied block should go (or put the cursor there), then paste.',
      );
      return;
    }
    if (!this.editable()) return;
    const only = this.state.clipboardCells;
    // The pasted block stays selected (as in O2ARC), so Flip, Rotate and a drag act on it.
    this.emit(
      'paste',
      only
        ? { row: at.row, col: at.col, block: clip, cells: cellPairs(only), select: true }
        : { row: at.row, col: at.col, block: clip, select: true },
    );
  }

  // --- whole-grid edits --------------------------------------------------------------------

  /** Resizes from typed text `HxW`; returns an error message, or null when done. */
  resize(text: string): string | null {
    const size = parseSize(text);
    if (!size.ok) {
      this.emit('resize.invalid', { text });
      return size.message;
    }
    if (!this.editable()) return null;
    const out = this.grid('output')!;
    if (out.length !== size.rows || out[0].length !== size.cols)
      this.emit('resize', { rows: size.rows, cols: size.cols });
    return null;
  }

  copyFromInput(): void {
    const input = this.grid('input');
    if (input && this.editable() && !gridsEqual(input, this.grid('output')!)) this.emit('copy.input', { grid: input });
  }

  resetGrid(): void {
    if (this.editable() && !gridsEqual(this.grid('output')!, makeGrid(3, 3))) this.emit('reset', {});
  }

  undo(): void {
    const t = currentTest(this.state);
    if (t?.status === 'open' && t.undo.length > 0) this.emit('undo', {});
  }

  redo(): void {
    const t = currentTest(this.state);
    if (t?.status === 'open' && t.redo.length > 0) this.emit('redo', {});
  }

  selectTest(index: number): void {
    if (index !== this.state.testIndex && index >= 0 && index < this.state.tests.length)
      this.emit('test.select', { index });
  }

  // --- submission --------------------------------------------------------------------------

  async submit(): Promise<void> {
    if (usePlayer.getState().submitting) return;
    const s = this.state;
    const t = currentTest(s);
    if (!t) return;
    if (t.status !== 'open') {
      notify(
        'info',
        t.status === 'solved' ? 'This test input is already solved.' : 'No trials are left for this test input.',
      );
      return;
    }
    const index = s.testIndex;
    const grid = t.output;
    const n = s.tests.length;
    const label = n > 1 ? `test input ${index + 1}` : 'this test input';
    if (isDuplicateWrong(s, grid)) {
      this.emit('submit', { index, trial: t.trials, verdict: 'duplicate', grid });
      notify(
        'error',
        `You already submitted exactly this grid and it was wrong. No trial was used; change the grid first.`,
      );
      return;
    }
    // The verdict speaks of the grid as it is submitted (see below).
    const submitted = currentSubject();
    usePlayer.setState({ submitting: true });
    try {
      const { verdict } = await this.judge.submit(index, grid);
      const trial = verdict === 'duplicate' ? t.trials : t.trials + 1;
      this.emit('submit', { index, trial, verdict, grid });
      const after = this.state;
      // The verdict speaks of the grid submitted; once the player moved on to the next test input
      // (this one solved or out of trials), of the screen it moved on to.
      const about = after.testIndex === index ? submitted : undefined;
      if (verdict === 'correct') {
        notify(
          'success',
          taskSolved(after) ? 'Correct! The task is solved.' : `Correct! ${cap(label)} is solved.`,
          about,
        );
      } else if (verdict === 'duplicate') {
        notify('error', 'You already submitted exactly this grid. No trial was used.', about);
      } else {
        const left = after.maxTrials - trial;
        notify(
          'error',
          left > 0
            ? `Not correct. ${left} ${left === 1 ? 'trial' : 'trials'} left for ${label}.`
            : `Not correct, and that was the last trial for ${label}.`,
          about,
        );
      }
    } catch (e) {
      notify('error', (e as Error).message);
    } finally {
      usePlayer.setState({ submitting: false });
    }
  }
}

function focusedSide(): GridSide | null {
  if (typeof document === 'undefined') return null;
  const side = document.activeElement?.getAttribute(GRID_SIDE_ATTR);
  return side === 'input' || side === 'output' ? side : null;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
