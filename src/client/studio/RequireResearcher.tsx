import { type ReactNode, useEffect } from 'react';
import { Link } from 'wouter';
import { refreshMe, useResearcher } from './auth';

/** Shows its children to a signed-in person (by token or by sign-in), and a way to sign in to anyone else. */
export function RequireResearcher({ children }: { children: ReactNode }) {
  const token = useResearcher((s) => s.token);
  const me = useResearcher((s) => s.me);
  const checked = useResearcher((s) => s.checked);
  useEffect(() => {
    if (!token && !checked) void refreshMe();
  }, [token, checked]);
  if (token || me) return <>{children}</>;
  if (!checked) return null;
  return (
    <div className="flex h-full items-center justify-center p-6">
      <div className="max-w-md rounded-xl border border-slate-800 bg-slate-900/70 p-6 text-center">
        <p className="text-white">This page is for the lab&apos;s people.</p>
        <p className="mt-2 text-sm text-slate-400">
          Sign in with your email and password or the sign-in link you were sent, or log in with a token.
        </p>
        <Link
          href="/signin"
          className="mt-4 inline-block rounded-md bg-emerald-700 px-4 py-2 text-sm font-semibold text-white"
        >
          Sign in
        </Link>
      </div>
    </div>
  );
}
