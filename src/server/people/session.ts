/**
 * A person's browser session: opening one (the cookies, the audit entry) for each way of signing
 * in, and the settings those ways share. Apart from the routes so that every sign-in route module
 * (password and link in `routes.ts`, OpenID Connect in `oidcRoutes.ts`) can use it.
 */
import type { Context } from 'hono';
import { hashToken, newToken } from './auth';
import type { Store, StudyStore } from '../store/types';
import type { PersonRecord } from '../store/peopleStore';
import { type Authenticator, SESSION_COOKIE, SIGNED_IN_COOKIE, csrfOf } from './credentials';
import type { OidcRelyingParty } from './oidc';

/** How long a browser stays signed in. */
export const SESSION_DAYS = 14;
/** Failed password sign-ins of one email allowed per window before it is refused for a while. */
export const SIGNIN_FAILURES_ALLOWED = 5;
export const SIGNIN_WINDOW_MS = 15 * 60_000;

export interface PeopleDeps {
  /** The lab's people, and the studies they are made members of. */
  readonly store: StudyStore & Pick<Store, 'people'>;
  readonly auth: Authenticator;
  readonly now?: () => number;
  /** The OpenID Connect provider people may sign in with; absent: none. */
  readonly oidc?: OidcRelyingParty | null;
}

/** Whether the request reached the server over HTTPS (directly, or through a proxy that says so). */
export function overHttps(c: Context): boolean {
  return (
    new URL(c.req.url).protocol === 'https:' || c.req.header('X-Forwarded-Proto')?.split(',')[0].trim() === 'https'
  );
}

/**
 * The session cookie: HttpOnly, SameSite=Lax, Secure over HTTPS. Beside it goes a cookie the page
 * may read, `arc_studio_signed_in=1`, which holds no secret and only tells the page that asking
 * `GET /api/me` is worth a request: a visitor's pages then never meet a 401.
 */
export function setSessionCookies(c: Context, value: string, maxAgeS: number): void {
  const attributes = ['Path=/', 'SameSite=Lax', `Max-Age=${maxAgeS}`, ...(overHttps(c) ? ['Secure'] : [])];
  c.header('Set-Cookie', [`${SESSION_COOKIE}=${value}`, 'HttpOnly', ...attributes].join('; '), { append: true });
  c.header('Set-Cookie', [`${SIGNED_IN_COOKIE}=${value ? '1' : ''}`, ...attributes].join('; '), { append: true });
}

/** Opens a browser session for a person: records it, sets the cookie; answers the session's token. */
export async function openSession(c: Context, deps: PeopleDeps, person: PersonRecord, how: string): Promise<string> {
  const now = (deps.now ?? Date.now)();
  const token = newToken();
  const hash = hashToken(token);
  await deps.store.people.addSession(hash, person.id, now, now + SESSION_DAYS * 86_400_000);
  await deps.store.people.recordAudit({
    studyId: null,
    actor: person.email,
    personId: person.id,
    credential: `session:${hash.slice(0, 12)}`,
    action: 'signin',
    target: person.email,
    reason: null,
    detail: { how },
    at: now,
  });
  setSessionCookies(c, token, SESSION_DAYS * 86_400);
  c.header('Cache-Control', 'no-store');
  return token;
}

/** Opens a browser session for a person: sets the cookie, answers who they are and the CSRF token. */
export async function startSession(c: Context, deps: PeopleDeps, person: PersonRecord, how: string): Promise<Response> {
  const token = await openSession(c, deps, person, how);
  return c.json({
    me: {
      id: person.id,
      email: person.email,
      name: person.name,
      role: person.role,
      personRole: person.role,
      via: 'session',
      csrf: csrfOf(token),
    },
  });
}
