import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { GameDefinition } from '../../../core/game';
import {
  LONG_STEPS,
  SHORT_STEPS,
  type ClickPolicy,
  type RegimeReport,
  type Regime,
  type ValidationReport,
} from '../../../core/game/validate';
import { Button } from '../../ui/Button';
import { gameSolutionsQuery } from '../queries';
import { PANEL_KS } from './job';
import type { GraphDrawing, GraphSummary, Phase, ValidateReply, ValidateRequest } from './protocol';

// The drawing pulls in the graph library: loaded only when a graph is drawn.
const StateGraphView = lazy(() => import('./StateGraphView').then((m) => ({ default: m.StateGraphView })));

/** Steps of the long regime and the fuzz offered in the browser; the paper's are the last. */
const STEP_CHOICES = [10_000, 100_000, LONG_STEPS];
const STATE_CHOICES = [3_000, 20_000, 100_000];
/** The state graph's time budget in the browser. */
const GRAPH_SECONDS = 15;

const REGIMES: { id: Regime; label: string }[] = [
  { id: 'short', label: 'Short (≤ 50,000)' },
  { id: 'long', label: 'Long' },
  { id: 'fuzz', label: 'Fuzz' },
];

const PHASE_TEXT: Record<Phase, string> = {
  validate: 'Random policy',
  graph: 'Exploring the state graph',
  layout: 'Laying out the graph',
};

type Status =
  | { kind: 'idle' }
  | { kind: 'running'; phase: Phase; done: number; total: number; startedAt: number }
  | { kind: 'done'; seconds: number }
  | { kind: 'cancelled'; phase: Phase; done: number; total: number }
  | { kind: 'error'; message: string };

