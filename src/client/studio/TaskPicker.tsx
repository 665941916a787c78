/**
 * Choosing a study's grid task: the collection's tasks searchable by id, each with a thumbnail
 * of its first demonstration (loaded as it scrolls into view), and the chosen task's
 * demonstrations and test inputs, where the researcher picks which test inputs the item uses.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { ArcTask } from '../../core/formats/arcTask';
import { GridCanvas } from '../grid/GridCanvas';
import { taskIdsQuery, taskQuery } from '../tasks/queries';
import { PickerDialog } from './PickerDialog';

/** Tasks listed at once; a search narrows the rest. */
const SHOWN = 120;

type Grid = ArcTask['train'][number]['input'];

/** A grid drawn to fit a square of `box` CSS pixels. */
function Thumb({ grid, box, label }: { grid: Grid; box: number; label: string }) {
  const cell = Math.max(1, Math.floor(box / Math.max(grid.length, grid[0].length)));
  return <GridCanvas grid={grid} cell={cell} label={label} />;
}

/** The first demonstration of a task, fetched once the card is on screen. */
export function TaskThumb({ collection, taskId }: { collection: string; taskId: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || seen) return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setSeen(true);
    });
    io.observe(el);
    return () => io.disconnect();
  }, [seen]);
  const q = useQuery({ ...taskQuery(collection, taskId), enabled: seen });
  const pair = q.data?.task.train[0];
  return (
    <span ref={ref} className="flex h-14 items-center justify-center gap-1" aria-hidden>
      {pair ? (
        <>
          <Thumb grid={pair.input} box={48} label={`${taskId} first input`} />
          <span className="text-[10px] text-slate-400">→</span>
          <Thumb grid={pair.output} box={48} label={`${taskId} first output`} />
        </>
      ) : (
        <span className="text-[10px] text-slate-400">{q.isError ? 'cannot load' : '…'}</span>
      )}
    </span>
  );
}

export interface TaskChoice {
  readonly task: string;
  /** Indices of the test inputs used; undefined: all of them. */
  readonly tests?: number[];
}

/**
 * The picker as a modal dialog. `onChoose` gets the task and its test inputs (undefined when all
 * are used, as the study format has it).
 */
export function TaskPicker({
  collection,
  initial,
  onChoose,
  onClose,
}: {
  collection: string;
  initial: TaskChoice;
  onChoose: (c: TaskChoice) => void;
  onClose: () => void;
}) {
  const ids = useQuery(taskIdsQuery(collection));
  const [filter, setFilter] = useState('');
  const [current, setCurrent] = useState(initial.task);
  const [tests, setTests] = useState<number[] | undefined>(initial.tests);
  const matches = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return (ids.data ?? []).filter((id) => id.toLowerCase().includes(f));
  }, [ids.data, filter]);
  const pick = (id: string) => {
    setCurrent(id);
    if (id !== current) setTests(undefined);
  };
  return (
    <PickerDialog
      name="task"
      title={
        <>
          Choose a task from <span className="font-mono">{collection}</span>
        </>
      }
      search={filter}
      onSearch={setFilter}
      searchLabel="Search tasks by id"
      placeholder="Search by task id"
      count={ids.isSuccess ? `${matches.length} of ${ids.data.length} tasks` : ids.isError ? '' : 'Loading…'}
      confirmLabel="Use this task"
      canConfirm={!!current && !(tests !== undefined && tests.length === 0)}
      onConfirm={() => onChoose({ task: current, tests })}
      onClose={onClose}
    >
      <div className="min-h-0 flex-1 overflow-y-auto p-3">
        {ids.isError && (
          <p role="alert" className="text-sm text-rose-300">
            {(ids.error as Error).message}
          </p>
        )}
        {ids.isSuccess && matches.length === 0 && (
          <p className="text-sm text-slate-300">No task id contains “{filter}”.</p>
        )}
        <ul className="grid grid-cols-[repeat(auto-fill,minmax(150px,1fr))] gap-2" aria-label="Tasks">
          {matches.slice(0, SHOWN).map((id) => (
            <li key={id}>
              <button
                type="button"
                onClick={() => pick(id)}
                aria-pressed={id === current}
                className={`flex w-full flex-col gap-1 rounded-md border p-2 text-left ${id === current ? 'border-sky-400 bg-sky-500/10' : 'border-slate-800 bg-slate-900/60 hover:border-slate-600'}`}
              >
                <TaskThumb collection={collection} taskId={id} />
                <span className="truncate font-mono text-xs text-slate-200">{id}</span>
              </button>
            </li>
          ))}
        </ul>
        {matches.length > SHOWN && (
          <p className="mt-2 text-xs text-slate-300">
            {matches.length - SHOWN} more: type part of an id to narrow the list.
          </p>
        )}
      </div>
      <aside
        className="min-h-0 overflow-y-auto border-t border-slate-800 p-3 md:w-[360px] md:border-l md:border-t-0"
        aria-label="Chosen task"
      >
        {current ? (
          <TaskDetail collection={collection} taskId={current} tests={tests} onTests={setTests} />
        ) : (
          <p className="text-sm text-slate-300">Choose a task on the left.</p>
        )}
      </aside>
    </PickerDialog>
  );
}

