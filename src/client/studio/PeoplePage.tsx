import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../ui/Button';
import { adminJson } from './auth';
import { RequireResearcher } from './RequireResearcher';

interface Person {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: string;
  readonly disabledAt: number | null;
}

const ROLES = ['researcher', 'designer', 'proctor', 'viewer', 'owner'] as const;
const FIELD =
  'h-9 rounded-md border border-slate-700 bg-slate-950 px-3 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500';
const peopleQuery = {
  queryKey: ['admin', 'people'],
  queryFn: () => adminJson<{ people: Person[] }>('/api/admin/people'),
};

/** The owner's People page: the lab's people, adding one (with their sign-in link), disabling one. */
export function PeoplePage() {
  return (
    <RequireResearcher>
      <People />
    </RequireResearcher>
  );
}

function People() {
  const q = useQuery(peopleQuery);
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<string>('researcher');
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const act = async (fn: () => Promise<void>) => {
    setError(null);
    try {
      await fn();
      await client.invalidateQueries({ queryKey: peopleQuery.queryKey });
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <div className="h-full overflow-y-auto p-6">
      <h1 className="text-xl font-semibold text-white">People</h1>
      <form
        className="mt-4 flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          void act(async () => {
            const made = await adminJson<{ link: string }>('/api/admin/people', {
              method: 'POST',
              body: JSON.stringify({ email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) }),
            });
            setLink(`${window.location.origin}${made.link}`);
            setEmail('');
            setName('');
          });
        }}
      >
        <label className="flex flex-col text-sm text-slate-300">
          Email
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} className={FIELD} />
        </label>
        <label className="flex flex-col text-sm text-slate-300">
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} className={FIELD} />
        </label>
        <label className="flex flex-col text-sm text-slate-300">
          Role
          <select value={role} onChange={(e) => setRole(e.target.value)} className={FIELD}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <Button tone="primary" type="submit" disabled={!email.trim()}>
          Add person
        </Button>
      </form>
      {link && (
        <p className="mt-3 break-all text-sm text-slate-200" data-testid="signin-link">
          Send them this one-time sign-in link (valid 7 days): <code className="font-mono">{link}</code>
        </p>
      )}
      {(error || q.isError) && (
        <p role="alert" className="mt-3 text-sm text-rose-300">
          {error ?? (q.error as Error).message}
        </p>
      )}
      <table className="mt-6 w-full text-left text-sm">
        <caption className="sr-only">The lab&apos;s people</caption>
        <thead className="text-slate-400">
          <tr>
            <th className="py-1">Name</th>
            <th>Email</th>
            <th>Role</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {(q.data?.people ?? []).map((p) => (
            <tr key={p.id} className="border-t border-slate-800 text-slate-200">
              <td className="py-1.5">{p.name}</td>
              <td>{p.email}</td>
              <td>{p.role}</td>
              <td>
                <Button
                  tone="ghost"
                  onClick={() =>
                    void act(() =>
                      adminJson(`/api/admin/people/${encodeURIComponent(p.email)}`, {
                        method: 'PATCH',
                        body: JSON.stringify({ disabled: p.disabledAt === null }),
                      }).then(() => undefined),
                    )
                  }
                >
                  {p.disabledAt === null ? `Disable ${p.name}` : `Enable ${p.name}`}
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
