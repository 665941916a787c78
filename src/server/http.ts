/**
 * HTTP basics shared by the API and the served app: security headers on every response, the
 * JSON 404 of the API, URLs whose path or query a database cannot store refused at the door, the
 * API's error reply (`fail`), and request bodies read and checked before anything else sees them.
 * Documented in docs/api.md ("HTTP").
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as honoBodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import type { ApiErrorBody, ErrorCode } from '../core/protocol/errors';
import { jsonProblem } from '../core/protocol/json';
import { formatIssues } from '../core/study/schema';
import { stageSelection } from '../core/study/stages';

/**
 * The Content-Security-Policy of every response. The built app is one module script and one
 * stylesheet from `/assets`, React sets inline styles through the CSSOM (which CSP allows), the
 * canvases need no images, and nothing is evaluated from strings, so scripts and styles come from
 * this origin only. `connect-src` allows `https:` and plain http on this machine because the task
 * browser can import a task JSON from a URL (a GitHub link, a local file server); everything else
 * the app fetches is this origin's API.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Sent with every response of `arc-studio serve`. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  // frame-ancestors 'none' for browsers that read only the older header: no page may frame the
  // studio or a study (clickjacking a participant into submitting).
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Study links carry participant ids (PROLIFIC_PID=...): never send them to another site.
  'Referrer-Policy': 'no-referrer',
};

/** Adds {@link SECURITY_HEADERS} to every response, static files and errors included. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  try {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  } catch {
    // A response with immutable headers (one passed through from fetch): copy it.
    c.res = new Response(c.res.body, c.res);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  }
};

/**
 * `Cache-Control` of the build's files under `/assets/`: their names carry a hash of their content,
 * so a new build brings new names and a kept copy can never be stale.
 */
export const IMMUTABLE_ASSET = 'public, max-age=31536000, immutable';
/** `Cache-Control` of the app's page and its other files: kept, but checked with the server at each load. */
export const REVALIDATE = 'no-cache';
/**
 * `Cache-Control` of API answers without one of their own: they change with every event and may
 * carry personal data, so no browser or proxy keeps them.
 */
export const NO_STORE = 'no-store';

/** Sets `Cache-Control` on a response that has none (copying one whose headers are immutable). */
export function defaultCacheControl(c: Context, value: string): void {
  if (c.res.headers.has('Cache-Control')) return;
  try {
    c.res.headers.set('Cache-Control', value);
  } catch {
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set('Cache-Control', value);
  }
}

/** Marks API answers {@link NO_STORE} unless a route chose otherwise. */
export const apiNoStore: MiddlewareHandler = async (c, next) => {
  await next();
  defaultCacheControl(c, NO_STORE);
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 502 | 507;

/**
 * An error reply of the API: `{error, message, ...extra}` (`ApiErrorBody`). The code is an
 * `ErrorCode`, so a misspelt one fails the typecheck; the message says what to do.
 * @example return fail(c, 404, 'not_found', `No study "${id}". GET /api/admin/studies lists them.`);
 */
export const fail = (
  c: Context,
  status: ErrorStatus,
  error: ErrorCode,
  message: string,
  extra: Partial<Omit<ApiErrorBody, 'error' | 'message'>> & Record<string, unknown> = {},
) => c.json({ error, message, ...extra }, status);

/** The API's answer to a path it has no route for (JSON, never the app's page). */
export function apiNotFound(c: Context): Response {
  return fail(c, 404, 'not_found', `No API route ${c.req.method} ${c.req.path}. The routes are listed in docs/api.md.`);
}

/** True when `s` can be stored as PostgreSQL text: no NUL and no lone UTF-16 surrogate. */
export function storableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE.test(s);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses with 400 a URL whose path or query holds what no id or parameter can: a NUL, bytes
 * that are not UTF-8, or a lone surrogate. Such values would otherwise reach the database and
 * fail there (a 500).
 */
/**
 * The first query parameter (its name as far as it reads) that is not UTF-8 or holds a NUL, or
 * undefined. Each part is decoded strictly: `URLSearchParams` would turn `%ff` into U+FFFD and let it by.
 */
function malformedParameter(search: string): string | undefined {
  for (const part of search.replace(/^\?/, '').split('&')) {
    if (!part) continue;
    const [k, v = ''] = part.split(/=(.*)/s);
    const decode = (x: string) => {
      try {
        return decodeURIComponent(x.replace(/\+/g, ' '));
      } catch {
        return null;
      }
    };
    const key = decode(k),
      value = decode(v);
    if (key === null || value === null || !storableText(key) || !storableText(value)) return key ?? k;
  }
  return undefined;
}

export const refuseMalformedUrl: MiddlewareHandler = async (c, next) => {
  const url = new URL(c.req.url);
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    path = '\u0000';
  }
  const where = !storableText(path) ? 'its path' : malformedParameter(url.search);
  if (where !== undefined) {
    const what =
      where === 'its path' ? where : `the query parameter "${where.replace(/[^\x20-\x7e]/g, '?').slice(0, 40)}"`;
    return fail(
      c,
      400,
      'malformed',
      `The URL is malformed: ${what} holds a NUL character or bytes that are not UTF-8. Send ids and parameters as plain UTF-8 text.`,
    );
  }
  await next();
};

