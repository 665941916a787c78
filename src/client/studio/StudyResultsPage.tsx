import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { RequireResearcher } from './RequireResearcher';
import { resultsQuery, type GameResult, type LevelResult, type TaskResult } from './queries';
import { DistChart, SortableTable, Stat, Tabs, formatMs, tabId, formatPct, type Column } from './widgets';
import { LevelClicks } from './Heatmap';
import { ExportsPanel } from './ExportsPanel';
import { AgentKeysPanel, AgentRunsTable } from './AgentsPanel';
import { agentRunsQuery, resultsProgressQuery, studiesQuery, studyUsageQuery } from './queries';
import { AuditLog } from './Curation';
import { QuestionResults } from './QuestionResults';
import { SurveyResults } from './SurveyResults';
import { GradingPanel } from './GradingPanel';
import { CampaignLink } from './StudiesPage';
import { MembersPanel } from './MembersPanel';
import { Participants } from './ResultsParticipants';
import { StageControl, StageSelect } from './Stages';
import { ReferenceBeside } from './ReferenceBeside';
import { MAIN_STAGE } from '../../core/study/stages';

type Tab =
  'participants' | 'tasks' | 'games' | 'questions' | 'surveys' | 'agents' | 'grading' | 'exports' | 'audit' | 'members';

/** One study's results: participants, grid tasks, game levels with baselines, questions, surveys, and exports. */
export function StudyResultsPage() {
  return (
    <RequireResearcher>
      <Results />
    </RequireResearcher>
  );
}

function Results() {
  const { studyId } = useParams<{ studyId: string }>();
  const [version, setVersion] = useState<number | null>(null);
  const [stage, setStage] = useState<string | null>(MAIN_STAGE);
  const [tab, setTab] = useState<Tab>('participants');
  const q = useQuery(resultsQuery(studyId, version, stage));
  const agents = useQuery(agentRunsQuery(studyId));
  const client = useQueryClient();
  const studies = useQuery(studiesQuery);
  const yourRole = studies.data?.find((s) => s.id === studyId)?.yourRole ?? null;
  const r = q.data;
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-7xl p-6">
        <div className="mb-1 text-sm">
          <Link href="/studies" className="text-slate-400 hover:text-white">
            Studies
          </Link>
        </div>
        <div className="mb-4 flex flex-wrap items-center gap-3">
          <h1 className="text-xl font-semibold text-white">{r?.study.title ?? studyId}</h1>
          <span className="font-mono text-xs text-slate-500">{studyId}</span>
          <label className="ml-auto flex items-center gap-2 text-sm text-slate-300">
            Version
            <select
              value={version ?? ''}
              onChange={(e) => setVersion(e.target.value === '' ? null : Number(e.target.value))}
              className="h-8 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm"
              aria-label="Study version"
            >
              <option value="">All versions</option>
              {(r?.study.versions ?? []).map((v) => (
                <option key={v} value={v}>
                  Version {v}
                </option>
              ))}
            </select>
          </label>
          <StageSelect value={stage} onChange={setStage} stages={r?.stages} />
          <CampaignLink studyId={studyId} />
          <Link
            href={`/studies/${encodeURIComponent(studyId)}/centre`}
            className="rounded-md border border-slate-600 px-3 py-1.5 text-sm text-slate-200 hover:bg-slate-800"
          >
            Testing centre
          </Link>
          <Button
            onClick={() => {
              void q.refetch();
              void agents.refetch();
              void client.invalidateQueries({ queryKey: ['admin', 'results-surveys', studyId] });
            }}
          >
            Refresh
          </Button>
        </div>
        <div className="mb-3 flex flex-wrap items-center gap-3">
          <StageControl studyId={studyId} />
        </div>
        <StorageUse studyId={studyId} />
        <Tabs<Tab>
          value={tab}
          onChange={setTab}
          panelId="results-panel"
          tabs={[
            {
              id: 'participants',
              label: `Participants${r ? ` (${r.participants.filter((p) => !p.playtest && !p.excluded).length})` : ''}`,
            },
            { id: 'tasks', label: 'Grid tasks' },
            { id: 'games', label: 'Game levels' },
            { id: 'questions', label: 'Questions' },
            { id: 'surveys', label: 'Surveys' },
            { id: 'agents', label: `Agents${agents.data ? ` (${agents.data.length})` : ''}` },
            // Grading, exports, the audit log and the members are the owner's and the study's
            // researchers' (the server refuses the others): a viewer or proctor is not shown them.
            ...(yourRole === 'owner' || yourRole === 'researcher'
              ? [
                  { id: 'grading' as const, label: 'Grading' },
                  { id: 'exports' as const, label: 'Exports' },
                  { id: 'audit' as const, label: 'Audit log' },
                  { id: 'members' as const, label: 'Members' },
                ]
              : []),
          ]}
        />
        <div className="mt-4" role="tabpanel" id="results-panel" aria-labelledby={tabId('results-panel', tab)}>
          <DigestProgress studyId={studyId} busy={q.isFetching} />
          {q.isPending && <p className="text-slate-400">Computing results…</p>}
          {q.isError && (
            <p role="alert" className="text-rose-300">
              {(q.error as Error).message}
            </p>
          )}
          {r && tab === 'participants' && <Participants results={r} />}
          {r && tab === 'tasks' && <Tasks tasks={r.tasks} />}
          {r &&
            tab === 'games' &&
            r.games.map((g) => (
              <GameLevels key={`${g.item}\u0000${g.version ?? ''}\u0000${g.allVersions}`} game={g} studyId={studyId} />
            ))}
          {r && tab === 'games' && r.games.length === 0 && <p className="text-slate-400">This study has no game.</p>}
          {tab === 'games' && <GameVersions studyId={studyId} />}
          {r && tab === 'questions' && <QuestionResults results={r} />}
          {tab === 'surveys' && <SurveyResults studyId={studyId} version={version} stage={stage} />}
          {tab === 'agents' && (
            <div className="flex flex-col gap-4">
              <p className="text-xs text-slate-400">
                Runs of agents whose scorecard carries the tag study:{studyId}, scored against this study's human
                baselines. They are never counted as participants, in the funnels or in the baselines.
              </p>
              <AgentRunsTable studyId={studyId} />
              <AgentKeysPanel studyId={studyId} />
            </div>
          )}
          {tab === 'grading' && <GradingPanel studyId={studyId} />}
          {tab === 'exports' && <ExportsPanel studyId={studyId} version={version} />}
          {tab === 'audit' && <AuditLog studyId={studyId} />}
          {tab === 'members' && <MembersPanel studyId={studyId} />}
        </div>
      </div>
    </div>
  );
}

