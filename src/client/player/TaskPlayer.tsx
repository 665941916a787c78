import { useLayoutEffect, useMemo, useState } from 'react';
import { moveCells } from '../../core/grid/grid';
import { currentTest, selectionCells, taskSolved, type GridSide, type TestState } from '../../core/log/gridPlayer';
import { GridCanvas, useFitCell } from '../grid/GridCanvas';
import { Button } from '../ui/Button';
import { actionForKey } from './actions';
import { PlayerController, type EventSink, type OpenTask } from './controller';
import { demoColumnWidth } from './DemoPairs';
import { DemoStrip } from './DemoStrip';
import type { Judge } from './judge';
import type { LogEvent } from '../../core/log/events';
import { usePlayer } from './store';
import { GRID_KEYS_HELP, SubmitButton, ToolBar } from './ToolBar';
import { useMediaQuery } from '../ui/useMediaQuery';

export interface TaskPlayerProps {
  readonly open: OpenTask;
  readonly sink: EventSink;
  readonly judge: Judge;
  readonly trials?: number;
  /** Shown in the header row, e.g. task navigation and the log download. */
  readonly toolbar?: React.ReactNode;
  /** Shown in place of the status line once every test input is finished. */
  readonly onFinishedAction?: React.ReactNode;
  /** This task's events logged before (a reload): the task continues where it was. */
  readonly resume?: readonly LogEvent[];
}

/** The smallest cell the test grids keep beside wide demonstrations, and the room around them (panels, gaps, padding), in CSS px. */
const TEST_CELL_PX = 10;
const TEST_CHROME_PX = 110;

/** The whole grid-task player: demonstrations, the test input, the output editor and its tools. */
export function TaskPlayer({ open, sink, judge, trials = 3, toolbar, onFinishedAction, resume }: TaskPlayerProps) {
  // Constructing a controller has no effects; `start` shows the task and logs `task.open`, once
  // per controller, before the browser paints.
  const controller = useMemo(
    () => new PlayerController(sink, judge, open, trials, resume),
    [sink, judge, open, trials, resume],
  );
  useLayoutEffect(() => controller.start(), [controller]);
  const state = usePlayer((s) => s.state);
  const test = currentTest(state);
  const testIndex = state.testIndex;
  const input = open.task.test[testIndex]?.input;
  const wide = useMediaQuery('(min-width: 1024px)');
  // A phone shows one grid at a time, as wide as the screen, and Submit above it.
  const phone = !useMediaQuery('(min-width: 640px)');
  const [shown, setShown] = useState<GridSide>('input');

  // Registered in the commit that draws the grids: a key pressed once they are on screen is never
  // lost to a listener not yet attached (a passive effect runs after the browser paints).
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const action = actionForKey(e);
      if (!action) return;
      e.preventDefault();
      action.perform(controller, e);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [controller]);

  if (!test || !input) return null;
  const solved = taskSolved(state);
  const showSymbols = state.showSymbols;
  const finished = state.tests.every((t) => t.status !== 'open');
  // Beside the test, the demonstrations take the room the test grids do not need: enough for
  // every pair at MIN_DEMO_CELL px a cell, while the test input and an output as wide keep
  // TEST_CELL_PX a cell (the input's width, not the output's, so the layout holds while editing).
  const testNeed = 2 * input[0].length * TEST_CELL_PX + TEST_CHROME_PX;
  const demoWidth = `clamp(320px, max(min(28vw, 560px), ${demoColumnWidth(open.task.train)}px), max(320px, calc(100vw - ${testNeed}px)))`;

  return (
    <div className="flex min-h-full flex-col gap-3 p-3 sm:h-full sm:min-h-0 lg:flex-row lg:gap-4">
      {/* Beside the test on a wide screen; a strip above it on a narrow one (a portrait tablet, a phone). */}
      <DemoStrip pairs={open.task.train} showSymbols={showSymbols} wide={wide} phone={phone} width={demoWidth} />

      <section className="flex min-w-0 flex-col gap-2 sm:min-h-0 sm:flex-1" aria-label="Test">
        <div className="flex min-h-9 shrink-0 flex-wrap items-center gap-x-3 gap-y-1">
          <TestNav controller={controller} count={state.tests.length} index={testIndex} tests={state.tests} />
          <Trials test={test} max={state.maxTrials} />
          {phone && <SubmitButton controller={controller} />}
          <div className="ml-auto flex flex-wrap items-center gap-2">{toolbar}</div>
        </div>
        {/* On a phone the verdict shows beside Submit, above the grid; the tools follow the grid. */}
        {phone && <StatusLine finished={finished} solved={solved} action={onFinishedAction} />}

        {phone ? (
          <GridPanel
            key={shown}
            side={shown}
            controller={controller}
            title={
              <GridSwitch
                shown={shown}
                onShow={setShown}
                input={input}
                output={test.output}
                multi={state.tests.length > 1 ? testIndex + 1 : null}
              />
            }
            {...(shown === 'input'
              ? { grid: input, testId: 'input-grid', label: 'Test input' }
              : { grid: test.output, testId: 'output-grid', label: 'Your output', status: test.status })}
          />
        ) : (
          <div className="flex min-h-0 flex-1 gap-3">
            <GridPanel
              title={`Test input${state.tests.length > 1 ? ` ${testIndex + 1}` : ''}`}
              side="input"
              grid={input}
              controller={controller}
              testId="input-grid"
            />
            <GridPanel
              title="Your output"
              side="output"
              grid={test.output}
              controller={controller}
              testId="output-grid"
              status={test.status}
            />
          </div>
        )}

        <ToolBar controller={controller} submit={!phone} />
        {!phone && <StatusLine finished={finished} solved={solved} action={onFinishedAction} />}
      </section>
    </div>
  );
}