function group(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function formatP(p: number): string {
  if (p === 0) return '0';
  if (p === 1) return '1';
  return p >= 0.001 ? p.toFixed(4) : p.toExponential(2);
}

/**
 * The playtest page's Validate panel: the random-policy regimes and the fuzz of `games validate`
 * and the state graph of `games graph`, for one level or all, in a Web Worker, with progress and
 * Cancel; smaller budgets than the command line by default (the report says what ran).
 */
export function ValidatePanel({
  game,
  currentLevel,
}: {
  game: GameDefinition<unknown, unknown>;
  currentLevel: number;
}) {
  const [level, setLevel] = useState<number | null>(currentLevel);
  // Follows the playtest's level until the panel's own choice differs.
  const [followed, setFollowed] = useState(currentLevel);
  if (followed !== currentLevel) {
    setFollowed(currentLevel);
    setLevel(currentLevel);
  }
  const [regimes, setRegimes] = useState<readonly Regime[]>(['short', 'long', 'fuzz']);
  const [steps, setSteps] = useState(100_000);
  const [seed, setSeed] = useState(0);
  const [clicks, setClicks] = useState<ClickPolicy>('cells');
  const [withGraph, setWithGraph] = useState(true);
  const [maxStates, setMaxStates] = useState(20_000);
  const { status, report, graph, start: run, cancel } = useValidateJob();
  // The recorded solutions come from the researcher's request: the public bundle carries none.
  const recorded = useQuery(gameSolutionsQuery(game.id)).data?.levels;

  const running = status.kind === 'running';
  const graphPossible = level !== null;
  const nothingToRun = regimes.length === 0 && !(withGraph && graphPossible);

  const start = () => {
    const request: ValidateRequest = {
      type: 'run',
      gameId: game.id,
      level,
      regimes,
      steps,
      seed,
      clicks,
      recorded: level === null ? null : (recorded?.[level]?.split(',').length ?? null),
      graph: withGraph && level !== null ? { maxStates, maxSeconds: GRAPH_SECONDS } : null,
    };
    run(request);
  };

  const toggleRegime = (r: Regime, on: boolean) =>
    setRegimes((rs) =>
      on ? REGIMES.map((x) => x.id).filter((x) => x === r || rs.includes(x)) : rs.filter((x) => x !== r),
    );

  return (
    <section aria-label="Validate" data-testid="validate-panel" className="flex flex-col gap-3 text-sm">
      <p className="text-xs text-slate-400">
        A random policy plays the level as in section 3.5 of the ARC-AGI-3 paper: chance must not win a level after the
        tutorial, and the fuzz must find no crash or invalid frame. Budgets here are smaller than on the command line (
        <code className="text-slate-300">arc-studio games validate</code>).
      </p>
      <fieldset disabled={running} className="grid grid-cols-3 gap-x-2 gap-y-2 text-xs text-slate-300">
        <label className="flex flex-col gap-1">
          Level
          <select
            aria-label="Validate level"
            value={level ?? 'all'}
            onChange={(e) => setLevel(e.target.value === 'all' ? null : Number(e.target.value))}
            className="h-8 rounded-md border border-slate-700 bg-slate-950 px-1.5"
          >
            {game.levels.map((_, i) => (
              <option key={i} value={i}>
                Level {i + 1}
                {i === 0 ? ' (tutorial)' : ''}
              </option>
            ))}
            <option value="all">All levels</option>
          </select>
        </label>
        <label
          className="flex flex-col gap-1"
          title="Steps of the long regime and of the fuzz; the short regime runs at most 50,000"
        >
          Steps
          <select
            aria-label="Steps"
            value={steps}
            onChange={(e) => setSteps(Number(e.target.value))}
            className="h-8 rounded-md border border-slate-700 bg-slate-950 px-1.5"
          >
            {STEP_CHOICES.map((n) => (
              <option key={n} value={n}>
                {group(n)}
                {n === LONG_STEPS ? ' (paper)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label
          className="flex flex-col gap-1"
          title={`The state graph stops at this many states or after ${GRAPH_SECONDS} s`}
        >
          Graph states
          <select
            aria-label="Max states"
            value={maxStates}
            onChange={(e) => setMaxStates(Number(e.target.value))}
            disabled={!graphPossible || !withGraph}
            className="h-8 rounded-md border border-slate-700 bg-slate-950 px-1.5"
          >
            {STATE_CHOICES.map((n) => (
              <option key={n} value={n}>
                ≤ {group(n)}
              </option>
            ))}
          </select>
        </label>
        <div className="col-span-3 flex flex-wrap items-center gap-x-3 gap-y-1" role="group" aria-label="What to run">
          {REGIMES.map((r) => (
            <label key={r.id} className="flex items-center gap-1.5">
              <input
                type="checkbox"
                checked={regimes.includes(r.id)}
                onChange={(e) => toggleRegime(r.id, e.target.checked)}
              />
              {r.label}
            </label>
          ))}
          <label
            className="flex items-center gap-1.5"
            title={graphPossible ? undefined : 'The state graph is explored for one level: choose a level'}
          >
            <input
              type="checkbox"
              checked={withGraph && graphPossible}
              disabled={!graphPossible}
              onChange={(e) => setWithGraph(e.target.checked)}
            />
            State graph
          </label>
        </div>
        <details className="col-span-3">
          <summary className="cursor-pointer text-slate-400">
            Clicks and seed: {clicks === 'cells' ? 'random cells' : 'declared targets'}, seed {seed}
          </summary>
          <div className="mt-2 grid grid-cols-2 gap-2">
            <label className="flex flex-col gap-1">
              Clicks at
              <select
                aria-label="Clicks at"
                value={clicks}
                onChange={(e) => setClicks(e.target.value as ClickPolicy)}
                className="h-8 rounded-md border border-slate-700 bg-slate-950 px-1.5"
              >
                <option value="cells">random cells</option>
                <option value="targets">declared targets</option>
              </select>
            </label>
            <label className="flex flex-col gap-1">
              Seed
              <input
                aria-label="Seed"
                type="number"
                value={seed}
                onChange={(e) => setSeed(Math.trunc(Number(e.target.value)) || 0)}
                className="h-8 rounded-md border border-slate-700 bg-slate-950 px-1.5"
              />
            </label>
          </div>
        </details>
      </fieldset>
      <div className="flex gap-2">
        <Button
          tone="primary"
          onClick={start}
          disabled={running || nothingToRun}
          title={nothingToRun ? 'Choose a regime or the state graph' : undefined}
        >
          Validate
        </Button>
        <Button onClick={cancel} disabled={!running}>
          Cancel
        </Button>
      </div>
      <StatusLine status={status} />
      {report && <ReportView report={report.report} seconds={report.seconds} />}
      {graph && <GraphView summary={graph.summary} drawing={graph.drawing} gameId={game.id} />}
    </section>
  );
}

/**
 * A validation run on a Web Worker: its status, report and state graph as they come. `start`
 * ends any run before it; `cancel` ends the run and keeps where it had got to.
 */
function useValidateJob() {
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const [report, setReport] = useState<{ report: ValidationReport; seconds: number } | null>(null);
  const [graph, setGraph] = useState<{ summary: GraphSummary; drawing: GraphDrawing | null } | null>(null);
  const worker = useRef<Worker | null>(null);
  const progress = useRef<{ phase: Phase; done: number; total: number }>({ phase: 'validate', done: 0, total: 0 });

  useEffect(() => () => worker.current?.terminate(), []);

  const start = (request: ValidateRequest) => {
    worker.current?.terminate();
    const w = new Worker(new URL('./validate.worker.ts', import.meta.url), { type: 'module' });
    worker.current = w;
    const t0 = performance.now();
    setReport(null);
    setGraph(null);
    progress.current = { phase: 'validate', done: 0, total: 0 };
    setStatus({
      kind: 'running',
      phase: request.regimes.length ? 'validate' : 'graph',
      done: 0,
      total: 0,
      startedAt: t0,
    });
    w.onmessage = (e: MessageEvent<ValidateReply>) => {
      if (worker.current !== w) return;
      const m = e.data;
      if (m.type === 'progress') {
        progress.current = { phase: m.phase, done: m.done, total: m.total };
        setStatus({ kind: 'running', phase: m.phase, done: m.done, total: m.total, startedAt: t0 });
      } else if (m.type === 'validated') setReport({ report: m.report, seconds: m.seconds });
      else if (m.type === 'graph') setGraph({ summary: m.summary, drawing: m.drawing });
      else if (m.type === 'done') {
        setStatus({ kind: 'done', seconds: (performance.now() - t0) / 1000 });
        w.terminate();
        worker.current = null;
      } else if (m.type === 'error') {
        setStatus({ kind: 'error', message: m.message });
        w.terminate();
        worker.current = null;
      }
    };
    w.onerror = (e) => {
      if (worker.current !== w) return;
      setStatus({
        kind: 'error',
        message: `The validation worker stopped: ${e.message || 'it could not start'}. Reload the page and run again.`,
      });
      w.terminate();
      worker.current = null;
    };
    w.postMessage(request);
  };

  const cancel = () => {
    worker.current?.terminate();
    worker.current = null;
    setStatus({ kind: 'cancelled', ...progress.current });
  };

  return { status, report, graph, start, cancel };
}

function StatusLine({ status }: { status: Status }) {
  if (status.kind === 'idle') return null;
  if (status.kind === 'error')
    return (
      <p role="alert" className="text-xs text-rose-300">
        {status.message}
      </p>
    );
  if (status.kind === 'done')
    return (
      <p role="status" className="text-xs text-emerald-300" data-testid="validate-status">
        Finished in {status.seconds.toFixed(1)} s.
      </p>
    );
  if (status.kind === 'cancelled') {
    return (
      <p role="status" className="text-xs text-amber-300" data-testid="validate-status">
        Cancelled during “{PHASE_TEXT[status.phase]}” at {group(status.done)} of {group(status.total)}{' '}
        {status.phase === 'validate' ? 'steps' : 'states'}; nothing of this run is shown.
      </p>
    );
  }
  const frac = status.total > 0 ? Math.min(1, status.done / status.total) : 0;
  const unit = status.phase === 'validate' ? 'steps' : 'states';
  return (
    <div className="flex flex-col gap-1" data-testid="validate-status">
      <div className="flex justify-between text-xs text-slate-400">
        <span>{PHASE_TEXT[status.phase]}…</span>
        {status.phase !== 'layout' && (
          <span className="tabular-nums">
            {group(status.done)} / {group(status.total)} {unit}
          </span>
        )}
      </div>
      <progress
        data-testid="validate-progress"
        aria-label={PHASE_TEXT[status.phase]}
        max={status.phase === 'layout' ? undefined : 1}
        value={status.phase === 'layout' ? undefined : frac}
        data-done={status.done}
        className="h-2 w-full accent-emerald-500"
      />
    </div>
  );
}

function regimeCells(name: string, r: RegimeReport | null, judged: boolean) {
  if (!r) return null;
  return (
    <tr key={name} className="border-t border-slate-800/60">
      <td className="py-0.5 pr-2 text-slate-400">{name}</td>
      <td className="pr-2 text-right tabular-nums">{group(r.steps)}</td>
      <td className={`pr-2 text-right tabular-nums ${r.wins && judged ? 'font-semibold text-rose-300' : ''}`}>
        {group(r.wins)}
      </td>
      <td className="pr-2 text-right tabular-nums">{r.firstWin >= 0 ? group(r.firstWin) : '–'}</td>
      <td className="pr-2 text-right tabular-nums">{group(r.gameOvers)}</td>
      <td className={`text-right tabular-nums ${r.problemCount ? 'text-rose-300' : ''}`}>{group(r.problemCount)}</td>
    </tr>
  );
}

function ReportView({ report, seconds }: { report: ValidationReport; seconds: number }) {
  const s = report.steps;
  const ran = [
    s.short ? `short ${group(s.short)}` : '',
    s.long ? `long ${group(s.long)}` : '',
    s.fuzz ? `fuzz ${group(s.fuzz)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <div data-testid="validate-report" data-ok={report.ok} className="flex flex-col gap-2">
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-400">Random policy</h3>
      <p className="text-xs text-slate-400">
        Ran {group(report.totalSteps)} steps ({ran}
        {report.levels.length > 1 && s.fuzz ? ' shared by the levels' : ' per level'}) in {seconds.toFixed(1)} s, seed{' '}
        {report.seed}, clicks at {report.clicks === 'cells' ? 'random cells' : 'declared targets'}.
        {s.long < LONG_STEPS || s.short < SHORT_STEPS
          ? ` The paper's budgets are ${group(SHORT_STEPS)} and ${group(LONG_STEPS)} steps.`
          : ''}
      </p>
      <table className="w-full text-xs text-slate-200" aria-label="Validation results">
        <thead className="text-[11px] text-slate-500">
          <tr>
            <th className="text-left font-normal">regime</th>
            <th className="pr-2 text-right font-normal">steps</th>
            <th className="pr-2 text-right font-normal">wins</th>
            <th className="pr-2 text-right font-normal">first win</th>
            <th className="pr-2 text-right font-normal">GAME_OVERs</th>
            <th className="text-right font-normal">problems</th>
          </tr>
        </thead>
        {report.levels.map((l) => (
          <tbody key={l.level} data-testid={`validate-level-${l.level + 1}`}>
            <tr>
              <th colSpan={6} className="pt-2 text-left font-semibold text-slate-300">
                Level {l.level + 1}{' '}
                <span
                  className={
                    l.tutorial && l.ok ? 'font-normal text-slate-500' : l.ok ? 'text-emerald-300' : 'text-rose-300'
                  }
                  data-testid="verdict"
                >
                  {verdict(l)}
                </span>
              </th>
            </tr>
            {regimeCells('short', l.short, !l.tutorial)}
            {regimeCells('long', l.long, !l.tutorial)}
            {regimeCells('fuzz', l.fuzz, !l.tutorial)}
          </tbody>
        ))}
      </table>
      {report.problems.length > 0 && (
        <ul className="flex flex-col gap-1 text-xs text-rose-200" aria-label="Problems">
          {report.problems.map((p, i) => (
            <li key={i} className="rounded bg-rose-950/40 p-1.5">
              <span className="font-semibold">{p.kind}</span> on level {p.level + 1}, step {group(p.step)} (seed{' '}
              {p.seed}) after {p.action}: {p.message}
              {p.count > 1 ? ` (${group(p.count)} times)` : ''}
              {p.reproduce && (
                <div className="mt-0.5 break-all font-mono text-[10px] text-rose-300/80">
                  to meet it again: seed {p.reproduce.seed}, then {p.reproduce.actions || '(the start itself)'}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function verdict(l: ValidationReport['levels'][number]): string {
  const problems = (l.short?.problemCount ?? 0) + (l.long?.problemCount ?? 0) + (l.fuzz?.problemCount ?? 0);
  if (problems) return 'problems found';
  if (l.tutorial) return 'tutorial, not judged';
  return l.ok ? 'ok: no win by chance' : 'chance won it';
}

/**
 * A level's state graph: the summary, the shortest solution and the drawing. `targets` says where
 * the policy clicks when the summary says 'targets' (declared targets, sprites).
 */
export function GraphView({
  summary,
  drawing,
  gameId,
  targets = 'clicks at declared targets',
}: {
  summary: GraphSummary;
  drawing: GraphDrawing | null;
  gameId: string;
  targets?: string;
}) {
  const a = summary.analysis;
  const rows: [string, string][] = [
    [
      'states',
      `${group(a.states)}${a.complete ? ' (fully explored)' : ` (NOT fully explored: stopped by the budget of ${group(summary.maxStates)} states or ${summary.maxSeconds} s)`}`,
    ],
    ['edges', group(a.edges)],
    ['depth', String(a.depth)],
    ['dead ends', `${group(a.deadEnds)}${a.complete ? '' : ' (among expanded states)'}`],
    ['winning states', `${group(a.winningStates)} (${group(a.winningMoves)} winning moves)`],
    ['GAME_OVER states', group(a.gameOverStates)],
    [
      'shortest solution',
      a.shortest
        ? `${a.shortest.length} actions${summary.recorded !== null ? ` (recorded: ${summary.recorded}${summary.recorded > a.shortest.length ? ', longer than the shortest' : summary.recorded === a.shortest.length ? ', minimal' : ''})` : ''}`
        : a.complete
          ? 'none: the level cannot be won from its start'
          : 'none found within the budget',
    ],
  ];
  return (
    <div className="flex flex-col gap-2" data-testid="graph-summary" data-states={a.states} data-complete={a.complete}>
      <h3 className="text-xs font-semibold uppercase tracking-wide text-slate-400">
        State graph of level {summary.level + 1}
      </h3>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-slate-500">{k}</dt>
            <dd className="text-slate-200" data-testid={`graph-${k.replace(/ /g, '-').toLowerCase()}`}>
              {v}
            </dd>
          </div>
        ))}
        <dt className="text-slate-500">P(win within K)</dt>
        <dd className="text-slate-200" data-testid="graph-probabilities">
          {summary.probabilities
            ? `${summary.probabilities.map(({ k, p }) => `K=${group(k)}: ${formatP(p)}`).join(', ') || 'too costly to compute here'}${summary.probabilities.length < PANEL_KS.length && (summary.probabilities.at(-1)?.p ?? 0) < 1 ? ` (larger K: arc-studio games graph ${gameId} --level ${summary.level + 1})` : ''}`
            : `unknown: the graph was not fully explored (raise the states, or run arc-studio games graph ${gameId} --level ${summary.level + 1})`}
        </dd>
      </dl>
      {a.shortest && (
        <p className="break-all font-mono text-[10px] text-slate-500" title="The shortest solution's actions">
          {a.shortest.actions}
        </p>
      )}
      <p className="text-[11px] text-slate-500">
        Explored in {summary.seconds.toFixed(1)} s. The policy picks uniformly among the available actions except undo,{' '}
        {summary.clicks === 'none'
          ? 'never clicks (no click offered)'
          : summary.clicks === 'targets'
            ? targets
            : 'clicks at random cells'}
        , and answers GAME_OVER with a RESET.
      </p>
      {drawing ? (
        <Suspense fallback={<p className="text-xs text-slate-500">Loading the graph library…</p>}>
          <StateGraphView drawing={drawing} />
        </Suspense>
      ) : (
        <p className="rounded border border-slate-800 p-2 text-xs text-slate-400" data-testid="graph-not-drawn">
          Not drawn: {summary.notDrawn}
        </p>
      )}
    </div>
  );
}
