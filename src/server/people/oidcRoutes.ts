/**
 * The browser's way through an OpenID Connect sign-in: `start` sends it to the provider,
 * `callback` takes the provider's answer, opens a session for the person it names and sends the
 * browser on to the studio. Both are navigations, so a refusal is a redirect to the sign-in page
 * with a reason the page explains (`/signin#oidc=<reason>`), never a page of JSON.
 */
import { type Context, Hono } from 'hono';
import { fail } from '../http';
import type { PersonRecord } from '../store/peopleStore';
import {
  OIDC_CALLBACK_PATH,
  OIDC_PENDING_COOKIE,
  OIDC_PENDING_MS,
  type OidcRefusal,
  pendingCookie,
  subjectOf,
} from './oidc';
import { type PeopleDeps, SIGNIN_FAILURES_ALLOWED, SIGNIN_WINDOW_MS, openSession, overHttps } from './session';

/** The studio's origin as the browser sees it (a proxy's `X-Forwarded-Proto` counts). */
function originOf(c: Context): string {
  const url = new URL(c.req.url);
  if (overHttps(c)) url.protocol = 'https:';
  return url.origin;
}

function pendingCookieHeader(c: Context, value: string, maxAgeS: number): string {
  // SameSite=Lax: the provider's redirect back is a top-level navigation, which carries it.
  return [
    `${OIDC_PENDING_COOKIE}=${value}`,
    'Path=/api/auth/oidc',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeS}`,
    ...(overHttps(c) ? ['Secure'] : []),
  ].join('; ');
}

/** The sign-in routes of the provider; without one configured, each says how to configure it. */
export function oidcRoutes(deps: PeopleDeps): Hono {
  const { store } = deps;
  const now = deps.now ?? Date.now;
  const api = new Hono();

  const notConfigured = (c: Context) =>
    fail(
      c,
      404,
      'not_found',
      'This server has no OpenID Connect provider. Sign in with a link or a password, or set ARC_STUDIO_OIDC_ISSUER, ARC_STUDIO_OIDC_CLIENT_ID and ARC_STUDIO_OIDC_CLIENT_SECRET (docs/deploy.md).',
    );

  api.get('/auth/oidc/start', async (c) => {
    if (!deps.oidc) return notConfigured(c);
    c.header('Cache-Control', 'no-store');
    try {
      const { url, cookie } = await deps.oidc.begin(originOf(c) + OIDC_CALLBACK_PATH);
      c.header('Set-Cookie', pendingCookieHeader(c, cookie, OIDC_PENDING_MS / 1000));
      return c.redirect(url, 302);
    } catch (e) {
      console.warn(
        `The OpenID Connect provider ${deps.oidc.config.issuer} could not be reached: ${(e as Error).message}`,
      );
      return c.redirect('/signin#oidc=unreachable', 302);
    }
  });

  api.get('/auth/oidc/callback', async (c) => {
    const rp = deps.oidc;
    if (!rp) return notConfigured(c);
    c.header('Cache-Control', 'no-store');
    // The pending sign-in is used once, whatever the answer.
    c.header('Set-Cookie', pendingCookieHeader(c, '', 0));
    const callback = new URL(originOf(c) + OIDC_CALLBACK_PATH + new URL(c.req.url).search);
    const refuse = async (why: OidcRefusal, email: string | null, person: PersonRecord | null, detail: string) => {
      const at = now();
      if (email) await store.people.addSigninFailure(email, at);
      await store.people.recordAudit({
        studyId: null,
        actor: email ?? 'unknown',
        personId: person?.id ?? null,
        credential: null,
        action: 'signin.fail',
        target: email ?? '',
        reason: null,
        detail: { how: 'oidc', why },
        at,
      });
      console.warn(
        `Failed OpenID Connect sign-in (${why}) for ${JSON.stringify((email ?? '?').slice(0, 100))}: ${detail}`,
      );
      return c.redirect(`/signin#oidc=${why}`, 302);
    };

    const answer = await rp.finish(callback, pendingCookie(c));
    if (!answer.ok) return refuse(answer.why, null, null, answer.detail);
    const { claims } = answer;
    const subject = subjectOf(claims);
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase().slice(0, 320) : null;
    // The subject names the person once linked; before that, only an email the provider verified.
    let person = await store.people.personByOidcSubject(subject);
    if (!person) {
      if (!email || claims.email_verified !== true)
        return refuse('unverified', email, null, 'the ID token has no verified email');
      person = await store.people.personByEmail(email);
      if (!person) return refuse('unknown', email, null, 'no account has this email');
      if (person.oidcSubject !== null && person.oidcSubject !== subject)
        return refuse('other-subject', email, person, 'the account is linked to another identity');
    }
    const at = now();
    if ((await store.people.countSigninFailures(person.email, at - SIGNIN_WINDOW_MS)) >= SIGNIN_FAILURES_ALLOWED)
      return refuse('rate', person.email, person, 'too many failed sign-ins');
    if (person.disabledAt !== null) return refuse('disabled', person.email, person, 'the account is disabled');
    if (person.oidcSubject === null) await store.people.updatePerson(person.id, { oidcSubject: subject });
    await openSession(c, deps, person, 'oidc');
    return c.redirect('/studies', 302);
  });

  return api;
}
