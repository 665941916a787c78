import { useEffect, useRef } from 'react';
import { Link, useLocation } from 'wouter';
import { refreshMe, signOut, useResearcher } from './auth';

/** The header's corner: who is signed in, with their role, and a way out; or a way in. */
export function SignedIn() {
  const token = useResearcher((s) => s.token);
  const me = useResearcher((s) => s.me);
  const checked = useResearcher((s) => s.checked);
  const [, navigate] = useLocation();
  const menu = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (!checked) void refreshMe();
  }, [checked, token]);
  if (!me)
    return (
      <Link href="/signin" className="ml-auto shrink-0 whitespace-nowrap text-sm text-slate-300 hover:text-white">
        Sign in
      </Link>
    );
  const item = 'block whitespace-nowrap rounded px-2 py-1 text-left text-slate-300 hover:bg-slate-800 hover:text-white';
  // The links, once for the header's row and once for the narrow screen's menu (only one of the two is shown).
  const links = (close: () => void) => (
    <>
      {me.role === 'owner' && (
        <Link href="/people" className={item} onClick={close}>
          People
        </Link>
      )}
      <Link href="/tokens" className={item} onClick={close}>
        My tokens
      </Link>
      <button
        type="button"
        className={item}
        onClick={() => {
          close();
          void signOut().then(() => navigate('/signin'));
        }}
      >
        Sign out
      </button>
    </>
  );
  return (
    <div
      className="ml-auto flex shrink-0 items-center gap-1 whitespace-nowrap text-sm sm:gap-2"
      data-testid="signed-in"
    >
      <span className="hidden whitespace-nowrap text-slate-300 lg:inline">
        {me.name} <span className="text-slate-400">({me.role})</span>
      </span>
      <div className="hidden items-center gap-2 lg:flex">{links(() => {})}</div>
      {/* A tablet's or a phone's header has no room for every link beside the studio's pages: they open from a menu. */}
      <details ref={menu} className="relative lg:hidden">
        <summary className="cursor-pointer list-none rounded px-2 py-1 text-slate-300 hover:bg-slate-800 hover:text-white focus:outline-none focus:ring-2 focus:ring-sky-500">
          Account
          <span className="sr-only">
            {' '}
            of {me.name} ({me.role})
          </span>
        </summary>
        <div className="absolute right-0 z-20 mt-2 flex w-56 flex-col whitespace-normal gap-1 rounded-md border border-slate-700 bg-slate-900 p-2 shadow-lg">
          <p className="px-2 py-1 text-slate-200">
            {me.name} <span className="text-slate-400">({me.role})</span>
          </p>
          {links(() => menu.current?.removeAttribute('open'))}
        </div>
      </details>
    </div>
  );
}
