/**
 * What a person can do in the grid player. Every change goes through `emit`: the action becomes
 * a logged event, and the pure reducer turns the event into the next state. The UI never edits
 * the state directly, so the downloaded log replays to exactly what was on screen.
 */
import {
  type Cell, type Grid, gridsEqual, inBounds, lineCells, makeGrid, parseSize, rectFrom,
} from '../../core/grid/grid';
import type { ArcTask } from '../../core/formats/arcTask';
import type { LogEvent } from '../../core/log/events';
import {
  type GridEventData, type GridEventKind, type GridSide, type Tool, currentTest, initialPlayer,
  isDuplicateWrong, type PlayerState, reduce, replay, selectionBlock, taskSolved,
} from '../../core/log/gridPlayer';
import type { Judge } from './judge';
import { notify, usePlayer } from './store';

/** Where events go: the practice log in the browser, or a study session's outbox. */
export interface EventSink {
  append(kind: string, data: Record<string, unknown>): LogEvent;
}

export interface OpenTask {
  readonly task: ArcTask;
  readonly taskId: string;
  readonly collection: string;
}

/** Events after which an information hint ("Copied 3x3 cells…") no longer describes the screen. */
const RETIRES_HINT: ReadonlySet<GridEventKind> = new Set<GridEventKind>(['paint', 'fill', 'paste', 'resize', 'copy.input', 'reset', 'undo', 'redo', 'recolor', 'test.select']);

