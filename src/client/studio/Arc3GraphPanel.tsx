/**
 * The state graph of a server-run (arcengine) game's level on its playtest page: explored on the
 * server through the game's Python worker (`POST /api/admin/arc3/games/:id/graph`), laid out in
 * the Validate panel's Web Worker, and shown as the Validate panel shows a built-in game's.
 * **Cancel** stops the exploration on the server (`POST /api/admin/arc3/graphs/:exploration/cancel`);
 * beside the shortest solution, the human baselines the studio's studies hold for the level
 * (`GET /api/admin/games/:id/baselines`), or that there are none yet.
 */
import { useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ApiError } from '../api';
import type { GraphDrawing, GraphShape, GraphSummary } from '../../core/game/graphView';
import { ARC3_GRAPH_LIMITS, type GraphExploreBody } from '../../core/protocol/requests';
import { Button } from '../ui/Button';
import { adminJson } from './auth';
import type { GameBaselinesView } from '../../core/protocol/api';
import { GraphView } from './validate/ValidatePanel';
import type { LayoutRequest, ValidateReply } from './validate/protocol';

const STATE_CHOICES = [500, 2_000, ARC3_GRAPH_LIMITS.maxStates];
/** The time budget asked of the server. */
const GRAPH_SECONDS = 30;

type Drawn = { summary: GraphSummary; drawing: GraphDrawing | null };

/** Lays out `shape` in a Web Worker, so a few thousand states never freeze the page. */
function layOut(shape: GraphShape): Promise<GraphDrawing> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./validate/validate.worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (e: MessageEvent<ValidateReply>) => {
      w.terminate();
      if (e.data.type === 'laid-out') resolve(e.data.drawing);
      else reject(new Error(e.data.type === 'error' ? e.data.message : `the layout worker answered ${e.data.type}`));
    };
    w.onerror = (e) => {
      w.terminate();
      reject(
        new Error(`the layout worker stopped (${e.message || 'it could not start'}): reload the page and run again`),
      );
    };
    w.postMessage({ type: 'layout', shape } satisfies LayoutRequest);
  });
}

/** Keyed by the level where it is used: a graph of another level is not this one's. */
export function Arc3GraphPanel({ gameId, level, levels }: { gameId: string; level: number; levels: number }) {
  const [maxStates, setMaxStates] = useState(2_000);
  const [shown, setShown] = useState<Drawn | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const [cancelProblem, setCancelProblem] = useState<string | null>(null);
  /** The name of the exploration under way, for its Cancel. */
  const exploration = useRef<string | null>(null);
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const explore = useMutation({
    mutationFn: async (body: Omit<GraphExploreBody, 'exploration'>): Promise<Drawn> => {
      const name = crypto.randomUUID();
      exploration.current = name;
      const r = await adminJson<{ summary: GraphSummary; shape: GraphShape | null }>(
        `/api/admin/arc3/games/${encodeURIComponent(gameId)}/graph`,
        { method: 'POST', body: JSON.stringify({ ...body, exploration: name } satisfies GraphExploreBody) },
      );
      exploration.current = null;
      return { summary: r.summary, drawing: r.shape ? await layOut(r.shape) : null };
    },
    onMutate: () => {
      setShown(null);
      setCancelling(false);
      setCancelProblem(null);
    },
    onSettled: () => {
      exploration.current = null;
    },
    onSuccess: (d) => {
      if (alive.current) setShown(d);
    },
  });

  const cancel = async () => {
    const name = exploration.current;
    if (!name) return;
    setCancelling(true);
    try {
      await adminJson(`/api/admin/arc3/graphs/${encodeURIComponent(name)}/cancel`, { method: 'POST' });
    } catch (e) {
      // The exploration ended on its own meanwhile: its answer comes as usual.
      if (alive.current && !(e instanceof ApiError && e.code === 'not_found')) {
        setCancelling(false);
        setCancelProblem((e as Error).message);
      }
    }
  };
  const cancelled = explore.error instanceof ApiError && explore.error.code === 'cancelled';

  return (
    <details className="rounded-lg border border-slate-800 bg-slate-900/60 p-3 text-xs" data-testid="arc3-graph">
      <summary className="cursor-pointer font-semibold uppercase tracking-wide text-slate-400">State graph</summary>
      <div className="mt-2 flex flex-col gap-2 text-sm">
        <p className="text-xs text-slate-400">
          Explores level {level + 1}
          {levels > 1 ? ` of ${levels}` : ''} from its start on the server: every action in every state, on copies of
          the game. States are told apart by the frame, the sprites and the game&apos;s public fields; clicks go to the
          centre of each visible sprite.
        </p>
        <div className="flex flex-wrap items-end gap-2">
          <label
            className="flex flex-col gap-1 text-xs text-slate-300"
            title={`The exploration stops at this many states or after ${GRAPH_SECONDS} s`}
          >
            Graph states
            <select
              aria-label="Max states"
              value={maxStates}
              onChange={(e) => setMaxStates(Number(e.target.value))}
              disabled={explore.isPending}
              className="h-8 rounded-md border border-slate-700 bg-slate-950 px-1.5"
            >
              {STATE_CHOICES.map((n) => (
                <option key={n} value={n}>
                  ≤ {n.toLocaleString('en-US')}
                </option>
              ))}
            </select>
          </label>
          <Button
            tone="primary"
            disabled={explore.isPending}
            onClick={() => explore.mutate({ level, maxStates, maxSeconds: GRAPH_SECONDS })}
          >
            Explore level {level + 1}
          </Button>
          {explore.isPending && (
            <Button disabled={cancelling} onClick={() => void cancel()}>
              {cancelling ? 'Cancelling…' : 'Cancel'}
            </Button>
          )}
        </div>
        {explore.isPending && (
          <p role="status" className="text-xs text-slate-400" data-testid="arc3-graph-status">
            {cancelling
              ? `Stopping the exploration of level ${level + 1} on the server…`
              : `Exploring level ${level + 1} on the server (at most ${maxStates.toLocaleString('en-US')} states or ${GRAPH_SECONDS} s), then laying it out…`}
          </p>
        )}
        {cancelProblem && (
          <p role="alert" className="text-xs text-rose-300">
            The exploration could not be cancelled: {cancelProblem}
          </p>
        )}
        {explore.error &&
          (cancelled ? (
            <p role="status" className="text-xs text-amber-200" data-testid="arc3-graph-cancelled">
              {explore.error.message}
            </p>
          ) : (
            <p role="alert" className="text-xs text-rose-300">
              {explore.error.message}
            </p>
          ))}
        {shown && (
          <>
            <GraphView
              summary={shown.summary}
              drawing={shown.drawing}
              gameId={gameId}
              targets="clicks at the centre of a visible sprite"
            />
            <HumanBaseline gameId={gameId} level={level} shortest={shown.summary.analysis.shortest?.length ?? null} />
          </>
        )}
      </div>
    </details>
  );
}

