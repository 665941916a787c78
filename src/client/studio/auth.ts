/**
 * The researcher's token, kept in this browser after login, and the fetch that sends it. The
 * token is never put in a URL the app builds, and is dropped as soon as the server refuses it.
 */
import { create } from 'zustand';
import { ApiError, getJson, type ErrorBodyRead } from '../api';

const KEY = 'arc-studio:researcher-token';

export const useResearcher = create<{ token: string | null }>(() => ({
  token: typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY),
}));

export function setResearcherToken(token: string | null): void {
  if (token) localStorage.setItem(KEY, token);
  else localStorage.removeItem(KEY);
  useResearcher.setState({ token });
}

/** A researcher API request; a 401/403 logs out, so the login page can ask again. */
export async function adminJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const token = useResearcher.getState().token;
  if (!token) throw new ApiError(401, 'unauthorized', 'Log in with the researcher token first.');
  try {
    return await getJson<T>(url, {
      ...init,
      headers: { ...(init.headers ?? {}), Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    });
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) setResearcherToken(null);
    throw e;
  }
}

/**
 * A researcher download that is text (a CSV file), with the token in its header, so the file is
 * never behind a link that would carry the token. A refusal reads as the server's JSON error.
 */
export async function adminText(url: string): Promise<string> {
  const token = useResearcher.getState().token;
  if (!token) throw new ApiError(401, 'unauthorized', 'Log in with the researcher token first.');
  let res: Response;
  try {
    res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  } catch {
    throw new ApiError(
      0,
      'offline',
      'The ARC Studio server cannot be reached. Check that it is running and that you are online, then try again.',
    );
  }
  if (res.ok) return res.text();
  const body = (await res.json().catch(() => null)) as ErrorBodyRead;
  if (res.status === 401 || res.status === 403) setResearcherToken(null);
  throw new ApiError(
    res.status,
    body?.error ?? 'http_error',
    body?.message ?? `The server answered ${res.status} ${res.statusText}.`,
  );
}
