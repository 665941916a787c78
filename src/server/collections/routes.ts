/**
 * The task collections, under the sealing rule (docs/api.md, "Sealing"):
 *
 * - a **sealed** collection (`serve --tasks`) is the researcher's: its task list and its tasks,
 *   answers included, go only to a request with the researcher token; anyone else gets 401/403.
 * - a **practice** collection (`serve --practice-tasks`) is anyone's, but its tasks are served
 *   without test outputs and `POST .../check` judges an answer on the server. Practice checks
 *   are unlimited, which is why a study may not count a practice collection's tasks.
 *
 * Participants' study tasks come from `GET /api/sessions/:id` (answers removed) and are judged by
 * their session's submissions, within their trials.
 */
import { Hono, type Context } from 'hono';
import { PracticeCheckRequest } from '../../core/protocol/requests';
import { gridProblems, formatProblem, withoutAnswers } from '../../core/formats/arcTask';
import { gridsEqual, type Grid } from '../../core/grid/grid';
import { bearer, tokenMatches } from '../people/auth';
import type { TaskLibrary } from './collections';
import { bodyLimit, fail, readBody } from '../http';

export interface CollectionsDeps {
  readonly library: TaskLibrary;
  /** SHA-256 of the researcher token; absent: no researcher, so sealed collections open to nobody. */
  readonly adminTokenHash?: string;
}

/** Largest body of a practice check: a 30x30 grid is about 2 KB. */
const MAX_CHECK_BYTES = 64 * 1024;

export function collectionsRoutes(deps: CollectionsDeps): Hono {
  const { library } = deps;
  const api = new Hono();

  const isResearcher = (c: Context) => {
    const token = bearer(c.req.header('Authorization'));
    return token !== null && deps.adminTokenHash !== undefined && tokenMatches(token, deps.adminTokenHash);
  };
  const unknown = (c: Context, cid: string) =>
    fail(c, 404, 'not_found', `No collection "${cid}". Open the task browser to see the collections this server has.`);
  /** The refusal for a sealed collection: 401 without a token, 403 with anyone's but the researcher's. */
  const sealed = (c: Context, cid: string) => {
    const hasToken = bearer(c.req.header('Authorization')) !== null;
    const message = `Collection "${cid}" is sealed: its tasks are for studies, and only the researcher may open them. Log in as researcher to preview it, or play a practice collection.`;
    return hasToken ? fail(c, 403, 'sealed', message) : fail(c, 401, 'sealed', message);
  };

  api.get('/collections', (c) => c.json({ collections: library.list() }));

  api.get('/collections/:cid/tasks', (c) => {
    const cid = c.req.param('cid');
    const access = library.access(cid);
    if (access === null) return unknown(c, cid);
    if (access === 'sealed' && !isResearcher(c)) return sealed(c, cid);
    return c.json({ tasks: library.taskIds(cid) ?? [] });
  });

  // A practice task without its test outputs (the server checks them); a sealed task whole, for the researcher.
  api.get('/collections/:cid/tasks/:taskId{.+}', async (c) => {
    const cid = c.req.param('cid');
    const access = library.access(cid);
    if (access === null) return unknown(c, cid);
    if (access === 'sealed' && !isResearcher(c)) return sealed(c, cid);
    const found = await library.task(cid, c.req.param('taskId'));
    if (!found.ok) return fail(c, found.status, found.status === 404 ? 'not_found' : 'invalid_task', found.message);
    return c.json({ task: access === 'practice' ? withoutAnswers(found.task) : found.task, access });
  });

  api.post(
    '/collections/:cid/tasks/:taskId{.+}/check',
    bodyLimit({
      maxSize: MAX_CHECK_BYTES,
      onError: (c) =>
        fail(
          c,
          413,
          'too_large',
          `A check is at most ${MAX_CHECK_BYTES / 1024} KiB: send {"testIndex", "grid"} with one grid of at most 30x30.`,
        ),
    }),
    async (c) => {
      const cid = c.req.param('cid');
      const taskId = c.req.param('taskId');
      const access = library.access(cid);
      if (access === null) return unknown(c, cid);
      if (access === 'sealed') {
        // Studies judge sealed tasks through their sessions' submissions, within trials; nothing else does.
        const message = `Collection "${cid}" is sealed: answers to its tasks are judged only within a study session's trials. Practice with a practice collection instead.`;
        return fail(c, bearer(c.req.header('Authorization')) === null ? 401 : 403, 'sealed', message);
      }
      const parsed = await readBody(c, PracticeCheckRequest, 'Send {"testIndex": 0, "grid": [[...]]}');
      if (!parsed.ok) return parsed.res;
      const problems = gridProblems(parsed.data.grid, 'grid');
      if (problems.length)
        return fail(c, 400, 'malformed', `The grid is not valid: ${problems.map(formatProblem).join('; ')}`);
      const found = await library.task(cid, taskId);
      if (!found.ok) return fail(c, found.status, found.status === 404 ? 'not_found' : 'invalid_task', found.message);
      const { testIndex } = parsed.data;
      const test = found.task.test[testIndex];
      if (!test)
        return fail(
          c,
          400,
          'malformed',
          `Task "${taskId}" has ${found.task.test.length} test input${found.task.test.length === 1 ? '' : 's'}; there is no test input ${testIndex}.`,
        );
      if (!test.output)
        return fail(
          c,
          422,
          'no_answer',
          `Task "${taskId}" has no answer for test input ${testIndex}, so it cannot be checked. Add the output to the task file.`,
        );
      return c.json({ correct: gridsEqual(parsed.data.grid as Grid, test.output) });
    },
  );

  return api;
}