function TestNav({
  controller,
  count,
  index,
  tests,
}: {
  controller: PlayerController;
  count: number;
  index: number;
  tests: readonly TestState[];
}) {
  return (
    <div className="flex items-center gap-1.5 text-sm">
      <Button
        tone="ghost"
        aria-label="Previous test input"
        disabled={index === 0}
        onClick={() => controller.selectTest(index - 1)}
      >
        ‹
      </Button>
      <span className="tabular-nums text-slate-200" data-testid="test-position">
        Test {index + 1} / {count}
      </span>
      <Button
        tone="ghost"
        aria-label="Next test input"
        disabled={index >= count - 1}
        onClick={() => controller.selectTest(index + 1)}
      >
        ›
      </Button>
      {count > 1 && (
        <span className="ml-1 flex gap-1" aria-label="Test inputs">
          {tests.map((t, i) => (
            <span
              key={i}
              title={`Test ${i + 1}: ${t.status}`}
              className={`h-2 w-2 rounded-full ${t.status === 'solved' ? 'bg-emerald-400' : t.status === 'failed' ? 'bg-rose-500' : i === index ? 'bg-sky-400' : 'bg-slate-600'}`}
            />
          ))}
        </span>
      )}
    </div>
  );
}

function Trials({ test, max }: { test: TestState; max: number }) {
  const label =
    test.status === 'solved'
      ? 'Solved'
      : test.status === 'failed'
        ? 'No trials left'
        : `Trial ${test.trials + 1} of ${max}`;
  return (
    <div className="flex items-center gap-2 text-sm" data-testid="trials">
      <span className="flex gap-1" aria-hidden>
        {Array.from({ length: max }, (_, i) => (
          <span
            key={i}
            className={`h-2.5 w-2.5 rounded-sm ${i < test.trials ? (test.status === 'solved' && i === test.trials - 1 ? 'bg-emerald-400' : 'bg-rose-500') : 'bg-slate-600'}`}
          />
        ))}
      </span>
      <span
        className={
          test.status === 'solved' ? 'text-emerald-300' : test.status === 'failed' ? 'text-rose-300' : 'text-slate-300'
        }
      >
        {label}
      </span>
    </div>
  );
}

/** A phone's choice of the grid it shows: the test input or the participant's output, each with its size. */
function GridSwitch({
  shown,
  onShow,
  input,
  output,
  multi,
}: {
  shown: GridSide;
  onShow: (side: GridSide) => void;
  input: readonly (readonly number[])[];
  output: readonly (readonly number[])[];
  multi: number | null;
}) {
  const sides: { side: GridSide; label: string; grid: readonly (readonly number[])[] }[] = [
    { side: 'input', label: `Test input${multi ? ` ${multi}` : ''}`, grid: input },
    { side: 'output', label: 'Your output', grid: output },
  ];
  return (
    <div className="flex gap-1" role="group" aria-label="Grid shown">
      {sides.map((s) => (
        <button
          key={s.side}
          type="button"
          aria-pressed={shown === s.side}
          onClick={() => onShow(s.side)}
          className={`h-7 rounded-md border px-2.5 text-xs font-semibold uppercase tracking-wider ${shown === s.side ? 'border-sky-400 bg-sky-600/30 text-sky-100' : 'border-slate-700 bg-slate-800 text-slate-300'}`}
        >
          {s.label}{' '}
          <span className="font-normal normal-case tabular-nums text-slate-400">
            {s.grid.length}x{s.grid[0].length}
          </span>
        </button>
      ))}
    </div>
  );
}

