/**
 * Signing in with OpenID Connect: the authorization code flow with PKCE, state and nonce, against
 * any standard provider found by discovery. What the browser must bring back (state, nonce, PKCE
 * verifier) travels in a signed cookie that lives ten minutes, so any server of a deployment can
 * finish a sign-in another one started. The ID token is checked by `openid-client`: signature
 * against the provider's JWKS, issuer, audience, nonce and expiry.
 *
 * Only people the lab already has may sign in: the provider's verified email names the account
 * the first time, and from then on the provider's subject does (so a changed email at the
 * provider still signs in the same person, and nobody else's account can take it over).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import * as oidc from 'openid-client';
import { cookieValue } from './credentials';

/** Where the sign-in page sends the browser to start signing in with the provider. */
export const OIDC_START = '/api/auth/oidc/start';
/** Where the provider sends the browser back, under the studio's origin. */
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';
/** The cookie that carries a sign-in in progress. */
export const OIDC_PENDING_COOKIE = 'arc_studio_oidc';
/** How long a person has to finish signing in at the provider. */
export const OIDC_PENDING_MS = 10 * 60_000;

/** The provider, as the server is configured with it (`oidcConfigFromEnv`). */
export interface OidcConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The button's label: "Sign in with <name>". */
  readonly name: string;
}

/** Why a sign-in with the provider ended without a session; the sign-in page explains each. */
export type OidcRefusal =
  | 'state' // no sign-in in progress in this browser, it expired, or the answer does not belong to it
  | 'provider' // the provider refused, or its answer did not verify
  | 'unreachable' // discovery or the token request failed to reach the provider
  | 'unverified' // the provider has no verified email for the person
  | 'unknown' // no account with that email
  | 'disabled' // the account is disabled
  | 'other-subject' // the account is linked to another identity at the provider
  | 'rate'; // too many failed sign-ins for that email

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The provider from the environment, or null when `ARC_STUDIO_OIDC_ISSUER` is unset. Throws, with
 * what to set, when the configuration is incomplete or the issuer is not HTTPS (plain HTTP is
 * accepted for a provider on this machine only).
 */
export function oidcConfigFromEnv(env: NodeJS.ProcessEnv): OidcConfig | null {
  const issuer = env.ARC_STUDIO_OIDC_ISSUER?.trim();
  if (!issuer) return null;
  const clientId = env.ARC_STUDIO_OIDC_CLIENT_ID?.trim() ?? '';
  const clientSecret = env.ARC_STUDIO_OIDC_CLIENT_SECRET ?? '';
  if (!clientId || !clientSecret)
    throw new Error(
      'ARC_STUDIO_OIDC_ISSUER is set but ARC_STUDIO_OIDC_CLIENT_ID or ARC_STUDIO_OIDC_CLIENT_SECRET is not: set both to the client registered at the provider (docs/deploy.md, "Signing in with OpenID Connect"), or unset ARC_STUDIO_OIDC_ISSUER.',
    );
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(
      `ARC_STUDIO_OIDC_ISSUER=${JSON.stringify(issuer)} is not a URL; set it to the provider's issuer, such as https://accounts.google.com.`,
    );
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    throw new Error(
      `ARC_STUDIO_OIDC_ISSUER=${issuer} is not HTTPS: a provider is reached over HTTPS only (plain HTTP is accepted for a provider on this machine).`,
    );
  const name = env.ARC_STUDIO_OIDC_NAME?.trim() || url.hostname;
  return { issuer, clientId, clientSecret, name: name.slice(0, 60) };
}

/** What the browser keeps between the start of a sign-in and the provider's answer. */
interface Pending {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly expiresAt: number;
}

/** The relying party: discovery (kept once it worked), the provider's URL to send a browser to, and its answer checked. */
export class OidcRelyingParty {
  private discovered: Promise<oidc.Configuration> | null = null;
  private readonly key: Buffer;

