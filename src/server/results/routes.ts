/**
 * The researcher's study results: `GET /api/admin/studies/:studyId/results[?version=N][&stage=S]`
 * (the `main` stage unless `stage` names another, or `all`),
 * added up from each session's digest (`digests/studyDigests.ts` computes and keeps them),
 * `GET /api/admin/studies/:studyId/results/surveys[?version=N]` (each survey question summarised,
 * `digests/surveys.ts`), `GET /api/admin/studies/:studyId/results/progress`, and
 * `GET /api/admin/games/:gameId/baselines` (a game's human baselines from every study playing it,
 * `digests/gameBaselines.ts`). Documented in docs/api.md ("Study results");
 * error bodies are `{error, message}`.
 */
import { Hono, type Context } from 'hono';
import { fail, stageQuery } from '../http';
import { studyRoleOf } from '../people/permissions';
import { computeStudyResults, type ResultsDeps } from '../digests/studyDigests';
import { computeSurveySummaries } from '../digests/surveys';
import { gameBaselines } from '../digests/gameBaselines';
import type { GameBaselinesView, StudyStages } from '../../core/protocol/api';
import type { DigestMaintainer } from '../digests/maintainer';
import type { Store } from '../store/types';

/** The results routes, to mount under `/admin` (the permission table guards them). */
export function resultsRoutes(
  deps: ResultsDeps & { readonly store: Pick<Store, 'stages'>; readonly maintainer?: DigestMaintainer },
): Hono {
  const admin = new Hono();

  admin.get('/studies/:studyId/results', async (c) => {
    const v = versionOf(c);
    if (!v.ok) return v.res;
    const st = stageQuery(c);
    if (!st.ok) return st.res;
    const id = c.req.param('studyId');
    const r = await computeStudyResults(deps, id, v.version, st.stage);
    if ('error' in r) return fail(c, 404, 'not_found', r.error);
    const [current, sessions] = await Promise.all([
      deps.store.stages.studyStage(id),
      deps.store.stages.stageCounts(id),
    ]);
    const stages: StudyStages = { current: current.stage, sessions };
    // A viewer reads the results without participants' identifiers (their recruitment ids).
    if (studyRoleOf(c) === 'viewer')
      return c.json({ ...r, stages, participants: r.participants.map((p) => ({ ...p, params: {} })) });
    return c.json({ ...r, stages });
  });

  admin.get('/studies/:studyId/results/surveys', async (c) => {
    const v = versionOf(c);
    if (!v.ok) return v.res;
    const st = stageQuery(c);
    if (!st.ok) return st.res;
    const r = await computeSurveySummaries(deps, c.req.param('studyId'), v.version, st.stage);
    if ('error' in r) return fail(c, 404, 'not_found', r.error);
    return c.json(r);
  });

  admin.get('/games/:gameId/baselines', async (c) => {
    const gameId = c.req.param('gameId');
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(gameId))
      return fail(
        c,
        400,
        'malformed',
        `"${gameId.slice(0, 40)}" is not a game id: letters, digits, "-", "_" and "." only.`,
      );
    return c.json({ game: gameId, studies: await gameBaselines(deps, gameId) } satisfies GameBaselinesView);
  });

  // What the server is digesting for this study now (a results request or a background run):
  // the studio shows it while results are being computed.
  admin.get('/studies/:studyId/results/progress', async (c) => {
    const id = c.req.param('studyId');
    if (!(await deps.store.getStudy(id)))
      return fail(c, 404, 'not_found', `No study "${id}". GET /api/admin/studies lists the studies there are.`);
    const p = deps.maintainer?.progress(id) ?? null;
    return c.json(p ? { running: true, ...p } : { running: false });
  });

  return admin;
}

/** The `version` query parameter: a version, null for every version, or the reply refusing it. */
function versionOf(c: Context): { ok: true; version: number | null } | { ok: false; res: Response } {
  // Digits only ("0x1", "1e2", " 1" are refused), and few enough for the database's integer.
  const v = c.req.query('version');
  if (v === undefined || v === '') return { ok: true, version: null };
  if (!/^[1-9][0-9]{0,8}$/.test(v))
    return {
      ok: false,
      res: fail(
        c,
        400,
        'malformed',
        `version must be a whole number from 1, not "${v.slice(0, 40)}"; leave it out for every version.`,
      ),
    };
  return { ok: true, version: Number(v) };
}
