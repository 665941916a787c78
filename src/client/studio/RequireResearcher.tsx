import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useResearcher } from './auth';

/** Shows its children to a logged-in researcher, and a way to log in to anyone else. */
export function RequireResearcher({ children }: { children: ReactNode }) {
  const token = useResearcher((s) => s.token);
  if (token) return <>{children}</>;
  return (
    <div className="flex h-full items-center justify-center p-6">
      <div className="max-w-md rounded-xl border border-slate-800 bg-slate-900/70 p-6 text-center">
        <p className="text-white">This page is for researchers.</p>
        <p className="mt-2 text-sm text-slate-400">
          Log in with the researcher token that the server printed when it first started.
        </p>
        <Link
          href="/login"
          className="mt-4 inline-block rounded-md bg-emerald-700 px-4 py-2 text-sm font-semibold text-white"
        >
          Log in
        </Link>
      </div>
    </div>
  );
}
