/**
 * A campaign, live: who is playing which candidate now, every candidate against its pool's
 * target (with the inclusion rule in words), the per-level funnel of game candidates with their
 * drop-off levels flagged, versions of a revised candidate side by side, and the payments with
 * the Prolific bonus file. The view asks the server again every two seconds; nothing is reloaded.
 */
import { useMemo, useState } from 'react';
import { MAIN_STAGE } from '../../core/study/stages';
import { StageSelect } from './Stages';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { ApiError } from '../api';
import {
  campaignQuery,
  type CampaignCandidateView,
  type CampaignLevelView,
  type CampaignView,
  type CandidateStatus,
} from './queries';
import { RequireResearcher } from './RequireResearcher';
import { ProlificPanel } from './ProlificPanel';
import { SortableTable, Stat, formatMs, formatPct, type Column } from './widgets';
import { FUNNEL_COUNTS, Versions, candidateNeedText, neededText, seconds } from './CampaignVersions';
import { Payments } from './CampaignPayments';
import { CampaignSignals } from './SignalList';

export function CampaignPage() {
  return (
    <RequireResearcher>
      <Campaign />
    </RequireResearcher>
  );
}

const STATUS: Record<CandidateStatus, { label: string; tone: string; means: string }> = {
  met: {
    label: 'meets the rule',
    tone: 'bg-emerald-600/30 text-emerald-100',
    means: 'It has reached its target and is no longer drawn.',
  },
  needs_more: {
    label: 'needs more',
    tone: 'bg-sky-600/30 text-sky-100',
    means: 'Below its target: it is still drawn.',
  },
  revise: {
    label: 'revise',
    tone: 'bg-amber-600/40 text-amber-100',
    means: 'Attempted as often as the pool allows without a solve: no longer drawn. Send it back to its designer.',
  },
  never_solved: {
    label: 'never solved',
    tone: 'bg-rose-600/40 text-rose-100',
    means: 'Attempted at least its target’s worth of times and never solved; still drawn until it reaches revise.',
  },
};

const targetText = (c: CampaignCandidateView) =>
  'solves' in c.target ? `${c.solves}/${c.target.solves} solves` : `${c.attempts}/${c.target.attempts} attempts`;
const progressOf = (c: CampaignCandidateView) =>
  'solves' in c.target ? c.solves / c.target.solves : c.attempts / c.target.attempts;
const dropOffs = (c: CampaignCandidateView) => (c.levels ?? []).filter((l) => l.dropOff).map((l) => l.level);

function Campaign() {
  const { studyId } = useParams<{ studyId: string }>();
  const [stage, setStage] = useState<string | null>(MAIN_STAGE);
  const q = useQuery(campaignQuery(studyId, stage));
  const v = q.data;
  const missing = q.error instanceof ApiError && q.error.status === 404;
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto flex max-w-7xl flex-col gap-5 p-6">
        <nav className="flex gap-2 text-sm text-slate-400" aria-label="Breadcrumb">
          <Link href="/studies" className="hover:text-white">
            Studies
          </Link>
          <span aria-hidden>/</span>
          <Link href={`/studies/${encodeURIComponent(studyId)}`} className="hover:text-white">
            {studyId}
          </Link>
        </nav>
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-xl font-semibold text-white">Campaign</h1>
          <span className="font-mono text-xs text-slate-400">
            {studyId}
            {v?.campaignId ? ` · campaign ${v.campaignId}` : ''}
          </span>
          <span
            className="ml-auto flex items-center gap-2 text-xs text-slate-300"
            role="status"
            aria-live="off"
            data-testid="campaign-live"
          >
            <span className={`h-2 w-2 rounded-full ${q.isError ? 'bg-rose-400' : 'bg-emerald-400'}`} aria-hidden />
            {q.isError && v
              ? 'Not updating: the server does not answer; the figures below are the last ones.'
              : 'Live: updates every 2 seconds'}
          </span>
          <StageSelect value={stage} onChange={setStage} stages={v?.stages} />
          <Link
            href={`/studies/${encodeURIComponent(studyId)}/edit`}
            className="rounded-md border border-slate-700 px-3 py-1.5 text-sm text-slate-200 hover:bg-slate-800"
          >
            Edit the pool
          </Link>
        </div>
        {q.isPending && <p className="text-slate-400">Loading the campaign…</p>}
        {q.isError && !v && (
          <div role="alert" className="rounded-lg border border-rose-500/50 bg-rose-950/60 p-4 text-sm text-rose-100">
            {missing ? (
              <>
                This study has no campaign figures: it has no pool of candidates, or this server does not run campaigns.
                Add a pool in{' '}
                <Link href={`/studies/${encodeURIComponent(studyId)}/edit`} className="underline">
                  the study editor
                </Link>{' '}
                and save it.
              </>
            ) : (
              <>The campaign cannot be shown: {q.error.message}</>
            )}
          </div>
        )}
        {v && <CampaignBody view={v} studyId={studyId} stage={stage} />}
      </div>
    </div>
  );
}

