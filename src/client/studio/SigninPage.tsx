import { useCallback, useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { getJson } from '../api';
import { Button } from '../ui/Button';
import { type Me, setSignedIn } from './auth';

const FIELD =
  'mt-1 h-9 w-full rounded-md border border-slate-700 bg-slate-950 px-3 text-sm focus:outline-none focus:ring-2 focus:ring-sky-500';

/** What `GET /api/auth/providers` answers. */
interface Providers {
  readonly oidc: { readonly name: string; readonly start: string } | null;
}

/** Why the provider's sign-in came back refused (`/signin#oidc=<reason>`, set by the server). */
const OIDC_REFUSALS: Readonly<Record<string, string>> = {
  state: 'The sign-in with the provider expired or was not started in this browser. Try again.',
  provider: 'The provider refused the sign-in, or its answer could not be verified. Try again.',
  unreachable: 'The sign-in provider could not be reached. Try again later, or sign in with a link or a password.',
  unverified: "The provider has no verified email for you. Verify your email there, or ask the lab's owner.",
  unknown: "The lab has no account with the email the provider gave. Ask the lab's owner to add you.",
  disabled: "Your account is disabled. Ask the lab's owner.",
  'other-subject': "Your account is linked to another identity at the provider. Ask the lab's owner.",
  rate: 'Too many failed sign-ins for your email; wait 15 minutes and try again.',
};

/** Sign-in: a one-time link (`/signin#link=...`), email and password, or the lab's OpenID Connect provider. */
export function SigninPage() {
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [providers, setProviders] = useState<Providers | null>(null);

  useEffect(() => {
    getJson<Providers>('/api/auth/providers').then(setProviders, () => setProviders(null));
  }, []);

  const signIn = useCallback(
    async (url: string, body: unknown) => {
      setError(null);
      try {
        const { me } = await getJson<{ me: Me }>(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        setSignedIn(me);
        navigate('/studies', { replace: true });
      } catch (e) {
        setError((e as Error).message);
      }
    },
    [navigate],
  );

  useEffect(() => {
    const refused = /oidc=([\w-]+)/.exec(window.location.hash);
    if (refused) {
      history.replaceState(null, '', window.location.pathname);
      setError(OIDC_REFUSALS[refused[1]] ?? OIDC_REFUSALS.provider);
    }
    const m = /link=([\w-]+)/.exec(window.location.hash);
    if (m) {
      // The link works once: drop it from the address bar and history before using it.
      history.replaceState(null, '', window.location.pathname);
      void signIn('/api/auth/link', { link: m[1] });
    }
  }, [signIn]);

  return (
    <div className="flex h-full items-center justify-center p-6">
      <form
        className="w-full max-w-md rounded-xl border border-slate-800 bg-slate-900/70 p-6"
        onSubmit={(e) => {
          e.preventDefault();
          void signIn('/api/auth/password', { email: email.trim(), password });
        }}
      >
        <h1 className="text-xl font-semibold text-white">Sign in</h1>
        <p className="mt-2 text-sm text-slate-400">
          Use the sign-in link the lab&apos;s owner sent you, or your email and password.
        </p>
        {providers?.oidc && (
          <a
            href={providers.oidc.start}
            className="mt-4 flex h-9 w-full items-center justify-center rounded-md border border-slate-600 bg-slate-800 text-sm font-medium text-white hover:bg-slate-700 focus:outline-none focus:ring-2 focus:ring-sky-500"
          >
            Sign in with {providers.oidc.name}
          </a>
        )}
        <label className="mt-4 block text-sm text-slate-300" htmlFor="signin-email">
          Email
        </label>
        <input
          id="signin-email"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          className={FIELD}
        />
        <label className="mt-3 block text-sm text-slate-300" htmlFor="signin-password">
          Password
        </label>
        <input
          id="signin-password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          className={FIELD}
        />
        {error && (
          <p role="alert" className="mt-2 text-sm text-rose-300">
            {error}
          </p>
        )}
        <div className="mt-4 flex items-center justify-between gap-3">
          <Link href="/login" className="text-sm text-sky-300 underline">
            Log in with a token instead
          </Link>
          <Button tone="primary" type="submit" disabled={!email.trim() || !password}>
            Sign in
          </Button>
        </div>
      </form>
    </div>
  );
}
