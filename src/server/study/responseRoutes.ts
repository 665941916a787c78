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
import { z } from 'zod';
import { WITHDRAW_REASONS, type ResponseStored, type WithdrawReason, type WithdrawResult } from '../../core/protocol/api';
import { ITEM_END, ITEM_START, effectiveState, isFinalState, sessionProgress } from '../../core/study/rules';
import { checkSurveyAnswers } from '../../core/study/survey';
import type { StudyDefinition } from '../../core/study/schema';
import { settleClaims } from '../campaign/assign';
import type { ResponseRecord, SessionRecord } from '../store/types';
import { type StudyContext, fail, readJson, zodFail, sessionItem } from './context';

/** Longest written description and withdrawal comment kept (characters). */
export const DESCRIPTION_MAX = 5000;
export const WITHDRAW_COMMENT_MAX = 2000;

const Key = z.string().min(1).max(100);
const DescriptionBody = z.strictObject({
  key: Key,
  item: z.string().min(1).max(64),
  stage: z.enum(['first', 'last']),
  text: z.string().trim().min(1, 'must not be empty: write the description first').max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`),
  lastSeq: z.number().int().min(-1).optional(),
});
const SurveyBody = z.strictObject({
  key: Key,
  item: z.string().min(1).max(64),
  answers: z.record(z.string().max(64), z.unknown()),
  lastSeq: z.number().int().min(-1).optional(),
});
const WithdrawBody = z.strictObject({
  key: Key,
  reason: z.enum(Object.keys(WITHDRAW_REASONS) as [WithdrawReason, ...WithdrawReason[]]),
  comment: z.string().trim().max(WITHDRAW_COMMENT_MAX, `must be at most ${WITHDRAW_COMMENT_MAX} characters`).default(''),
  /** The item the participant was on, if any. */
  item: z.string().max(64).default(''),
});

export function responseRoutes(ctx: StudyContext): Hono {
  const { store, now } = ctx;
  const api = new Hono();

  /** 409 when the session takes no more responses (finished, withdrawn, out of time). */
  const closed = async (c: Context, session: SessionRecord, study: StudyDefinition): Promise<Response | null> => {
    const state = effectiveState(session, study, now());
    if (state === 'withdrawn') return fail(c, 409, 'session_closed', 'You withdrew from this study; nothing more is recorded.');
    if (state === 'finished') return fail(c, 409, 'session_closed', 'This session is finished; nothing more is recorded.');
    if (state === 'timed_out') {
      if (session.state !== 'timed_out') await store.setSessionState(session.id, 'timed_out');
      return fail(c, 409, 'session_closed', 'The time for this session is up; nothing more is recorded.');
    }
    return null;
  };

  /** Stores a response once per key; a retry with the same key is answered as the first was. */
  const store1 = async (c: Context, r: ResponseRecord, taken: string): Promise<Response> => {
    const existing = (await store.listResponses(r.sessionId)).find((x) => x.key === r.key);
    if (existing) {
      if (existing.item !== r.item || existing.kind !== r.kind || existing.part !== r.part) return fail(c, 409, 'key_reused', `Key "${r.key}" was already used for another response; use a new key for each.`);
      return c.json({ stored: true } satisfies ResponseStored);
    }
    if (!(await store.addResponse(r))) {
      const again = (await store.listResponses(r.sessionId)).find((x) => x.key === r.key);
      if (again) return c.json({ stored: true } satisfies ResponseStored);
      return fail(c, 409, 'already_answered', taken);
    }
    return c.json({ stored: true } satisfies ResponseStored);
  };

  api.post('/sessions/:sessionId/descriptions', async (c) => {
    const p = await ctx.participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = DescriptionBody.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The description is not valid');
    const { key, item: itemId, stage, text, lastSeq } = parsed.data;
    const item = sessionItem(study, session.order, itemId);
    if (!item || (item.kind !== 'task' && item.kind !== 'game')) return fail(c, 404, 'not_found', `This study has no task or game item "${itemId}".`);
    if (!item.describe) return fail(c, 409, 'not_asked', `Item ${itemId} does not ask for a written description.`);
    if (item.kind === 'game' && stage === 'first') return fail(c, 400, 'malformed', 'stage: a game\'s description comes when it ends; send stage "last".', { path: 'stage' });
    const shut = await closed(c, session, study);
    if (shut) return shut;
    const marks = await store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] });
    const prog = sessionProgress(study, session.order, marks, undefined, { createdAt: session.createdAt, now: now() }).items.find((i) => i.id === itemId);
    if (!prog?.started) {
      if (lastSeq !== undefined && session.ackedThrough < lastSeq) {
        return fail(c, 409, 'events_pending', `Your events after seq ${session.ackedThrough} are not on the server yet, so it cannot tell which items you saw; send them, then send the description again.`, { ackedThrough: session.ackedThrough });
      }
      return fail(c, 409, 'not_started', `Item ${itemId} has not been started; describe an item after working on it.`);
    }
    return store1(c, { sessionId: session.id, key, item: itemId, kind: 'description', part: stage, value: { text, prompt: item.describe.prompt }, at: now() },
      `The ${stage} description of item ${itemId} is already recorded; each is written once.`);
  });

  api.post('/sessions/:sessionId/survey', async (c) => {
    const p = await ctx.participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = SurveyBody.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The survey answers are not valid');
    const { key, item: itemId, answers, lastSeq } = parsed.data;
    const item = sessionItem(study, session.order, itemId);
    if (!item || item.kind !== 'survey') return fail(c, 404, 'not_found', `This study has no survey item "${itemId}".`);
    const checked = checkSurveyAnswers(item, answers);
    if (!checked.ok) {
      const first = checked.problems[0];
      return fail(c, 400, 'malformed', `The survey answers are not valid: ${checked.problems.map((x) => `answers.${x.question} ${x.message}`).join('; ')}.`, { path: `answers.${first.question}` });
    }
    const shut = await closed(c, session, study);
    if (shut) return shut;
    const marks = await store.readEvents(session.id, { kinds: [ITEM_START, ITEM_END] });
    const progress = sessionProgress(study, session.order, marks, undefined, { createdAt: session.createdAt, now: now() });
    const position = progress.items.findIndex((i) => i.id === itemId);
    const existing = (await store.listResponses(session.id)).find((x) => x.key === key);
    if (!existing) {
      if (progress.items[position].finished) return fail(c, 409, 'item_closed', `Item ${itemId} is finished; finished items cannot be revisited.`);
      if (position !== progress.current) {
        if (lastSeq !== undefined && session.ackedThrough < lastSeq) {
          return fail(c, 409, 'events_pending', `Your events after seq ${session.ackedThrough} are not on the server yet, so it cannot tell which item you are on; send them, then send the answers again.`, { ackedThrough: session.ackedThrough });
        }
        return fail(c, 409, 'not_current_item', `Item ${itemId} is not the item you are on; answers are taken for the current item only.`);
      }
    }
    return store1(c, { sessionId: session.id, key, item: itemId, kind: 'survey', part: '', value: checked.answers, at: now() },
      `Survey ${itemId} is already answered; each survey takes one set of answers.`);
  });

  api.post('/sessions/:sessionId/withdraw', async (c) => {
    const p = await ctx.participant(c);
    if (!p.ok) return p.res;
    const { session, study } = p;
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const parsed = WithdrawBody.safeParse(body.body);
    if (!parsed.success) return zodFail(c, parsed.error.issues, 'The withdrawal is not valid');
    const { key, reason, comment, item } = parsed.data;
    const result: WithdrawResult = { message: study.withdraw?.message ?? null, code: study.withdraw?.code ?? null };
    const previous = (await store.listResponses(session.id)).find((x) => x.kind === 'withdraw');
    if (previous) return c.json(result);
    if (session.state === 'finished') return fail(c, 409, 'session_closed', 'This session is already finished; there is nothing to withdraw from. Contact the researcher to have your data removed.');
    const t = now();
    await store.addResponse({ sessionId: session.id, key, item, kind: 'withdraw', part: '', value: { reason, comment }, at: t });
    if (!isFinalState(session.state) || session.state === 'timed_out') {
      await store.setSessionState(session.id, 'withdrawn', { finishedAt: t });
      if (study.pools.length) await settleClaims(store, study, session, await ctx.summarize(session, study), ctx.gameLevels, t);
      ctx.deps.maintainer?.sessionEnded(session.studyId);
    }
    return c.json(result);
  });

  return api;
}