function CampaignBody({ view, studyId, stage }: { view: CampaignView; studyId: string; stage: string | null }) {
  const cs = view.candidates;
  const count = (s: CandidateStatus) => cs.filter((c) => c.status === s).length;
  const [selected, setSelected] = useState<string | null>(null);
  const shown =
    cs.find((c) => c.id === selected) ??
    cs.find((c) => dropOffs(c).length > 0) ??
    cs.find((c) => c.kind === 'game') ??
    cs[0];
  return (
    <>
      <p
        className="rounded-md border border-slate-800 bg-slate-900/60 px-3 py-2 text-sm text-slate-200"
        data-testid="campaign-rule"
      >
        <span className="font-semibold text-white">Rule: </span>
        {view.rule}
      </p>
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4 xl:grid-cols-7" data-testid="campaign-stats">
        <Stat label="Playing now" value={view.participants.inProgress} />
        <Stat label="Finished" value={view.participants.finished} />
        <Stat label="Returned / timed out" value={`${view.participants.returned} / ${view.participants.timedOut}`} />
        <Stat label="Candidates met" value={`${count('met')} of ${cs.length}`} hint={STATUS.met.means} />
        <Stat label="Need more" value={count('needs_more')} hint={STATUS.needs_more.means} />
        <Stat label="To revise" value={count('revise')} hint={STATUS.revise.means} />
        <Stat label="Never solved" value={count('never_solved')} hint={STATUS.never_solved.means} />
        <Stat label="Participants still needed" value={neededText(view.needed)} hint={view.needed.method} />
      </div>
      <p className="text-xs text-slate-400" data-testid="campaign-estimate">
        <span className="font-semibold text-slate-300">How participants still needed is estimated: </span>
        {view.needed.method}
        {view.needed.unknown > 0 &&
          ` ${view.needed.unknown} candidate${view.needed.unknown === 1 ? '' : 's'} cannot be estimated yet; the others need at least ${view.needed.atLeast}.`}
      </p>
      <LiveSessions view={view} />
      <CampaignSignals sessions={view.signals} />
      <Candidates candidates={cs} selected={shown?.id ?? null} onSelect={setSelected} rule={view.rule} />
      {shown && <CandidateDetail candidate={shown} />}
      <Payments studyId={studyId} stage={stage} />
      <ProlificPanel studyId={studyId} />
    </>
  );
}

function LiveSessions({ view }: { view: CampaignView }) {
  const live = view.participants.live;
  const label = (id: string | null) => (id === null ? null : (view.candidates.find((c) => c.id === id)?.label ?? id));
  return (
    <section className="flex flex-col gap-2" aria-labelledby="live-title">
      <h2 id="live-title" className="font-semibold text-white">
        Playing now <span className="text-sm font-normal text-slate-400">({live.length})</span>
      </h2>
      {live.length === 0 ? (
        <p className="rounded-lg border border-slate-800 p-3 text-sm text-slate-400">Nobody is playing right now.</p>
      ) : (
        <ul className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3" aria-label="Participants playing now">
          {live.slice(0, 60).map((s) => (
            <li
              key={s.sessionId}
              className="flex items-center gap-2 rounded-lg border border-slate-800 bg-slate-900/60 px-3 py-2 text-sm"
            >
              <span className="h-2 w-2 shrink-0 rounded-full bg-emerald-400" aria-hidden />
              <span className="truncate font-mono text-slate-100">{s.participant ?? s.sessionId.slice(0, 8)}</span>
              <span className="ml-auto truncate text-xs text-slate-300">
                {s.candidate ? (
                  <>
                    on <span className="font-mono text-sky-200">{label(s.candidate)}</span>
                  </>
                ) : (
                  'between candidates'
                )}
              </span>
              <span className="shrink-0 text-xs tabular-nums text-slate-400">
                {formatMs(Math.max(0, view.generatedAt - s.startedAt))}
              </span>
            </li>
          ))}
        </ul>
      )}
      {live.length > 60 && <p className="text-xs text-slate-400">and {live.length - 60} more.</p>}
    </section>
  );
}

