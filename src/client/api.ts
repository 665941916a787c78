/**
 * Server state: every read of the API goes through `getJson` and query options (TanStack Query),
 * so pages share one cache and one error format. Collections and tasks: `tasks/queries.ts`.
 */

/** An API error with the server's own message, which says what is wrong and what to do. */
export class ApiError extends Error {
  /** The whole error body (e.g. a game's `traceback` for a researcher). */
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: Record<string, unknown>) {
    super(message);
  }
}

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch {
    throw new ApiError(0, 'offline', 'The ARC Studio server cannot be reached. Check that it is running and that you are online, then try again.');
  }
  const body = (await res.json().catch(() => null)) as ({ error?: string; message?: string } & T) | null;
  if (!res.ok) throw new ApiError(res.status, body?.error ?? 'http_error', body?.message ?? `The server answered ${res.status} ${res.statusText}.`, body ?? undefined);
  if (body === null) throw new ApiError(res.status, 'bad_response', 'The server sent a response that is not JSON. Reload the page; if it repeats, restart the server.');
  return body;
}