  constructor(
    readonly config: OidcConfig,
    private readonly now: () => number = Date.now,
  ) {
    // The pending cookie's key: only this deployment's servers, which share the client secret, know it.
    this.key = createHmac('sha256', 'arc-studio oidc pending').update(config.clientSecret).digest();
  }

  private configuration(): Promise<oidc.Configuration> {
    if (!this.discovered) {
      const issuer = new URL(this.config.issuer);
      const execute = [oidc.enableNonRepudiationChecks];
      if (issuer.protocol === 'http:') execute.push(oidc.allowInsecureRequests);
      this.discovered = oidc
        .discovery(issuer, this.config.clientId, undefined, oidc.ClientSecretBasic(this.config.clientSecret), {
          execute,
        })
        .catch((e: unknown) => {
          // Tried again at the next sign-in: the provider may be back by then.
          this.discovered = null;
          throw e;
        });
    }
    return this.discovered;
  }

  /** The provider's authorization URL for this browser, and the signed cookie value to set with it. */
  async begin(redirectUri: string): Promise<{ url: string; cookie: string }> {
    const config = await this.configuration();
    const verifier = oidc.randomPKCECodeVerifier();
    const pending: Pending = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier,
      expiresAt: this.now() + OIDC_PENDING_MS,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, cookie: this.seal(pending) };
  }

  /**
   * The provider's answer checked against the pending sign-in: the code exchanged (with the PKCE
   * verifier) and the ID token verified. Answers its claims, or why it was refused.
   */
  async finish(
    callbackUrl: URL,
    cookie: string | null,
  ): Promise<{ ok: true; claims: oidc.IDToken } | { ok: false; why: OidcRefusal; detail: string }> {
    const pending = cookie ? this.open(cookie) : null;
    if (!pending) return { ok: false, why: 'state', detail: 'no valid sign-in in progress in this browser' };
    let config: oidc.Configuration;
    try {
      config = await this.configuration();
    } catch (e) {
      return { ok: false, why: 'unreachable', detail: (e as Error).message };
    }
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) return { ok: false, why: 'provider', detail: 'no ID token' };
      // Many providers give the email in the userinfo answer only (its subject is checked against the ID token's).
      if (typeof claims.email !== 'string') {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        return { ok: true, claims: { ...claims, email: info.email, email_verified: info.email_verified } };
      }
      return { ok: true, claims };
    } catch (e) {
      const err = e as Error & { code?: string; error?: string; cause?: unknown };
      const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
      const why: OidcRefusal = /"state"/.test(err.message + cause) ? 'state' : errorKind(err);
      return {
        ok: false,
        why,
        detail: `${err.name}: ${err.error ?? err.code ?? ''} ${err.message}${cause}`.slice(0, 300),
      };
    }
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest();
  }

  private seal(p: Pending): string {
    const payload = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The pending sign-in of a cookie value, or null when it is forged, malformed or expired. */
  private open(value: string): Pending | null {
    const dot = value.indexOf('.');
    if (dot <= 0 || value.length > 2_000) return null;
    const payload = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1), 'base64url');
    const want = this.mac(payload);
    if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
    try {
      const p = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Pending;
      return typeof p.expiresAt === 'number' && p.expiresAt > this.now() ? p : null;
    } catch {
      return null;
    }
  }
}

function errorKind(err: Error & { code?: string }): OidcRefusal {
  // A request that never got an answer (DNS, refused connection, timeout) is the provider being away.
  if (err.name === 'TypeError' || err.code === 'OAUTH_TIMEOUT') return 'unreachable';
  return 'provider';
}

/** The value of a request's pending sign-in cookie, or null. */
export function pendingCookie(c: Context): string | null {
  return cookieValue(c, OIDC_PENDING_COOKIE);
}

/** The person's identity at the provider, as the account keeps it: issuer and subject. */
export function subjectOf(claims: oidc.IDToken): string {
  return `${claims.iss} ${claims.sub}`;
}
