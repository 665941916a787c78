/**
 * Event ingestion: `POST /sessions/:id/events`. Every event is checked at the door (envelope,
 * then its kind's payload schema), the session's quota and rate are enforced, and the batch is
 * stored exactly once by the store's group commit. A refused batch stores nothing.
 */
import { Hono } from 'hono';
import { eventDataProblem } from '../../core/protocol/events';
import type { BatchAck } from '../../core/protocol/api';
import { EventBatchRequest } from '../../core/protocol/requests';
import { fail, readBody } from './context';
import type { StudyWiring } from './services';
import { RateLimiter, studyStorageBudget } from './limits';

/** How long a study's stored totals read from the database are counted up here before being read again (other servers store too). */
const USAGE_READ_EVERY_MS = 30_000;
/** When a participant's browser asks again after the study's storage budget refused its events, in seconds. */
const BUDGET_RETRY_S = 60;

interface StudyUse {
  events: number;
  bytes: number;
  readonly budget: { events: number; bytes: number };
  readonly readAt: number;
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export function eventRoutes({
  store,
  now,
  limits,
  participants,
  definitions,
}: Pick<StudyWiring, 'store' | 'now' | 'limits' | 'participants' | 'definitions'>): Hono {
  const api = new Hono();
  const rate = new RateLimiter(limits);
  // What each session has stored, as the last append here reported it (a lower bound when
  // another server stores for it too); bounded in size.
  const totals = new Map<string, { events: number; bytes: number; acked: number }>();
  // What each study has stored, for its storage budget: the sum of its sessions' counters, read
  // at most every USAGE_READ_EVERY_MS and counted up by each append here in between.
  // The budget is the study's latest version's, read with the totals, so that a researcher who
  // raises it lets every session of the study store again (within USAGE_READ_EVERY_MS).
  const usage = new Map<string, StudyUse>();

  api.post('/sessions/:sessionId/events', async (c) => {
    const p = await participants.authenticate(c, false);
    if (!p.ok) return p.res;
    const { session } = p;
    // A batch past the limit is refused as too large before its events are checked one by one.
    const parsed = await readBody(c, EventBatchRequest, 'The batch is not valid', {
      before: (raw) => {
        const events = (raw as { events?: unknown } | undefined)?.events;
        return raw && Array.isArray(events) && events.length > limits.maxBatchEvents
          ? fail(
              c,
              413,
              'too_large',
              `The batch has ${events.length} events; at most ${limits.maxBatchEvents} are accepted at once. Split it into smaller batches.`,
            )
          : null;
      },
    });
    if (!parsed.ok) return parsed.res;
    const events = parsed.data.events;
    const seen = new Set<number>();
    let top = -1;
    for (const [i, e] of events.entries()) {
      if (seen.has(e.seq))
        return fail(c, 400, 'malformed', `The batch holds seq ${e.seq} twice; each event has its own seq.`);
      seen.add(e.seq);
      top = Math.max(top, e.seq);
      const problem = eventDataProblem(e.kind, e.data);
      if (problem)
        return fail(
          c,
          400,
          'invalid_event',
          `events.${i} (seq ${e.seq}, ${e.kind.slice(0, 64)}): ${problem}. Nothing of this batch was stored.`,
          { path: `events.${i}`, seq: e.seq },
        );
    }
    if (top > session.ackedThrough + limits.maxSeqAhead) {
      const acked = (await store.getSession(session.id))?.ackedThrough ?? -1;
      if (top > acked + limits.maxSeqAhead)
        return fail(
          c,
          400,
          'seq_too_far',
          `Event seq ${top} is more than ${limits.maxSeqAhead} past the last acknowledged event (${acked}); send the missing events first.`,
        );
    }

    // The first batch this process sees of a session reads its counts from the database (another
    // server may have stored for it); later ones use what each append here reported.
    let known = totals.get(session.id);
    if (!known) {
      const fresh = await store.getSession(session.id);
      known = { events: fresh?.eventCount ?? 0, bytes: fresh?.eventBytes ?? 0, acked: fresh?.ackedThrough ?? -1 };
    }
    // Events at or below the acknowledged mark are repeats, stored already: they cost nothing.
    const acked = Math.max(known.acked, session.ackedThrough);
    let newEvents = 0;
    let newBytes = 0;
    for (const e of events) {
      if (e.seq <= acked) continue;
      newEvents++;
      newBytes += Buffer.byteLength(JSON.stringify(e.data));
    }
    const storedEvents = Math.max(known.events, session.eventCount);
    const storedBytes = Math.max(known.bytes, session.eventBytes);
    if (
      newEvents &&
      (storedEvents + newEvents > limits.maxSessionEvents || storedBytes + newBytes > limits.maxSessionBytes)
    ) {
      return fail(
        c,
        413,
        'quota_exceeded',
        `This session has stored ${storedEvents} events (${Math.round(storedBytes / 1024)} KiB); a session may store at most ${limits.maxSessionEvents} events and ${Math.round(limits.maxSessionBytes / 1024 / 1024)} MiB. Nothing of this batch was stored; tell the researcher.`,
      );
    }
    const t = now();
    let studyUse: StudyUse | undefined;
    if (newEvents) {
      studyUse = usage.get(session.studyId);
      if (!studyUse || t - studyUse.readAt >= USAGE_READ_EVERY_MS) {
        const latest = await store.getStudy(session.studyId);
        const budget = studyStorageBudget(latest ? definitions.ofRecord(latest) : p.study, limits);
        studyUse = { ...(await store.studyUsage(session.studyId)), budget, readAt: t };
        if (usage.size >= 10_000) usage.clear();
        usage.set(session.studyId, studyUse);
      }
      const { budget } = studyUse;
      if (studyUse.events + newEvents > budget.events || studyUse.bytes + newBytes > budget.bytes) {
        c.header('Retry-After', String(BUDGET_RETRY_S));
        return fail(
          c,
          507,
          'storage_budget',
          `This study has used its storage budget (${studyUse.events} of ${budget.events} events, ${mib(studyUse.bytes)} of ${mib(budget.bytes)} MiB), so the server takes no more of its data for now. Nothing you did is lost: it is kept in this browser and sent by itself once the researcher raises the budget. Please tell the researcher.`,
          { retryAfter: BUDGET_RETRY_S },
        );
      }
    }
    const wait = newEvents ? rate.take(session.id, newEvents, newBytes, t) : 0;
    if (wait > 0) {
      c.header('Retry-After', String(wait));
      return fail(
        c,
        429,
        'rate_limited',
        `This session is sending faster than ${limits.eventsPerSecond} events or ${Math.round(limits.bytesPerSecond / 1024)} KiB per second; nothing of this batch was stored. Send it again in ${wait} s.`,
        { retryAfter: wait },
      );
    }

    let r;
    try {
      r = await store.appendEvents(session.id, events, {
        receivedAt: t,
        pastSessionLimit: t - session.createdAt > p.study.limits.sessionMinutes * 60_000,
      });
    } catch (e) {
      // A researcher deleted the session (on another server, which this one's cache does not know).
      if (await store.getSession(session.id)) throw e;
      participants.forget([session.tokenHash]);
      return fail(
        c,
        401,
        'unauthorized',
        'The token is not valid for any session: the researcher removed this session. Open the study link again to start a session.',
      );
    }
    // The cached row as this batch left it: a game action admitted on it next sees what the batch
    // changed (an item ended), before it is answered.
    participants.remember({
      ...session,
      state: r.state,
      eventCount: r.eventCount,
      eventBytes: r.eventBytes,
      ackedThrough: r.ackedThrough,
    });
    if (totals.size >= 100_000) totals.clear();
    totals.set(session.id, { events: r.eventCount, bytes: r.eventBytes, acked: r.ackedThrough });
    if (studyUse) {
      studyUse.events += Math.max(0, r.eventCount - storedEvents);
      studyUse.bytes += Math.max(0, r.eventBytes - storedBytes);
    }
    return c.json({ ackedThrough: r.ackedThrough } satisfies BatchAck);
  });

  return api;
}
