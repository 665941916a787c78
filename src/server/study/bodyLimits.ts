/**
 * The refusal of a body over the study routes' limit (`maxBodyBytes`, 1 MiB by default): one
 * limit for every participant and study route, but a message that names what the refused
 * route takes, so that a researcher whose study definition is too large is not told to split
 * event batches. docs/api.md ("Body limits") lists every route's limit.
 */
import type { Context } from 'hono';
import { fail } from '../http';
import type { IngestLimits } from './limits';

/** A size in bytes as people read it: "1 MiB", "1.5 MiB", "64 KiB". */
export function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${+mib.toFixed(2)} MiB`;
  return `${+(bytes / 1024).toFixed(1)} KiB`;
}

/** What a route's body is and what to do when it is too large, by method and path (under `/api`). */
function bodyOf(method: string, path: string, limits: IngestLimits): { what: string; todo: string } {
  const p = path.replace(/^\/api/, '');
  if (/^\/sessions\/[^/]+\/events$/.test(p))
    return {
      what: 'An event batch',
      todo: `Send events in smaller batches (at most ${limits.maxBatchEvents} events each).`,
    };
  if (/^\/admin\/studies\/[^/]+$/.test(p) && (method === 'POST' || method === 'PUT'))
    return {
      what: 'A study definition',
      todo: 'Keep tasks, games and images in the collections and folders the server mounts, and name them from the study by id; split a very long study into several.',
    };
  if (/^\/sessions\/[^/]+\/runs(\/|$)/.test(p))
    return { what: 'A game request', todo: 'Resume a run with at most the end of its log, as the study page does.' };
  if (/^\/sessions\/[^/]+\/(submissions|answers|descriptions|survey)$/.test(p))
    return { what: 'An answer', todo: 'Shorten the answer.' };
  return { what: 'A request to this route', todo: 'Send a smaller body.' };
}

/**
 * Answers 413 `too_large` for a body over `limits.maxBodyBytes`, naming the route's limit and
 * what to do about it.
 */
export function bodyTooLarge(c: Context, limits: IngestLimits): Response {
  const { what, todo } = bodyOf(c.req.method, c.req.path, limits);
  const length = Number(c.req.header('Content-Length'));
  const size = Number.isFinite(length) && length > 0 ? ` (this one is ${sizeText(length)})` : '';
  return fail(
    c,
    413,
    'too_large',
    `${what} is at most ${sizeText(limits.maxBodyBytes)} (${limits.maxBodyBytes} bytes)${size}. ${todo}`,
    { limit: limits.maxBodyBytes },
  );
}
