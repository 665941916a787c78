import type { Hono } from 'hono';

/**
 * A JSON request to an in-process app (`createApi`), with the bearer token given (none when
 * null): its status and its parsed body (null when empty). A string body is sent as it is (a
 * test of a body that is not JSON); anything else as JSON. `app` is read at each call, so a test
 * may build a new app per test.
 */
export function apiCaller(app: () => Hono) {
  return async (method: string, url: string, token: string | null, body?: unknown) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await app().request(url.startsWith('/') ? url : `/${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
  };
}
