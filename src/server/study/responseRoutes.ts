/**
 * What participants write and answer besides grid and question answers, stored in `responses`:
 *
 * - `POST /sessions/:id/descriptions`: a written description of a task or game that asks for one
 *   (`describe`), `stage` `first` (after the first submission on a task) or `last` (on leaving it;
 *   a game's only one). For an item the participant has entered, while the session is open.
 * - `POST /sessions/:id/survey`: a survey item's answers, checked against its questions
 *   (`core/study/survey.ts`); the current item only, once.
 * - `POST /sessions/:id/withdraw`: the participant withdraws, with a reason and an optional
 *   comment; the session ends as `withdrawn` (its data kept, never counted as finished).
 *
 * Each takes a client `key`, so a retried request is stored once.
 */
import { Hono, type Context } from 'hono';
import type { ResponseStored, WithdrawResult } from '../../core/protocol/api';
import { DescriptionRequest, SurveyRequest, WithdrawRequest } from '../../core/protocol/requests';
import { isFinalState } from '../../core/study/rules';
import { checkSurveyAnswers } from '../../core/study/survey';
import type { ResponseRecord } from '../store/types';
import { fail, readBody, sessionItem } from './context';
import type { StudyWiring } from './services';
import { oncePerKey } from './once';

export function responseRoutes({
  store,
  participants,
  admission,
  endings,
}: Pick<StudyWiring, 'store' | 'participants' | 'admission' | 'endings'>): Hono {
  const api = new Hono();

  const stored = (c: Context) => c.json({ stored: true } satisfies ResponseStored);
  /** A response stored once per key; a retry with the same key is answered as the first was. */
  const keyed = (c: Context, sessionId: string, key: string, same: (r: ResponseRecord) => boolean) =>
    oncePerKey(c, {
      key,
      find: async () => (await store.listResponses(sessionId)).find((x) => x.key === key),
      same,
      reply: () => stored(c),
    });

  api.post('/sessions/:sessionId/descriptions', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const parsed = await readBody(c, DescriptionRequest, 'The description is not valid');
    if (!parsed.ok) return parsed.res;
    const { key, item: itemId, stage, text, lastSeq } = parsed.data;
    const item = sessionItem(study, session.order, itemId);
    if (!item || (item.kind !== 'task' && item.kind !== 'game'))
      return fail(c, 404, 'not_found', `This study has no task or game item "${itemId}".`);
    if (!item.describe) return fail(c, 409, 'not_asked', `Item ${itemId} does not ask for a written description.`);
    if (item.kind === 'game' && stage === 'first')
      return fail(c, 400, 'malformed', 'stage: a game\'s description comes when it ends; send stage "last".', {
        path: 'stage',
      });
    const once = keyed(c, session.id, key, (r) => r.kind === 'description' && r.item === itemId && r.part === stage);
    const repeated = await once.repeat();
    if (repeated) return repeated;
    // The first description is written while on the item; the last one on leaving it, after it ended.
    const admitted = await admission.admit(c, session, study, {
      item,
      lastSeq,
      need: stage === 'first' ? 'current' : 'entered',
      what: 'descriptions',
    });
    if (!admitted.ok) return admitted.res;
    const record: ResponseRecord = {
      sessionId: session.id,
      key,
      item: itemId,
      kind: 'description',
      part: stage,
      value: { text, prompt: item.describe.prompt },
      at: admitted.now,
    };
    return once.store(
      () => store.addResponse(record),
      () => stored(c),
      () =>
        fail(
          c,
          409,
          'already_answered',
          `The ${stage} description of item ${itemId} is already recorded; each is written once.`,
        ),
    );
  });

  api.post('/sessions/:sessionId/survey', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const parsed = await readBody(c, SurveyRequest, 'The survey answers are not valid');
    if (!parsed.ok) return parsed.res;
    const { key, item: itemId, answers, lastSeq } = parsed.data;
    const item = sessionItem(study, session.order, itemId);
    if (!item || item.kind !== 'survey') return fail(c, 404, 'not_found', `This study has no survey item "${itemId}".`);
    const checked = checkSurveyAnswers(item, answers);
    if (!checked.ok) {
      const first = checked.problems[0];
      return fail(
        c,
        400,
        'malformed',
        `The survey answers are not valid: ${checked.problems.map((x) => `answers.${x.question} ${x.message}`).join('; ')}.`,
        { path: `answers.${first.question}` },
      );
    }
    const once = keyed(c, session.id, key, (r) => r.kind === 'survey' && r.item === itemId);
    const repeated = await once.repeat();
    if (repeated) return repeated;
    const admitted = await admission.admit(c, session, study, { item, lastSeq, what: 'answers' });
    if (!admitted.ok) return admitted.res;
    const record: ResponseRecord = {
      sessionId: session.id,
      key,
      item: itemId,
      kind: 'survey',
      part: '',
      value: checked.answers,
      at: admitted.now,
    };
    return once.store(
      () => store.addResponse(record),
      () => stored(c),
      () =>
        fail(c, 409, 'already_answered', `Survey ${itemId} is already answered; each survey takes one set of answers.`),
    );
  });

  api.post('/sessions/:sessionId/withdraw', async (c) => {
    const p = await participants.authenticate(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const parsed = await readBody(c, WithdrawRequest, 'The withdrawal is not valid');
    if (!parsed.ok) return parsed.res;
    const { key, reason, comment, item } = parsed.data;
    const result: WithdrawResult = { message: study.withdraw?.message ?? null, code: study.withdraw?.code ?? null };
    const previous = (await store.listResponses(session.id)).find((x) => x.kind === 'withdraw');
    if (previous) return c.json(result);
    const admitted = await admission.admit(c, session, study, {
      item: null,
      withdrawing: true,
      what: 'withdrawals',
      note: 'Contact the researcher to have your data removed.',
    });
    if (!admitted.ok) return admitted.res;
    const t = admitted.now;
    await store.addResponse({
      sessionId: session.id,
      key,
      item,
      kind: 'withdraw',
      part: '',
      value: { reason, comment },
      at: t,
    });
    if (!isFinalState(session.state) || session.state === 'timed_out') {
      await endings.end(session, study, { state: 'withdrawn' }, t);
    }
    return c.json(result);
  });

  return api;
}
