/**
 * The playtest page's determinism check for ARC-AGI-3 games: the server plays the open
 * playtest's actions twice, each time on a fresh run with its seed and level, and compares every
 * frame (`POST /api/admin/arc3/runs/:run/determinism`, the check `games validate` runs too). The
 * answer is "deterministic", or the first step whose frames differ with both frames drawn, and
 * why verification of such a game's sessions cannot be exact.
 */
import { useEffect, useRef, useState } from 'react';
import {
  howChecked,
  notExact,
  whereFramesDiffer,
  whichPlay,
  type DeterminismReport,
} from '../../core/game/determinism';
import { gridCells } from '../../core/game/serverGame';
import { renderFrame } from '../game/render';
import { Button } from '../ui/Button';
import { adminJson } from './auth';

/** One 64x64 frame, drawn at 2 CSS pixels a cell, named for screen readers by `label`. */
function FrameCanvas({ grid, label }: { grid: number[][]; label: string }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (ref.current) renderFrame(ref.current, gridCells(grid), 2, window.devicePixelRatio || 1);
  }, [grid]);
  return <canvas ref={ref} role="img" aria-label={label} className="grid-canvas rounded bg-slate-950" />;
}

type State =
  | { kind: 'idle' }
  | { kind: 'running' }
  | { kind: 'done'; report: DeterminismReport }
  | { kind: 'error'; message: string };

/**
 * `run` is the playtest's controller: a new one per restart or level, whose run id is read when
 * the designer asks (the panel is not drawn again on every action).
 */
export function DeterminismCheck({ run }: { run: { readonly runId: string | null } }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  // A new run (a restart, another level) has other actions: its result is not this one's.
  useEffect(() => setState({ kind: 'idle' }), [run]);
  const check = async () => {
    const runId = run.runId;
    if (!runId) {
      setState({ kind: 'error', message: 'the game has not opened yet; wait for its first frame, then ask again.' });
      return;
    }
    setState({ kind: 'running' });
    try {
      const report = await adminJson<DeterminismReport>(
        `/api/admin/arc3/runs/${encodeURIComponent(runId)}/determinism`,
        { method: 'POST', body: '{}' },
      );
      setState({ kind: 'done', report });
    } catch (e) {
      setState({ kind: 'error', message: (e as Error).message });
    }
  };
  const report = state.kind === 'done' ? state.report : null;
  return (
    <section
      className="flex flex-col gap-2 rounded-lg border border-slate-800 bg-slate-900/60 p-3 text-xs"
      aria-labelledby="determinism-title"
      data-testid="determinism"
      data-deterministic={report ? String(report.deterministic) : undefined}
    >
      <h2 id="determinism-title" className="font-semibold uppercase tracking-wide text-slate-400">
        Determinism
      </h2>
      <p className="text-slate-300">
        Plays this playtest's actions again on fresh runs with the same seed, in the same engine process and in fresh
        ones with other hash seeds, and compares every frame.
      </p>
      <Button onClick={() => void check()} disabled={state.kind === 'running'}>
        {state.kind === 'running' ? 'Playing the actions twice…' : 'Play these actions twice'}
      </Button>
      <div aria-live="polite">
        {state.kind === 'error' && (
          <p role="alert" className="text-rose-300">
            The check did not run: {state.message}
          </p>
        )}
        {report?.deterministic && (
          <p className="text-emerald-300" data-testid="determinism-result">
            Deterministic: the same {report.steps} action{report.steps === 1 ? '' : 's'}, {howChecked(report)}, gave the
            same frames at every step.
          </p>
        )}
        {report && !report.deterministic && (
          <div className="flex flex-col gap-2" data-testid="determinism-result">
            <p className="font-semibold text-amber-300">
              Not deterministic: step {report.divergence.step} ({report.divergence.action}) gave different frames{' '}
              {whichPlay(report.divergence)}.
            </p>
            <p className="text-slate-200">Where: {whereFramesDiffer(report.divergence)}.</p>
            <div className="flex flex-wrap gap-2">
              {(
                [
                  ['first', 'First play'],
                  ['second', report.divergence.process === 'fresh' ? 'Play in a fresh process' : 'Second play'],
                ] as const
              ).map(([key, name]) => (
                <figure key={key} className="flex flex-col gap-1">
                  {report.grids[key] ? (
                    <span className="relative self-start">
                      <FrameCanvas
                        grid={report.grids[key]}
                        label={`${name}, step ${report.divergence.step}, animation frame ${report.divergence.frame}`}
                      />
                      {/* The first differing cell, ringed (2 CSS pixels a cell). */}
                      {report.divergence.first && (
                        <span
                          aria-hidden
                          className="pointer-events-none absolute h-3 w-3 rounded-sm border-2 border-fuchsia-400"
                          style={{ left: report.divergence.first.x * 2 - 5, top: report.divergence.first.y * 2 - 5 }}
                        />
                      )}
                    </span>
                  ) : (
                    <span className="flex h-32 w-32 items-center justify-center rounded border border-dashed border-slate-700 text-slate-400">
                      no such frame
                    </span>
                  )}
                  <figcaption className="text-slate-300">{name}</figcaption>
                </figure>
              ))}
            </div>
            <p className="text-slate-200">{notExact(report.divergence)}</p>
          </div>
        )}
      </div>
    </section>
  );
}
