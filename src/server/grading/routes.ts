/**
 * Grading routes (docs/api.md, "Grading"). The researcher (under `/admin`, the researcher guard)
 * adds graders to a study, each with a link `/grade/<token>` (the token is shown once and kept
 * as its SHA-256, revocable), reads the grading overview (graders' progress, agreement,
 * disagreements, final grades) and sets the final grade of an answer (`adjudications`, recorded
 * in the audit log). A grader's page calls `/grading/...` with its token as the bearer: it sees
 * the answers and its own grades only, never a session or participant id or another grader.
 */
import { bodyLimit } from '../http';
import { randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { POINTS_SHARE, agreementOf, answerKey, scoreDistribution, type GradeRow } from '../../core/grading/agreement';
import { type GradeInput, makeGrade, round2 } from '../../core/grading/grade';
import type {
  GraderAnswer,
  GraderInfo,
  GraderQueue,
  GradedAnswerView,
  GradingItemView,
  GradingOverview,
  NewGraderLink,
} from '../../core/protocol/grading';
import { bearer, hashToken, newToken, tokenMatches } from '../people/auth';
import type { TaskLibrary } from '../collections/collections';
import type { GraderRecord } from '../store/gradingStore';
import type { Store, StudyStore } from '../store/types';
import { AdjudicationRequest, GradeRequest, GraderRequest } from '../../core/protocol/requests';
import { adminGuard, fail, readBody } from '../study/context';
import { RESEARCHER } from '../study/curationRoutes';
import { type GradingData, answerStatuses, answerText, gradingQuestion, graderAnswerId, loadGrading } from './grading';

export interface GradingDeps {
  readonly store: StudyStore & Pick<Store, 'grading'>;
  readonly library: TaskLibrary;
  /** SHA-256 of the researcher token. */
  readonly adminTokenHash: string;
  readonly now?: () => number;
}

/** Largest request body of these routes, bytes: 50 criteria with full notes fit. */
const MAX_BODY = 256 * 1024;

export function gradingRoutes(deps: GradingDeps): Hono {
  const { store, library } = deps;
  const now = deps.now ?? Date.now;
  const api = new Hono();
  const admin = new Hono();
  api.use(
    '/grading/*',
    bodyLimit({
      maxSize: MAX_BODY,
      onError: (c) => fail(c, 413, 'too_large', `A grade is at most ${MAX_BODY / 1024} KiB; shorten the notes.`),
    }),
  );
  admin.use('*', adminGuard(deps.adminTokenHash));

  const studyExists = async (c: Context, id: string) =>
    (await store.getStudy(id))
      ? null
      : fail(
          c,
          404,
          'not_found',
          `No study "${id.slice(0, 100)}". GET /api/admin/studies lists the studies there are.`,
        );

  admin.get('/studies/:studyId/grading', async (c) => {
    const id = c.req.param('studyId');
    const missing = await studyExists(c, id);
    if (missing) return missing;
    return c.json(overview(id, await loadGrading(store, library, id)));
  });

  admin.post('/studies/:studyId/graders', async (c) => {
    const id = c.req.param('studyId');
    const missing = await studyExists(c, id);
    if (missing) return missing;
    const parsed = await readBody(c, GraderRequest, 'Send {"label": "..."}', { absent: {} });
    if (!parsed.ok) return parsed.res;
    const token = newToken();
    const grader: GraderRecord = {
      id: `g-${randomBytes(6).toString('hex')}`,
      studyId: id,
      label: parsed.data.label,
      tokenHash: hashToken(token),
      createdAt: now(),
      revokedAt: null,
    };
    await store.grading.addGrader(grader, RESEARCHER);
    const total = (await store.grading.gradableAnswers(id)).length;
    return c.json(
      {
        grader: { id: grader.id, label: grader.label, createdAt: grader.createdAt, revokedAt: null, graded: 0, total },
        token,
        path: `/grade/${token}`,
      } satisfies NewGraderLink,
      201,
    );
  });

  admin.post('/studies/:studyId/graders/:graderId/revoke', async (c) => {
    const id = c.req.param('studyId');
    const graderId = c.req.param('graderId');
    if (await store.grading.revokeGrader(id, graderId, RESEARCHER, now())) return c.json({ graderId, revoked: true });
    const known = (await store.grading.listGraders(id)).find((g) => g.id === graderId);
    if (known) return c.json({ graderId, revoked: true });
    return fail(
      c,
      404,
      'not_found',
      `Study "${id.slice(0, 100)}" has no grader ${graderId.slice(0, 100)}; reload the Grading tab.`,
    );
  });

  admin.post('/studies/:studyId/adjudications', async (c) => {
    const id = c.req.param('studyId');
    const missing = await studyExists(c, id);
    if (missing) return missing;
    const parsed = await readBody(
      c,
      AdjudicationRequest,
      'Send {"sessionId", "item", "testIndex", "grade": {...}, "reason"?}',
    );
    if (!parsed.ok) return parsed.res;
    const { sessionId, item, testIndex, grade, reason } = parsed.data;
    const data = await loadGrading(store, library, id);
    const answer = data.answers.find((a) => a.key === answerKey(sessionId, item, testIndex));
    if (!answer)
      return fail(
        c,
        404,
        'not_found',
        `Study "${id.slice(0, 100)}" has no answer to grade from session ${sessionId.slice(0, 100)} to item ${item.slice(0, 64)} (question ${testIndex + 1}); it may be excluded or deleted. Reload the Grading tab.`,
      );
    if (!answer.question.ok)
      return fail(
        c,
        422,
        'question_unavailable',
        `The question of this answer cannot be read: ${answer.question.message}`,
      );
    const made = makeGrade(answer.question.item.rubric ?? null, grade as GradeInput);
    if (!made.ok)
      return fail(c, 400, 'malformed', `The grade is not valid: ${made.problems.join('; ')}. Nothing was stored.`);
    await store.grading.saveAdjudication(
      id,
      { ...made.grade, sessionId, item, testIndex, actor: RESEARCHER, at: now() },
      reason || null,
    );
    return c.json({ ok: true, grade: made.grade });
  });

  /** The grader of the request's token, or an error response. */
  const graderOf = async (c: Context): Promise<{ ok: true; grader: GraderRecord } | { ok: false; res: Response }> => {
    const token = bearer(c.req.header('Authorization'));
    if (!token)
      return {
        ok: false,
        res: fail(
          c,
          401,
          'unauthorized',
          'This page needs a grader link: open the link /grade/<token> the researcher gave you.',
        ),
      };
    const grader = await store.grading.graderByTokenHash(hashToken(token));
    if (!grader || !tokenMatches(token, grader.tokenHash))
      return {
        ok: false,
        res: fail(
          c,
          401,
          'unauthorized',
          'This grader link is not valid. Check that the whole link was copied, or ask the researcher for a new one.',
        ),
      };
    if (grader.revokedAt !== null)
      return {
        ok: false,
        res: fail(
          c,
          403,
          'revoked',
          'This grader link was revoked by the researcher; the grades you saved are kept. Ask the researcher for a new link if you should grade more.',
        ),
      };
    return { ok: true, grader };
  };

  api.get('/grading/queue', async (c) => {
    const g = await graderOf(c);
    if (!g.ok) return g.res;
    const study = await store.getStudy(g.grader.studyId);
    if (!study) return fail(c, 404, 'not_found', 'The study of this grader link no longer exists.');
    const data = await loadGrading(store, library, g.grader.studyId);
    return c.json(queueOf(g.grader, (study.definition as { title?: string }).title ?? g.grader.studyId, data));
  });

  api.put('/grading/answers/:answerId', async (c) => {
    const g = await graderOf(c);
    if (!g.ok) return g.res;
    const parsed = await readBody(c, GradeRequest, 'The grade is not valid');
    if (!parsed.ok) return parsed.res;
    const answerId = c.req.param('answerId');
    const data = await loadGrading(store, library, g.grader.studyId);
    const answer = data.answers.find((a) => graderAnswerId(g.grader, a.key) === answerId);
    if (!answer)
      return fail(
        c,
        404,
        'not_found',
        'This answer is not in your queue (it may have been withdrawn by the researcher). Reload the page.',
      );
    if (!answer.question.ok)
      return fail(
        c,
        422,
        'question_unavailable',
        `This answer's question cannot be read (${answer.question.message}); tell the researcher.`,
      );
    const made = makeGrade(answer.question.item.rubric ?? null, parsed.data as GradeInput);
    if (!made.ok)
      return fail(c, 400, 'malformed', `The grade is not valid: ${made.problems.join('; ')}. Nothing was saved.`);
    await store.grading.saveGrade({
      ...made.grade,
      graderId: g.grader.id,
      sessionId: answer.sessionId,
      item: answer.item,
      testIndex: answer.testIndex,
      at: now(),
    });
    return c.json({ ok: true, grade: made.grade });
  });

  api.route('/admin', admin);
  return api;
}

/** A grader's queue: every answer to grade, in the grader's own order, with the grader's own grades only. */
export function queueOf(grader: GraderRecord, title: string, data: GradingData): GraderQueue {
  const mine = new Map(
    data.grades.filter((x) => x.graderId === grader.id).map((x) => [answerKey(x.sessionId, x.item, x.testIndex), x]),
  );
  const answers: GraderAnswer[] = data.answers
    .filter((a) => a.question.ok)
    .map((a) => {
      const q = a.question as Extract<typeof a.question, { ok: true }>;
      const g = mine.get(a.key);
      return {
        id: graderAnswerId(grader, a.key),
        item: a.item,
        question: gradingQuestion(q.collection, q.item),
        answer: answerText(a.answer),
        grade: g
          ? { criteria: g.criteria, points: g.points, maxPoints: g.maxPoints, pass: g.pass, note: g.note }
          : null,
      };
    })
    .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return {
    study: title,
    grader: grader.label,
    answers,
    graded: answers.filter((a) => a.grade).length,
    total: answers.length,
  };
}

/** The researcher's overview of a study's grading. */
export function overview(studyId: string, data: GradingData): GradingOverview {
  const statuses = answerStatuses(data);
  const label = new Map(data.graders.map((g) => [g.id, g.label]));
  const graderIds = data.graders.map((g) => g.id);
  const rows: GradeRow[] = [];
  const answers: GradedAnswerView[] = [];
  for (const { answer, grades, status } of statuses.values()) {
    for (const g of grades)
      rows.push({ ...g, answer: answer.key, item: `${answer.item}#${answer.testIndex}`, grader: g.graderId });
    answers.push({
      sessionId: answer.sessionId,
      item: answer.item,
      testIndex: answer.testIndex,
      answer: answerText(answer.answer),
      grades: grades.map((g) => ({
        criteria: g.criteria,
        points: g.points,
        maxPoints: g.maxPoints,
        pass: g.pass,
        note: g.note,
        graderId: g.graderId,
        grader: label.get(g.graderId) ?? g.graderId,
        at: g.at,
      })),
      status: status.status,
      final: status.status === 'final' ? { ...status.grade, source: status.source } : null,
    });
  }
  const items: GradingItemView[] = [];
  const seen = new Set<string>();
  for (const a of data.answers) {
    const k = `${a.item}#${a.testIndex}`;
    if (seen.has(k)) continue;
    seen.add(k);
    const mine = answers.filter((x) => x.item === a.item && x.testIndex === a.testIndex);
    const finals = mine.flatMap((x) => (x.final ? [x.final] : []));
    items.push({
      item: a.item,
      testIndex: a.testIndex,
      question: a.question.ok ? gradingQuestion(a.question.collection, a.question.item) : null,
      ...(a.question.ok ? {} : { problem: a.question.message }),
      answers: mine.length,
      finals: finals.length,
      disagreements: mine.filter((x) => x.status === 'disagreement').length,
      passRate: finals.length ? finals.filter((f) => f.pass).length / finals.length : null,
      meanPoints: finals.length ? round2(finals.reduce((s, f) => s + f.points, 0) / finals.length) : null,
      distribution: scoreDistribution(finals),
      agreement: agreementOf(
        rows.filter((r) => r.item === k),
        graderIds,
        false,
      ),
    });
  }
  const total = data.answers.length;
  const graders: GraderInfo[] = data.graders.map((g) => ({
    id: g.id,
    label: g.label,
    createdAt: g.createdAt,
    revokedAt: g.revokedAt,
    total,
    graded: data.grades.filter((x) => x.graderId === g.id && statuses.has(answerKey(x.sessionId, x.item, x.testIndex)))
      .length,
  }));
  return { studyId, graders, overall: agreementOf(rows, graderIds, true), items, answers, pointsShare: POINTS_SHARE };
}
