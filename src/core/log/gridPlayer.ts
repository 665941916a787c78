/**
 * The grid-task player as an event-sourced state machine.
 *
 * The browser never changes the player's state directly: every user action becomes an event,
 * and `reduce` turns (state, event) into the next state. Replaying a downloaded log through the
 * same `reduce` therefore rebuilds exactly what was on screen, every intermediate grid included.
 * Events carry all the grid data they need (a pasted block, the copied input), so a log replays
 * without the task file.
 */
import {
  type Cell,
  type FlipAxis,
  type Grid,
  type Rect,
  type Rotation,
  MAX_SIZE,
  MIN_SIZE,
  boundsOf,
  crop,
  fillRect,
  flipGrid,
  floodFill,
  gridsEqual,
  inBounds,
  makeGrid,
  moveCells,
  paste,
  rectCells,
  rectContains,
  resize,
  rotateGrid,
  setCell,
  setCells,
  transformCell,
} from '../grid/grid';
import type { LogEvent } from './events';
import { EVENT_DATA } from '../protocol/events';

export type Tool = 'edit' | 'select' | 'fill' | 'wand';
export type GridSide = 'input' | 'output';
export type Verdict = 'correct' | 'wrong' | 'duplicate';
export type TestStatus = 'open' | 'solved' | 'failed';

export const DEFAULT_TRIALS = 3;
export const START_SIZE = 3;

export interface TestState {
  readonly output: Grid;
  readonly undo: readonly Grid[];
  readonly redo: readonly Grid[];
  /** Trials used so far (a refused duplicate uses none). */
  readonly trials: number;
  /** Wrong grids already submitted, to refuse an identical resubmission. */
  readonly wrong: readonly Grid[];
  readonly status: TestStatus;
}

/**
 * Selected cells of one side's grid. A rectangle drag selects `rect` whole; the magic wand and
 * Shift (add to the selection) can select any set of cells, listed in `cells` (reading order),
 * with `rect` their bounding box. `cells` is absent whenever the set fills its rectangle, so a
 * rectangle is always stored one way.
 */
export interface Selection {
  readonly side: GridSide;
  readonly rect: Rect;
  readonly cells?: readonly Cell[];
}

/** A cell as logged in an event: `[row, col]`. */
export type CellPair = readonly [number, number];

export interface PlayerState {
  readonly taskId: string | null;
  readonly testIndex: number;
  readonly tests: readonly TestState[];
  readonly maxTrials: number;
  readonly tool: Tool;
  readonly color: number;
  readonly selection: Selection | null;
  readonly clipboard: Grid | null;
  /**
   * The cells of `clipboard` that were selected, relative to its top-left corner, when the copied
   * selection was not a whole rectangle: a paste puts down only these. Null for a rectangle.
   */
  readonly clipboardCells: readonly Cell[] | null;
  /** The paint stroke that has opened an undo step: later paints of it extend that step. */
  readonly stroke: number | null;
  readonly showSymbols: boolean;
  /** The last submission's outcome, for the status line. */
  readonly lastVerdict: { index: number; verdict: Verdict; trial: number } | null;
}

/** The payloads of the grid player's events, by kind. */
export interface GridEventData {
  'task.open': { taskId: string; collection?: string; tests: number; trials?: number };
  tool: { tool: Tool };
  color: { color: number };
  symbols: { show: boolean };
  paint: { row: number; col: number; color: number; stroke: number };
  'stroke.end': { stroke: number };
  fill: { row: number; col: number; color: number };
  /** With `add` (Shift), the rectangle joins the selection of the same side. */
  select: { side: GridSide; rect: Rect; add?: boolean };
  /**
   * The magic wand at (row, col): the 4-connected region of that cell's colour, listed in `cells`
   * so that the log replays without the task file (the input grid is not in the log).
   */
  'select.wand': { side: GridSide; row: number; col: number; add?: boolean; cells: CellPair[] };
  'select.clear': Record<string, never>;
  /** `cells` when the selection is not a whole rectangle: only those cells change. */
  recolor: { rect: Rect; color: number; cells?: CellPair[] };
  /** A quarter turn of the output selection's content, or of the whole output with none. */
  rotate: { dir: Rotation };
  /** A mirror of the output selection's content, or of the whole output with none. */
  flip: { axis: FlipAxis };
  /** Moves the output selection's content by `dr` rows and `dc` columns. */
  move: { dr: number; dc: number };
  /** Cuts the output down to `rect` (the selection's bounding box). */
  crop: { rect: Rect };
  /** `cells`: the selected cells (of the side's grid) when the selection is not a whole rectangle. */
  copy: { side: GridSide; rect: Rect; block: Grid; cells?: CellPair[] };
  /** `cells`: which cells of `block` to put down (relative to its top-left), for such a copy. */
  /**
   * `select`: the pasted cells (those inside the output) become the output selection, so the
   * next flip, turn or drag works on the block. Logs from before it was sent left the selection
   * as it was, and replay so.
   */
  paste: { row: number; col: number; block: Grid; cells?: CellPair[]; select?: boolean };
  resize: { rows: number; cols: number };
  /** A typed size that was refused (kept: mistyped sizes are part of how a person worked). */
  'resize.invalid': { text: string };
  'copy.input': { grid: Grid };
  reset: Record<string, never>;
  undo: Record<string, never>;
  redo: Record<string, never>;
  'test.select': { index: number };
  submit: { index: number; trial: number; verdict: Verdict; grid: Grid };
}

