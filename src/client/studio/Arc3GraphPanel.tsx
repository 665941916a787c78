/**
 * The state graph of a server-run (arcengine) game's level on its playtest page: explored on the
 * server through the game's Python worker (`POST /api/admin/arc3/games/:id/graph`), laid out in
 * the Validate panel's Web Worker, and shown as the Validate panel shows a built-in game's.
 */
import { useEffect, useRef, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import type { GraphDrawing, GraphShape, GraphSummary } from '../../core/game/graphView';
import { ARC3_GRAPH_LIMITS, type GraphExploreBody } from '../../core/protocol/requests';
import { Button } from '../ui/Button';
import { adminJson } from './auth';
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
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const explore = useMutation({
    mutationFn: async (body: GraphExploreBody): Promise<Drawn> => {
      const r = await adminJson<{ summary: GraphSummary; shape: GraphShape | null }>(
        `/api/admin/arc3/games/${encodeURIComponent(gameId)}/graph`,
        { method: 'POST', body: JSON.stringify(body) },
      );
      return { summary: r.summary, drawing: r.shape ? await layOut(r.shape) : null };
    },
    onMutate: () => setShown(null),
    onSuccess: (d) => {
      if (alive.current) setShown(d);
    },
  });

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
        </div>
        {explore.isPending && (
          <p role="status" className="text-xs text-slate-400" data-testid="arc3-graph-status">
            Exploring level {level + 1} on the server (at most {maxStates.toLocaleString('en-US')} states or{' '}
            {GRAPH_SECONDS} s), then laying it out…
          </p>
        )}
        {explore.error && (
          <p role="alert" className="text-xs text-rose-300">
            {explore.error.message}
          </p>
        )}
        {shown && (
          <GraphView
            summary={shown.summary}
            drawing={shown.drawing}
            gameId={gameId}
            targets="clicks at the centre of a visible sprite"
          />
        )}
      </div>
    </details>
  );
}
