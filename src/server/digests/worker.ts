/**
 * A digest worker thread: computes one session's digest (`digestSession`) per message, off the
 * thread that acknowledges participants' events. Answers `{id, digest, threadId}` or `{id, error}`.
 */
import { parentPort, threadId } from 'node:worker_threads';
import { digestSession } from '../../core/analysis/results';
import { replayWithEngine } from '../studies';
import type { DigestJob, DigestReply } from './pool';

parentPort!.on('message', (job: DigestJob) => {
  let reply: DigestReply;
  try {
    const counts = new Map(job.testCounts);
    const testCount = (collection: string, task: string) => counts.get(`${collection}\u0000${task}`) ?? null;
    reply = { id: job.id, digest: digestSession(job.definition, job.session, job.events, job.submissions, testCount, job.verify ? replayWithEngine : null), threadId };
  } catch (e) {
    reply = { id: job.id, error: (e as Error).stack ?? String(e) };
  }
  parentPort!.postMessage(reply);
});
