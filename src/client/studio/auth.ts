/**
 * Who is signed in to the studio, and the fetch that sends their credential. Two ways in: a
 * token (the researcher token or a personal API token) kept in this browser and sent as a
 * Bearer header, never put in a URL the app builds; or a sign-in (password or one-time link),
 * whose session cookie the browser sends itself and whose writes carry the CSRF token the server
 * gave. A 401 (the credential is no longer valid) signs out; a 403 is a refusal of one request.
 */
import { create } from 'zustand';
import { ApiError, getJson, type ErrorBodyRead } from '../api';

const KEY = 'arc-studio:researcher-token';

/** The signed-in person, as `GET /api/me` answers. */
export interface Me {
  readonly id: string;
  readonly email: string | null;
  readonly name: string;
  readonly role: 'owner' | 'researcher' | 'designer' | 'proctor' | 'viewer';
  readonly via: 'admin-token' | 'token' | 'session';
  /** For writes made with the session cookie. */
  readonly csrf: string | null;
}

export const useResearcher = create<{ token: string | null; me: Me | null; checked: boolean }>(() => ({
  token: typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY),
  me: null,
  checked: false,
}));

/**
 * Whether someone of the lab is signed in to this browser, by a kept token or by a sign-in (known
 * once `refreshMe` has asked). A selector: `useResearcher(signedIn)`.
 */
export const signedIn = (s: { token: string | null; me: Me | null }): boolean => s.token !== null || s.me !== null;

export function setResearcherToken(token: string | null): void {
  if (token) localStorage.setItem(KEY, token);
  else localStorage.removeItem(KEY);
  useResearcher.setState({ token, me: null, checked: token === null });
}

/** After a sign-in: the session cookie is set; keep who it is and their CSRF token. */
export function setSignedIn(me: Me): void {
  useResearcher.setState({ me, checked: true });
}

/** Asks the server who this browser is (its token, else its session cookie); once, unless `again`. */
export async function refreshMe(again = false): Promise<Me | null> {
  const { token, checked, me } = useResearcher.getState();
  if (checked && !again) return me;
  // Without a token and without the server's signed-in cookie there is no one to ask about: a
  // visitor's page sends no request that can only be refused.
  if (!token && !hasSessionHint()) {
    useResearcher.setState({ me: null, checked: true });
    return null;
  }
  try {
    const who = await getJson<Me>('/api/me', token ? { headers: { Authorization: `Bearer ${token}` } } : {});
    useResearcher.setState({ me: who, checked: true });
    return who;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      if (token) localStorage.removeItem(KEY);
      useResearcher.setState({ token: null, me: null, checked: true });
    } else useResearcher.setState({ checked: true });
    return null;
  }
}

/** Whether the server set its readable `arc_studio_signed_in` cookie beside the session's own. */
function hasSessionHint(): boolean {
  return typeof document !== 'undefined' && /(?:^|;\s*)arc_studio_signed_in=1(?:;|$)/.test(document.cookie);
}

/** Signs this browser out: its session ends on the server, a kept token is forgotten. */
export async function signOut(): Promise<void> {
  const { me } = useResearcher.getState();
  if (me?.via === 'session')
    await getJson('/api/auth/signout', { method: 'POST', headers: { 'X-CSRF-Token': me.csrf ?? '' } }).catch(() => {});
  setResearcherToken(null);
}

/** The headers of a studio request: the token, or the session's CSRF token (the cookie goes by itself). */
export function credentialHeaders(): Record<string, string> {
  const { token, me } = useResearcher.getState();
  if (token) return { Authorization: `Bearer ${token}` };
  if (me?.via === 'session' && me.csrf) return { 'X-CSRF-Token': me.csrf };
  throw new ApiError(401, 'unauthorized', 'Sign in first.');
}

/** A 401 means the credential is gone (expired, revoked, the person disabled): sign out. */
function refused(status: number): void {
  if (status === 401) {
    if (useResearcher.getState().token) localStorage.removeItem(KEY);
    useResearcher.setState({ token: null, me: null, checked: true });
  }
}

/** A studio API request; a 401 signs out, so the sign-in page can ask again. */
export async function adminJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const headers = credentialHeaders();
  try {
    return await getJson<T>(url, {
      ...init,
      headers: { ...(init.headers ?? {}), ...headers, 'Content-Type': 'application/json' },
    });
  } catch (e) {
    if (e instanceof ApiError) refused(e.status);
    throw e;
  }
}

/** A studio request with a multipart form as its body (files), which sets its own content type. */
export async function adminForm<T>(url: string, form: FormData, method = 'POST'): Promise<T> {
  const headers = credentialHeaders();
  try {
    return await getJson<T>(url, { method, body: form, headers });
  } catch (e) {
    if (e instanceof ApiError) refused(e.status);
    throw e;
  }
}

/**
 * A researcher download that is text (a CSV file), with the token in its header, so the file is
 * never behind a link that would carry the token. A refusal reads as the server's JSON error.
 */
export async function adminText(url: string): Promise<string> {
  const headers = credentialHeaders();
  let res: Response;
  try {
    res = await fetch(url, { headers });
  } catch {
    throw new ApiError(
      0,
      'offline',
      'The ARC Studio server cannot be reached. Check that it is running and that you are online, then try again.',
    );
  }
  if (res.ok) return res.text();
  const body = (await res.json().catch(() => null)) as ErrorBodyRead;
  refused(res.status);
  throw new ApiError(
    res.status,
    body?.error ?? 'http_error',
    body?.message ?? `The server answered ${res.status} ${res.statusText}.`,
  );
}
