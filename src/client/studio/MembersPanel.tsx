import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Table } from '../ui/Table';
import { ApiError } from '../api';
import { adminJson } from './auth';
import { membersQuery, type StudyMember } from './queries';

const MEMBER_ROLES = ['researcher', 'proctor', 'viewer'] as const;
type MemberRole = (typeof MEMBER_ROLES)[number];

const FIELD =
  'h-9 rounded-md border border-slate-700 bg-slate-950 px-3 text-sm text-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-500';

/** The server's words, but an unknown person in the words of this page: the lab's owner adds people first. */
function problem(e: Error, email: string): string {
  if (e instanceof ApiError && e.status === 404 && /^No person has the email/.test(e.message))
    return `No one in the lab has the email ${email}. The lab's owner adds people on the People page; then add them here.`;
  return e.message;
}

const memberUrl = (studyId: string, email: string) =>
  `/api/admin/studies/${encodeURIComponent(studyId)}/members/${encodeURIComponent(email)}`;

/**
 * A study's members and their roles on it. The owner and the study's researchers add one by
 * email, change a role and remove one (after a confirmation); the server refuses anyone else,
 * and its message is shown as it is.
 */
export function MembersPanel({ studyId }: { studyId: string }) {
  const q = useQuery(membersQuery(studyId));
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('researcher');
  const [removing, setRemoving] = useState<StudyMember | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: membersQuery(studyId).queryKey });

  const put = useMutation({
    mutationFn: (m: { email: string; role: MemberRole }) =>
      adminJson(memberUrl(studyId, m.email), { method: 'PUT', body: JSON.stringify({ role: m.role }) }),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (memberEmail: string) => adminJson(memberUrl(studyId, memberEmail), { method: 'DELETE' }),
    onSuccess: refresh,
  });

  return (
    <div className="flex flex-col gap-4">
      <p className="text-xs text-slate-400">
        Members see this study as their role allows: a researcher edits, runs and exports it; a proctor runs its room; a
        viewer reads its results without participant identifiers. The lab&apos;s owner sees every study. Add people to
        the lab first on the People page.
      </p>
      <form
        className="flex flex-wrap items-end gap-3"
        aria-label="Add a member"
        onSubmit={(e) => {
          e.preventDefault();
          put.mutate({ email: email.trim(), role }, { onSuccess: () => setEmail('') });
        }}
      >
        <label className="flex flex-col gap-1 text-sm text-slate-300">
          Member&apos;s email
          <input
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            className={`${FIELD} w-72 max-w-full`}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm text-slate-300">
          Role on this study
          <select value={role} onChange={(e) => setRole(e.target.value as MemberRole)} className={FIELD}>
            {MEMBER_ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <Button tone="primary" type="submit" disabled={!email.trim() || put.isPending} className="h-9">
          Add member
        </Button>
      </form>
      {(put.isError || q.isError) && (
        <p role="alert" className="rounded-md border border-rose-700 bg-rose-950/60 p-2 text-sm text-rose-200">
          {put.error ? problem(put.error, put.variables?.email ?? '') : (q.error as Error).message}
        </p>
      )}
      {q.isPending && <p className="text-slate-400">Loading members…</p>}
      {q.data && q.data.length === 0 && <p className="text-slate-400">This study has no members yet.</p>}
      {q.data && q.data.length > 0 && (
        <Table
          caption="Members of this study"
          rows={q.data}
          rowKey={(m) => m.personId}
          columns={[
            {
              header: 'Person',
              cell: (m) => (
                <>
                  <span className="block text-slate-100">{m.name}</span>
                  <span className="block break-all text-xs text-slate-400">{m.email}</span>
                </>
              ),
            },
            {
              header: 'Role',
              cell: (m) => (
                <select
                  aria-label={`Role of ${m.email}`}
                  value={m.role}
                  disabled={put.isPending}
                  onChange={(e) => put.mutate({ email: m.email, role: e.target.value as MemberRole })}
                  className="h-8 rounded-md border border-slate-700 bg-slate-950 px-2 text-sm text-slate-100"
                >
                  {MEMBER_ROLES.map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
              ),
            },
            {
              header: 'Remove',
              hideHeader: true,
              className: 'text-right',
              cell: (m) => (
                <Button tone="ghost" onClick={() => setRemoving(m)} aria-label={`Remove ${m.email}`}>
                  Remove
                </Button>
              ),
            },
          ]}
        />
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.name} from this study?`}
          confirmLabel="Remove member"
          tone="danger"
          onConfirm={async () => {
            await remove.mutateAsync(removing.email);
          }}
          onClose={() => setRemoving(null)}
        >
          <p>
            {removing.email} loses this study at once: its results, runs and exports. Their account and their other
            studies stay. You can add them again later.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
