/**
 * Limits on new sessions (`POST /api/studies/:studyId/sessions`): per client address and per
 * study per minute (`IngestLimits`), so a script that opens a study link in a loop cannot fill the
 * database, while a lab of participants behind one address starts as usual. Each server process
 * counts its own requests. The client address is the connection's; behind a proxy that sets
 * `X-Forwarded-For`, set `ARC_STUDIO_TRUST_PROXY=1` to count the address it names instead.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type IngestLimits, TokenBuckets } from './limits';
import { fail } from './context';
import type { ErrorCode } from '../../core/protocol/errors';

/** The client address of a request: the connection's, or the proxy's `X-Forwarded-For` when trusted; null in-process. */
export function clientAddress(c: Context, trustProxy: boolean): string | null {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null;
  }
}

export function sessionLimits(
  limits: IngestLimits,
  now: () => number,
  trustProxy = process.env.ARC_STUDIO_TRUST_PROXY === '1',
): MiddlewareHandler {
  const perClient = new TokenBuckets({
    sessions: { rate: limits.sessionsPerMinutePerClient / 60, burst: limits.sessionsPerMinutePerClient },
  });
  const perStudy = new TokenBuckets(
    { sessions: { rate: limits.sessionsPerMinutePerStudy / 60, burst: limits.sessionsPerMinutePerStudy } },
    10_000,
  );
  return async (c, next) => {
    const t = now();
    const address = clientAddress(c, trustProxy);
    const clientWait = address === null ? 0 : perClient.take(address, { sessions: 1 }, t);
    if (clientWait > 0) {
      return tooMany(
        c,
        clientWait,
        'too_many_sessions',
        `Too many new sessions from your network in the last minute (at most ${limits.sessionsPerMinutePerClient}). Wait ${clientWait} s, then open the study link again. If many participants share one network, the researcher can raise ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT.`,
      );
    }
    const studyWait = perStudy.take(c.req.param('studyId') ?? '', { sessions: 1 }, t);
    if (studyWait > 0) {
      return tooMany(
        c,
        studyWait,
        'study_busy',
        `This study is starting more than ${limits.sessionsPerMinutePerStudy} sessions a minute. Wait ${studyWait} s, then open the study link again; nothing was stored. The researcher can raise ARC_STUDIO_STUDY_SESSIONS_PER_MINUTE.`,
      );
    }
    await next();
  };
}

function tooMany(c: Context, wait: number, error: ErrorCode, message: string) {
  c.header('Retry-After', String(wait));
  return fail(c, 429, error, message, { retryAfter: wait });
}
