/**
 * The researcher's curation of a study's data: per session "Exclude" / "Include again" and
 * "Delete" (each behind a dialog that says what happens), "Delete study", and the audit log
 * that records each of these actions (docs/api.md, "Excluding and deleting").
 */
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { DeletionResult, ExclusionResult } from '../../core/protocol/api';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { adminJson } from './auth';
import { auditQuery, type AuditEntry, type Participant } from './queries';
import { SortableTable, type Column } from './widgets';
import type { ExclusionBody, DeleteBody } from '../../core/protocol/requests';

const small = 'rounded-md border px-2 py-0.5 text-xs transition-colors';

/** "Exclude" or "Include again", and "Delete", for one session of the participants table. */
export function SessionActions({
  studyId,
  participant,
  label,
}: {
  studyId: string;
  participant: Participant;
  label: string;
}) {
  const qc = useQueryClient();
  const [open, setOpen] = useState<'exclude' | 'include' | 'delete' | null>(null);
  const id = participant.sessionId;
  const refresh = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: ['admin', 'results', studyId] }),
      qc.invalidateQueries({ queryKey: ['admin', 'audit', studyId] }),
      qc.invalidateQueries({ queryKey: ['admin', 'studies'] }),
    ]);
  const post = async (what: 'exclude' | 'include', reason: string) => {
    await adminJson<ExclusionResult>(`/api/admin/sessions/${encodeURIComponent(id)}/${what}`, {
      method: 'POST',
      body: JSON.stringify((reason ? { reason } : {}) satisfies ExclusionBody),
    });
    await refresh();
  };
  const remove = async (reason: string) => {
    await adminJson<DeletionResult>(`/api/admin/sessions/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      body: JSON.stringify({ confirm: id, ...(reason ? { reason } : {}) } satisfies DeleteBody),
    });
    await refresh();
  };
  return (
    <span className="flex flex-wrap justify-end gap-1">
      {participant.excluded ? (
        <button
          type="button"
          className={`${small} border-slate-600 bg-slate-800 text-slate-100 hover:bg-slate-700`}
          aria-label={`Include ${label} again`}
          onClick={() => setOpen('include')}
        >
          Include again
        </button>
      ) : (
        <button
          type="button"
          className={`${small} border-amber-600/60 bg-amber-900/30 text-amber-100 hover:bg-amber-900/60`}
          aria-label={`Exclude ${label}`}
          onClick={() => setOpen('exclude')}
        >
          Exclude
        </button>
      )}
      <button
        type="button"
        className={`${small} border-rose-700/70 bg-rose-950/40 text-rose-200 hover:bg-rose-900/60`}
        aria-label={`Delete ${label}`}
        onClick={() => setOpen('delete')}
      >
        Delete
      </button>
      {open === 'exclude' && (
        <ConfirmDialog
          title={`Exclude ${label}?`}
          confirmLabel="Exclude session"
          askReason
          onConfirm={(r) => post('exclude', r)}
          onClose={() => setOpen(null)}
        >
          <p>
            The session stays listed here and in every export (marked <em>excluded</em>), but counts toward no result,
            funnel or baseline. You can include it again at any time.
          </p>
        </ConfirmDialog>
      )}
      {open === 'include' && (
        <ConfirmDialog
          title={`Include ${label} again?`}
          confirmLabel="Include again"
          askReason
          onConfirm={(r) => post('include', r)}
          onClose={() => setOpen(null)}
        >
          <p>
            The session counts again in the results, funnels and baselines.
            {participant.excludedReason ? ` It was excluded because: “${participant.excludedReason}”.` : ''}
          </p>
        </ConfirmDialog>
      )}
      {open === 'delete' && (
        <ConfirmDialog
          title={`Delete ${label}?`}
          confirmLabel="Delete session"
          tone="danger"
          typeToConfirm={id}
          askReason
          onConfirm={remove}
          onClose={() => setOpen(null)}
        >
          <p>
            This deletes the session for good: its events, submissions and game runs. It leaves the results and every
            export, and the participant's link stops working for it.
          </p>
          <p className="font-semibold text-rose-200">
            It cannot be undone. To only leave it out of the results, exclude it instead.
          </p>
        </ConfirmDialog>
      )}
    </span>
  );
}

/** "Delete study", with the consequences stated and the study id typed to confirm. */
export function DeleteStudy({
  studyId,
  sessions,
  onDeleted,
}: {
  studyId: string;
  sessions: number | null;
  onDeleted: () => void;
}) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = async (reason: string) => {
    await adminJson<DeletionResult>(`/api/admin/studies/${encodeURIComponent(studyId)}`, {
      method: 'DELETE',
      body: JSON.stringify({ confirm: studyId, ...(reason ? { reason } : {}) } satisfies DeleteBody),
    });
    qc.removeQueries({ queryKey: ['admin', 'results', studyId] });
    await qc.invalidateQueries({ queryKey: ['admin'] });
    onDeleted();
  };
  return (
    <section
      aria-labelledby="danger-zone"
      className="mb-8 flex flex-col gap-2 rounded-lg border border-rose-900/70 bg-rose-950/20 p-4"
    >
      <h2 id="danger-zone" className="font-semibold text-rose-200">
        Delete this study
      </h2>
      <p className="text-sm text-slate-300">
        Deletes every version of the study and every session with its events, submissions and game runs. The audit log
        keeps a record of the deletion.
      </p>
      <div>
        <button
          type="button"
          onClick={() => setOpen(true)}
          className="rounded-md border border-rose-500 bg-rose-800 px-3 py-1.5 text-sm font-semibold text-white hover:bg-rose-700"
        >
          Delete study
        </button>
      </div>
      {open && (
        <ConfirmDialog
          title={`Delete study ${studyId}?`}
          confirmLabel="Delete study"
          tone="danger"
          typeToConfirm={studyId}
          askReason
          onConfirm={remove}
          onClose={() => setOpen(false)}
        >
          <p>
            This deletes every version of the study and{' '}
            {sessions === null ? 'all its sessions' : sessions === 1 ? 'its 1 session' : `all ${sessions} sessions`},
            with their events, submissions and game runs. Its link stops working. Export the data first if you may need
            it.
          </p>
          <p className="font-semibold text-rose-200">It cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** Named actions' labels; a write named by its route is shown as the route. */
const ACTION_LABELS: Partial<Record<AuditEntry['action'], string>> = {
  'session.exclude': 'Excluded session',
  'session.include': 'Included session again',
  'session.delete': 'Deleted session',
  'study.delete': 'Deleted study',
  'grader.add': 'Added grader',
  'grader.revoke': 'Revoked grader link',
  'grade.adjudicate': 'Set final grade',
  'study.create': 'Created study',
  'study.edit': 'Edited study',
  'export.create': 'Exported',
  'export.written': 'Export written',
  'member.put': 'Set member',
  'member.delete': 'Removed member',
  'study.stage': 'Changed stage',
  'participant.delete': "Deleted a participant's data",
};

function deletedText(e: AuditEntry): string {
  const d = (e.detail as { deleted?: Record<string, number> }).deleted;
  if (!d) return '';
  return `${d.sessions} session${d.sessions === 1 ? '' : 's'}, ${d.events} events, ${d.submissions} submissions${d.gameRuns ? `, ${d.gameRuns} game runs` : ''}`;
}

/** A grader's name for the grader actions (kept in the entry's detail), else null. */
function graderLabel(e: AuditEntry): string | null {
  return (e.action === 'grader.add' || e.action === 'grader.revoke') && typeof e.detail.label === 'string'
    ? e.detail.label
    : null;
}

function targetText(e: AuditEntry): string {
  const label = graderLabel(e);
  if (e.action === 'study.stage') return `${String(e.detail.from)} to ${String(e.detail.to)}`;
  return label === null ? e.target : `${label} (${e.target})`;
}

/** The study's audit log, newest first. */
export function AuditLog({ studyId }: { studyId: string }) {
  const q = useQuery(auditQuery(studyId));
  const columns: Column<AuditEntry>[] = [
    { key: 'at', label: 'When', value: (e) => e.at, render: (e) => new Date(e.at).toLocaleString() },
    { key: 'actor', label: 'Who', value: (e) => e.actor },
    { key: 'action', label: 'What', value: (e) => e.action, render: (e) => ACTION_LABELS[e.action] ?? e.action },
    {
      key: 'target',
      label: 'Target',
      value: targetText,
      render: (e) =>
        graderLabel(e) !== null ? (
          <span className="text-sm">
            {graderLabel(e)} <span className="break-all font-mono text-xs text-slate-500">({e.target})</span>
          </span>
        ) : (
          <span className="break-all font-mono text-xs">{targetText(e)}</span>
        ),
    },
    {
      key: 'reason',
      label: 'Reason',
      value: (e) => e.reason,
      render: (e) => e.reason ?? <span className="text-slate-500">–</span>,
    },
    {
      key: 'detail',
      label: 'Removed',
      value: deletedText,
      render: (e) => <span className="text-xs text-slate-400">{deletedText(e) || '–'}</span>,
    },
  ];
  if (q.isPending) return <p className="text-slate-400">Reading the audit log…</p>;
  if (q.isError)
    return (
      <p role="alert" className="text-rose-300">
        {(q.error as Error).message}
      </p>
    );
  return (
    <div className="flex flex-col gap-3">
      <p className="text-xs text-slate-400">
        Every exclusion, inclusion and deletion made on this study, newest first.
      </p>
      <SortableTable
        label="Audit log"
        columns={columns}
        rows={q.data}
        rowKey={(e) => String(e.id)}
        empty="No session of this study has been excluded or deleted yet."
      />
    </div>
  );
}
