/**
 * Judging: `POST /sessions/:id/submissions`. The server compares a grid with the test output
 * it alone holds, for the participant's current item only, within its trials and time.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { gridProblems, formatProblem } from '../../core/formats/arcTask';
import { gridsEqual, type Grid } from '../../core/grid/grid';
import type { SubmissionResult } from '../../core/protocol/api';
import { ITEM_END, ITEM_START, effectiveState, sessionProgress } from '../../core/study/rules';
import { tallyTests } from '../../core/study/summary';
import type { SubmissionRecord } from '../store/types';
import { type StudyContext, fail, itemLimitsOf, readJson, testIndicesOf, zodFail, sessionItem } from './context';

const Submission = z.object({
  /** The client's id for this submission (e.g. a UUID); a retried request with the same key is judged once. */
  key: z.string().min(1).max(100),
  item: z.string().min(1).max(64),
  testIndex: z.number().int().nonnegative(),
  grid: z.unknown(),
  /** The highest seq the client has logged before submitting, so the server can tell a late batch from a wrong item. */
  lastSeq: z.number().int().min(-1).optional(),
});

export function submissionRoutes(ctx: StudyContext): Hono {
  const { store, now } = ctx;
  const api = new Hono();

  api.post('/sessions/:sessionId/submissions', async (c) => {
    const p = await ctx.participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = Submission.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The submission is not valid');
    const { key, item: itemId, testIndex, grid, lastSeq } = parsed.data;
    const problems = gridProblems(grid, 'grid');
    if (problems.length) return fail(c, 400, 'malformed', `The submitted grid is not valid: ${problems.map(formatProblem).join('; ')}`);
    const item = sessionItem(study, session.order, itemId);
    if (!item || item.kind !== 'task') return fail(c, 404, 'not_found', `This study has no task item "${itemId}".`);
    const found = await ctx.loadTask(item);
    if (!found.ok) return fail(c, 422, 'task_unavailable', `Item ${item.id}: ${found.message}`);
    const indices = testIndicesOf(item, found.task.test.length);
    if (!indices.includes(testIndex)) return fail(c, 400, 'malformed', `Item ${itemId} has no test input ${testIndex}; its test inputs are ${indices.join(', ')}.`);

    const subs = await store.listSubmissions(session.id);
    // Grid submissions are never `ungraded` (that is a question item's free-response answer).
    const respond = (s: SubmissionRecord & { verdict: SubmissionResult['verdict'] }, all: readonly SubmissionRecord[]) => {
      const tally = tallyTests(all, itemId, [testIndex])[0];
      return c.json({ verdict: s.verdict, trial: s.trial, trialsLeft: tally.solved ? 0 : study.trials - tally.trialsUsed, solved: tally.solved } satisfies SubmissionResult);
    };
    const repeat = subs.find((s) => s.key === key);
    if (repeat) {
      if (repeat.item !== itemId || repeat.testIndex !== testIndex || repeat.verdict === 'ungraded') return fail(c, 409, 'key_reused', `Submission key "${key}" was already used for another submission; use a new key for each submission.`);
      return respond({ ...repeat, verdict: repeat.verdict }, subs);
    }
    const t = now();
    const state = effectiveState(session, study, t);
    if (state === 'finished') return fail(c, 409, 'session_closed', 'This session is finished; no more answers are accepted.');
    if (state === 'withdrawn') return fail(c, 409, 'session_closed', 'You withdrew from this study; no more answers are accepted.');
    if (state === 'timed_out') {
      if (session.state !== 'timed_out') await store.setSessionState(session.id, 'timed_out');
      return fail(c, 409, 'session_closed', 'The time for this session is up; no more answers are accepted.');
    }
    const marks = await store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] });
    const progress = sessionProgress(study, session.order, marks, undefined, { createdAt: session.createdAt, now: t });
    const position = progress.items.findIndex((i) => i.id === itemId);
    const prog = progress.items[position];
    if (!prog) return fail(c, 404, 'not_found', `This session has no item "${itemId}".`);
    if (prog.skipped) return fail(c, 409, 'item_skipped', `Item ${itemId} was not started: too little of the session's time was left for it. Go on to the next item.`);
    if (prog.finished) return fail(c, 409, 'item_closed', `Item ${itemId} is finished; finished items cannot be revisited.`);
    // Answers are judged for the participant's current item only: never for one not reached yet.
    if (position !== progress.current) {
      if (lastSeq !== undefined && session.ackedThrough < lastSeq) {
        return fail(c, 409, 'events_pending', `Your events after seq ${session.ackedThrough} are not on the server yet, so it cannot tell which item you are on; send them, then submit again. No trial was used.`, { ackedThrough: session.ackedThrough });
      }
      return fail(c, 409, 'not_current_item', `Item ${itemId} is not the item you are on; answers are judged for the current item only. No trial was used.`);
    }
    // The hard limit runs from when the server first saw the item: its first event, or else its first submission.
    const firstSubmission = subs.filter((s) => s.item === itemId).reduce<number | null>((m, s) => (m === null || s.at < m ? s.at : m), null);
    const seenAt = [prog.startedAt, firstSubmission].filter((x): x is number => x !== null);
    const startedAt = seenAt.length ? Math.min(...seenAt) : t;
    const limits = itemLimitsOf(study, item);
    if (t - startedAt > limits.hardMinutes * 60_000) return fail(c, 409, 'item_time_up', `The ${limits.hardMinutes} minutes for item ${itemId} are up; move on to the next item.`);
    const tally = tallyTests(subs, itemId, [testIndex])[0];
    if (tally.solved) return fail(c, 409, 'already_solved', `Test input ${testIndex} of item ${itemId} is already solved.`);
    if (tally.trialsUsed >= study.trials) return fail(c, 409, 'no_trials_left', `All ${study.trials} trials for test input ${testIndex} of item ${itemId} are used.`);

    const isDuplicate = subs.some((s) => s.item === itemId && s.testIndex === testIndex && s.verdict === 'wrong' && gridsEqual(s.grid as Grid, grid as Grid));
    const answer = found.task.test[testIndex].output;
    if (!answer) return fail(c, 422, 'task_unavailable', `Item ${itemId} has no answer for test input ${testIndex}, so it cannot be judged. Tell the researcher.`);
    const record: SubmissionRecord & { verdict: SubmissionResult['verdict'] } = {
      sessionId: session.id, key, item: itemId, testIndex, grid, practice: item.practice, at: t,
      trial: isDuplicate ? null : tally.trialsUsed + 1,
      verdict: isDuplicate ? 'duplicate' : gridsEqual(grid as Grid, answer) ? 'correct' : 'wrong',
    };
    if (!(await store.addSubmission(record))) {
      // A concurrent request took the key or the trial number: answer as that one did.
      const now2 = await store.listSubmissions(session.id);
      const same = now2.find((s) => s.key === key);
      if (same && same.verdict !== 'ungraded') return respond({ ...same, verdict: same.verdict }, now2);
      return fail(c, 409, 'conflict', 'Another submission for this test input was judged at the same moment; send this one again.');
    }
    return respond(record, [...subs, record]);
  });

  return api;
}
