/**
 * Who is asking: the person behind a request's credential. Three credentials open the studio:
 * - the bootstrap researcher token (`ARC_STUDIO_ADMIN_TOKEN` or the data folder's `admin-token`),
 *   which stands for the owner, so a one-person lab changes nothing;
 * - a personal API token (`arcp_...`, `Authorization: Bearer`), with the scope it was made with;
 * - a browser session: an HttpOnly cookie set at sign-in. A write with the cookie must also carry
 *   `X-CSRF-Token` (derived from the cookie's value, so another site can neither read nor forge it).
 *
 * Each credential is checked against the database, so a disabled person or a revoked token is
 * refused on every server; a server keeps an answer for at most `cacheMs` (2 s), and forgets it at
 * once when it disables, revokes or signs out itself.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { bearer, hashToken, tokenMatches } from './auth';
import type { PeopleStore, PersonRecord } from '../store/peopleStore';
import type { MemberRole, Role } from './roles';

/** The cookie of a signed-in browser. */
export const SESSION_COOKIE = 'arc_studio_session';
/** Readable by the page: set and cleared with the session cookie, it says only that one is there. */
export const SIGNED_IN_COOKIE = 'arc_studio_signed_in';
/** The header that carries the CSRF token of a cookie-authenticated write. */
export const CSRF_HEADER = 'X-CSRF-Token';
/** Personal API tokens start with this, so a participant's token is never looked up as one. */
export const PERSONAL_TOKEN_PREFIX = 'arcp_';

/** The person behind a request, as the permission table and the audit trail see them. */
export interface Principal {
  /** Null for the bootstrap token. */
  readonly personId: string | null;
  readonly email: string | null;
  readonly name: string;
  /** The role that decides: the token's scope for a token, else the person's role. */
  readonly role: Role;
  /** The person's own role. */
  readonly personRole: Role;
  readonly via: 'admin-token' | 'token' | 'session';
  /** For the audit trail: `admin-token`, `token:<id>` or `session:<first 12 hex of its hash>`. */
  readonly credential: string;
  /** The session's CSRF token; null for bearer tokens. */
  readonly csrf: string | null;
  /** The session cookie's hash, to sign out this browser. */
  readonly sessionHash: string | null;
}

/** The name the audit trail records: the person's email, or `researcher` for the bootstrap token. */
export function actorOf(p: Principal): string {
  return p.email ?? 'researcher';
}

/** The bootstrap token's principal: the lab's owner. */
export const BOOTSTRAP_OWNER: Principal = {
  personId: null,
  email: null,
  name: 'researcher',
  role: 'owner',
  personRole: 'owner',
  via: 'admin-token',
  credential: 'admin-token',
  csrf: null,
  sessionHash: null,
};

/** The CSRF token of a session cookie's value. */
export function csrfOf(sessionToken: string): string {
  return createHash('sha256').update('arc-studio csrf\0').update(sessionToken).digest('base64url');
}

/** The value of a request's cookie, or null. */
export function cookieValue(c: Context, name: string): string | null {
  const header = c.req.header('Cookie');
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The value of the request's session cookie, or null. */
export function sessionCookie(c: Context): string | null {
  const value = cookieValue(c, SESSION_COOKIE);
  return value !== null && /^[\w-]{20,100}$/.test(value) ? value : null;
}

/** What a request's credentials amount to. */
export type Identified =
  | { readonly kind: 'none' }
  | { readonly kind: 'refused'; readonly status: 401 | 403; readonly message: string }
  | { readonly kind: 'principal'; readonly principal: Principal };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CACHE_MAX = 10_000;

export class Authenticator {
  private readonly cache = new Map<string, { value: unknown; until: number }>();

  constructor(
    private readonly people: PeopleStore,
    private readonly adminTokenHash: string,
    private readonly opts: { now?: () => number; cacheMs?: number } = {},
  ) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private async lookup<T>(key: string, read: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.value as T;
    const value = await read();
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(key, { value, until: now + (this.opts.cacheMs ?? 2_000) });
    return value;
  }

  /**
   * Forgets every cached answer, so this server's next request reads the database (after a
   * disable, a revoke, or a change of a study's members).
   */
  forget(): void {
    this.cache.clear();
  }

  /**
   * A person's role on a study, kept as long as a credential's answer: a member removed or
   * changed on another server counts here within `cacheMs`, on this one at once (`forget`).
   */
  memberRole(studyId: string, personId: string): Promise<MemberRole | null> {
    return this.lookup(`m:${personId}\0${studyId}`, () => this.people.memberRole(studyId, personId));
  }

  /**
   * The principal of the request, or why its credential is refused. A bearer token wins over the
   * cookie. `kind: 'none'` when the request carries neither.
   */
  async identify(c: Context): Promise<Identified> {
    const token = bearer(c.req.header('Authorization'));
    if (token !== null) {
      if (this.adminTokenHash && tokenMatches(token, this.adminTokenHash))
        return { kind: 'principal', principal: BOOTSTRAP_OWNER };
      if (!token.startsWith(PERSONAL_TOKEN_PREFIX))
        return {
          kind: 'refused',
          status: 403,
          message:
            'This token does not open the researcher routes. Use a personal API token ("My tokens" in the studio, or "arc-studio tokens create"), or the researcher token printed when the server first started (or ARC_STUDIO_ADMIN_TOKEN).',
        };
      const hash = hashToken(token);
      const cred = await this.lookup(`t:${hash}`, () => this.people.credentialOfToken(hash, this.now()));
      if (!cred)
        return {
          kind: 'refused',
          status: 401,
          message:
            'This personal token is not valid: it was revoked, it expired, or its person was disabled. Make a new one under "My tokens", or ask the lab\'s owner.',
        };
      return { kind: 'principal', principal: principalOf(cred.person, cred.token!.role, `token:${cred.token!.id}`) };
    }
    const cookie = sessionCookie(c);
    if (cookie === null) return { kind: 'none' };
    const hash = hashToken(cookie);
    const cred = await this.lookup(`s:${hash}`, () => this.people.credentialOfSession(hash, this.now()));
    if (!cred)
      return {
        kind: 'refused',
        status: 401,
        message: 'You are signed out (the session ended, expired, or your account was disabled). Sign in again.',
      };
    if (!SAFE_METHODS.has(c.req.method) && c.req.header(CSRF_HEADER) !== csrfOf(cookie))
      return {
        kind: 'refused',
        status: 403,
        message: `A change made with the sign-in cookie must carry the "${CSRF_HEADER}" header the studio received at sign-in; reload the page and try again.`,
      };
    return {
      kind: 'principal',
      principal: {
        ...principalOf(cred.person, cred.person.role, `session:${hash.slice(0, 12)}`),
        via: 'session',
        csrf: csrfOf(cookie),
        sessionHash: hash,
      },
    };
  }
}

function principalOf(person: PersonRecord, role: Role, credential: string): Principal {
  return {
    personId: person.id,
    email: person.email,
    name: person.name,
    role,
    personRole: person.role,
    via: 'token',
    credential,
    csrf: null,
    sessionHash: null,
  };
}
