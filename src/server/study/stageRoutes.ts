/**
 * A study's stage, under `/api/admin` (docs/api.md, "Stages"): `PUT /studies/:studyId/stage`
 * `{stage}` moves the study to `pilot`, `main` or a stage of the lab's own naming, in one action
 * recorded in the study's audit trail (`study.stage`, by person). Sessions started afterwards are
 * in the new stage; sessions already started keep theirs.
 */
import { Hono } from 'hono';
import type { StageChange } from '../../core/protocol/api';
import { StageRequest } from '../../core/protocol/requests';
import { stageNameProblem } from '../../core/study/stages';
import { auditActorOf } from '../people/permissions';
import { fail, readBody } from './context';
import type { StudyWiring } from './services';

export function stageRoutes({ store, now }: Pick<StudyWiring, 'store' | 'now'>): Hono {
  const admin = new Hono();

  admin.put('/studies/:studyId/stage', async (c) => {
    const id = c.req.param('studyId');
    const body = await readBody(c, StageRequest, 'Send {"stage": "main"} (or "pilot", or a name of your own)');
    if (!body.ok) return body.res;
    const problem = stageNameProblem(body.data.stage);
    if (problem !== null) return fail(c, 400, 'malformed', `stage: ${problem}`);
    if (!(await store.getStudy(id)))
      return fail(
        c,
        404,
        'not_found',
        `No study "${id.slice(0, 100)}". GET /api/admin/studies lists the studies there are.`,
      );
    const r = await store.stages.setStudyStage(id, body.data.stage, { ...auditActorOf(c), at: now() });
    return c.json({ studyId: id, from: r.from, stage: r.to, changed: r.changed } satisfies StageChange);
  });

  return admin;
}
