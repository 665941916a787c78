/**
 * Signing in with OpenID Connect against a real provider started here (`oidcTesting.ts`): a person
 * the lab has signs in and gets a studio session; an email the lab does not have, an unverified
 * email, a disabled person, an answer that does not belong to the browser's sign-in and an ID
 * token that does not verify (another key, another client, another issuer, expired, another
 * nonce) are refused and audited.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Hono } from 'hono';
import { createApi } from '../app';
import { hashToken } from './auth';
import { TaskLibrary } from '../collections/collections';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { SESSION_COOKIE } from './credentials';
import { OIDC_CALLBACK_PATH, OIDC_PENDING_COOKIE, OidcRelyingParty, oidcConfigFromEnv } from './oidc';
import { type IdTokenForgery, type TestProvider, startTestProvider } from './oidcTesting';

const ADMIN = 'researcher-token-for-oidc-tests-0123456789';
// `app.request` answers as http://localhost; the app is mounted without its `/api` prefix here.
const ORIGIN = 'http://localhost';
const REDIRECT_URI = ORIGIN + OIDC_CALLBACK_PATH;

/** The cookies of one browser at the provider (paths ignored: the provider's are distinct by name). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Goes through the provider's login and consent pages as a browser would, signing in as `login`;
 * answers the URL the provider sends the browser back to (the studio's callback).
 */
async function throughProvider(authUrl: string, login: string): Promise<URL> {
  const jar = new Jar();
  let url = authUrl;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, Cookie: jar.header() } });
    jar.take(res);
    const location = res.headers.get('Location');
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(REDIRECT_URI)) return next;
      url = next.href;
      init = {};
      continue;
    }
    // A page with a form: the login (any password) or the consent, posted as the browser would.
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`The provider answered ${res.status} without a form:\n${html.slice(0, 500)}`);
    const form = new URLSearchParams();
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) form.set(m[1], m[2]);
    if (/name="login"/.test(html)) {
      form.set('login', login);
      form.set('password', 'any password');
    }
    url = new URL(action, url).href;
    init = { method: 'POST', body: form, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('The provider did not send the browser back within 20 steps.');
}

describe('OpenID Connect configuration', () => {
  it('is off without an issuer, complete with one, and refuses what cannot work', () => {
    expect(oidcConfigFromEnv({})).toBeNull();
    expect(
      oidcConfigFromEnv({
        ARC_STUDIO_OIDC_ISSUER: 'https://id.lab.org',
        ARC_STUDIO_OIDC_CLIENT_ID: 'studio',
        ARC_STUDIO_OIDC_CLIENT_SECRET: 's',
      }),
    ).toEqual({ issuer: 'https://id.lab.org', clientId: 'studio', clientSecret: 's', name: 'id.lab.org' });
    expect(() => oidcConfigFromEnv({ ARC_STUDIO_OIDC_ISSUER: 'https://id.lab.org' })).toThrow(/CLIENT_ID/);
    expect(() =>
      oidcConfigFromEnv({
        ARC_STUDIO_OIDC_ISSUER: 'http://id.lab.org',
        ARC_STUDIO_OIDC_CLIENT_ID: 'studio',
        ARC_STUDIO_OIDC_CLIENT_SECRET: 's',
      }),
    ).toThrow(/HTTPS/);
  });
});

