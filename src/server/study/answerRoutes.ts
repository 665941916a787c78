/**
 * Question items: `POST /sessions/:id/answers`. The server alone holds a question's answer; it
 * judges choice and numerical answers and keeps symbolic and free-response ones for grading
 * (verdict `ungraded`). One answer per question, for the participant's current item only.
 * Answers are stored with the grid submissions (trial 1, the answer in `grid`); the test index is
 * the question's position in the item (`index`: 0 for a single question, its place in a block).
 */
import { Hono } from 'hono';
import type { AnswerResult } from '../../core/protocol/api';
import { AnswerRequest } from '../../core/protocol/requests';
import { judgeSubmission } from '../../core/questions/judge';
import { questionRefs } from '../../core/study/schema';
import type { SubmissionRecord } from '../store/types';
import { fail, readBody, sessionItem } from './context';
import type { StudyWiring } from './services';
import { oncePerKey } from './once';

export function answerRoutes({
  store,
  library,
  participants,
  admission,
}: Pick<StudyWiring, 'store' | 'library' | 'participants' | 'admission'>): Hono {
  const api = new Hono();

  api.post('/sessions/:sessionId/answers', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const parsed = await readBody(c, AnswerRequest, 'The answer is not valid');
    if (!parsed.ok) return parsed.res;
    const { key, item: itemId, index, answer, lastSeq } = parsed.data;
    const item = sessionItem(study, session.order, itemId);
    if (!item || item.kind !== 'question')
      return fail(c, 404, 'not_found', `This study has no question item "${itemId}".`);
    const refs = questionRefs(item);
    const ref = refs[index];
    if (!ref)
      return fail(
        c,
        400,
        'malformed',
        `index: question item ${itemId} has ${refs.length === 1 ? '1 question (index 0)' : `${refs.length} questions (index 0-${refs.length - 1})`}, so there is no question ${index}.`,
        { path: 'index' },
      );
    const found = library.questions.question(ref.collection, ref.question);
    if (!found.ok) return fail(c, 422, 'task_unavailable', `Item ${item.id}: ${found.message}`);
    if ('choice' in answer && !found.item.choices?.some((ch) => ch.label === answer.choice)) {
      return fail(
        c,
        400,
        'malformed',
        `Question ${index} of item ${itemId} has no choice "${answer.choice}"; pick one of ${(found.item.choices ?? []).map((ch) => ch.label).join(', ') || '(none: type the answer)'}.`,
      );
    }

    const subs = await store.listSubmissions(session.id);
    const reply = (s: SubmissionRecord) =>
      c.json({ verdict: s.verdict as AnswerResult['verdict'] } satisfies AnswerResult);
    const once = oncePerKey(c, {
      key,
      find: async () => (await store.listSubmissions(session.id)).find((s) => s.key === key),
      same: (s) => s.item === itemId && s.testIndex === index,
      reply,
    });
    const repeated = await once.repeat();
    if (repeated) return repeated;
    const answered = `${refs.length > 1 ? `Question ${index} of item` : 'Question item'} ${itemId} is already answered; each question takes one answer.`;
    if (subs.some((s) => s.item === itemId && s.testIndex === index)) return fail(c, 409, 'already_answered', answered);
    const admitted = await admission.admit(c, session, study, { item, lastSeq, what: 'answers', submissions: subs });
    if (!admitted.ok) return admitted.res;

    const { verdict } = judgeSubmission(found.item, answer);
    const record: SubmissionRecord = {
      sessionId: session.id,
      key,
      item: itemId,
      testIndex: index,
      trial: 1,
      grid: answer,
      verdict,
      practice: item.practice,
      at: admitted.now,
    };
    return once.store(
      () => store.addSubmission(record),
      () => reply(record),
      () => fail(c, 409, 'already_answered', answered),
    );
  });

  return api;
}
