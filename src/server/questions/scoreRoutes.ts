/**
 * A model's answers beside a study's humans, for the studio's Score page:
 * `POST /api/admin/studies/:studyId/question-scores?collection=ID[&rule=mcpbr][&version=N]`
 * with the model's answers file (JSON Lines of `{"id", "response"}`) as the request body.
 *
 * The answers are scored against the mounted question collection `collection` with
 * `scoreAnswers` (the same code as `arc-studio score-answers`); the humans are the study's
 * results (`computeStudyResults`, from the stored session digests) for the questions of that
 * collection. Documented in docs/api.md ("Scoring model answers").
 */
import { Hono } from 'hono';
import { RESPONSE_RULES, type ResponseRule } from '../../core/questions/judge';
import { formatQuestionProblem } from '../../core/questions/parse';
import { parseAnswersFile, scoreAnswers } from '../../core/questions/score';
import { besideHumans } from '../../core/questions/beside';
import type { QuestionScoreResponse } from '../../core/protocol/questionScore';
import { computeStudyResults, type ResultsDeps } from '../digests/studyDigests';
import { adminGuard } from '../study/context';
import { bodyLimit, fail } from '../http';

export type { QuestionScoreResponse } from '../../core/protocol/questionScore';

/** The largest answers file the route reads. */
export const MAX_ANSWERS_BYTES = 8 * 1024 * 1024;

/** The route, to mount under `/admin` before any router with a smaller body limit. */
export function questionScoreRoutes(deps: ResultsDeps): Hono {
  const admin = new Hono();
  admin.post(
    '/studies/:studyId/question-scores',
    adminGuard(deps.adminTokenHash),
    bodyLimit({
      maxSize: MAX_ANSWERS_BYTES,
      onError: (c) =>
        fail(
          c,
          413,
          'too_large',
          `The answers file is larger than ${MAX_ANSWERS_BYTES / 1024 / 1024} MiB. Score a large file with "arc-studio score-answers --study", which has no limit, or split it by subset.`,
        ),
    }),
    async (c) => {
      const studyId = c.req.param('studyId');
      const cid = c.req.query('collection') ?? '';
      const rule = c.req.query('rule') ?? 'mcpbr';
      const v = c.req.query('version');
      if (!(RESPONSE_RULES as readonly string[]).includes(rule))
        return fail(
          c,
          400,
          'malformed',
          `rule "${rule.slice(0, 40)}" is not known; use ${RESPONSE_RULES.join(' or ')}.`,
        );
      if (v !== undefined && v !== '' && !/^[1-9][0-9]{0,8}$/.test(v))
        return fail(
          c,
          400,
          'malformed',
          `version must be a whole number from 1, not "${v.slice(0, 40)}"; leave it out for every version.`,
        );
      const collections = deps.library.questions.list();
      const collection = collections.find((q) => q.id === cid);
      if (!collection) {
        return fail(
          c,
          cid ? 404 : 400,
          cid ? 'not_found' : 'malformed',
          `${cid ? `No question collection "${cid.slice(0, 80)}".` : 'Name the question collection the answers are for: ?collection=ID.'} ${collections.length ? `Collections: ${collections.map((q) => q.id).join(', ')}.` : 'Mount one with serve --questions NAME=FILE.'}`,
        );
      }
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        return fail(
          c,
          422,
          'invalid_answers',
          'The answers file is not UTF-8 text. Save it as UTF-8 JSON Lines, one {"id", "response"} per line.',
        );
      }
      const parsed = parseAnswersFile('answers', text);
      if (parsed.problems.length) {
        const shown = parsed.problems.slice(0, 20).map(formatQuestionProblem);
        return fail(
          c,
          422,
          'invalid_answers',
          `The answers file has ${parsed.problems.length === 200 ? '200 or more' : parsed.problems.length} problem${parsed.problems.length === 1 ? '' : 's'}; fix them and upload it again:\n${shown.join('\n')}${parsed.problems.length > shown.length ? `\n… and ${parsed.problems.length - shown.length} more` : ''}`,
          { problems: parsed.problems },
        );
      }
      const results = await computeStudyResults(deps, studyId, v ? Number(v) : null);
      if ('error' in results) return fail(c, 404, 'not_found', results.error);
      const items = deps.library.questions.items(cid) ?? [];
      const model = scoreAnswers(items, parsed.answers, rule as ResponseRule);
      const humans = results.questions.filter((q) => q.collection === cid);
      return c.json({
        study: { id: studyId, title: results.study.title, version: results.study.version },
        collection,
        model,
        beside: besideHumans(items, model, humans),
      } satisfies QuestionScoreResponse);
    },
  );
  return admin;
}