import { Button } from '../ui/Button';

const MiB = 1024 * 1024;

/** The study's stored events and bytes against its storage budget; warns near it and says how to raise it. */
function StorageUse({ studyId }: { studyId: string }) {
  const u = useQuery(studyUsageQuery(studyId)).data;
  if (!u) return null;
  const { events, bytes, budget } = u.storage;
  const share = Math.max(events / budget.events, bytes / budget.bytes);
  const tone = share >= 1 ? 'text-rose-300' : share >= 0.8 ? 'text-amber-200' : 'text-slate-400';
  return (
    <p className={`mb-3 text-xs ${tone}`} data-testid="storage-use">
      Storage: {events.toLocaleString('en')} of {budget.events.toLocaleString('en')} events, {(bytes / MiB).toFixed(1)}{' '}
      of {(budget.bytes / MiB).toLocaleString('en', { maximumFractionDigits: 1 })} MiB ({Math.floor(share * 100)}% of
      the budget)
      {share >= 0.8 && (
        <>
          {' '}
          · {share >= 1 ? 'new events are refused' : 'nearly full'}: raise <code className="font-mono">storage</code> in
          the study's definition
        </>
      )}
    </p>
  );
}

/**
 * The versions of the study's games: those it started with (pinned by its first session that had
 * each game) beside the server's current one, and those its runs were opened on (an arcengine
 * game's id and the hash of its files).
 */