export type GridEventKind = keyof GridEventData;

/**
 * What an event kind of the grid player is to the rest of the studio. `edit`: it edits the output
 * grid, whether or not a cell changes: one action of the task (`GRID_ACTION_KINDS`), one edit in
 * the player's count. `tool`: the grid tool the results count it under (`GridTool`).
 */
interface GridEventRole {
  readonly edit?: true;
  readonly tool?: string;
}

/**
 * Every event kind the grid player logs and replays, once, with its role: the lists of kinds
 * elsewhere (`GRID_EVENT_KINDS`, `GRID_ACTION_KINDS`, the player's edit count, the results'
 * tools) are derived from it. A kind missing here, or here and not in `GridEventData`, does not
 * compile.
 */
export const GRID_EVENTS = {
  'task.open': {},
  tool: {},
  color: {},
  symbols: {},
  paint: { edit: true, tool: 'edit' },
  'stroke.end': {},
  fill: { edit: true, tool: 'fill' },
  select: { tool: 'select' },
  'select.wand': { tool: 'wand' },
  'select.clear': {},
  recolor: { edit: true, tool: 'recolor' },
  rotate: { edit: true, tool: 'rotate' },
  flip: { edit: true, tool: 'flip' },
  move: { edit: true, tool: 'move' },
  crop: { edit: true, tool: 'crop' },
  copy: { tool: 'copy' },
  paste: { edit: true, tool: 'paste' },
  resize: { edit: true, tool: 'resize' },
  'resize.invalid': {},
  'copy.input': { edit: true, tool: 'copy.input' },
  reset: { edit: true, tool: 'reset' },
  undo: { edit: true, tool: 'undo' },
  redo: { edit: true, tool: 'redo' },
  'test.select': {},
  submit: {},
} as const satisfies Record<GridEventKind, GridEventRole>;

type ToolOf<R> = R extends { readonly tool: infer T } ? T : never;
/** A grid tool as the results count its uses; `edit` is painting cells. */
export type GridTool = ToolOf<(typeof GRID_EVENTS)[GridEventKind]>;

const gridEventEntries = Object.entries(GRID_EVENTS) as [GridEventKind, GridEventRole][];

/** Every event kind the grid player logs and replays. */
export const GRID_EVENT_KINDS: ReadonlySet<string> = new Set<GridEventKind>(gridEventEntries.map(([kind]) => kind));

/** The kinds that edit the output grid (`edit` in `GRID_EVENTS`): each is one action of a task. */
export const GRID_EDIT_KINDS: ReadonlySet<string> = new Set<GridEventKind>(
  gridEventEntries.filter(([, role]) => role.edit).map(([kind]) => kind),
);

/** Event kind -> the grid tool the results count it under. */
export const GRID_TOOL_OF_KIND: Readonly<Partial<Record<GridEventKind, GridTool>>> = Object.fromEntries(
  gridEventEntries.flatMap(([kind, role]) => (role.tool ? [[kind, role.tool]] : [])),
);

/** Every grid tool, in the order of `GRID_EVENTS`. */
export const GRID_TOOLS: readonly GridTool[] = [...new Set(Object.values(GRID_TOOL_OF_KIND))];

export function initialTest(): TestState {
  return { output: makeGrid(START_SIZE, START_SIZE), undo: [], redo: [], trials: 0, wrong: [], status: 'open' };
}