/** The chosen task's demonstrations and its test inputs, each with a box to use it or not. */
function TaskDetail({
  collection,
  taskId,
  tests,
  onTests,
}: {
  collection: string;
  taskId: string;
  tests: number[] | undefined;
  onTests: (t: number[] | undefined) => void;
}) {
  const q = useQuery(taskQuery(collection, taskId));
  if (q.isError)
    return (
      <p role="alert" className="text-sm text-rose-300">
        {(q.error as Error).message}
      </p>
    );
  if (!q.data) return <p className="text-sm text-slate-300">Loading {taskId}…</p>;
  const t = q.data.task;
  const used = (i: number) => tests === undefined || tests.includes(i);
  const toggle = (i: number) => {
    const next = t.test.map((_, k) => k).filter((k) => (k === i ? !used(k) : used(k)));
    onTests(next.length === t.test.length ? undefined : next);
  };
  return (
    <div className="flex flex-col gap-3">
      <h3 className="font-mono text-sm text-white" data-testid="task-picker-chosen">
        {taskId}
      </h3>
      <p className="text-xs text-slate-300">
        {t.train.length} demonstration{t.train.length === 1 ? '' : 's'} · {t.test.length} test input
        {t.test.length === 1 ? '' : 's'}
      </p>
      <ol className="flex flex-col gap-1.5" aria-label="Demonstrations">
        {t.train.map((p, i) => (
          <li key={i} className="flex items-center gap-2">
            <span className="w-5 text-xs text-slate-400">{i + 1}</span>
            <Thumb grid={p.input} box={90} label={`Example ${i + 1} input`} />
            <span className="text-slate-400" aria-hidden>
              →
            </span>
            <Thumb grid={p.output} box={90} label={`Example ${i + 1} output`} />
          </li>
        ))}
      </ol>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-xs font-semibold uppercase tracking-wider text-slate-300">
          Test inputs to use
        </legend>
        {t.test.map((p, i) => (
          <div key={i} className="flex items-center gap-2">
            <label className="flex items-center gap-2 text-sm text-slate-200">
              <input type="checkbox" checked={used(i)} onChange={() => toggle(i)} className="accent-sky-500" />
              Test {i + 1} ({p.input.length}x{p.input[0].length})
            </label>
            <Thumb grid={p.input} box={60} label={`Test ${i + 1} input`} />
          </div>
        ))}
        {tests !== undefined && tests.length === 0 && (
          <p role="alert" className="text-xs text-rose-300">
            Use at least one test input.
          </p>
        )}
      </fieldset>
    </div>
  );
}
