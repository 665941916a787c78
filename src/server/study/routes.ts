/**
 * The study API: sessions, loss-proof event ingestion, server-side judging, and the
 * researcher's routes, one router per resource in `./study/`. Documented in docs/api.md;
 * error bodies are `{error, message}`.
 */
import { bodyLimit } from '../http';
import { type Context, Hono } from 'hono';
import type { StudyWiring } from './services';
import { bodyTooLarge } from './bodyLimits';
import { sessionRoutes } from './sessionRoutes';
import { eventRoutes } from './eventRoutes';
import { submissionRoutes } from './submissionRoutes';
import { answerRoutes } from './answerRoutes';
import { responseRoutes } from './responseRoutes';
import { adminRoutes } from './adminRoutes';
import { curationRoutes } from './curationRoutes';
import { stageRoutes } from './stageRoutes';
import { participantRoutes } from './participantRoutes';
import { DEFAULT_LIMITS } from './limits';
import { sessionLimits } from './sessionLimits';
import { arc3Routes } from '../arc3/routes';

export type { StudyDeps } from './context';
export { KNOWN_PARAMS } from './sessionRoutes';

/** Most events in one batch (the default; see `IngestLimits`). */
export const MAX_BATCH_EVENTS = DEFAULT_LIMITS.maxBatchEvents;
/** Largest request body, in bytes (the default). */
export const MAX_BODY_BYTES = DEFAULT_LIMITS.maxBodyBytes;
/** How far past the acknowledged mark an event may be (the default). */
export const MAX_SEQ_AHEAD = DEFAULT_LIMITS.maxSeqAhead;

/**
 * The study routes, each router given the services it names out of `wiring` (built once per app:
 * `studyServices` in `./services.ts`).
 */
export function studyRoutes(wiring: StudyWiring): Hono {
  const { limits, now } = wiring;
  const max = limits.maxBodyBytes;
  const api = new Hono();
  const tooLarge = (c: Context) => bodyTooLarge(c, limits);
  // A body announced too large is read and dropped (up to 16 times the limit) before the answer,
  // so the client, still sending, receives the 413 instead of a connection closed under it.
  api.use('*', async (c, next) => {
    const length = Number(c.req.header('Content-Length'));
    if (Number.isFinite(length) && length > max) {
      if (length <= 16 * max && c.req.raw.body) {
        const reader = c.req.raw.body.getReader();
        while (!(await reader.read()).done) {
          /* dropped */
        }
      }
      return tooLarge(c);
    }
    await next();
  });
  api.use(
    '*',
    bodyLimit({
      maxSize: max,
      onError: tooLarge,
    }),
  );
  api.post('/studies/:studyId/sessions', sessionLimits(limits, now));
  api.route('/', sessionRoutes(wiring));
  api.route('/', eventRoutes(wiring));
  api.route('/', submissionRoutes(wiring));
  api.route('/', answerRoutes(wiring));
  api.route('/', responseRoutes(wiring));
  api.route('/admin', adminRoutes(wiring));
  api.route('/admin', curationRoutes(wiring));
  api.route('/admin', stageRoutes(wiring));
  api.route('/admin', participantRoutes(wiring));
  if (wiring.arc3) api.route('/', arc3Routes(wiring, wiring.arc3));
  return api;
}