function GameVersions({ studyId }: { studyId: string }) {
  const u = useQuery(studyUsageQuery(studyId)).data;
  if (!u || (u.gameVersions.length === 0 && u.startedWith.length === 0)) return null;
  const when = (at: number) => new Date(at).toISOString().slice(0, 16).replace('T', ' ');
  return (
    <section className="mt-6" aria-labelledby="game-versions">
      <h2 id="game-versions" className="mb-2 text-sm font-semibold text-white">
        Game versions
      </h2>
      {u.startedWith.length > 0 && (
        <ul className="mb-2 flex flex-col gap-1 text-xs text-slate-300" data-testid="game-pins">
          {u.startedWith.map((p) => (
            <li key={p.gameId} data-changed={p.changed}>
              Started with <span className="font-mono text-slate-200">{p.version}</span> ({when(p.pinnedAt)} UTC);{' '}
              {p.current === null ? (
                <span className="text-amber-300">this server no longer has the game</span>
              ) : p.changed ? (
                <>
                  now <span className="font-mono text-slate-200">{p.current}</span>{' '}
                  <span className="text-amber-300">(changed)</span>
                </>
              ) : (
                'unchanged'
              )}
            </li>
          ))}
        </ul>
      )}
      {u.gameVersions.length > 0 && (
        <>
          <h3 className="mb-1 text-xs font-semibold text-slate-200">Played</h3>
          <ul className="flex flex-col gap-1 text-xs text-slate-300" data-testid="game-versions">
            {u.gameVersions.map((v) => (
              <li key={v.version}>
                <span className="font-mono text-slate-200">{v.version}</span> · {v.runs} run{v.runs === 1 ? '' : 's'} ·{' '}
                {when(v.firstAt)} to {when(v.lastAt)} UTC
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const PROGRESS_WHY = {
  results: 'for these results',
  ended: 'of sessions that just ended',
  update: 'after an update of the analysis, the tasks or the games',
} as const;

/**
 * The sessions the server is summarising for this study now (a results request on many new
 * sessions, or a background run), with a bar; nothing when there is none.
 */
function DigestProgress({ studyId, busy }: { studyId: string; busy: boolean }) {
  const p = useQuery(resultsProgressQuery(studyId, busy)).data;
  if (!p?.running || p.total === 0) return null;
  return (
    <div
      role="status"
      className="mb-3 rounded-md border border-slate-700 bg-slate-900 px-3 py-2 text-sm text-slate-300"
    >
      <div className="mb-1">
        Summarising sessions {PROGRESS_WHY[p.reason]}: {p.done.toLocaleString('en')} of {p.total.toLocaleString('en')}
      </div>
      <progress className="h-2 w-full accent-sky-500" value={p.done} max={p.total} aria-label="Sessions summarised" />
    </div>
  );
}

/** A task row's key: an edited task has a row of all versions, then one per version. */
const taskRowKey = (t: TaskResult) => `${t.item}\u0000${t.version ?? ''}\u0000${t.allVersions}`;

/** Which version of the task a row counts, when the task was played on more than one. */
function taskVersionLabel(t: TaskResult, tasks: readonly TaskResult[]): string {
  if (t.allVersions) return 'all versions';
  const split = tasks.some((x) => x.item === t.item && x.allVersions);
  return split ? `version ${t.version ?? 'not recorded'}` : '';
}

function Tasks({ tasks }: { tasks: TaskResult[] }) {
  const [open, setOpen] = useState<string | null>(tasks[0] ? taskRowKey(tasks[0]) : null);
  const columns: Column<TaskResult>[] = [
    {
      key: 'item',
      label: 'Task',
      value: (t) => `${t.item} ${taskVersionLabel(t, tasks)}`,
      render: (t) => (
        <button type="button" className="font-mono text-sky-300 hover:underline" onClick={() => setOpen(taskRowKey(t))}>
          {t.item}
          {taskVersionLabel(t, tasks) && (
            <span className="ml-1 text-xs text-slate-400">({taskVersionLabel(t, tasks)})</span>
          )}
        </button>
      ),
    },
    { key: 'attempted', label: 'Attempted', value: (t) => t.attempted, align: 'right' },
    {
      key: 'r1',
      label: 'Solved in 1',
      value: (t) => t.solveRate[0],
      render: (t) => formatPct(t.solveRate[0]),
      align: 'right',
    },
    {
      key: 'r2',
      label: 'in 2',
      value: (t) => t.solveRate[1],
      render: (t) => formatPct(t.solveRate[1]),
      align: 'right',
    },
    {
      key: 'r3',
      label: 'in 3',
      value: (t) => t.solveRate[2],
      render: (t) => formatPct(t.solveRate[2]),
      align: 'right',
    },
    {
      key: 'first',
      label: 'First action',
      value: (t) => t.timeToFirstActionMs.median,
      render: (t) => formatMs(t.timeToFirstActionMs.median),
      align: 'right',
    },
    {
      key: 'solve',
      label: 'Time to solve',
      value: (t) => t.timeToSolveMs.median,
      render: (t) => formatMs(t.timeToSolveMs.median),
      align: 'right',
    },
    {
      key: 'actions',
      label: 'Actions',
      value: (t) => t.actions.median,
      render: (t) => t.actions.median ?? '–',
      align: 'right',
    },
  ];
  const t = tasks.find((x) => taskRowKey(x) === open);
  return (
    <div className="flex flex-col gap-4">
      <p className="text-xs text-slate-400">
        Medians over participants whose attempt counts; practice items and playtests are left out.
      </p>
      <SortableTable
        label="Grid tasks"
        columns={columns}
        rows={tasks}
        rowKey={taskRowKey}
        empty="This study has no grid task."
      />
      {t && (
        <section className="flex flex-col gap-3" aria-label={`Task ${t.item} ${taskVersionLabel(t, tasks)}`.trim()}>
          <h2 className="text-lg font-semibold text-white">
            {t.item}{' '}
            <span className="font-mono text-xs text-slate-500">
              {t.collection}/{t.task}
              {taskVersionLabel(t, tasks) ? ` · ${taskVersionLabel(t, tasks)}` : ''}
            </span>
          </h2>
          <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
            <Stat
              label="Solved within 1 trial"
              value={`${formatPct(t.solveRate[0])} (${t.solvedWithin[0]}/${t.attempted})`}
            />
            <Stat
              label="Within 2 trials"
              value={`${formatPct(t.solveRate[1])} (${t.solvedWithin[1]}/${t.attempted})`}
            />
            <Stat
              label="Within 3 trials"
              value={`${formatPct(t.solveRate[2])} (${t.solvedWithin[2]}/${t.attempted})`}
            />
            <Stat label="Test inputs" value={t.tests} />
          </div>
          <div className="grid gap-3 md:grid-cols-3">
            <DistChart dist={t.timeToFirstActionMs} label="Time to first action" unit="s" scale={1000} />
            <DistChart dist={t.timeToSolveMs} label="Time to solve" unit="s" scale={1000} color="#34d399" />
            <DistChart dist={t.actions} label="Actions used" unit="actions" color="#a78bfa" />
          </div>
          <figure className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
            <figcaption className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-400">
              Tools used: participants who used each tool
            </figcaption>
            <div className="h-44">
              <ResponsiveContainer width="100%" height="100%">
                <BarChart
                  data={Object.entries(t.tools).map(([tool, n]) => ({ tool, n }))}
                  margin={{ top: 4, right: 4, bottom: 4, left: -20 }}
                >
                  <CartesianGrid stroke="#1e293b" vertical={false} />
                  <XAxis dataKey="tool" tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
                  <YAxis allowDecimals={false} tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
                  <Tooltip contentStyle={{ background: '#0f172a', border: '1px solid #334155', color: '#e2e8f0' }} />
                  <Bar dataKey="n" name="participants" fill="#fbbf24" isAnimationActive={false} />
                </BarChart>
              </ResponsiveContainer>
            </div>
          </figure>
        </section>
      )}
    </div>
  );
}

const PRESETS: { id: keyof LevelResult['baselines']; label: string; hint: string }[] = [
  {
    id: 'second-best',
    label: 'Second-best',
    hint: 'ARC-AGI-3 paper: second-fewest actions among first-time players who completed the level',
  },
  { id: 'upper-median', label: 'Upper median', hint: 'Official toolkit since April 2026' },
  { id: 'best', label: 'Best', hint: 'Fewest actions' },
  { id: 'median', label: 'Median', hint: 'Median actions' },
];

function GameLevels({ game, studyId }: { game: GameResult; studyId: string }) {
  const [level, setLevel] = useState(0);
  const lv = game.levels[level];
  const funnel = game.levels.map((l) => ({ level: `Level ${l.level}`, reached: l.reached, completed: l.completed }));
  return (
    <section
      className="mb-8 flex flex-col gap-4"
      aria-label={
        game.allVersions
          ? `Game ${game.item} all versions`
          : game.current
            ? `Game ${game.item}`
            : `Game ${game.item} ${game.version ?? ''}`
      }
    >
      <h2 className="text-lg font-semibold text-white">
        {game.title}{' '}
        <span className="font-mono text-xs text-slate-500">
          {game.allVersions ? `${game.game}, all versions` : (game.version ?? game.game)}
          {game.current || game.allVersions ? '' : ' (not the current version)'} · item {game.item} ·{' '}
          {game.participants} first-time players
          {game.otherVersion > 0 ? ` · ${game.otherVersion} logs of a version this server cannot replay` : ''}
        </span>
      </h2>
      <figure className="rounded-lg border border-slate-800 bg-slate-900/60 p-3">
        <figcaption className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-400">
          Funnel: players who reached and completed each level
        </figcaption>
        <div className="h-56" data-testid="funnel">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={funnel} margin={{ top: 4, right: 4, bottom: 4, left: -20 }}>
              <CartesianGrid stroke="#1e293b" vertical={false} />
              <XAxis dataKey="level" tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
              <YAxis allowDecimals={false} tick={{ fill: '#94a3b8', fontSize: 11 }} stroke="#334155" />
              <Tooltip contentStyle={{ background: '#0f172a', border: '1px solid #334155', color: '#e2e8f0' }} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Bar dataKey="reached" fill="#64748b" isAnimationActive={false} />
              <Bar dataKey="completed" fill="#34d399" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </div>
      </figure>
      <div className="overflow-x-auto rounded-lg border border-slate-800">
        <table className="w-full text-sm" aria-label={`Human baselines, ${game.title}`}>
          <thead className="bg-slate-900 text-xs uppercase tracking-wide text-slate-400">
            <tr>
              <th className="px-3 py-2 text-left">Level</th>
              <th className="px-3 py-2 text-right">Reached</th>
              <th className="px-3 py-2 text-right">Completed</th>
              {PRESETS.map((p) => (
                <th key={p.id} className="px-3 py-2 text-right" title={p.hint}>
                  {p.label} baseline
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {game.levels.map((l, i) => (
              <tr key={l.level} className={`border-t border-slate-800 ${i === level ? 'bg-sky-500/10' : ''}`}>
                <td className="px-3 py-2">
                  <button type="button" className="text-sky-300 hover:underline" onClick={() => setLevel(i)}>
                    Level {l.level}
                  </button>
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{l.reached}</td>
                <td className="px-3 py-2 text-right tabular-nums">{l.completed}</td>
                {PRESETS.map((p) => (
                  <td
                    key={p.id}
                    className="px-3 py-2 text-right tabular-nums"
                    data-testid={`baseline-${p.id}-${l.level}`}
                  >
                    {l.baselines[p.id].value ?? '–'}{' '}
                    <span className="text-xs text-slate-500">(n={l.baselines[p.id].completers})</span>
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ReferenceBeside gameId={game.game} title={game.title} levels={game.levels} />
      {game.version !== null && (game.current || !game.version.includes('@')) && (
        // Agents name a server-run game by its id; their runs show under the code mounted now.
        <AgentRunsTable
          studyId={studyId}
          gameId={game.version.split('@')[0]}
          title={`Agent runs on ${game.version} (not counted in the figures above)`}
        />
      )}
      {lv && (
        <div className="grid gap-3 lg:grid-cols-[auto_1fr]">
          <LevelClicks
            gameId={game.game}
            title={game.title}
            level={level}
            clicks={lv.clicks}
            gameClicks={game.levels.reduce((n, l) => n + l.clicks.reduce((m, c) => m + c[2], 0), 0)}
            studyId={studyId}
          />
          <div className="grid gap-3 md:grid-cols-2">
            <DistChart dist={lv.actions} label={`Level ${lv.level}: actions (first run)`} unit="actions" />
            <DistChart dist={lv.timeMs} label={`Level ${lv.level}: time`} unit="s" scale={1000} color="#34d399" />
            <DistChart dist={lv.resets} label={`Level ${lv.level}: level resets`} unit="resets" color="#f87171" />
            <DistChart dist={lv.undos} label={`Level ${lv.level}: undos`} unit="undos" color="#a78bfa" />
          </div>
        </div>
      )}
    </section>
  );
}
