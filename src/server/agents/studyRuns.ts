/**
 * The researcher's view of agent runs (docs/api.md, "Agent runs in a study"), behind the
 * researcher token:
 * - `GET /admin/studies/:studyId/agent-runs`: every game session of the scorecards tagged
 *   `study:<id>`, with its key's name, scorecard, figures and score;
 * - `GET /admin/agent-runs/:guid`: one session's steps for the replay viewer (the frames of
 *   games on the official engine; built-in games replay on the TS engine from the actions).
 * Agent runs are never part of the study's participants, funnels or human baselines. The
 * answers' types are in core/protocol/agents.ts.
 */
import { Hono } from 'hono';
import { fail } from '../study/context';
import type { AgentService } from './service';

/** The router; mount it under `/admin` (the permission table guards it). */
export function agentRunRoutes(service: AgentService): Hono {
  const api = new Hono();
  api.get('/studies/:studyId/agent-runs', async (c) =>
    c.json({ runs: await service.studyRuns(c.req.param('studyId')) }),
  );
  api.get('/agent-runs/:guid', async (c) => {
    const guid = c.req.param('guid');
    const replay = await service.runReplay(guid);
    if (!replay)
      return fail(
        c,
        404,
        'not_found',
        `No agent run "${guid}"; GET /api/admin/studies/<id>/agent-runs lists a study's.`,
      );
    return c.json(replay);
  });
  return api;
}
