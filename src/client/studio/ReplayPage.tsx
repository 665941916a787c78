import { useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import type { LogEvent } from '../../core/log/events';
import { Timeline } from '../../core/log/timeline';
import { eventsByItem, type StoredEvent } from '../../core/study/rules';
import { initialPlayer, reduce, type PlayerState } from '../../core/log/gridPlayer';
import { describeEvent } from '../../core/study/replayMarks';
import { gameRunReducer, hashFrame, renderRun, type Run } from '../../core/game';
import { decodeFrames } from '../../core/formats/frames';
import { gridCells } from '../../core/game/serverGame';
import { games } from '../../games';
import { frameScale, renderFrame } from '../game/render';
import { Button } from '../ui/Button';
import { RequireResearcher } from './RequireResearcher';
import { adminJson } from './auth';
import { sessionEventsQuery, sessionQuery } from './queries';
import { formatMs } from './widgets';
import { GridReplay, type ReplayStudy } from './GridReplay';
import { ReplayTimeline } from './ReplayTimeline';
import { FlagBadges } from './SignalList';

/** Replays of one session: any item, step by step or at 1x, 2x or 10x, with a timeline to scrub. */
export function ReplayPage() {
  return (
    <RequireResearcher>
      <Replay />
    </RequireResearcher>
  );
}

/** One item's events, as the viewer replays them (agent runs are shown as one item too). */
export interface ItemLog {
  readonly id: string;
  readonly events: LogEvent[];
  readonly practice: boolean;
}

/** The session's events per study item, as the server groups them (`eventsByItem`). */
function splitItems(events: readonly (StoredEvent & { practice?: boolean })[]): ItemLog[] {
  return [...eventsByItem(events)].map(([id, evs]) => ({
    id,
    events: evs,
    practice: !!(evs[0] as { practice?: boolean }).practice,
  }));
}

function Replay() {
  const { studyId, sessionId } = useParams<{ studyId: string; sessionId: string }>();
  const eventsQ = useQuery(sessionEventsQuery(sessionId));
  const sessionQ = useQuery(sessionQuery(sessionId));
  const items = useMemo(() => splitItems(eventsQ.data ?? []), [eventsQ.data]);
  const [selected, setSelected] = useState<string | null>(null);
  const item = items.find((i) => i.id === selected) ?? items[0];
  const s = sessionQ.data?.session;
  // Pool candidates never started: the session's time left was too short for them.
  const skipped = sessionQ.data?.summary.items.filter((x) => x.skipped) ?? [];
  return (
    <div className="flex h-full min-h-0 flex-col md:flex-row">
      <aside className="flex max-h-48 w-full shrink-0 flex-col gap-3 overflow-y-auto border-b border-slate-800 p-3 md:max-h-none md:w-64 md:border-b-0 md:border-r">
        <Link href={`/studies/${encodeURIComponent(studyId)}`} className="text-sm text-slate-400 hover:text-white">
          ← Results
        </Link>
        <div>
          <h1 className="font-mono text-sm text-white">
            {s?.params.PROLIFIC_PID ?? s?.params.workerId ?? sessionId.slice(0, 8)}
          </h1>
          {s && (
            <p className="text-xs text-slate-400">
              {s.state.replace('_', ' ')} · version {s.studyVersion} · {eventsQ.data?.length ?? 0} events
            </p>
          )}
          {s?.excludedAt != null && (
            <p className="mt-1 rounded bg-amber-600/30 px-1.5 py-0.5 text-xs text-amber-100">
              Excluded from the results{s.excludedReason ? `: ${s.excludedReason}` : ''}
            </p>
          )}
          {s && s.flags.length > 0 && (
            <p className="mt-1">
              <FlagBadges flags={s.flags} />
            </p>
          )}
        </div>
        <ul className="flex flex-col gap-1" aria-label="Items">
          {items.map((i) => {
            const summary = sessionQ.data?.summary.items.find((x) => x.id === i.id);
            return (
              <li key={i.id}>
                <button
                  type="button"
                  onClick={() => setSelected(i.id)}
                  aria-current={item?.id === i.id}
                  className={`w-full rounded-md px-2 py-1.5 text-left text-sm ${item?.id === i.id ? 'bg-slate-800 text-white' : 'text-slate-300 hover:bg-slate-900'}`}
                >
                  <span className="font-mono">{i.id}</span>
                  {i.practice && <span className="ml-1 text-xs text-amber-300">practice</span>}
                  <span className="block text-xs text-slate-500">
                    {summary
                      ? `${summary.kind} · ${summary.actions} actions · ${formatMs(summary.durationMs)}`
                      : `${i.events.length} events`}
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
        {skipped.length > 0 && (
          <ul className="flex flex-col gap-1" aria-label="Skipped: not enough time left">
            {skipped.map((x) => (
              <li
                key={x.id}
                className="rounded-md border border-dashed border-slate-700 px-2 py-1.5 text-sm text-slate-300"
                data-testid={`skipped-${x.id}`}
              >
                <span className="font-mono">{x.id}</span>
                <span className="block text-xs text-amber-200">Skipped: not enough time left</span>
              </li>
            ))}
          </ul>
        )}
        {eventsQ.isError && (
          <p role="alert" className="text-sm text-rose-300">
            {(eventsQ.error as Error).message}
          </p>
        )}
      </aside>
      <section aria-label="Replay" className="min-w-0 flex-1">
        {item ? (
          <ItemReplay
            key={item.id}
            item={item}
            sessionId={sessionId}
            study={s ? { id: s.studyId, version: s.studyVersion } : undefined}
          />
        ) : (
          <p className="p-6 text-slate-400">
            {eventsQ.isPending ? 'Loading the log…' : 'This session has no item yet.'}
          </p>
        )}
      </section>
    </div>
  );
}

/** A stored step of a server-run game, as `GET /api/admin/sessions/:id/runs` sends it (frames stand alone). */
export interface StoredStep {
  readonly step: number;
  readonly action: string;
  readonly x: number | null;
  readonly y: number | null;
  readonly state: string;
  readonly levelsCompleted: number;
  readonly winLevels: number;
  readonly frameHash: string;
  readonly frames: string;
}
export interface StoredRun {
  readonly runId: string;
  readonly item: string;
  readonly gameId: string;
  readonly engine: string;
  readonly steps: readonly StoredStep[];
}

const storedRunsQuery = (sessionId: string) =>
  queryOptions({
    queryKey: ['admin', 'runs', sessionId],
    queryFn: () =>
      adminJson<{ runs: StoredRun[] }>(`/api/admin/sessions/${encodeURIComponent(sessionId)}/runs`).then((r) => r.runs),
  });

type Viewer =
  | { kind: 'grid'; timeline: Timeline<PlayerState> }
  | { kind: 'game'; timeline: Timeline<Run<unknown> | null>; gameId: string }
  | { kind: 'server'; gameId: string }
  | { kind: 'other' };

function viewerFor(events: LogEvent[]): Viewer {
  if (events.some((e) => e.kind === 'task.open'))
    return { kind: 'grid', timeline: new Timeline(initialPlayer(), events, reduce) };
  const open = events.find((e) => e.kind === 'game.open');
  const game = open ? games[String(open.data.game)] : undefined;
  if (game)
    return {
      kind: 'game',
      timeline: new Timeline<Run<unknown> | null>(null, events, gameRunReducer(game)),
      gameId: game.id,
    };
  // A game the server ran: its frames are the stored steps of the runs the log names.
  if (open && typeof open.data.run === 'string') return { kind: 'server', gameId: String(open.data.game) };
  return { kind: 'other' };
}

/** The run and step on screen after the first `pos` events: the last `game.open` or `game.action` that names one. */
function serverPosition(events: readonly LogEvent[], pos: number): { run: string; step: number } | null {
  for (let i = pos - 1; i >= 0; i--) {
    const d = events[i].data;
    if (typeof d.run !== 'string') continue;
    if (events[i].kind === 'game.action' && typeof d.step === 'number') return { run: d.run, step: d.step };
    if (events[i].kind === 'game.open') return { run: d.run, step: -1 };
  }
  return null;
}

const SPEEDS = [1, 2, 10] as const;
/** Room under a game frame for its caption line, and around it for the view's padding, in CSS pixels. */
const CAPTION_PX = 40;
const PADDING_PX = 32;

/** The largest whole-number scale (at most 8) at which a 64x64 frame and its caption fit in the element. */
function useFitScale(ref: RefObject<HTMLElement | null>): number {
  const [scale, setScale] = useState(8);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () =>
      setScale(frameScale(el.clientWidth - PADDING_PX, el.clientHeight - PADDING_PX - CAPTION_PX, 2, 8));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return scale;
}
/** Longer pauses are shortened when playing, so idle minutes do not stall a replay. */
const MAX_GAP_MS = 3000;

/**
 * The viewer of one item's log. `runs` holds the stored frames of a server-run game when the
 * caller has them (an agent run); otherwise they are read from the session's stored runs.
 */
export function ItemReplay({
  item,
  sessionId,
  runs,
  study,
}: {
  item: ItemLog;
  sessionId: string;
  runs?: readonly StoredRun[];
  study?: ReplayStudy;
}) {
  const events = item.events;
  const viewer = useMemo(() => viewerFor(events), [events]);
  const [pos, setPos] = useState(events.length);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const t0 = events[0]?.t ?? 0;

  useEffect(() => {
    if (!playing) return;
    if (pos >= events.length) {
      setPlaying(false);
      return;
    }
    const gap = pos === 0 ? 0 : Math.min(MAX_GAP_MS, events[pos].t - events[pos - 1].t);
    const id = setTimeout(() => setPos((p) => p + 1), gap / speed);
    return () => clearTimeout(id);
  }, [playing, pos, speed, events]);

  // Registered in the commit that shows the events: an arrow pressed once they are on screen steps
  // through them, not through the empty list before them.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Inputs (the scrubber included) handle their own keys.
      const tag = (e.target as HTMLElement).tagName;
      if (tag === 'INPUT' || tag === 'SELECT') return;
      // Space on a focused button presses that button.
      if (tag === 'BUTTON' && e.key === ' ') return;
      if (e.key === 'ArrowRight') {
        e.preventDefault();
        setPos((p) => Math.min(events.length, p + 1));
      } else if (e.key === 'ArrowLeft') {
        e.preventDefault();
        setPos((p) => Math.max(0, p - 1));
      } else if (e.key === ' ') {
        e.preventDefault();
        setPlaying((x) => !x);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [events.length]);

  const current = pos > 0 ? events[pos - 1] : undefined;
  const viewRef = useRef<HTMLDivElement>(null);
  const scale = useFitScale(viewRef);

  return (
    <div className="flex h-full flex-col gap-3 p-4">
      <div
        ref={viewRef}
        className="flex min-h-0 flex-1 items-center justify-center overflow-hidden rounded-lg border border-slate-800 bg-slate-900/60 p-3"
        data-testid="replay-view"
      >
        {viewer.kind === 'grid' && <GridReplay state={viewer.timeline.at(pos)} events={events} study={study} />}
        {viewer.kind === 'game' && (
          <GameReplay
            run={viewer.timeline.at(pos)}
            scale={scale}
            pointer={
              current?.kind === 'game.action' && current.data.action === 'ACTION6'
                ? { x: Number(current.data.x), y: Number(current.data.y) }
                : null
            }
          />
        )}
        {viewer.kind === 'server' && (
          <ServerGameReplay sessionId={sessionId} at={serverPosition(events, pos)} scale={scale} given={runs} />
        )}
        {viewer.kind === 'other' && (
          <ol
            className="max-h-full w-full max-w-xl overflow-y-auto font-mono text-xs text-slate-300"
            aria-label="Events of this item"
            tabIndex={0}
          >
            {events.map((e, i) => (
              <li key={e.seq} className={`flex gap-3 px-2 py-0.5 ${i === pos - 1 ? 'bg-sky-500/20' : ''}`}>
                <span className="w-16 text-right text-slate-500">{formatMs(e.t - t0)}</span>
                <span>{e.kind}</span>
              </li>
            ))}
          </ol>
        )}
      </div>
      <div className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
        <ReplayTimeline
          events={events}
          pos={pos}
          onSeek={(p) => {
            setPlaying(false);
            setPos(p);
          }}
        />
        <input
          type="range"
          min={0}
          max={events.length}
          value={pos}
          aria-label="Replay position"
          data-testid="scrubber"
          onChange={(e) => {
            setPlaying(false);
            setPos(Number(e.target.value));
          }}
          className="w-full accent-sky-400"
        />
        <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
          <Button onClick={() => setPos((p) => Math.max(0, p - 1))}>
            <span aria-hidden>◀</span> Back one event
          </Button>
          <Button
            tone="primary"
            onClick={() => {
              if (pos >= events.length) setPos(0);
              setPlaying((x) => !x);
            }}
          >
            {playing ? 'Pause' : 'Play'}
          </Button>
          <Button onClick={() => setPos((p) => Math.min(events.length, p + 1))}>
            Forward one event <span aria-hidden>▶</span>
          </Button>
          <div className="flex gap-1" role="group" aria-label="Speed">
            {SPEEDS.map((s) => (
              <Button
                key={s}
                tone={speed === s ? 'active' : 'ghost'}
                aria-pressed={speed === s}
                onClick={() => setSpeed(s)}
              >
                {s}x
              </Button>
            ))}
          </div>
          <span className="ml-auto tabular-nums text-slate-300" data-testid="replay-position">
            {pos} / {events.length}
          </span>
          <span className="tabular-nums text-slate-400">{formatMs(current ? current.t - t0 : 0)}</span>
        </div>
        <p className="mt-1 truncate font-mono text-xs text-slate-400" data-testid="replay-event">
          {describeEvent(current)}
        </p>
      </div>
      {viewer.kind === 'server' && !runs && <VerifyRuns sessionId={sessionId} />}
    </div>
  );
}

/** The ring drawn on a replayed frame around the cell a click (ACTION6) landed on. */
function drawClickMarker(canvas: HTMLCanvasElement, at: { x: number; y: number }, scale: number, dpr: number): void {
  const ctx = canvas.getContext('2d')!;
  const k = scale * dpr;
  ctx.strokeStyle = '#f43f5e';
  ctx.lineWidth = 2 * dpr;
  ctx.beginPath();
  ctx.arc((at.x + 0.5) * k, (at.y + 0.5) * k, k * 1.4, 0, Math.PI * 2);
  ctx.stroke();
}

function GameReplay({
  run,
  pointer,
  scale,
}: {
  run: Run<unknown> | null;
  pointer: { x: number; y: number } | null;
  scale: number;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    if (!canvas || !run) return;
    const dpr = window.devicePixelRatio || 1;
    const frame = renderRun(run);
    renderFrame(canvas, frame, scale, dpr);
    canvas.dataset.level = String(run.levelsCompleted);
    canvas.dataset.frameHash = hashFrame(frame);
    if (pointer) drawClickMarker(canvas, pointer, scale, dpr);
  }, [run, pointer, scale]);
  if (!run) return <p className="text-slate-400">The game is not open yet at this point.</p>;
  return (
    <div className="flex flex-col items-center gap-2">
      <canvas
        ref={ref}
        className="grid-canvas"
        data-testid="replay-frame"
        role="img"
        aria-label="Game frame at this point"
      />
      <p className="text-sm text-slate-300">
        Level {Math.min(run.level + 1, run.game.levels.length)} / {run.game.levels.length} · {run.state} · {run.actions}{' '}
        actions in this run
      </p>
    </div>
  );
}

/**
 * A server-run game at a point of the log: the stored frame of the step the log reached (the
 * opening RESET's after `game.open`), drawn as the player saw it.
 */
function ServerGameReplay({
  sessionId,
  at,
  scale,
  given,
}: {
  sessionId: string;
  at: { run: string; step: number } | null;
  scale: number;
  given?: readonly StoredRun[];
}) {
  const q = useQuery({ ...storedRunsQuery(sessionId), enabled: !given });
  const ref = useRef<HTMLCanvasElement>(null);
  const runs = given ?? q.data;
  const run = at ? runs?.find((r) => r.runId === at.run) : undefined;
  const step = run && at ? run.steps.find((s) => s.step === Math.max(0, at.step)) : undefined;
  const frame = useMemo(() => {
    if (!run || !step) return null;
    // A step after GAME_OVER or WIN returns no frame: the one before stays on screen.
    for (let k = run.steps.indexOf(step); k >= 0; k--) {
      const frames = decodeFrames(run.steps[k].frames);
      if (frames.length) return gridCells(frames[frames.length - 1]);
    }
    return null;
  }, [run, step]);
  useEffect(() => {
    const canvas = ref.current;
    if (!canvas || !frame || !step) return;
    const dpr = window.devicePixelRatio || 1;
    renderFrame(canvas, frame, scale, dpr);
    canvas.dataset.level = String(step.levelsCompleted);
    canvas.dataset.frameHash = step.frameHash;
    canvas.dataset.step = String(step.step);
    if (step.action === 'ACTION6' && step.x !== null && step.y !== null)
      drawClickMarker(canvas, { x: step.x, y: step.y }, scale, dpr);
  }, [frame, step, scale]);
  if (!given && q.isError)
    return (
      <p role="alert" className="text-rose-300">
        {(q.error as Error).message}
      </p>
    );
  if (!given && q.isPending) return <p className="text-slate-400">Loading the stored frames…</p>;
  if (!at) return <p className="text-slate-400">The game is not open yet at this point.</p>;
  if (!run) return <p className="text-slate-400">The server stored no run {at.run} for this session.</p>;
  if (!step || !frame)
    return (
      <p className="text-slate-400">
        The server stored no step {at.step} of run {at.run}.
      </p>
    );
  return (
    <div className="flex flex-col items-center gap-2">
      <canvas
        ref={ref}
        className="grid-canvas"
        data-testid="replay-frame"
        role="img"
        aria-label="Game frame at this point"
      />
      <p className="text-sm text-slate-300">
        Level {Math.min(step.levelsCompleted + 1, step.winLevels)} / {step.winLevels} · {step.state} · step {step.step}{' '}
        of run {run.runId.slice(0, 8)} · {run.gameId} on {run.engine}
      </p>
    </div>
  );
}

interface VerifyJob {
  readonly job: string;
  readonly state: 'running' | 'done' | 'failed';
  readonly check?: { ok: boolean };
  readonly report?: string[];
  readonly error?: string;
}

/** Plays the session's stored runs again on the engine (a job on the server) and shows which steps differ. */
function VerifyRuns({ sessionId }: { sessionId: string }) {
  const [job, setJob] = useState<VerifyJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const base = `/api/admin/sessions/${encodeURIComponent(sessionId)}/runs/verify`;
  useEffect(() => {
    if (!job || job.state !== 'running') return;
    const id = setTimeout(() => {
      adminJson<VerifyJob>(`${base}/${job.job}`).then(setJob, (e: Error) => setError(e.message));
    }, 500);
    return () => clearTimeout(id);
  }, [job, base]);
  const start = () => {
    setError(null);
    setJob(null);
    adminJson<VerifyJob>(base, { method: 'POST' }).then(setJob, (e: Error) => setError(e.message));
  };
  return (
    <div className="rounded-lg border border-slate-800 bg-slate-900/60 p-3 text-sm" data-testid="verify-runs">
      <div className="flex items-center gap-3">
        <Button onClick={start} disabled={job?.state === 'running'}>
          Verify with the engine
        </Button>
        <span className="text-slate-400">
          {job?.state === 'running'
            ? 'Playing the stored runs again…'
            : job?.state === 'done'
              ? job.check?.ok
                ? 'Every stored step matches the engine.'
                : 'Some steps differ from the engine:'
              : "Plays every stored run of this session again and compares each step's frames."}
        </span>
      </div>
      {(error ?? job?.error) && (
        <p role="alert" className="mt-2 text-rose-300">
          {error ?? job?.error}
        </p>
      )}
      {job?.report && (
        <pre
          className="mt-2 max-h-48 overflow-auto whitespace-pre-wrap font-mono text-xs text-slate-300"
          tabIndex={0}
          aria-label="Verification report"
          data-testid="verify-report"
          data-ok={job.check?.ok ? 'true' : 'false'}
        >
          {job.report.join('\n')}
        </pre>
      )}
    </div>
  );
}