const input =
  'h-8 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500';

function Candidates({
  candidates,
  selected,
  onSelect,
  rule,
}: {
  candidates: readonly CampaignCandidateView[];
  selected: string | null;
  onSelect: (id: string) => void;
  rule: string;
}) {
  const [filter, setFilter] = useState('');
  const [status, setStatus] = useState<CandidateStatus | ''>('');
  const [kind, setKind] = useState<CampaignCandidateView['kind'] | ''>('');
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return candidates.filter(
      (c) =>
        (!status || c.status === status) &&
        (!kind || c.kind === kind) &&
        (!f || c.id.toLowerCase().includes(f) || c.label.toLowerCase().includes(f)),
    );
  }, [candidates, filter, status, kind]);
  const columns: Column<CampaignCandidateView>[] = [
    {
      key: 'id',
      label: 'Candidate',
      value: (c) => c.id,
      render: (c) => (
        <button type="button" className="text-left" onClick={() => onSelect(c.id)} aria-pressed={c.id === selected}>
          {/* The name holds the visible words (WCAG 2.5.3): "Details of count samples/count-objects-bar". */}
          <span className="sr-only">Details of </span>
          <span className="block whitespace-nowrap font-mono text-sky-300 hover:underline">{c.id}</span>
          {c.label !== c.id && <span className="block whitespace-nowrap text-xs text-slate-400">{c.label}</span>}
        </button>
      ),
    },
    { key: 'kind', label: 'Kind', value: (c) => c.kind },
    { key: 'drawn', label: 'Drawn', value: (c) => c.drawn, align: 'right' },
    { key: 'inProgress', label: 'Playing', value: (c) => c.inProgress, align: 'right' },
    { key: 'attempts', label: 'Attempts', value: (c) => c.attempts, align: 'right' },
    {
      key: 'target',
      label: 'Toward target',
      value: progressOf,
      render: (c) => (
        <span className="flex items-center justify-end gap-2">
          <span className="h-1.5 w-16 overflow-hidden rounded bg-slate-700" aria-hidden>
            <span className="block h-full bg-emerald-400" style={{ width: `${Math.min(100, 100 * progressOf(c))}%` }} />
          </span>
          <span className="whitespace-nowrap tabular-nums" data-testid={`target-${c.id}`}>
            {targetText(c)}
          </span>
        </span>
      ),
      align: 'right',
    },
    {
      key: 'status',
      label: 'Status',
      value: (c) => c.status,
      render: (c) => (
        <span className="flex flex-wrap items-center gap-1">
          <span
            className={`whitespace-nowrap rounded px-1.5 py-0.5 text-xs ${STATUS[c.status].tone}`}
            title={`${STATUS[c.status].means} Rule: ${rule}`}
            data-testid={`status-${c.id}`}
          >
            {STATUS[c.status].label}
          </span>
          {dropOffs(c).length > 0 && (
            <span className="whitespace-nowrap rounded border border-amber-400/60 px-1.5 py-0.5 text-xs text-amber-200">
              drop-off at level {dropOffs(c).join(', ')}
            </span>
          )}
        </span>
      ),
    },
    {
      key: 'needed',
      label: 'Still needed',
      value: (c) => (c.needed.state === 'estimated' ? c.needed.participants : c.needed.state === 'unknown' ? -1 : 0),
      render: (c) => <span data-testid={`needed-${c.id}`}>{candidateNeedText(c.needed)}</span>,
      align: 'right',
    },
    {
      key: 'time',
      label: 'Median time',
      value: (c) => c.medianSeconds,
      render: (c) => seconds(c.medianSeconds),
      align: 'right',
    },
    {
      key: 'actions',
      label: 'Median actions',
      value: (c) => c.medianActions,
      render: (c) => c.medianActions ?? '–',
      align: 'right',
    },
  ];
  return (
    <section className="flex flex-col gap-2" aria-labelledby="candidates-title">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="candidates-title" className="font-semibold text-white">
          Candidates{' '}
          <span className="text-sm font-normal text-slate-400">
            ({rows.length === candidates.length ? candidates.length : `${rows.length} of ${candidates.length}`})
          </span>
        </h2>
        <div className="ml-auto flex flex-wrap gap-2">
          <input
            type="search"
            className={`${input} w-52`}
            placeholder="Search by id or title"
            aria-label="Search candidates"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
          <select
            className={input}
            aria-label="Status"
            value={status}
            onChange={(e) => setStatus(e.target.value as CandidateStatus | '')}
          >
            <option value="">Every status</option>
            {(Object.keys(STATUS) as CandidateStatus[]).map((s) => (
              <option key={s} value={s}>
                {STATUS[s].label}
              </option>
            ))}
          </select>
          <select
            className={input}
            aria-label="Kind"
            value={kind}
            onChange={(e) => setKind(e.target.value as CampaignCandidateView['kind'] | '')}
          >
            <option value="">Every kind</option>
            <option value="task">Tasks</option>
            <option value="game">Games</option>
            <option value="question">Questions</option>
          </select>
        </div>
      </div>
      <ul className="grid gap-x-4 gap-y-1 text-xs text-slate-300 md:grid-cols-2" aria-label="What each status means">
        {(Object.keys(STATUS) as CandidateStatus[]).map((s) => (
          <li key={s}>
            <span className={`mr-1 rounded px-1.5 py-0.5 ${STATUS[s].tone}`}>{STATUS[s].label}</span> {STATUS[s].means}
          </li>
        ))}
      </ul>
      <SortableTable
        label="Candidates"
        columns={columns}
        rows={rows}
        rowKey={(c) => c.id}
        pageSize={20}
        rowClass={(c) => (c.id === selected ? 'bg-sky-500/10' : '')}
        empty={candidates.length === 0 ? 'The pool has no candidates yet.' : 'No candidate matches these filters.'}
      />
    </section>
  );
}

