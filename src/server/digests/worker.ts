/**
 * A digest worker thread: computes one session's digest (`digestSession`, or extends its fold
 * and finishes it: `foldEvents`, `finishDigest`), summary (`summarizeSession`), a study's survey
 * summaries (`surveySummaries`), a page of a game run's replay view (`stepViewsJson`), a study's
 * results added up from its digests (`studyResults`) or the signals across sessions
 * (`crossSessionSignals`) per message, off the thread that acknowledges participants' events.
 * Answers `{id, value, threadId}` or `{id, error}`.
 */
import { parentPort, threadId } from 'node:worker_threads';
import { digestSession, studyResults } from '../../core/analysis/results';
import { resultsFromWire } from '../../core/analysis/resultsWire';
import { crossSessionSignals } from '../../core/analysis/signals';
import { finishDigest, foldEvents, newDigestFold } from '../../core/analysis/fold';
import { replayWithEngine } from '../study/studies';
import { summarizeSession } from '../../core/study/summary';
import { surveySummaries } from '../../core/analysis/surveys';
import { threadStudioReplay } from '../arc3/replayCheck';
import { stepViewsJson } from '../arc3/steps';
import type { DigestReply, PoolJob } from './pool';
import type { StoredEvent } from '../../core/study/rules';

parentPort!.on('message', (job: PoolJob) => {
  let reply: DigestReply;
  try {
    if (job.kind === 'surveys') {
      parentPort!.postMessage({ id: job.id, value: surveySummaries(job), threadId } satisfies DigestReply);
      return;
    }
    if (job.kind === 'results') {
      parentPort!.postMessage({
        id: job.id,
        value: studyResults(resultsFromWire(job)),
        threadId,
      } satisfies DigestReply);
      return;
    }
    if (job.kind === 'cross') {
      const value = [...crossSessionSignals(job.sessions)];
      parentPort!.postMessage({ id: job.id, value, threadId } satisfies DigestReply);
      return;
    }
    if (job.kind === 'steps') {
      parentPort!.postMessage({
        id: job.id,
        value: stepViewsJson(job.steps, job.last),
        threadId,
      } satisfies DigestReply);
      return;
    }
    const replay = !job.verify ? null : job.serverRuns ? threadStudioReplay(job.serverRuns) : replayWithEngine;
    if (job.kind === 'fold') {
      const counts = new Map(job.testCounts);
      const testCount = (collection: string, task: string) => counts.get(`${collection}\u0000${task}`) ?? null;
      const fold = foldEvents(job.definition, job.order, job.fold ?? newDigestFold(), job.events);
      reply = {
        id: job.id,
        value: { digest: finishDigest(job.definition, job, fold, job.submissions, testCount, replay), fold },
        threadId,
      };
    } else if (job.kind === 'summary') {
      const indices = new Map(job.testIndices);
      const events = job.eventPages
        ? [...job.events, ...job.eventPages.flatMap((p) => JSON.parse(p) as StoredEvent[])]
        : job.events;
      reply = {
        id: job.id,
        value: summarizeSession(
          job.definition,
          job.order,
          events,
          job.submissions,
          (item) => indices.get(item) ?? [],
          replay,
        ),
        threadId,
      };
    } else {
      const counts = new Map(job.testCounts);
      const testCount = (collection: string, task: string) => counts.get(`${collection}\u0000${task}`) ?? null;
      reply = {
        id: job.id,
        value: digestSession(job.definition, job.session, job.events, job.submissions, testCount, replay),
        threadId,
      };
    }
  } catch (e) {
    reply = { id: job.id, error: (e as Error).stack ?? String(e) };
  }
  parentPort!.postMessage(reply);
});