export function initialPlayer(): PlayerState {
  return {
    taskId: null,
    testIndex: 0,
    tests: [],
    maxTrials: DEFAULT_TRIALS,
    tool: 'edit',
    color: 1,
    selection: null,
    clipboard: null,
    clipboardCells: null,
    stroke: null,
    showSymbols: false,
    lastVerdict: null,
  };
}

/** The test input being worked on, or undefined before a task is open. */
export function currentTest(s: PlayerState): TestState | undefined {
  return s.tests[s.testIndex];
}

/** True when every test input of the open task is solved. */
export function taskSolved(s: PlayerState): boolean {
  return s.tests.length > 0 && s.tests.every((t) => t.status === 'solved');
}

/** True when no test input is still open. */
export function taskFinished(s: PlayerState): boolean {
  return s.tests.length > 0 && s.tests.every((t) => t.status !== 'open');
}

/** Whether `grid` repeats a wrong answer already given for the current test input. */
export function isDuplicateWrong(s: PlayerState, grid: Grid): boolean {
  const t = currentTest(s);
  return !!t && t.wrong.some((g) => gridsEqual(g, grid));
}

/** The cells of a selection: its own set, or every cell of its rectangle. */
export function selectionCells(sel: Selection): readonly Cell[] {
  return sel.cells ?? rectCells(sel.rect);
}

/** Whether a cell is selected. */
export function selectionHas(sel: Selection, row: number, col: number): boolean {
  if (!rectContains(sel.rect, row, col)) return false;
  return !sel.cells || sel.cells.some((c) => c.row === row && c.col === col);
}

/**
 * The selection holding exactly `cells` (duplicates dropped), in its one stored form: a bare
 * rectangle when the cells fill their bounding box. Null for no cells.
 */
export function makeSelection(side: GridSide, cells: readonly Cell[]): Selection | null {
  const rect = boundsOf(cells);
  if (!rect) return null;
  const w = rect.c1 - rect.c0 + 1;
  const keys = new Set(cells.map((c) => (c.row - rect.r0) * w + (c.col - rect.c0)));
  if (keys.size === (rect.r1 - rect.r0 + 1) * w) return { side, rect };
  const sorted = [...keys]
    .sort((a, b) => a - b)
    .map((k) => ({ row: rect.r0 + Math.floor(k / w), col: rect.c0 + (k % w) }));
  return { side, rect, cells: sorted };
}

/** A selection's cells as logged in an event, `[row, col]` pairs. */
export function cellPairs(cells: readonly Cell[]): CellPair[] {
  return cells.map((c) => [c.row, c.col] as const);
}

function fromPairs(pairs: readonly CellPair[]): Cell[] {
  return pairs.map(([row, col]) => ({ row, col }));
}

/** `cells` on `side`, joined to the current selection when `add` and it is on the same side. */
function selectCells(s: PlayerState, side: GridSide, cells: readonly Cell[], add: boolean | undefined): PlayerState {
  const prev = add && s.selection?.side === side ? selectionCells(s.selection) : [];
  return { ...s, selection: makeSelection(side, [...prev, ...cells]) ?? s.selection };
}

/**
 * Moves the output selection's cells where `to` sends them, as one undoable step; the selection
 * follows its cells. Cells left behind become 0; cells sent past an edge are dropped.
 */
function moveSelection(s: PlayerState, to: (sel: Selection) => (c: Cell) => Cell): PlayerState {
  const t = currentTest(s);
  const sel = s.selection;
  if (!t || t.status !== 'open' || sel?.side !== 'output') return s;
  const moved = moveCells(t.output, selectionCells(sel), to(sel));
  return { ...edit(s, () => moved.grid), selection: makeSelection('output', moved.cells) };
}

/** Rotates or flips the output selection's content in place, or the whole output without one. */
function transform(s: PlayerState, how: { rotate: Rotation } | { flip: FlipAxis }): PlayerState {
  if (s.selection?.side === 'output') return moveSelection(s, (sel) => (c) => transformCell(sel.rect, c, how));
  return edit(s, (g) => ('rotate' in how ? rotateGrid(g, how.rotate) : flipGrid(g, how.flip)));
}

function withTest(s: PlayerState, f: (t: TestState) => TestState): PlayerState {
  const t = currentTest(s);
  if (!t) return s;
  const next = f(t);
  if (next === t) return s;
  const tests = s.tests.slice();
  tests[s.testIndex] = next;
  return { ...s, tests };
}

