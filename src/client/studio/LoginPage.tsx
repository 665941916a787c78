import { useCallback, useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { getJson } from '../api';
import { Button } from '../ui/Button';
import { setResearcherToken } from './auth';

/** Researcher login: the link printed by the server (`/login#token=...`) or the token pasted. */
export function LoginPage() {
  const [, navigate] = useLocation();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);

  const tryToken = useCallback(
    async (t: string) => {
      setError(null);
      try {
        await getJson('/api/admin/studies', { headers: { Authorization: `Bearer ${t.trim()}` } });
        setResearcherToken(t.trim());
        navigate('/studies', { replace: true });
      } catch (e) {
        setError((e as Error).message);
      }
    },
    [navigate],
  );

  useEffect(() => {
    const m = /token=([^&]+)/.exec(window.location.hash);
    if (m) {
      // Drop the token from the address bar and history before anything else.
      history.replaceState(null, '', window.location.pathname);
      void tryToken(decodeURIComponent(m[1]));
    }
  }, [tryToken]);

  return (
    <div className="flex h-full items-center justify-center p-6">
      <form
        className="w-full max-w-md rounded-xl border border-slate-800 bg-slate-900/70 p-6"
        onSubmit={(e) => {
          e.preventDefault();
          void tryToken(token);
        }}
      >
        <h1 className="text-xl font-semibold text-white">Researcher login</h1>
        <p className="mt-2 text-sm text-slate-400">
          Open the login link the server printed when it started, or paste the researcher token (ARC_STUDIO_ADMIN_TOKEN,
          or the file <code className="font-mono">admin-token</code> in the data folder).
        </p>
        <label className="mt-4 block text-sm text-slate-300" htmlFor="token">
          Researcher token
        </label>
        <input
          id="token"
          type="password"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          autoComplete="off"
          className="mt-1 h-9 w-full rounded-md border border-slate-700 bg-slate-950 px-3 font-mono text-sm focus:outline-none focus:ring-2 focus:ring-sky-500"
        />
        {error && (
          <p role="alert" className="mt-2 text-sm text-rose-300">
            {error}
          </p>
        )}
        <div className="mt-4 flex justify-end">
          <Button tone="primary" type="submit" disabled={!token.trim()}>
            Log in
          </Button>
        </div>
      </form>
    </div>
  );
}
