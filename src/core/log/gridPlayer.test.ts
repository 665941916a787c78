import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { type ArcTask, parseTaskText } from '../formats/arcTask';
import { type Grid, gridsEqual, makeGrid, resize } from '../grid/grid';
import type { LogEvent } from './events';
import {
  type GridEventData,
  type GridEventKind,
  type PlayerState,
  type Verdict,
  DEFAULT_TRIALS,
  currentTest,
  initialPlayer,
  isDuplicateWrong,
  reduce,
  replay,
  replayOutputs,
  taskFinished,
  taskSolved,
} from './gridPlayer';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function loadSample(id: string): ArcTask {
  const parsed = parseTaskText(readFileSync(path.join(ROOT, 'data/tasks/samples', `${id}.json`), 'utf8'));
  if (!parsed.ok) throw new Error(`sample ${id} does not parse`);
  return parsed.task;
}

/**
 * Plays the role of the browser: emits events the way the player UI does (skipping no-op
 * events, numbering strokes, judging submissions against the task's answers) and keeps the
 * state by reducing each event as it is appended to the log.
 */
class Session {
  readonly events: LogEvent[] = [];
  state: PlayerState = initialPlayer();
  private stroke = 0;
  private clock = 0;

  constructor(readonly task: ArcTask) {}

  emit<K extends GridEventKind>(kind: K, data: GridEventData[K]): PlayerState {
    this.clock += 17.25;
    const e: LogEvent = {
      seq: this.events.length,
      t: this.clock,
      kind,
      data: data as unknown as Record<string, unknown>,
    };
    this.events.push(e);
    this.state = reduce(this.state, e);
    return this.state;
  }

  get output(): Grid {
    return currentTest(this.state)!.output;
  }

  get input(): Grid {
    return this.task.test[this.state.testIndex].input;
  }

  open(taskId: string): void {
    this.emit('task.open', { taskId, collection: 'samples', tests: this.task.test.length });
  }

  /** One press-drag-release of the edit tool over `cells`. */
  paintStroke(cells: [number, number][], color: number): void {
    if (this.state.tool !== 'edit') this.emit('tool', { tool: 'edit' });
    this.stroke++;
    for (const [row, col] of cells) {
      if (this.output[row]?.[col] !== undefined && this.output[row][col] !== color)
        this.emit('paint', { row, col, color, stroke: this.stroke });
    }
    if (this.state.stroke === this.stroke) this.emit('stroke.end', { stroke: this.stroke });
  }

  fill(row: number, col: number, color: number): void {
    if (this.state.tool !== 'fill') this.emit('tool', { tool: 'fill' });
    if (this.state.color !== color) this.emit('color', { color });
    if (this.output[row][col] !== color) this.emit('fill', { row, col, color });
  }

  /** Copy from input, then fill each cell that still differs from the answer: how a person solves color-by-orientation. */
  solveByFills(): void {
    const answer = this.task.test[this.state.testIndex].output!;
    this.emit('copy.input', { grid: this.input });
    for (let r = 0; r < answer.length; r++) {
      for (let c = 0; c < answer[r].length; c++) if (this.output[r][c] !== answer[r][c]) this.fill(r, c, answer[r][c]);
    }
  }

  submit(): Verdict {
    const index = this.state.testIndex;
    const t = currentTest(this.state)!;
    const grid = t.output;
    if (isDuplicateWrong(this.state, grid)) {
      this.emit('submit', { index, trial: t.trials, verdict: 'duplicate', grid });
      return 'duplicate';
    }
    const verdict: Verdict = gridsEqual(grid, this.task.test[index].output!) ? 'correct' : 'wrong';
    this.emit('submit', { index, trial: t.trials + 1, verdict, grid });
    return verdict;
  }
}

const TASK = loadSample('color-by-orientation');

