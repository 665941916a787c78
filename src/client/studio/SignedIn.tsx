import { useEffect } from 'react';
import { Link, useLocation } from 'wouter';
import { refreshMe, signOut, useResearcher } from './auth';

/** The header's corner: who is signed in, with their role, and a way out; or a way in. */
export function SignedIn() {
  const token = useResearcher((s) => s.token);
  const me = useResearcher((s) => s.me);
  const checked = useResearcher((s) => s.checked);
  const [, navigate] = useLocation();
  useEffect(() => {
    if (!checked) void refreshMe();
  }, [checked, token]);
  if (!me)
    return (
      <Link href="/signin" className="ml-auto shrink-0 whitespace-nowrap text-sm text-slate-300 hover:text-white">
        Sign in
      </Link>
    );
  return (
    <div
      className="ml-auto flex shrink-0 items-center gap-1 whitespace-nowrap text-sm sm:gap-2"
      data-testid="signed-in"
    >
      <span className="hidden text-slate-300 sm:inline">
        {me.name} <span className="text-slate-400">({me.role})</span>
      </span>
      {me.role === 'owner' && (
        <Link href="/people" className="rounded px-2 py-1 text-slate-300 hover:bg-slate-800 hover:text-white">
          People
        </Link>
      )}
      <span className="sr-only sm:hidden">
        Signed in as {me.name} ({me.role})
      </span>
      <button
        type="button"
        className="rounded px-2 py-1 text-slate-300 hover:bg-slate-800 hover:text-white"
        onClick={() => void signOut().then(() => navigate('/signin'))}
      >
        Sign out
      </button>
    </div>
  );
}
