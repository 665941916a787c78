/** The results' Participants tab: one row a session, with its state, times and curation. */
import { Link, useParams } from 'wouter';
import type { Participant, StudyResults } from './queries';
import { SortableTable, Stat, formatMs, type Column } from './widgets';
import { SessionActions } from './Curation';
import { FlagBadges } from './SignalList';

function who(p: Participant): string {
  return p.params.PROLIFIC_PID ?? p.params.workerId ?? p.params.participant ?? p.sessionId.slice(0, 8);
}

const STATE_TONE: Record<string, string> = {
  finished: 'bg-emerald-600/30 text-emerald-200',
  active: 'bg-sky-600/30 text-sky-200',
  started: 'bg-slate-600/40 text-slate-200',
  timed_out: 'bg-amber-600/30 text-amber-200',
  abandoned: 'bg-rose-600/30 text-rose-200',
  withdrawn: 'bg-violet-600/30 text-violet-200',
};

export function Participants({ results }: { results: StudyResults }) {
  const { studyId } = useParams<{ studyId: string }>();
  const rows = results.participants;
  const real = rows.filter((p) => !p.playtest && !p.excluded);
  const excluded = rows.filter((p) => p.excluded).length;
  const columns: Column<Participant>[] = [
    {
      key: 'who',
      label: 'Participant',
      value: who,
      render: (p) => (
        <span className="font-mono">
          {who(p)}
          {p.playtest && (
            <span className="ml-2 rounded bg-violet-600/30 px-1.5 py-0.5 font-sans text-xs text-violet-200">
              playtest
            </span>
          )}
          {p.excluded && (
            <span
              className="ml-2 rounded bg-amber-600/30 px-1.5 py-0.5 font-sans text-xs text-amber-100"
              title={p.excludedReason ?? undefined}
            >
              excluded
              {p.excludedReason
                ? `: ${p.excludedReason.length > 40 ? `${p.excludedReason.slice(0, 40)}…` : p.excludedReason}`
                : ''}
            </span>
          )}
        </span>
      ),
    },
    {
      key: 'state',
      label: 'State',
      value: (p) => p.state,
      render: (p) => (
        <span className={`rounded px-1.5 py-0.5 text-xs ${STATE_TONE[p.state] ?? ''}`}>
          {p.state.replace('_', ' ')}
        </span>
      ),
    },
    { key: 'version', label: 'Version', value: (p) => p.studyVersion, align: 'right' },
    // Shown when the results count more than one stage (all stages): which stage each session is in.
    ...(results.study.stage === null ? [{ key: 'stage', label: 'Stage', value: (p: Participant) => p.stage }] : []),
    {
      key: 'progress',
      label: 'Progress',
      value: (p) => p.itemsDone / Math.max(1, p.itemsTotal),
      render: (p) => (
        <span className="flex items-center gap-2">
          <span className="h-1.5 w-20 overflow-hidden rounded bg-slate-700">
            <span
              className="block h-full bg-emerald-400"
              style={{ width: `${(100 * p.itemsDone) / Math.max(1, p.itemsTotal)}%` }}
            />
          </span>
          <span className="tabular-nums text-xs text-slate-400">
            {p.itemsDone}/{p.itemsTotal}
          </span>
        </span>
      ),
    },
    {
      key: 'time',
      label: 'Time on task',
      value: (p) => p.activeMs,
      render: (p) => formatMs(p.activeMs),
      align: 'right',
    },
    { key: 'actions', label: 'Actions', value: (p) => p.actions, align: 'right' },
    {
      key: 'started',
      label: 'Started',
      value: (p) => p.createdAt,
      render: (p) => new Date(p.createdAt).toLocaleString(),
    },
    {
      key: 'flags',
      label: 'Flags',
      value: (p) => p.flags.join(','),
      render: (p) => <FlagBadges flags={p.flags} />,
    },
    {
      key: 'replay',
      label: '',
      srLabel: 'Replay',
      value: () => null,
      render: (p) => (
        <Link
          href={`/studies/${encodeURIComponent(studyId)}/sessions/${p.sessionId}`}
          className="text-sky-300 hover:underline"
        >
          Replay
        </Link>
      ),
    },
    {
      key: 'manage',
      label: '',
      srLabel: 'Manage',
      value: () => null,
      render: (p) => <SessionActions studyId={studyId} participant={p} label={`session ${who(p)}`} />,
    },
  ];
  return (
    <div className="flex flex-col gap-4">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
        <Stat label="Participants" value={real.length} />
        <Stat label="Finished" value={real.filter((p) => p.state === 'finished').length} />
        <Stat label="Active" value={real.filter((p) => p.state === 'active' || p.state === 'started').length} />
        <Stat
          label="Flagged"
          value={real.filter((p) => p.flags.length > 0).length}
          hint="Low effort, unverified game logs, repeat participants, and signals of help and low effort (in amber: reasons to look, never exclusions)"
        />
        <Stat
          label="Median time on task"
          value={formatMs(median(real.filter((p) => p.activeMs > 0).map((p) => p.activeMs)))}
          hint="Over the participants who spent any time on an item; sessions that never began are left out"
        />
      </div>
      {excluded > 0 && (
        <p className="text-xs text-slate-400">
          {excluded === 1 ? '1 excluded session is' : `${excluded} excluded sessions are`} listed below and left out of
          every figure, funnel and baseline; exports keep {excluded === 1 ? 'it' : 'them'}, marked excluded.
        </p>
      )}
      <SortableTable
        label="Participants"
        columns={columns}
        rows={rows}
        rowKey={(p) => p.sessionId}
        empty="No one has opened the study link yet."
      />
    </div>
  );
}

function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
