import { useId, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { LogEvent } from '../../core/log/events';
import type { TaskPair } from '../../core/formats/arcTask';
import type { Grid } from '../../core/grid/grid';
import { currentTest, type PlayerState } from '../../core/log/gridPlayer';
import { testIndicesOf, writtenTaskItem } from '../../core/study/schema';
import { GridCanvas, useFitCell } from '../grid/GridCanvas';
import { DemoPairs } from '../player/DemoPairs';
import { taskOf } from '../tasks/queries';
import { Button } from '../ui/Button';
import { studyVersionQuery } from './queries';

/** The study a replayed session ran: its id and the version the session recorded. */
export interface ReplayStudy {
  readonly id: string;
  readonly version: number;
}

/** The task as the participant was shown it: its demonstrations and the test inputs of the item, in the item's order. */
interface ShownTask {
  readonly train: readonly TaskPair[];
  readonly tests: readonly { input: Grid }[];
}

/**
 * The task a grid item's `task.open` names, read as the researcher: a study's item (`collection`
 * "study") through the study version the session ran, which names its collection, task and test
 * inputs; any other collection directly.
 */
function useShownTask(
  events: readonly LogEvent[],
  study: ReplayStudy | undefined,
): { task?: ShownTask; error?: string; pending: boolean } {
  const open = events.find((e) => e.kind === 'task.open');
  const taskId = typeof open?.data.taskId === 'string' ? open.data.taskId : '';
  const collection = typeof open?.data.collection === 'string' ? open.data.collection : 'study';
  const fromStudy = collection === 'study';
  const definition = useQuery({
    ...studyVersionQuery(study?.id ?? '', study?.version ?? 0),
    enabled: fromStudy && !!study,
  });
  const item: { collection: string; task: string; tests?: number[] } | undefined = fromStudy
    ? definition.data
      ? writtenTaskItem(definition.data.items, taskId)
      : undefined
    : { collection, task: taskId };
  const task = useQuery({ ...taskOf(item?.collection ?? '', item?.task ?? ''), enabled: !!item });
  if (fromStudy && !study)
    return { pending: false, error: 'The study of this session is not known, so its task cannot be shown.' };
  if (definition.isError)
    return {
      pending: false,
      error: `The study version this session ran could not be read: ${definition.error.message}`,
    };
  if (fromStudy && definition.data && !item)
    return { pending: false, error: `Study version ${study?.version} has no task item "${taskId}".` };
  if (task.isError)
    return {
      pending: false,
      error: `Task ${item?.task} of collection ${item?.collection} could not be read: ${task.error.message}`,
    };
  if (!task.data) return { pending: true };
  const t = task.data.task;
  const indices = testIndicesOf(item ?? {}, t.test.length);
  return {
    pending: false,
    task: { train: t.train, tests: indices.map((i) => t.test[i]).filter((x) => x !== undefined) },
  };
}

/** A grid with its caption, as large as its share of the view allows. */
function FittedGrid({
  title,
  grid,
  label,
  testId,
  showSymbols,
  state,
}: {
  title: string;
  grid: Grid;
  label: string;
  testId: string;
  showSymbols: boolean;
  state?: PlayerState;
}) {
  const [ref, cell] = useFitCell(grid.length, grid[0].length, 4, 32);
  const selection = state?.selection?.side === 'output' ? state.selection : null;
  return (
    <figure className="flex min-h-[10rem] min-w-0 flex-1 flex-col">
      <figcaption className="mb-1 text-xs uppercase tracking-wide text-slate-400">
        {title} · {grid.length}x{grid[0].length}
      </figcaption>
      <div ref={ref} className="flex min-h-0 flex-1 items-center justify-center">
        <GridCanvas
          grid={grid}
          cell={cell}
          label={label}
          testId={testId}
          showSymbols={showSymbols && cell >= 12}
          selection={selection?.rect ?? null}
          selectedCells={selection?.cells ?? null}
        />
      </div>
    </figure>
  );
}

/**
 * A grid task at a point of its log: the test input beside the output as the participant had
 * built it by then, the status of the test, and the demonstrations on demand.
 */
export function GridReplay({
  state,
  events,
  study,
}: {
  state: PlayerState;
  events: readonly LogEvent[];
  study?: ReplayStudy;
}) {
  const shown = useShownTask(events, study);
  const [demos, setDemos] = useState(false);
  const demosId = useId();
  const t = currentTest(state);
  if (!t) return <p className="text-slate-400">The task is not open yet at this point.</p>;
  const input = shown.task?.tests[state.testIndex]?.input;
  return (
    <div className="flex h-full min-h-0 w-full flex-col gap-2">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        <p className="text-slate-300" data-testid="replay-status">
          Test {state.testIndex + 1} / {state.tests.length} · trials used {t.trials} of {state.maxTrials} · {t.status}
          {state.lastVerdict && (
            <>
              {' '}
              · last submission:{' '}
              <span className={state.lastVerdict.verdict === 'correct' ? 'text-emerald-300' : 'text-rose-300'}>
                {state.lastVerdict.verdict}
              </span>
            </>
          )}
        </p>
        {shown.task && (
          <Button className="ml-auto" aria-expanded={demos} aria-controls={demosId} onClick={() => setDemos(!demos)}>
            <span aria-hidden>{demos ? '▾' : '▸'}</span> Demonstrations ({shown.task.train.length})
          </Button>
        )}
      </div>
      {shown.error && (
        <p role="alert" className="text-sm text-rose-300">
          {shown.error}
        </p>
      )}
      {demos && shown.task && (
        <section
          id={demosId}
          aria-label="Demonstrations"
          className="shrink-0 overflow-x-auto pb-1"
          data-testid="replay-demos"
        >
          <DemoPairs pairs={shown.task.train} compact showSymbols={state.showSymbols} />
        </section>
      )}
      <div className="flex min-h-0 flex-1 flex-col gap-3 sm:flex-row">
        {input ? (
          <FittedGrid
            title={`Test input ${state.testIndex + 1}`}
            grid={input}
            label={`Test input ${state.testIndex + 1}`}
            testId="replay-input"
            showSymbols={state.showSymbols}
          />
        ) : (
          <p className="flex-1 self-center text-center text-sm text-slate-400">
            {shown.pending ? 'Loading the task…' : 'The test input is not available.'}
          </p>
        )}
        <FittedGrid
          title="Output at this point"
          grid={t.output}
          label="Output at this point"
          testId="replay-grid"
          showSymbols={state.showSymbols}
          state={state}
        />
      </div>
    </div>
  );
}