describe.each(backends)('OpenID Connect sign-in ($name)', (backend) => {
  let store: Store;
  let app: Hono;
  let plain: Hono;
  let provider: TestProvider;

  beforeAll(async () => {
    store = await backend.open();
    provider = await startTestProvider({ unverified: ['una@lab.org'] });
    provider.attach(REDIRECT_URI);
    const library = new TaskLibrary();
    const make = (oidc: OidcRelyingParty | null) =>
      createApi({
        library,
        version: 'test',
        study: { store, adminTokenHash: hashToken(ADMIN), replay: null, games: null },
        oidc,
      });
    app = make(new OidcRelyingParty(provider.config));
    plain = make(null);
    for (const [email, role] of [
      ['rae@lab.org', 'researcher'],
      ['una@lab.org', 'viewer'],
      ['dis@lab.org', 'viewer'],
    ])
      expect((await adminPost('/admin/people', { email, role })).status).toBe(201);
    expect((await adminPatch('/admin/people/dis@lab.org', { disabled: true })).status).toBe(200);
  });
  afterAll(async () => {
    await provider?.close();
    await store?.close();
  });

  const adminPost = (url: string, body: unknown) =>
    app.request(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const adminPatch = (url: string, body: unknown) =>
    app.request(url, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const cookieIn = (res: Response, name: string) =>
    res.headers
      .getSetCookie()
      .map((l) => l.split(';')[0])
      .find((p) => p.startsWith(`${name}=`))
      ?.slice(name.length + 1) ?? null;

  /** Starts a sign-in as the studio's sign-in button does; answers the provider's URL and the pending cookie. */
  const start = async () => {
    const res = await app.request('/auth/oidc/start');
    expect(res.status).toBe(302);
    const pending = cookieIn(res, OIDC_PENDING_COOKIE);
    expect(pending).toBeTruthy();
    const to = new URL(res.headers.get('Location')!);
    expect(to.origin).toBe(provider.config.issuer);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
    return { authUrl: to.href, pending: pending! };
  };
  /** The provider's answer brought back to the studio with the pending cookie. */
  const callback = (back: URL, pending: string | null) =>
    app.request(back.pathname.replace(/^\/api/, '') + back.search, {
      headers: pending ? { Cookie: `${OIDC_PENDING_COOKIE}=${pending}` } : {},
    });
  const lastAudit = async () => (await store.people.listAudit({ limit: 1 }))[0];

  it('names the provider for the sign-in page, and says how to configure one when there is none', async () => {
    expect(await (await app.request('/auth/providers')).json()).toMatchObject({
      oidc: { name: 'Test Provider', start: '/api/auth/oidc/start' },
    });
    expect(await (await plain.request('/auth/providers')).json()).toMatchObject({ oidc: null });
    const none = await plain.request('/auth/oidc/start');
    expect(none.status).toBe(404);
    expect(await none.text()).toMatch(/ARC_STUDIO_OIDC_ISSUER/);
  });

  it('signs a person the lab has in, with the same session cookie as a password, and links their subject', async () => {
    const { authUrl, pending } = await start();
    const back = await throughProvider(authUrl, 'rae@lab.org');
    const res = await callback(back, pending);
    expect(res.status).toBe(302);
    expect(res.headers.get('Location')).toBe('/studies');
    const session = cookieIn(res, SESSION_COOKIE);
    expect(session).toBeTruthy();
    expect(cookieIn(res, OIDC_PENDING_COOKIE)).toBe('');
    const me = await app.request('/me', { headers: { Cookie: `${SESSION_COOKIE}=${session}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'rae@lab.org', role: 'researcher', via: 'session' });
    const person = await store.people.personByEmail('rae@lab.org');
    expect(person?.oidcSubject).toBe(`${provider.config.issuer} rae@lab.org`);
    expect(await lastAudit()).toMatchObject({ action: 'signin', actor: 'rae@lab.org', detail: { how: 'oidc' } });

    // The provider's answer works once: its code is spent and the pending sign-in is gone.
    const again = await callback(back, pending);
    expect(again.headers.get('Location')).toBe('/signin#oidc=provider');
    expect(cookieIn(again, SESSION_COOKIE)).toBeNull();
  });

  it('refuses an email the lab does not have, an unverified email and a disabled person, and audits each', async () => {
    for (const [login, why] of [
      ['stranger@elsewhere.org', 'unknown'],
      ['una@lab.org', 'unverified'],
      ['dis@lab.org', 'disabled'],
    ]) {
      const { authUrl, pending } = await start();
      const res = await callback(await throughProvider(authUrl, login), pending);
      expect(res.status).toBe(302);
      expect(res.headers.get('Location')).toBe(`/signin#oidc=${why}`);
      expect(cookieIn(res, SESSION_COOKIE)).toBeNull();
      expect(await lastAudit()).toMatchObject({ action: 'signin.fail', detail: { how: 'oidc', why } });
    }
    expect((await store.people.personByEmail('dis@lab.org'))?.oidcSubject).toBeNull();
  });

  it('sends the browser back to the sign-in page when the provider cannot be reached', async () => {
    // A port nothing listens on: the provider is away.
    const away = createApi({
      library: new TaskLibrary(),
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: null, games: null },
      oidc: new OidcRelyingParty({ ...provider.config, issuer: 'http://127.0.0.1:1' }),
    });
    const res = await away.request('/auth/oidc/start');
    expect(res.status).toBe(302);
    expect(res.headers.get('Location')).toBe('/signin#oidc=unreachable');
    expect(cookieIn(res, OIDC_PENDING_COOKIE)).toBeNull();
  });

  it('refuses an ID token signed by another key, for another client, from another issuer, expired, or with another nonce', async () => {
    const signIn = async (forgery: IdTokenForgery) => {
      provider.forgeIdToken(forgery);
      try {
        const { authUrl, pending } = await start();
        return await callback(await throughProvider(authUrl, 'rae@lab.org'), pending);
      } finally {
        provider.forgeIdToken(null);
      }
    };
    // The token re-signed as issued is accepted: a refusal below is the changed part's.
    const same = await signIn({ signer: 'provider', claims: (c) => c });
    expect(same.headers.get('Location')).toBe('/studies');
    expect(cookieIn(same, SESSION_COOKIE)).toBeTruthy();

    const cases: [string, IdTokenForgery, RegExp][] = [
      ['another key', { signer: 'stranger', claims: (c) => c }, /signature/i],
      ['another client', { signer: 'provider', claims: (c) => ({ ...c, aud: 'another-client' }) }, /"aud"/],
      ['another issuer', { signer: 'provider', claims: (c) => ({ ...c, iss: 'https://id.elsewhere.org' }) }, /"iss"/],
      [
        'expired',
        { signer: 'provider', claims: (c) => ({ ...c, iat: Number(c.iat) - 7_200, exp: Number(c.iat) - 3_600 }) },
        /"exp"/,
      ],
      [
        'another nonce',
        { signer: 'provider', claims: (c) => ({ ...c, nonce: 'a-nonce-of-another-sign-in' }) },
        /"nonce"/,
      ],
    ];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      for (const [label, forgery, why] of cases) {
        warn.mockClear();
        const res = await signIn(forgery);
        expect(res.status, label).toBe(302);
        expect(res.headers.get('Location'), label).toBe('/signin#oidc=provider');
        expect(cookieIn(res, SESSION_COOKIE), label).toBeNull();
        expect(await lastAudit(), label).toMatchObject({
          action: 'signin.fail',
          detail: { how: 'oidc', why: 'provider' },
        });
        // The server's log says which check refused it.
        expect(warn.mock.calls.map((a) => String(a[0])).join('\n'), label).toMatch(why);
      }
    } finally {
      warn.mockRestore();
    }
  });

  it("refuses an answer whose state is not the browser's, or that comes without a sign-in in progress", async () => {
    const first = await start();
    const second = await start();
    // The provider's answer to the first sign-in, brought back by a browser that started the second.
    const back = await throughProvider(first.authUrl, 'rae@lab.org');
    const crossed = await callback(back, second.pending);
    expect(crossed.headers.get('Location')).toBe('/signin#oidc=state');
    expect(cookieIn(crossed, SESSION_COOKIE)).toBeNull();
    expect(await lastAudit()).toMatchObject({ action: 'signin.fail', detail: { how: 'oidc', why: 'state' } });

    const tampered = back.href.replace(/state=[^&]+/, 'state=forged');
    expect((await callback(new URL(tampered), first.pending)).headers.get('Location')).toBe('/signin#oidc=state');
    expect((await callback(back, null)).headers.get('Location')).toBe('/signin#oidc=state');
    const forged = `${first.pending.split('.')[0]}.${'A'.repeat(43)}`;
    expect((await callback(back, forged)).headers.get('Location')).toBe('/signin#oidc=state');
  });
});