/**
 * Refuses a request body larger than `maxSize` bytes with `onError`'s answer. A body of a stated
 * length (the usual case: the participant's page, agents, the CLI) is judged by its
 * `Content-Length` alone, which Node's parser holds the body to, and is left unread, so the route
 * reads it straight from the socket; Hono's own limit would first build a web `Request` and stream
 * around every body, the largest part of a small request's cost. A chunked body is counted as
 * it arrives (Hono's `bodyLimit`), as is any body of a request made in process; a request with
 * neither header has no body.
 */
export function bodyLimit(opts: {
  maxSize: number;
  onError: (c: Context) => Response | Promise<Response>;
}): MiddlewareHandler {
  const chunked = honoBodyLimit(opts);
  return async (c, next) => {
    // Without Node's request (a request made in process) the body is measured as Hono does.
    const fromNode = (c.env as { incoming?: unknown } | undefined)?.incoming !== undefined;
    if (!fromNode || c.req.header('Transfer-Encoding') !== undefined) return chunked(c, next);
    const length = c.req.header('Content-Length');
    if (length !== undefined && parseInt(length, 10) > opts.maxSize) return opts.onError(c);
    await next();
  };
}

/**
 * The request body as JSON, or a 400 naming what is wrong. Every value passes `jsonProblem`
 * (depth, size, NUL and lone surrogates, non-finite numbers, reserved keys) before a schema or
 * the database sees it.
 */
export async function readJson(c: Context): Promise<{ ok: true; body: unknown } | { ok: false; res: Response }> {
  const text = await c.req.text();
  if (text.trim() === '') return { ok: true, body: undefined };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      res: fail(c, 400, 'malformed', `The request body is not valid JSON (${(e as Error).message}).`),
    };
  }
  const problem = jsonProblem(body);
  if (problem)
    return {
      ok: false,
      res: fail(
        c,
        400,
        'malformed',
        `The request body is refused: ${problem.path} ${problem.reason}. Nothing was stored.`,
        { path: problem.path },
      ),
    };
  return { ok: true, body };
}

export function zodFail(c: Context, issues: readonly z.core.$ZodIssue[], what: string) {
  return fail(c, 400, 'malformed', `${what}: ${formatIssues(issues).join('; ')}`);
}

/**
 * The request body checked by its schema (the participant's are in `core/protocol/requests.ts`):
 * read by `readJson`, so `jsonProblem` sees it first, then parsed; otherwise a 400 `malformed`
 * that starts with `what` and names each field at fault. Routes call it after their token
 * check, so a request without a valid token is refused as such whatever its body.
 * `absent` stands for an empty body; `before` may refuse the raw body first (a batch too large).
 * @example
 * const body = await readBody(c, FinishRequest, 'The finish request is not valid');
 * if (!body.ok) return body.res;
 */
export async function readBody<S extends z.ZodType>(
  c: Context,
  schema: S,
  what: string,
  opts: { absent?: unknown; before?: (raw: unknown) => Response | null } = {},
): Promise<{ ok: true; data: z.output<S> } | { ok: false; res: Response }> {
  const body = await readJson(c);
  if (!body.ok) return body;
  const raw = body.body === undefined && 'absent' in opts ? opts.absent : body.body;
  const refused = opts.before?.(raw);
  if (refused) return { ok: false, res: refused };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { ok: false, res: zodFail(c, parsed.error.issues, what) };
  return { ok: true, data: parsed.data };
}

/**
 * The `stage` query parameter (`core/study/stages.ts` `stageSelection`): one stage, null for
 * every stage (`all`), `main` when absent; or the 400 refusing it.
 * @example
 * const st = stageQuery(c);
 * if (!st.ok) return st.res;
 */
export function stageQuery(c: Context): { ok: true; stage: string | null } | { ok: false; res: Response } {
  const sel = stageSelection(c.req.query('stage'));
  if ('error' in sel) return { ok: false, res: fail(c, 400, 'malformed', sel.error) };
  return { ok: true, stage: sel.stage };
}