/** The presets shown beside the shortest solution: the official toolkit's, then the paper's. */
const SHOWN_PRESETS = [
  ['upper-median', 'upper median (official toolkit)'],
  ['second-best', 'second best (ARC-AGI-3 paper)'],
] as const;

/**
 * The human baselines of the level from the studio's studies (each study's results), beside the
 * shortest solution the graph found; or that there is none yet, and why.
 */
function HumanBaseline({ gameId, level, shortest }: { gameId: string; level: number; shortest: number | null }) {
  const q = useQuery({
    queryKey: ['admin', 'game-baselines', gameId],
    queryFn: () => adminJson<GameBaselinesView>(`/api/admin/games/${encodeURIComponent(gameId)}/baselines`),
    staleTime: 30_000,
  });
  if (q.isPending)
    return <p className="text-xs text-slate-400">Looking up the human baselines of level {level + 1}…</p>;
  if (q.isError)
    return (
      <p role="alert" className="text-xs text-rose-300">
        The human baselines could not be read: {q.error.message}
      </p>
    );
  const rows = q.data.studies
    .map((s) => ({ s, l: s.levels.find((x) => x.level === level + 1) }))
    .filter((r) => r.l !== undefined && r.l.completed > 0)
    .sort((a, b) => Number(b.s.current) - Number(a.s.current) || b.l!.completed - a.l!.completed);
  return (
    <section
      className="rounded-md border border-slate-800 bg-slate-950/60 p-2 text-xs text-slate-300"
      aria-label={`Human baselines of level ${level + 1}`}
      data-testid="arc3-graph-baseline"
      data-studies={rows.length}
    >
      <h4 className="mb-1 font-semibold text-slate-200">
        Human baseline, level {level + 1}
        {shortest !== null && (
          <span className="font-normal text-slate-400"> · shortest solution found: {shortest} actions</span>
        )}
      </h4>
      {rows.length === 0 ? (
        <p data-testid="arc3-graph-no-baseline">
          None yet: no study in this studio has a first-time player who completed level {level + 1} of this game
          {q.data.studies.length
            ? ` (${q.data.studies.length} study result${q.data.studies.length === 1 ? '' : 's'} checked)`
            : ''}
          . Run a study with it to get one.
        </p>
      ) : (
        <ul className="flex flex-col gap-1">
          {rows.map(({ s, l }) => (
            <li key={`${s.study}\u0000${s.item}\u0000${s.version ?? ''}`} data-study={s.study}>
              <span className="text-slate-400">
                {s.title} ({s.study}, {l!.completed} of {l!.reached} first-time players completed it
                {s.current ? '' : `; recorded on ${s.version ?? 'an unnamed version'}, not the version running now`}):
              </span>{' '}
              {SHOWN_PRESETS.map(([preset, label], i) => {
                const b = l!.baselines[preset];
                return (
                  <span key={preset}>
                    {i > 0 ? ' · ' : ''}
                    {label}{' '}
                    <span className="font-semibold tabular-nums text-white" data-preset={preset}>
                      {b.value === null ? '–' : `${b.value} actions`}
                    </span>
                  </span>
                );
              })}
            </li>
          ))}
        </ul>
      )}
      <Link href={`/games/${gameId}/baselines`} className="mt-1 inline-block text-violet-300 hover:underline">
        Every level beside the reference recordings
      </Link>
    </section>
  );
}
