/**
 * Server state: every read of the API goes through `getJson` and query options (TanStack Query),
 * so pages share one cache and one error format. Collections and tasks: `tasks/queries.ts`.
 */
import type { ApiErrorBody, ErrorCode } from '../core/protocol/errors';

/**
 * What an `ApiError` can say: the server's codes (`ErrorCode`), or the browser's own when there is
 * no error body to read: `offline` (no answer), `http_error` (an answer without a JSON error, from
 * a proxy), `bad_response` (a success that is not JSON).
 */
export type ApiErrorCode = ErrorCode | 'offline' | 'http_error' | 'bad_response';

/** An API error body as read from a response: anything may be missing when a proxy answered. */
export type ErrorBodyRead = Partial<ApiErrorBody> | null;

/** An API error with the server's own message, which says what is wrong and what to do. */
export class ApiError extends Error {
  /** The whole error body (e.g. a game's `traceback` for a researcher). */
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch {
    throw new ApiError(
      0,
      'offline',
      'The ARC Studio server cannot be reached. Check that it is running and that you are online, then try again.',
    );
  }
  const body = (await res.json().catch(() => null)) as (ErrorBodyRead & T) | null;
  if (!res.ok)
    throw new ApiError(
      res.status,
      body?.error ?? 'http_error',
      body?.message ?? `The server answered ${res.status} ${res.statusText}.`,
      body ?? undefined,
    );
  if (body === null)
    throw new ApiError(
      res.status,
      'bad_response',
      'The server sent a response that is not JSON. Reload the page; if it repeats, restart the server.',
    );
  return body;
}
