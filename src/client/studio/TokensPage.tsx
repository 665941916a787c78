import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Table } from '../ui/Table';
import { adminJson, useResearcher, type Me } from './auth';
import { myTokensQuery, type PersonalToken } from './queries';
import { RequireResearcher } from './RequireResearcher';
import { SignOutEverywhere } from './SignOutEverywhere';
import { tokenScopes } from './tokenScopes';

const FIELD =
  'h-9 rounded-md border border-slate-700 bg-slate-950 px-3 text-sm text-slate-100 focus:outline-none focus:ring-2 focus:ring-sky-500';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function stateOf(t: PersonalToken, now: number): string {
  if (t.revokedAt !== null) return `revoked ${day(t.revokedAt)}`;
  if (t.expiresAt !== null && t.expiresAt <= now) return `expired ${day(t.expiresAt)}`;
  return t.expiresAt === null ? 'never expires' : `until ${day(t.expiresAt)}`;
}

/**
 * My tokens: the signed-in person's personal API tokens (name, scope, expiry), a new one shown
 * once with a copy button, and revoking one after a confirmation; and signing out everywhere.
 */
export function TokensPage() {
  return (
    <RequireResearcher>
      <Tokens />
    </RequireResearcher>
  );
}

function Tokens() {
  const me = useResearcher((s) => s.me);
  const q = useQuery({ ...myTokensQuery, enabled: me !== null && me.via !== 'admin-token' });
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Me['role'] | ''>('');
  const [days, setDays] = useState('90');
  const [made, setMade] = useState<{ token: string; name: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<PersonalToken | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: myTokensQuery.queryKey });

  const create = useMutation({
    mutationFn: () =>
      adminJson<{ token: string; name: string }>('/api/me/tokens', {
        method: 'POST',
        body: JSON.stringify({
          name: name.trim(),
          ...(role ? { role } : {}),
          days: days.trim() === '' ? null : Number(days),
        }),
      }),
    onSuccess: (t) => {
      setMade({ token: t.token, name: t.name });
      setCopied(false);
      setName('');
      return refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => adminJson(`/api/me/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: refresh,
  });

  if (me?.via === 'admin-token')
    return (
      <div className="h-full overflow-y-auto p-6">
        <h1 className="text-xl font-semibold text-white">My tokens</h1>
        <p className="mt-3 max-w-xl text-sm text-slate-300">
          You are logged in with the researcher token, which is not a person and has no tokens of its own. Add yourself
          with <code className="font-mono">arc-studio users add EMAIL --role owner</code>, sign in with the link it
          prints, and make your tokens here.
        </p>
      </div>
    );
  const now = Date.now();
  const error = create.error ?? q.error;
  return (
    <div className="h-full overflow-y-auto">
      <div className="mx-auto max-w-5xl p-6">
        <h1 className="text-xl font-semibold text-white">My tokens</h1>
        <p className="mt-1 text-sm text-slate-400">
          A personal token lets a script use the API as you: send it as{' '}
          <code className="font-mono">Authorization: Bearer …</code>. Give it the narrowest role the script needs.
        </p>
        <form
          className="mt-4 flex flex-wrap items-end gap-3"
          aria-label="New token"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label className="flex flex-col gap-1 text-sm text-slate-300">
            Token name
            <input
              value={name}
              required
              maxLength={100}
              placeholder="e.g. analysis laptop"
              onChange={(e) => setName(e.target.value)}
              className={FIELD}
            />
          </label>
          <label className="flex flex-col gap-1 text-sm text-slate-300">
            Token role
            <select value={role} onChange={(e) => setRole(e.target.value as Me['role'] | '')} className={FIELD}>
              <option value="">same as mine ({me?.role})</option>
              {(me ? tokenScopes(me.role) : []).map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1 text-sm text-slate-300">
            Days valid (empty: no expiry)
            <input
              type="number"
              min={1}
              max={3650}
              value={days}
              onChange={(e) => setDays(e.target.value)}
              className={`${FIELD} w-28`}
            />
          </label>
          <Button tone="primary" type="submit" disabled={!name.trim() || create.isPending} className="h-9">
            Create token
          </Button>
        </form>
        {made && (
          <div className="mt-4 rounded-md border border-emerald-700 bg-emerald-950/50 p-3 text-sm text-slate-100">
            <p>
              Your new token &ldquo;{made.name}&rdquo;. Copy it now: it is shown only once, and the server keeps only
              its hash.
            </p>
            <div className="mt-2 flex flex-wrap items-center gap-2">
              <code data-testid="new-token" className="break-all rounded bg-slate-950 px-2 py-1 font-mono text-xs">
                {made.token}
              </code>
              <Button
                onClick={() =>
                  void navigator.clipboard.writeText(made.token).then(
                    () => setCopied(true),
                    () => setCopied(false),
                  )
                }
              >
                {copied ? 'Copied' : 'Copy token'}
              </Button>
              <Button tone="ghost" onClick={() => setMade(null)}>
                Done
              </Button>
            </div>
          </div>
        )}
        {error && (
          <p role="alert" className="mt-3 rounded-md border border-rose-700 bg-rose-950/60 p-2 text-sm text-rose-200">
            {error.message}
          </p>
        )}
        {q.data && q.data.length === 0 && <p className="mt-6 text-slate-400">You have no tokens yet.</p>}
        {q.data && q.data.length > 0 && (
          <Table
            caption="My tokens"
            className="mt-6"
            rows={q.data}
            rowKey={(t) => t.id}
            columns={[
              { header: 'Name', cell: (t) => t.name },
              { header: 'Role', cell: (t) => t.role },
              { header: 'Created', wide: true, className: 'tabular-nums', cell: (t) => day(t.createdAt) },
              { header: 'Expiry', cell: (t) => stateOf(t, now) },
              {
                header: 'Revoke',
                hideHeader: true,
                className: 'text-right',
                cell: (t) =>
                  t.revokedAt === null && (
                    <Button tone="ghost" onClick={() => setRevoking(t)} aria-label={`Revoke ${t.name}`}>
                      Revoke
                    </Button>
                  ),
              },
            ]}
          />
        )}
        {revoking && (
          <ConfirmDialog
            title={`Revoke the token “${revoking.name}”?`}
            confirmLabel="Revoke token"
            tone="danger"
            onConfirm={async () => {
              await revoke.mutateAsync(revoking.id);
            }}
            onClose={() => setRevoking(null)}
          >
            <p>Every script using it is refused from its next request. It cannot be undone; make a new one instead.</p>
          </ConfirmDialog>
        )}
        <SignOutEverywhere />
      </div>
    </div>
  );
}
