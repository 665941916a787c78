/**
 * Judging: `POST /sessions/:id/submissions`. The server compares a grid with the test output
 * it alone holds, for the participant's current item only, within its trials and time.
 */
import { Hono } from 'hono';
import { gridProblems, formatProblem } from '../../core/formats/arcTask';
import { gridsEqual, type Grid } from '../../core/grid/grid';
import type { SubmissionResult } from '../../core/protocol/api';
import { SubmissionRequest } from '../../core/protocol/requests';
import { tallyTests } from '../../core/study/summary';
import { taskContentHash } from '../../core/analysis/versions';
import type { SubmissionRecord } from '../store/types';
import { fail, readBody, testIndicesOf, sessionItem } from './context';
import type { StudyWiring } from './services';
import { oncePerKey } from './once';

export function submissionRoutes({
  store,
  library,
  participants,
  admission,
}: Pick<StudyWiring, 'store' | 'library' | 'participants' | 'admission'>): Hono {
  const api = new Hono();

  api.post('/sessions/:sessionId/submissions', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const parsed = await readBody(c, SubmissionRequest, 'The submission is not valid');
    if (!parsed.ok) return parsed.res;
    const { key, item: itemId, testIndex, grid, lastSeq } = parsed.data;
    const problems = gridProblems(grid, 'grid');
    if (problems.length)
      return fail(c, 400, 'malformed', `The submitted grid is not valid: ${problems.map(formatProblem).join('; ')}`);
    const item = sessionItem(study, session.order, itemId);
    if (!item || item.kind !== 'task') return fail(c, 404, 'not_found', `This study has no task item "${itemId}".`);
    const found = await library.task(item.collection, item.task);
    if (!found.ok) return fail(c, 422, 'task_unavailable', `Item ${item.id}: ${found.message}`);
    const indices = testIndicesOf(item, found.task.test.length);
    if (!indices.includes(testIndex))
      return fail(
        c,
        400,
        'malformed',
        `Item ${itemId} has no test input ${testIndex}; its test inputs are ${indices.join(', ')}.`,
      );

    const subs = await store.listSubmissions(session.id);
    // Grid submissions are never `ungraded` (that is a question item's free-response answer).
    const respond = (s: SubmissionRecord, all: readonly SubmissionRecord[]) => {
      const tally = tallyTests(all, itemId, [testIndex])[0];
      return c.json({
        verdict: s.verdict as SubmissionResult['verdict'],
        trial: s.trial,
        trialsLeft: tally.solved ? 0 : study.trials - tally.trialsUsed,
        solved: tally.solved,
      } satisfies SubmissionResult);
    };
    const once = oncePerKey(c, {
      key,
      find: async () => (await store.listSubmissions(session.id)).find((s) => s.key === key),
      same: (s) => s.item === itemId && s.testIndex === testIndex && s.verdict !== 'ungraded',
      reply: async (s) => respond(s, await store.listSubmissions(session.id)),
    });
    const repeated = await once.repeat();
    if (repeated) return repeated;
    const admitted = await admission.admit(c, session, study, {
      item,
      lastSeq,
      what: 'answers',
      note: 'No trial was used.',
      submissions: subs,
    });
    if (!admitted.ok) return admitted.res;
    const t = admitted.now;
    const tally = tallyTests(subs, itemId, [testIndex])[0];
    if (tally.solved)
      return fail(c, 409, 'already_solved', `Test input ${testIndex} of item ${itemId} is already solved.`);
    if (tally.trialsUsed >= study.trials)
      return fail(
        c,
        409,
        'no_trials_left',
        `All ${study.trials} trials for test input ${testIndex} of item ${itemId} are used.`,
      );

    const isDuplicate = subs.some(
      (s) =>
        s.item === itemId &&
        s.testIndex === testIndex &&
        s.verdict === 'wrong' &&
        gridsEqual(s.grid as Grid, grid as Grid),
    );
    const answer = found.task.test[testIndex].output;
    if (!answer)
      return fail(
        c,
        422,
        'task_unavailable',
        `Item ${itemId} has no answer for test input ${testIndex}, so it cannot be judged. Tell the researcher.`,
      );
    const record: SubmissionRecord & { verdict: SubmissionResult['verdict'] } = {
      sessionId: session.id,
      key,
      item: itemId,
      testIndex,
      grid,
      practice: item.practice,
      at: t,
      trial: isDuplicate ? null : tally.trialsUsed + 1,
      verdict: isDuplicate ? 'duplicate' : gridsEqual(grid as Grid, answer) ? 'correct' : 'wrong',
      // The task as judged: its file may be edited while the study runs.
      taskHash: taskContentHash(found.task),
    };
    return once.store(
      () => store.addSubmission(record),
      () => respond(record, [...subs, record]),
      () =>
        fail(
          c,
          409,
          'conflict',
          'Another submission for this test input was judged at the same moment; send this one again.',
        ),
    );
  });

  return api;
}