/**
 * Replaces the output grid as one undoable step; a no-op change records nothing. Any edit ends
 * the current paint stroke, so a later paint of the same stroke opens a step of its own.
 */
function edit(s: PlayerState, f: (g: Grid) => Grid): PlayerState {
  const next = withTest(s, (t) => {
    if (t.status !== 'open') return t;
    const output = f(t.output);
    if (output === t.output || gridsEqual(output, t.output)) return t;
    return { ...t, output, undo: [...t.undo, t.output], redo: [] };
  });
  return next === s ? s : { ...next, stroke: null };
}

/** A symbol 0-9: events with any other colour are impossible and change nothing. */
function isSymbol(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 9;
}

function isSize(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= MIN_SIZE && v <= MAX_SIZE;
}

/**
 * The next state after one event. Unknown kinds (focus, blur, visibility, ...) leave the state
 * unchanged, so the same log can hold events the player does not interpret; so do impossible
 * events (a colour outside 0-9, a size outside 1-30), so a damaged log replays without throwing.
 */
export function reduce(s: PlayerState, e: LogEvent): PlayerState {
  // A payload its kind's schema refuses (a log stored before the server checked, or edited by
  // hand) changes nothing, rather than throwing part-way through a replay or an export.
  const schema = GRID_EVENT_KINDS.has(e.kind) ? EVENT_DATA[e.kind as GridEventKind] : undefined;
  if (schema && !schema.safeParse(e.data).success) return s;
  const d = e.data as never;
  switch (e.kind as GridEventKind) {
    case 'task.open': {
      const x = d as GridEventData['task.open'];
      return {
        ...initialPlayer(),
        tool: s.tool,
        color: s.color,
        showSymbols: s.showSymbols,
        clipboard: s.clipboard,
        clipboardCells: s.clipboardCells,
        taskId: x.taskId,
        maxTrials: x.trials ?? DEFAULT_TRIALS,
        tests: Array.from({ length: x.tests }, initialTest),
      };
    }
    case 'tool':
      return { ...s, tool: (d as GridEventData['tool']).tool, stroke: null };
    case 'color': {
      const color = (d as GridEventData['color']).color;
      return isSymbol(color) ? { ...s, color } : s;
    }
    case 'symbols':
      return { ...s, showSymbols: (d as GridEventData['symbols']).show };
    case 'paint': {
      const x = d as GridEventData['paint'];
      const t = currentTest(s);
      if (!t || t.status !== 'open' || !isSymbol(x.color)) return s;
      const output = setCell(t.output, x.row, x.col, x.color);
      if (output === t.output) return s;
      // The first changed cell of a stroke opens an undo step; later cells extend it.
      const undo = s.stroke === x.stroke ? t.undo : [...t.undo, t.output];
      return { ...withTest(s, () => ({ ...t, output, undo, redo: [] })), stroke: x.stroke };
    }
    case 'stroke.end':
      return { ...s, stroke: null };
    case 'fill': {
      const x = d as GridEventData['fill'];
      return isSymbol(x.color) ? edit(s, (g) => floodFill(g, x.row, x.col, x.color).grid) : s;
    }
    case 'select': {
      const x = d as GridEventData['select'];
      // A plain rectangle is kept exactly as logged (old logs replay as they always did).
      if (!x.add) return { ...s, selection: { side: x.side, rect: x.rect } };
      return selectCells(s, x.side, rectCells(x.rect), true);
    }
    case 'select.wand': {
      const x = d as GridEventData['select.wand'];
      return selectCells(s, x.side, fromPairs(x.cells), x.add);
    }
    case 'select.clear':
      return { ...s, selection: null };
    case 'recolor': {
      const x = d as GridEventData['recolor'];
      if (!isSymbol(x.color)) return s;
      return edit(s, (g) => (x.cells ? setCells(g, fromPairs(x.cells), x.color) : fillRect(g, x.rect, x.color)));
    }
    case 'rotate':
      return transform(s, { rotate: (d as GridEventData['rotate']).dir });
    case 'flip':
      return transform(s, { flip: (d as GridEventData['flip']).axis });
    case 'move': {
      const { dr, dc } = d as GridEventData['move'];
      return moveSelection(s, () => (c) => ({ row: c.row + dr, col: c.col + dc }));
    }
    case 'crop': {
      const rect = (d as GridEventData['crop']).rect;
      return { ...edit(s, (g) => crop(g, rect) ?? g), selection: null };
    }
    case 'copy': {
      const x = d as GridEventData['copy'];
      const clipboardCells = x.cells
        ? fromPairs(x.cells).map((c) => ({ row: c.row - x.rect.r0, col: c.col - x.rect.c0 }))
        : null;
      return { ...s, clipboard: x.block, clipboardCells };
    }
    case 'paste': {
      const x = d as GridEventData['paste'];
      const only = x.cells ? fromPairs(x.cells) : undefined;
      const next = edit(s, (g) => paste(g, x.block, x.row, x.col, only));
      const output = currentTest(next)?.output;
      if (!x.select || !output) return next;
      const block = only ?? rectCells({ r0: 0, c0: 0, r1: x.block.length - 1, c1: (x.block[0]?.length ?? 0) - 1 });
      const placed = block
        .map((c) => ({ row: c.row + x.row, col: c.col + x.col }))
        .filter((c) => inBounds(output, c.row, c.col));
      return { ...next, selection: makeSelection('output', placed) ?? next.selection };
    }
    case 'resize': {
      const x = d as GridEventData['resize'];
      if (!isSize(x.rows) || !isSize(x.cols)) return s;
      return { ...edit(s, (g) => resize(g, x.rows, x.cols)), selection: null };
    }
    case 'copy.input':
      return { ...edit(s, () => (d as GridEventData['copy.input']).grid), selection: null };
    case 'reset':
      return { ...edit(s, () => makeGrid(START_SIZE, START_SIZE)), selection: null };
    case 'undo':
      return withTest({ ...s, stroke: null, selection: null }, (t) => {
        if (t.status !== 'open' || t.undo.length === 0) return t;
        return { ...t, output: t.undo[t.undo.length - 1], undo: t.undo.slice(0, -1), redo: [...t.redo, t.output] };
      });
    case 'redo':
      return withTest({ ...s, stroke: null, selection: null }, (t) => {
        if (t.status !== 'open' || t.redo.length === 0) return t;
        return { ...t, output: t.redo[t.redo.length - 1], redo: t.redo.slice(0, -1), undo: [...t.undo, t.output] };
      });
    case 'test.select': {
      const index = (d as GridEventData['test.select']).index;
      if (index < 0 || index >= s.tests.length) return s;
      return { ...s, testIndex: index, selection: null, stroke: null };
    }
    case 'submit':
      return applySubmit(s, d as GridEventData['submit']);
    default:
      return s;
  }
}