export class PlayerController {
  private stroke = 0;
  private strokeLast: Cell | null = null;
  private selectAnchor: { side: GridSide; cell: Cell } | null = null;
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
    if (this.resumed) this.stroke = Math.max(0, ...resume.filter((e) => e.kind === 'paint').map((e) => Number(e.data.stroke) || 0));
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
    usePlayer.setState({ state: resumed ? { ...resumed, stroke: null } : initialPlayer(), dragSelection: null, notice: null, submitting: false });
    if (!resumed) this.emit('task.open', { taskId: this.open.taskId, collection: this.open.collection, tests: this.open.task.test.length, trials: this.trials });
  }

  private get state() {
    return usePlayer.getState().state;
  }

  /** Logs one event and applies it; a change of the grid retires a hint about an earlier step. */
  emit<K extends GridEventKind>(kind: K, data: GridEventData[K]): void {
    const e = this.sink.append(kind, data as unknown as Record<string, unknown>);
    usePlayer.setState((s) => ({
      state: reduce(s.state, e),
      ...(RETIRES_HINT.has(kind) && s.notice?.tone === 'info' ? { notice: null } : {}),
    }));
  }

  /** The grid shown for a side of the current test input. */
  grid(side: GridSide): Grid | undefined {
    return side === 'input' ? this.open.task.test[this.state.testIndex]?.input : currentTest(this.state)?.output;
  }

  private editable(): boolean {
    const t = currentTest(this.state);
    if (!t) return false;
    if (t.status !== 'open') {
      notify('info', t.status === 'solved' ? 'This test input is solved; its grid can no longer change.' : 'No trials are left for this test input; its grid can no longer change.');
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
    if (sel?.side === 'output' && currentTest(this.state)?.status === 'open') this.emit('recolor', { rect: sel.rect, color });
  }

  toggleSymbols(): void {
    this.emit('symbols', { show: !this.state.showSymbols });
  }

  // --- pointer input on a grid -------------------------------------------------------------

  pointerDown(side: GridSide, cell: Cell): void {
    const tool = this.state.tool;
    if (tool === 'select') {
      this.selectAnchor = { side, cell };
      usePlayer.setState({ dragSelection: { side, rect: rectFrom(cell, cell) } });
      return;
    }
    if (side !== 'output') {
      notify('info', 'The test input cannot be changed. Use the Select tool (S) to copy from it.');
      return;
    }
    if (!this.editable()) return;
    if (tool === 'fill') {
      const out = this.grid('output')!;
      if (out[cell.row][cell.col] !== this.state.color) this.emit('fill', { row: cell.row, col: cell.col, color: this.state.color });
      return;
    }
    this.stroke++;
    this.strokeLast = cell;
    this.paintCell(cell);
  }

  pointerDrag(cell: Cell): void {
    if (this.selectAnchor) {
      usePlayer.setState({ dragSelection: { side: this.selectAnchor.side, rect: rectFrom(this.selectAnchor.cell, cell) } });
      return;
    }
    if (!this.strokeLast) return;
    for (const c of lineCells(this.strokeLast, cell).slice(1)) this.paintCell(c);
    this.strokeLast = cell;
  }

  pointerUp(): void {
    if (this.selectAnchor) {
      const drag = usePlayer.getState().dragSelection;
      this.selectAnchor = null;
      usePlayer.setState({ dragSelection: null });
      if (drag) this.emit('select', { side: drag.side, rect: drag.rect });
      return;
    }
    if (this.strokeLast) {
      this.strokeLast = null;
      if (this.state.stroke === this.stroke) this.emit('stroke.end', { stroke: this.stroke });
    }
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
      notify('info', 'Nothing is selected. Drag over the input or the output with the Select tool (S), then copy.');
      return;
    }
    const block = selectionBlock(this.grid(sel.side)!, sel.rect);
    if (!block) return;
    this.emit('copy', { side: sel.side, rect: sel.rect, block });
    notify('info', `Copied ${block.length}x${block[0].length} cells. Select an output cell and paste (V) to place its top-left corner there.`);
  }

  paste(): void {
    const clip = this.state.clipboard;
    if (!clip) {
      notify('info', 'The clipboard is empty. Select cells and copy them (C) first.');
      return;
    }
    const sel = this.state.selection;
    if (sel?.side !== 'output') {
      notify('info', 'Select the output cell where the top-left corner of the copied block should go, then paste.');
      return;
    }
    if (!this.editable()) return;
    this.emit('paste', { row: sel.rect.r0, col: sel.rect.c0, block: clip });
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
    if (out.length !== size.rows || out[0].length !== size.cols) this.emit('resize', { rows: size.rows, cols: size.cols });
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
    if (index !== this.state.testIndex && index >= 0 && index < this.state.tests.length) this.emit('test.select', { index });
  }

  // --- submission --------------------------------------------------------------------------

  async submit(): Promise<void> {
    if (usePlayer.getState().submitting) return;
    const s = this.state;
    const t = currentTest(s);
    if (!t) return;
    if (t.status !== 'open') {
      notify('info', t.status === 'solved' ? 'This test input is already solved.' : 'No trials are left for this test input.');
      return;
    }
    const index = s.testIndex;
    const grid = t.output;
    const n = s.tests.length;
    const label = n > 1 ? `test input ${index + 1}` : 'this test input';
    if (isDuplicateWrong(s, grid)) {
      this.emit('submit', { index, trial: t.trials, verdict: 'duplicate', grid });
      notify('error', `You already submitted exactly this grid and it was wrong. No trial was used; change the grid first.`);
      return;
    }
    usePlayer.setState({ submitting: true });
    try {
      const { verdict } = await this.judge.submit(index, grid);
      const trial = verdict === 'duplicate' ? t.trials : t.trials + 1;
      this.emit('submit', { index, trial, verdict, grid });
      const after = this.state;
      if (verdict === 'correct') {
        notify('success', taskSolved(after) ? 'Correct! The task is solved.' : `Correct! ${cap(label)} is solved.`);
      } else if (verdict === 'duplicate') {
        notify('error', 'You already submitted exactly this grid. No trial was used.');
      } else {
        const left = after.maxTrials - trial;
        notify('error', left > 0
          ? `Not correct. ${left} ${left === 1 ? 'trial' : 'trials'} left for ${label}.`
          : `Not correct, and that was the last trial for ${label}.`);
      }
    } catch (e) {
      notify('error', (e as Error).message);
    } finally {
      usePlayer.setState({ submitting: false });
    }
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

