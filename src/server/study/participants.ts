/**
 * Participants' requests: the session a request's token opens, read through a cache of sessions by
 * token hash so that event batches and game actions, many a second, do not read the row each time.
 */
import type { Context } from 'hono';
import type { StudyDefinition } from '../../core/study/schema';
import { bearer, hashToken, tokenMatches } from '../people/auth';
import { fail } from '../http';
import type { SessionRecord, SessionStore } from '../store/types';
import type { StudyDefinitions } from './definitions';

/** Most sessions kept by token before the cache starts over. */
const MAX_CACHED_SESSIONS = 50_000;

/** The session of a request's token with its study, or the error response that refuses the request. */
export type Authenticated =
  | { readonly ok: true; readonly session: SessionRecord; readonly study: StudyDefinition }
  | { readonly ok: false; readonly res: Response };

/**
 * The participants of one app: who a request is, and the cached sessions it is decided on.
 *
 * WARNING: only fields of a cached row that never change are trusted from it (id, token, study
 * version, creation time); `ackedThrough` and the counts only grow, so a stale value is a lower
 * bound. Whatever depends on the rest reads the row fresh.
 */
export interface ParticipantSessions {
  /**
   * The session of the request's token, for the route's `:sessionId`, or the reply: 401 without a
   * valid token, 403 for another session's token. `fresh` (the default) reads the session's
   * current row (state, acknowledged mark, flags); otherwise the row as this server last read it.
   */
  authenticate(c: Context, fresh?: boolean): Promise<Authenticated>;
  /** Keeps a row as the latest known, e.g. as a session's creation or an event batch left it. */
  remember(session: SessionRecord): void;
  /**
   * Drops sessions from the cache: deleted ones, so their tokens are refused at once, and ones
   * this server just withdrew or finished, so that a game action, admitted on the cached row and
   * answered before its step is stored, is decided on the change.
   */
  forget(tokenHashes: readonly string[]): void;
}

/** The participants of sessions in `store`, each with the study version it runs. */
export function participantSessions(
  store: Pick<SessionStore, 'getSessionByTokenHash'>,
  definitions: Pick<StudyDefinitions, 'at'>,
): ParticipantSessions {
  const byToken = new Map<string, SessionRecord>();
  const remember = (s: SessionRecord): void => {
    if (byToken.size >= MAX_CACHED_SESSIONS) byToken.clear();
    byToken.set(s.tokenHash, s);
  };
  const sessionOfToken = async (hash: string, fresh: boolean): Promise<SessionRecord | null> => {
    const hit = fresh ? undefined : byToken.get(hash);
    if (hit) return hit;
    const s = await store.getSessionByTokenHash(hash);
    if (s) remember(s);
    return s;
  };
  return {
    async authenticate(c, fresh = true) {
      const token = bearer(c.req.header('Authorization'));
      if (!token)
        return {
          ok: false,
          res: fail(
            c,
            401,
            'unauthorized',
            'This request needs the session token: send "Authorization: Bearer <token>" as given when the session was created.',
          ),
        };
      const session = await sessionOfToken(hashToken(token), fresh);
      if (!session || !tokenMatches(token, session.tokenHash))
        return {
          ok: false,
          res: fail(
            c,
            401,
            'unauthorized',
            'The token is not valid for any session. Open the study link again to start a session.',
          ),
        };
      if (session.id !== c.req.param('sessionId'))
        return {
          ok: false,
          res: fail(c, 403, 'forbidden', 'This token belongs to another session; a token opens its own session only.'),
        };
      return { ok: true, session, study: await definitions.at(session.studyId, session.studyVersion) };
    },
    remember,
    forget(tokenHashes) {
      for (const h of tokenHashes) byToken.delete(h);
    },
  };
}