function GridPanel({
  title,
  label,
  side,
  grid,
  controller,
  testId,
  status,
}: {
  /** The panel's heading: its name, or on a phone the switch between the two grids. */
  title: React.ReactNode;
  /** The grid's accessible name, when the title is not plain text. */
  label?: string;
  side: GridSide;
  grid: readonly (readonly number[])[];
  controller: PlayerController;
  testId: string;
  status?: TestState['status'];
}) {
  const name = label ?? String(title);
  const plain = typeof title === 'string';
  const rows = grid.length;
  const cols = grid[0].length;
  const [ref, cell] = useFitCell(rows, cols, 4, 40);
  const showSymbols = usePlayer((s) => s.state.showSymbols);
  const tool = usePlayer((s) => s.state.tool);
  const drag = usePlayer((s) => (s.dragSelection?.side === side ? s.dragSelection.rect : null));
  const sel = usePlayer((s) => (s.state.selection?.side === side ? s.state.selection : null));
  const dragMove = usePlayer((s) => (side === 'output' ? s.dragMove : null));
  const focused = usePlayer((s) => s.focused === side);
  const cursorCell = usePlayer((s) => s.cursor[side]);
  // While selected output cells are dragged, the grid shows them where they would land.
  const moving = useMemo(() => {
    if (!dragMove || !sel || (dragMove.dr === 0 && dragMove.dc === 0)) return null;
    return moveCells(grid, selectionCells(sel), (c) => ({ row: c.row + dragMove.dr, col: c.col + dragMove.dc }));
  }, [grid, sel, dragMove]);
  const shown = moving?.grid ?? grid;
  const selectedCells = moving ? moving.cells : drag ? null : (sel?.cells ?? null);
  const selection = drag ?? (moving ? null : (sel?.rect ?? null));
  const at = focused ? { row: Math.min(cursorCell.row, rows - 1), col: Math.min(cursorCell.col, cols - 1) } : null;
  const cursor = dragMove
    ? 'grabbing'
    : tool === 'select' || tool === 'wand'
      ? 'crosshair'
      : side === 'output'
        ? tool === 'fill'
          ? 'cell'
          : 'pointer'
        : 'default';
  return (
    <div className="flex min-w-0 flex-1 flex-col rounded-lg border border-slate-800 bg-slate-900/60">
      <div
        className={`flex items-center justify-between border-b border-slate-800 text-xs ${plain ? 'h-8 px-3' : 'h-10 px-1.5'}`}
      >
        {plain ? <span className="font-semibold uppercase tracking-wider text-slate-400">{title}</span> : title}
        <span className={`tabular-nums text-slate-400 ${plain ? '' : 'sr-only'}`} data-testid={`${testId}-size`}>
          {rows}x{cols}
        </span>
      </div>
      {/* On a phone the panel is as tall as the grid needs at the screen's width: at most 60% of the screen, and 40 px a row. */}
      <div
        ref={ref}
        className={`relative flex items-center justify-center p-2 ${plain ? 'min-h-0 flex-1' : ''}`}
        style={plain ? undefined : { aspectRatio: `${cols} / ${rows}`, maxHeight: `min(60vh, ${rows * 40 + 17}px)` }}
      >
        <GridCanvas
          grid={shown}
          cell={cell}
          label={name}
          testId={testId}
          showSymbols={showSymbols}
          selection={selection}
          cursor={cursor}
          selectedCells={selectedCells}
          cellCursor={at}
          keyboard={{
            side,
            describedBy: GRID_KEYS_HELP,
            onFocus: () => usePlayer.setState({ focused: side }),
            onBlur: () => usePlayer.setState((s) => (s.focused === side ? { focused: null } : {})),
          }}
          onDown={(c, e) => controller.pointerDown(side, c, e.shiftKey)}
          onDrag={(c) => controller.pointerDrag(c)}
          onUp={() => controller.pointerUp()}
        />
        {status && status !== 'open' && (
          <div
            className={`pointer-events-none absolute right-3 top-3 rounded px-2 py-0.5 text-xs font-semibold ${status === 'solved' ? 'bg-emerald-700/90 text-white' : 'bg-rose-700/90 text-white'}`}
          >
            {status === 'solved' ? 'Solved' : 'Out of trials'}
          </div>
        )}
        {at && (
          <p className="sr-only" aria-live="polite" data-testid={`${testId}-cursor`}>
            Row {at.row + 1}, column {at.col + 1}: colour {shown[at.row][at.col]}
          </p>
        )}
      </div>
    </div>
  );
}

function StatusLine({ finished, solved, action }: { finished: boolean; solved: boolean; action?: React.ReactNode }) {
  const notice = usePlayer((s) => s.notice);
  const tone =
    notice?.tone === 'success' ? 'text-emerald-300' : notice?.tone === 'error' ? 'text-rose-300' : 'text-slate-300';
  return (
    <div className="flex min-h-9 shrink-0 flex-wrap items-center gap-x-3 gap-y-1 text-sm">
      <p role="status" aria-live="polite" className={tone} data-testid="status" key={notice?.id}>
        {notice?.text ?? 'Work out the rule from the demonstrations, build the output for the test input, then submit.'}
      </p>
      {finished && (
        <div className="ml-auto flex items-center gap-2">
          <span
            className={`rounded px-2 py-0.5 text-xs font-semibold ${solved ? 'bg-emerald-700 text-white' : 'bg-slate-700 text-slate-200'}`}
            data-testid="task-result"
          >
            {solved ? 'Task solved' : 'Task finished'}
          </span>
          {action}
        </div>
      )}
    </div>
  );
}