function CandidateDetail({ candidate: c }: { candidate: CampaignCandidateView }) {
  return (
    <section
      className="flex flex-col gap-3 rounded-lg border border-slate-800 bg-slate-900/40 p-4"
      aria-labelledby="detail-title"
    >
      <h2 id="detail-title" className="font-semibold text-white">
        <span className="font-mono">{c.id}</span>{' '}
        <span className="text-sm font-normal text-slate-400">
          {c.kind} · {c.label} · {targetText(c)} · {c.attempts} attempt{c.attempts === 1 ? '' : 's'}
        </span>
      </h2>
      {c.levels && c.levels.length > 0 ? (
        <Funnel levels={c.levels} />
      ) : (
        <p className="text-sm text-slate-400">
          {c.kind === 'game'
            ? 'No level reached yet.'
            : 'Tasks and questions have no levels: the figures of each version are below.'}
        </p>
      )}
      <Versions candidate={c} />
    </section>
  );
}

/** Reached and completed per level, as bars; a drop-off level is marked in words and colour. */
function Funnel({ levels }: { levels: readonly CampaignLevelView[] }) {
  const top = Math.max(1, ...levels.map((l) => l.reached));
  return (
    <figure className="flex flex-col gap-1">
      <figcaption className="text-xs text-slate-400">
        <span className="font-semibold uppercase tracking-wide">
          Level funnel: counted attempts that reached and completed each level, every version together
        </span>{' '}
        <span data-testid="funnel-counts">{FUNNEL_COUNTS}</span>
      </figcaption>
      <ol className="flex flex-col gap-1" aria-label="Level funnel">
        {levels.map((l) => (
          <li
            key={l.level}
            data-testid={`funnel-level-${l.level}`}
            data-drop-off={l.dropOff}
            className={`grid grid-cols-[4.5rem_1fr] items-center gap-x-3 gap-y-1 rounded px-2 py-1 text-sm lg:grid-cols-[4.5rem_1fr_30rem] ${l.dropOff ? 'border border-amber-400/70 bg-amber-500/10' : 'border border-transparent'}`}
          >
            <span className="text-slate-200">Level {l.level}</span>
            <span className="relative h-4 overflow-hidden rounded bg-slate-800" aria-hidden>
              <span
                className="absolute inset-y-0 left-0 bg-slate-500"
                style={{ width: `${(100 * l.reached) / top}%` }}
              />
              <span
                className="absolute inset-y-0 left-0 bg-emerald-400"
                style={{ width: `${(100 * l.completed) / top}%` }}
              />
            </span>
            <span className="col-span-2 flex flex-wrap items-center gap-2 text-xs tabular-nums text-slate-300 lg:col-span-1">
              {l.completed}/{l.reached} completed ({formatPct(l.reached ? l.completed / l.reached : null)}) ·{' '}
              {l.medianActions ?? '–'} actions · {seconds(l.medianSeconds)}
              {l.dropOff && (
                <span className="rounded bg-amber-500/30 px-1.5 py-0.5 font-semibold text-amber-100">
                  Drop-off: completion falls sharply here
                </span>
              )}
            </span>
          </li>
        ))}
      </ol>
    </figure>
  );
}