describe('grid player, driven as the UI drives it', () => {
  let s: Session;
  beforeEach(() => {
    s = new Session(TASK);
    s.open('color-by-orientation');
  });

  it('opens a task with one open test state per test input, on a 3x3 black grid', () => {
    expect(TASK.test).toHaveLength(2);
    expect(s.state.taskId).toBe('color-by-orientation');
    expect(s.state.tests).toHaveLength(2);
    expect(s.state.testIndex).toBe(0);
    expect(s.state.maxTrials).toBe(DEFAULT_TRIALS);
    for (const t of s.state.tests)
      expect(t).toMatchObject({ output: makeGrid(3, 3), undo: [], redo: [], trials: 0, status: 'open' });
  });

  it('makes one paint stroke over several cells one undo step', () => {
    s.paintStroke(
      [
        [0, 0],
        [0, 1],
        [0, 2],
        [1, 2],
      ],
      2,
    );
    expect(s.output).toEqual([
      [2, 2, 2],
      [0, 0, 2],
      [0, 0, 0],
    ]);
    expect(currentTest(s.state)!.undo).toHaveLength(1);
    expect(s.state.stroke).toBeNull();

    s.emit('undo', {});
    expect(s.output).toEqual(makeGrid(3, 3));
    s.emit('redo', {});
    expect(s.output).toEqual([
      [2, 2, 2],
      [0, 0, 2],
      [0, 0, 0],
    ]);
  });

  it('makes two strokes two undo steps, and a new edit clears the redo list', () => {
    s.paintStroke(
      [
        [0, 0],
        [1, 0],
      ],
      3,
    );
    s.paintStroke([[2, 2]], 4);
    expect(currentTest(s.state)!.undo).toHaveLength(2);
    s.emit('undo', {});
    expect(s.output).toEqual([
      [3, 0, 0],
      [3, 0, 0],
      [0, 0, 0],
    ]);
    expect(currentTest(s.state)!.redo).toHaveLength(1);
    s.paintStroke([[1, 1]], 5);
    expect(currentTest(s.state)!.redo).toHaveLength(0);
    s.emit('redo', {});
    expect(s.output).toEqual([
      [3, 0, 0],
      [3, 5, 0],
      [0, 0, 0],
    ]);
  });

  it('ignores undo and redo with nothing to undo or redo', () => {
    const before = s.state.tests;
    s.emit('undo', {});
    s.emit('redo', {});
    expect(s.state.tests).toBe(before);
  });

  it('flood-fills as one undo step', () => {
    s.paintStroke(
      [
        [0, 1],
        [1, 1],
        [2, 1],
      ],
      1,
    );
    s.fill(0, 2, 6);
    expect(s.output).toEqual([
      [0, 1, 6],
      [0, 1, 6],
      [0, 1, 6],
    ]);
    expect(currentTest(s.state)!.undo).toHaveLength(2);
    s.emit('undo', {});
    expect(s.output).toEqual([
      [0, 1, 0],
      [0, 1, 0],
      [0, 1, 0],
    ]);
  });

  it('resizes keeping the top-left content, as an undoable step that clears the selection', () => {
    s.paintStroke(
      [
        [0, 0],
        [2, 2],
      ],
      7,
    );
    s.emit('select', { side: 'output', rect: { r0: 0, c0: 0, r1: 1, c1: 1 } });
    s.emit('resize', { rows: 2, cols: 5 });
    expect(s.output).toEqual([
      [7, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
    ]);
    expect(s.state.selection).toBeNull();
    s.emit('undo', {});
    expect(s.output).toEqual([
      [7, 0, 0],
      [0, 0, 0],
      [0, 0, 7],
    ]);
  });

  it('copies the test input into the output', () => {
    s.emit('copy.input', { grid: s.input });
    expect(s.output).toEqual(TASK.test[0].input);
    expect(currentTest(s.state)!.undo).toEqual([makeGrid(3, 3)]);
  });

  it('pastes a block copied from the input, clipped at the output edges, never growing the grid', () => {
    s.emit('resize', { rows: 4, cols: 4 });
    const rect = { r0: 0, c0: 0, r1: 1, c1: 2 };
    s.emit('select', { side: 'input', rect });
    const block = [TASK.test[0].input[0].slice(0, 3), TASK.test[0].input[1].slice(0, 3)];
    s.emit('copy', { side: 'input', rect, block });
    expect(s.state.clipboard).toEqual([
      [5, 0, 0],
      [5, 0, 0],
    ]);
    s.emit('select', { side: 'output', rect: { r0: 3, c0: 2, r1: 3, c1: 2 } });
    s.emit('paste', { row: 3, col: 2, block: s.state.clipboard! });
    expect(s.output).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 5, 0],
    ]);
    s.emit('paste', { row: -1, col: -2, block: s.state.clipboard! });
    expect(s.output).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 5, 0],
    ]);
    s.emit('paste', { row: 0, col: 0, block: [[1]] });
    expect(s.output).toEqual([
      [1, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 5, 0],
    ]);
    expect(currentTest(s.state)!.undo).toHaveLength(3);
  });

  it('leaves the pasted block selected (clipped to the output), so a flip and a move act on the block', () => {
    s.emit('resize', { rows: 4, cols: 4 });
    s.emit('select', { side: 'output', rect: { r0: 1, c0: 1, r1: 1, c1: 1 } });
    s.emit('paste', { row: 1, col: 1, block: [[1, 2]], select: true });
    expect(s.state.selection).toEqual({ side: 'output', rect: { r0: 1, c0: 1, r1: 1, c1: 2 } });
    s.emit('flip', { axis: 'horizontal' });
    expect(s.output[1]).toEqual([0, 2, 1, 0]);
    s.emit('move', { dr: 1, dc: -1 });
    expect(s.output).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [2, 1, 0, 0],
      [0, 0, 0, 0],
    ]);
    // A block pasted over the edge: only its cells inside the output are selected.
    s.emit('paste', { row: 3, col: 3, block: [[7, 7]], select: true });
    expect(s.state.selection).toEqual({ side: 'output', rect: { r0: 3, c0: 3, r1: 3, c1: 3 } });
    // Only the copied cells of a block that is not a rectangle.
    s.emit('paste', {
      row: 0,
      col: 0,
      block: [
        [4, 0],
        [0, 4],
      ],
      cells: [
        [0, 0],
        [1, 1],
      ],
      select: true,
    });
    expect(s.state.selection).toMatchObject({ side: 'output', rect: { r0: 0, c0: 0, r1: 1, c1: 1 } });
    expect(s.state.selection?.cells).toHaveLength(2);
  });

  it('replays a paste logged without `select` as it always did: the selection stays where it was', () => {
    s.emit('resize', { rows: 3, cols: 3 });
    s.emit('select', { side: 'output', rect: { r0: 0, c0: 0, r1: 0, c1: 0 } });
    s.emit('paste', { row: 0, col: 0, block: [[1, 2]] });
    expect(s.state.selection).toEqual({ side: 'output', rect: { r0: 0, c0: 0, r1: 0, c1: 0 } });
  });

  it('keeps the clipboard when another task is opened', () => {
    s.emit('copy', { side: 'input', rect: { r0: 0, c0: 0, r1: 0, c1: 0 }, block: [[5]] });
    s.open('another');
    expect(s.state.clipboard).toEqual([[5]]);
    expect(s.state.taskId).toBe('another');
  });

  it('resets the output to a 3x3 black grid, undoably', () => {
    s.emit('copy.input', { grid: s.input });
    s.emit('reset', {});
    expect(s.output).toEqual(makeGrid(3, 3));
    s.emit('undo', {});
    expect(s.output).toEqual(TASK.test[0].input);
  });

  it('uses a trial for a wrong answer and refuses the same wrong grid without using one', () => {
    s.emit('copy.input', { grid: s.input });
    expect(s.submit()).toBe('wrong');
    expect(currentTest(s.state)).toMatchObject({ trials: 1, status: 'open' });
    expect(s.state.lastVerdict).toEqual({ index: 0, verdict: 'wrong', trial: 1 });

    expect(s.submit()).toBe('duplicate');
    expect(currentTest(s.state)).toMatchObject({ trials: 1, status: 'open' });
    expect(currentTest(s.state)!.wrong).toHaveLength(1);
    expect(s.state.lastVerdict).toEqual({ index: 0, verdict: 'duplicate', trial: 1 });

    // The grid stays editable and its history survives a wrong answer.
    s.emit('undo', {});
    expect(s.output).toEqual(makeGrid(3, 3));
  });

  it('fails a test on the third wrong trial and moves on to the next open test', () => {
    for (const color of [1, 2, 3]) {
      s.paintStroke([[0, 0]], color);
      expect(s.submit()).toBe('wrong');
    }
    expect(s.state.tests[0]).toMatchObject({ trials: 3, status: 'failed' });
    expect(s.state.testIndex).toBe(1);
    expect(taskFinished(s.state)).toBe(false);

    // A failed test can be looked at but no longer changed.
    s.emit('test.select', { index: 0 });
    const failed = s.state.tests[0];
    s.emit('paint', { row: 1, col: 1, color: 9, stroke: 99 });
    s.emit('copy.input', { grid: s.input });
    s.emit('undo', {});
    expect(s.state.tests[0]).toBe(failed);
  });

  it('solves a test with a correct answer, moves on, and solves the task when every test is solved', () => {
    s.solveByFills();
    expect(s.output).toEqual(TASK.test[0].output);
    expect(s.submit()).toBe('correct');
    expect(s.state.tests[0]).toMatchObject({ trials: 1, status: 'solved' });
    expect(s.state.testIndex).toBe(1);
    expect(taskSolved(s.state)).toBe(false);

    s.paintStroke([[0, 0]], 8);
    expect(s.submit()).toBe('wrong');
    s.solveByFills();
    expect(s.submit()).toBe('correct');
    expect(s.state.tests[1]).toMatchObject({ trials: 2, status: 'solved' });
    expect(taskSolved(s.state)).toBe(true);
    expect(taskFinished(s.state)).toBe(true);
    expect(s.state.lastVerdict).toEqual({ index: 1, verdict: 'correct', trial: 2 });
  });

  it('comes back to an earlier open test when the last one is finished', () => {
    s.emit('test.select', { index: 1 });
    s.solveByFills();
    expect(s.submit()).toBe('correct');
    expect(s.state.testIndex).toBe(0);
    expect(taskFinished(s.state)).toBe(false);
  });

  it('finishes a task with one failed and one solved test as finished but not solved', () => {
    s.solveByFills();
    s.submit();
    for (const color of [1, 2, 3]) {
      s.paintStroke([[0, 0]], color);
      s.submit();
    }
    expect(s.state.tests.map((t) => t.status)).toEqual(['solved', 'failed']);
    expect(taskFinished(s.state)).toBe(true);
    expect(taskSolved(s.state)).toBe(false);
  });

  it("keeps each test input's grid and history separate", () => {
    s.paintStroke([[0, 0]], 4);
    s.emit('test.select', { index: 1 });
    expect(s.output).toEqual(makeGrid(3, 3));
    s.emit('resize', { rows: 1, cols: 1 });
    s.emit('test.select', { index: 0 });
    expect(s.output).toEqual([
      [4, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(s.state.tests[1].output).toEqual([[0]]);
  });

  it('recolours a selected block of the output in one undo step', () => {
    s.emit('copy.input', { grid: s.input });
    const rect = { r0: 0, c0: 0, r1: 1, c1: 1 };
    s.emit('tool', { tool: 'select' });
    s.emit('select', { side: 'output', rect });
    s.emit('color', { color: 6 });
    s.emit('recolor', { rect, color: 6 });
    expect(s.output.slice(0, 2).map((row) => row.slice(0, 2))).toEqual([
      [6, 6],
      [6, 6],
    ]);
    expect(s.output.slice(2)).toEqual(TASK.test[0].input.slice(2));
    s.emit('undo', {});
    expect(s.output).toEqual(TASK.test[0].input);
  });

  it('closes an open stroke when another edit comes between two of its paints, so undo steps back one edit at a time', () => {
    // E.g. a keyboard shortcut (fill, paste, copy from input) pressed while the mouse is still down.
    s.emit('paint', { row: 0, col: 0, color: 1, stroke: 1 });
    s.emit('fill', { row: 2, col: 2, color: 4 });
    const afterFill = s.output;
    s.emit('paint', { row: 0, col: 1, color: 2, stroke: 1 });
    expect(s.output).toEqual([
      [1, 2, 4],
      [4, 4, 4],
      [4, 4, 4],
    ]);
    s.emit('undo', {});
    expect(s.output).toEqual(afterFill);
    s.emit('undo', {});
    expect(s.output).toEqual([
      [1, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
  });

  it('leaves the state unchanged for impossible events from a damaged log instead of throwing', () => {
    s.paintStroke([[1, 1]], 3);
    const before = s.state;
    for (const [rows, cols] of [
      [0, 3],
      [31, 2],
      [3, 1.5],
    ]) {
      expect(() => s.emit('resize', { rows, cols })).not.toThrow();
      expect(s.state.tests).toBe(before.tests);
    }
    s.emit('paint', { row: 0, col: 0, color: 12, stroke: 7 });
    s.emit('fill', { row: 0, col: 0, color: -1 });
    expect(s.state.tests).toBe(before.tests);
  });

  it('ignores events it does not interpret and test indexes that do not exist', () => {
    const before = s.state;
    expect(reduce(before, { seq: 99, t: 1, kind: 'visibility', data: { hidden: true } })).toBe(before);
    expect(reduce(before, { seq: 99, t: 1, kind: 'test.select', data: { index: 2 } })).toBe(before);
  });
});

describe('replay', () => {
  /** A session that touches every kind of grid edit. */
  function playedSession(): Session {
    const s = new Session(TASK);
    s.open('color-by-orientation');
    s.paintStroke(
      [
        [0, 0],
        [0, 1],
        [0, 2],
      ],
      2,
    );
    s.fill(1, 1, 3);
    s.emit('undo', {});
    s.emit('redo', {});
    s.emit('resize', { rows: 5, cols: 5 });
    s.emit('copy', {
      side: 'input',
      rect: { r0: 0, c0: 0, r1: 1, c1: 1 },
      block: [
        [5, 0],
        [5, 0],
      ],
    });
    s.emit('select', { side: 'output', rect: { r0: 4, c0: 4, r1: 4, c1: 4 } });
    s.emit('paste', { row: 4, col: 4, block: s.state.clipboard! });
    s.emit('reset', {});
    s.emit('copy.input', { grid: s.input });
    s.submit();
    s.emit('test.select', { index: 1 });
    s.solveByFills();
    s.submit();
    s.paintStroke(
      [
        [0, 0],
        [1, 1],
      ],
      1,
    );
    return s;
  }

  it('rebuilds the final state from the log alone', () => {
    const s = playedSession();
    const replayed = replay(s.events);
    expect(replayed).toEqual(s.state);
    // Through JSON, as a downloaded log would be.
    expect(replay(JSON.parse(JSON.stringify(s.events)) as LogEvent[])).toEqual(s.state);
  });

  it('lists every intermediate output grid, ending with the final output', () => {
    const s = playedSession();
    const outputs = replayOutputs(s.events);
    const last = outputs[outputs.length - 1];
    expect(last.output).toEqual(currentTest(s.state)!.output);
    expect(last.testIndex).toBe(s.state.testIndex);

    // Each entry is what was on screen right after its event; entries are in log order.
    const seqs = outputs.map((o) => o.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    for (const o of outputs) {
      const at = replay(s.events.slice(0, o.seq + 1));
      expect(o.output).toEqual(currentTest(at)!.output);
      expect(o.testIndex).toBe(at.testIndex);
      expect(o.t).toBe(s.events[o.seq].t);
    }

    // Every event that changed the grid on screen has its entry: each painted cell of a stroke included.
    let before: Grid | undefined;
    for (const e of s.events) {
      const after = currentTest(replay(s.events.slice(0, e.seq + 1)))?.output;
      if (after && !(before && gridsEqual(before, after))) expect(seqs, `${e.kind} at seq ${e.seq}`).toContain(e.seq);
      before = after;
    }
    const paints = s.events.filter((e) => e.kind === 'paint').map((e) => e.seq);
    expect(paints.length).toBeGreaterThanOrEqual(5);
    for (const seq of paints) expect(seqs).toContain(seq);
  });

  it('replays a resize grid exactly as the grid core does', () => {
    const s = new Session(TASK);
    s.open('color-by-orientation');
    s.emit('copy.input', { grid: s.input });
    s.emit('resize', { rows: 12, cols: 3 });
    expect(s.output).toEqual(resize(TASK.test[0].input, 12, 3));
  });
});

describe('damaged logs', () => {
  it('replays events whose payload is invalid as no change, without throwing', () => {
    const ev = (seq: number, kind: string, data: Record<string, unknown>) => ({ seq, t: seq, kind, data });
    const log = [
      ev(0, 'task.open', { taskId: 't', tests: 1 }),
      ev(1, 'resize', { rows: 2, cols: 2 }),
      ev(2, 'paste', { row: 0, col: 0 }),
      ev(3, 'paste', { row: 0, col: 0, block: [[1, 2], [3]] }),
      ev(4, 'task.open', { taskId: 't', tests: 1e7 }),
      ev(5, 'copy.input', { grid: 'not a grid' }),
      ev(6, 'paint', { row: 1, col: 1, color: 4, stroke: 1 }),
    ];
    const s = replay(log);
    expect(s.tests).toHaveLength(1);
    expect(currentTest(s)!.output).toEqual([
      [0, 0],
      [0, 4],
    ]);
  });
});