function applySubmit(s: PlayerState, x: GridEventData['submit']): PlayerState {
  const t = s.tests[x.index];
  if (!t || t.status !== 'open') return s;
  const lastVerdict = { index: x.index, verdict: x.verdict, trial: x.trial };
  if (x.verdict === 'duplicate') return { ...s, lastVerdict };
  const trials = t.trials + 1;
  const status: TestStatus = x.verdict === 'correct' ? 'solved' : trials >= s.maxTrials ? 'failed' : 'open';
  const tests = s.tests.slice();
  tests[x.index] = { ...t, trials, status, wrong: x.verdict === 'wrong' ? [...t.wrong, x.grid] : t.wrong };
  let testIndex = s.testIndex;
  if (status !== 'open') {
    // Move on to the next test input still open, looking forward first.
    const order = [...tests.keys()].map((k) => (x.index + 1 + k) % tests.length);
    const next = order.find((k) => tests[k].status === 'open');
    if (next !== undefined) testIndex = next;
  }
  return { ...s, tests, testIndex, lastVerdict, selection: null, stroke: null };
}

/** Replays a whole log from the start; returns the final state. */
export function replay(events: readonly LogEvent[], from: PlayerState = initialPlayer()): PlayerState {
  let s = from;
  for (const e of events) s = reduce(s, e);
  return s;
}

/**
 * Every intermediate output grid: one entry per event that changed the grid on screen,
 * with the event's seq and time.
 */
export function replayOutputs(
  events: readonly LogEvent[],
): { seq: number; t: number; testIndex: number; output: Grid }[] {
  const out: { seq: number; t: number; testIndex: number; output: Grid }[] = [];
  let s = initialPlayer();
  for (const e of events) {
    const before = currentTest(s)?.output;
    s = reduce(s, e);
    const after = currentTest(s)?.output;
    if (after && after !== before) out.push({ seq: e.seq, t: e.t, testIndex: s.testIndex, output: after });
  }
  return out;
}

/** The selected block of a side's grid, for copying. */
export function selectionBlock(side: Grid, rect: Rect): Grid | null {
  return crop(side, rect);
}
