/**
 * Question items: `POST /sessions/:id/answers`. The server alone holds a question's answer; it
 * judges choice and numerical answers and keeps symbolic and free-response ones for grading
 * (verdict `ungraded`). One answer per question, for the participant's current item only.
 * Answers are stored with the grid submissions (trial 1, the answer in `grid`); the test index is
 * the question's position in the item (`index`: 0 for a single question, its place in a block).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { AnswerResult } from '../../core/protocol/api';
import { judgeSubmission } from '../../core/questions/judge';
import { MAX_BLOCK_QUESTIONS, questionRefs } from '../../core/study/schema';
import { ITEM_END, ITEM_START, effectiveState, sessionProgress } from '../../core/study/rules';
import type { SubmissionRecord } from '../store/types';
import { type StudyContext, fail, itemLimitsOf, readJson, zodFail, sessionItem } from './context';

const AnswerBody = z.object({
  /** The client's id for this answer; a retried request with the same key is judged once. */
  key: z.string().min(1).max(100),
  item: z.string().min(1).max(64),
  /** The question's position in a block; 0 (the default) for a single question. */
  index: z.number().int().min(0).max(MAX_BLOCK_QUESTIONS - 1).default(0),
  answer: z.union([z.strictObject({ choice: z.string().min(1).max(8) }), z.strictObject({ text: z.string().max(20_000) })]),
  lastSeq: z.number().int().min(-1).optional(),
});

export function answerRoutes(ctx: StudyContext): Hono {
  const { store, now } = ctx;
  const api = new Hono();

  api.post('/sessions/:sessionId/answers', async (c) => {
    const p = await ctx.participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = AnswerBody.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The answer is not valid');
    const { key, item: itemId, index, answer, lastSeq } = parsed.data;
    const item = sessionItem(study, session.order, itemId);
    if (!item || item.kind !== 'question') return fail(c, 404, 'not_found', `This study has no question item "${itemId}".`);
    const refs = questionRefs(item);
    const ref = refs[index];
    if (!ref) return fail(c, 400, 'malformed', `index: question item ${itemId} has ${refs.length === 1 ? '1 question (index 0)' : `${refs.length} questions (index 0-${refs.length - 1})`}, so there is no question ${index}.`, { path: 'index' });
    const found = ctx.deps.library.questions.question(ref.collection, ref.question);
    if (!found.ok) return fail(c, 422, 'task_unavailable', `Item ${item.id}: ${found.message}`);
    if ('choice' in answer && !found.item.choices?.some((ch) => ch.label === answer.choice)) {
      return fail(c, 400, 'malformed', `Question ${index} of item ${itemId} has no choice "${answer.choice}"; pick one of ${(found.item.choices ?? []).map((ch) => ch.label).join(', ') || '(none: type the answer)'}.`);
    }

    const subs = await store.listSubmissions(session.id);
    const repeat = subs.find((s) => s.key === key);
    if (repeat) {
      if (repeat.item !== itemId || repeat.testIndex !== index) return fail(c, 409, 'key_reused', `Answer key "${key}" was already used for another answer; use a new key for each answer.`);
      return c.json({ verdict: repeat.verdict as AnswerResult['verdict'] } satisfies AnswerResult);
    }
    const answered = `${refs.length > 1 ? `Question ${index} of item` : 'Question item'} ${itemId} is already answered; each question takes one answer.`;
    if (subs.some((s) => s.item === itemId && s.testIndex === index)) return fail(c, 409, 'already_answered', answered);
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
    if (position !== progress.current) {
      if (lastSeq !== undefined && session.ackedThrough < lastSeq) {
        return fail(c, 409, 'events_pending', `Your events after seq ${session.ackedThrough} are not on the server yet, so it cannot tell which item you are on; send them, then answer again.`, { ackedThrough: session.ackedThrough });
      }
      return fail(c, 409, 'not_current_item', `Item ${itemId} is not the item you are on; answers are taken for the current item only.`);
    }
    const limits = itemLimitsOf(study, item);
    if (prog.startedAt !== null && t - prog.startedAt > limits.hardMinutes * 60_000) return fail(c, 409, 'item_time_up', `The ${limits.hardMinutes} minutes for item ${itemId} are up; move on to the next item.`);

    const { verdict } = judgeSubmission(found.item, answer);
    const record: SubmissionRecord = { sessionId: session.id, key, item: itemId, testIndex: index, trial: 1, grid: answer, verdict, practice: item.practice, at: t };
    if (!(await store.addSubmission(record))) {
      const again = (await store.listSubmissions(session.id)).find((s) => s.key === key);
      if (again) return c.json({ verdict: again.verdict as AnswerResult['verdict'] } satisfies AnswerResult);
      return fail(c, 409, 'already_answered', answered);
    }
    return c.json({ verdict } satisfies AnswerResult);
  });

  return api;
}
