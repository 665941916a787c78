/**
 * The participant's side of the study API (see docs/api.md). The session token is sent with
 * every request; nothing here ever receives a test output.
 */
import type { Grid } from '../../core/grid/grid';
import type { CreatedSession, FinishResult, SessionView, StudyIntro, SubmissionResult } from '../../core/protocol/api';
import type { CreateSessionBody, FinishBody, ResponseRoutes, SubmissionBody } from '../../core/protocol/requests';
import { ApiError, getJson } from '../api';
import type { Judge, JudgeVerdict } from '../player/judge';

// The wire types are the server's own (src/core/protocol/api.ts).
export type { ItemLimits, ItemProgressView, SessionItem, SessionView, StudyIntro } from '../../core/protocol/api';

const auth = (token: string) => ({ Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });

export function getStudyIntro(studyId: string): Promise<StudyIntro> {
  return getJson<StudyIntro>(`/api/studies/${encodeURIComponent(studyId)}`);
}

/**
 * Starts a session. A playtest (`params.mode = "playtest"`) needs a designer's credential: the
 * studio's credential headers (a token, or the sign-in cookie's CSRF header).
 */
export function createSession(
  studyId: string,
  params: Record<string, string>,
  credential: Record<string, string> = {},
): Promise<CreatedSession> {
  return getJson(`/api/studies/${encodeURIComponent(studyId)}/sessions`, {
    method: 'POST',
    headers: { ...credential, 'Content-Type': 'application/json' },
    body: JSON.stringify({ params } satisfies CreateSessionBody),
  });
}

export function getSession(sessionId: string, token: string): Promise<SessionView> {
  return getJson<SessionView>(`/api/sessions/${encodeURIComponent(sessionId)}`, { headers: auth(token) });
}

export function finishSession(sessionId: string, token: string, lastSeq: number): Promise<FinishResult> {
  return getJson(`/api/sessions/${encodeURIComponent(sessionId)}/finish`, {
    method: 'POST',
    headers: auth(token),
    body: JSON.stringify({ lastSeq } satisfies FinishBody),
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What the judge needs of the outbox: the last logged seq, sent with each submission. */
export interface LogPosition {
  readonly lastSeq: number;
  /**
   * Resolves once every event logged so far is acknowledged, sending them at once instead of at
   * the next batch (the study's outbox; `Outbox.drained`).
   */
  drained?(): Promise<void>;
}

/**
 * The wait before a write answered `events_pending` is sent again: the first time, until the
 * events it waits for are acknowledged (the outbox sends them at once rather than at its next
 * batch, up to a second later), at most half a second; after that, half a second.
 */
export function eventsPendingWait(log: LogPosition | undefined, times: number): Promise<void> {
  if (times === 1 && log?.drained) return Promise.race([log.drained().catch(() => undefined), sleep(500)]);
  return sleep(500);
}

/**
 * Study mode: the server judges. A submission carries a fresh key and is retried with the same
 * key when the network fails, so it is judged once however often it is sent. It also carries the
 * last logged seq: when the events that moved the participant to this item are still on their
 * way, the server answers `events_pending` and the submission is sent again once they arrive.
 */
export function studyJudge(
  sessionId: string,
  token: string,
  itemId: string,
  testIndices: readonly number[],
  log?: LogPosition,
): Judge {
  return {
    mode: 'study',
    async submit(testIndex: number, grid: Grid): Promise<{ verdict: JudgeVerdict }> {
      const key = crypto.randomUUID();
      const body = () =>
        JSON.stringify({
          key,
          item: itemId,
          testIndex: testIndices[testIndex],
          grid,
          ...(log ? { lastSeq: log.lastSeq } : {}),
        } satisfies SubmissionBody);
      let pendings = 0;
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await getJson<SubmissionResult>(`/api/sessions/${encodeURIComponent(sessionId)}/submissions`, {
            method: 'POST',
            headers: auth(token),
            body: body(),
          });
          return { verdict: r.verdict };
        } catch (e) {
          const pending = e instanceof ApiError && e.code === 'events_pending';
          const retry = pending || (e instanceof ApiError && (e.status === 0 || e.status >= 500));
          if (!retry) throw e;
          if (attempt >= (pending ? 20 : 5))
            throw new Error(
              'The server cannot be reached, so your answer was not checked and no trial was used. Check your connection and submit again.',
            );
          if (pending) await eventsPendingWait(log, ++pendings);
          else await sleep(Math.min(8000, 400 * 2 ** attempt) * (0.5 + Math.random() / 2));
        }
      }
    },
  };
}

/**
 * Sends a participant's response (`descriptions`, `survey`, `withdraw`, `answers`) with a fresh
 * key, retried with the same key when the network fails or the events that reached the item are
 * still on their way, so the server stores it once however often it is sent.
 */
export async function postResponse<R extends keyof ResponseRoutes>(
  sessionId: string,
  token: string,
  route: R,
  body: Omit<ResponseRoutes[R]['body'], 'key' | 'lastSeq'>,
  log?: LogPosition,
): Promise<ResponseRoutes[R]['reply']> {
  const key = crypto.randomUUID();
  let pendings = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      // The body is typed at the call; the key and the log position are added here.
      const payload = JSON.stringify({
        key,
        ...body,
        ...(log && route !== 'withdraw' ? { lastSeq: log.lastSeq } : {}),
      });
      return await getJson<ResponseRoutes[R]['reply']>(`/api/sessions/${encodeURIComponent(sessionId)}/${route}`, {
        method: 'POST',
        headers: auth(token),
        body: payload,
      });
    } catch (e) {
      const pending = e instanceof ApiError && e.code === 'events_pending';
      const retry = pending || (e instanceof ApiError && (e.status === 0 || e.status >= 500));
      if (!retry) throw e;
      if (attempt >= (pending ? 20 : 5))
        throw new Error(
          'The server cannot be reached, so this was not recorded. Check your connection and send it again.',
        );
      if (pending) await eventsPendingWait(log, ++pendings);
      else await sleep(Math.min(8000, 400 * 2 ** attempt));
    }
  }
}
