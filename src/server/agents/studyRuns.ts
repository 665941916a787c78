/**
 * The researcher's view of agent runs (docs/api.md, "Agent runs in a study"), behind the
 * researcher token:
 * - `GET /admin/studies/:studyId/agent-runs`: every game session of the scorecards tagged
 *   `study:<id>`, with its key's name, scorecard, figures and score;
 * - `GET /admin/agent-runs/:guid`: one session's steps for the replay viewer (the frames of
 *   games on the official engine; built-in games replay on the TS engine from the actions).
 * Agent runs are never part of the study's participants, funnels or human baselines.
 */
import { Hono } from 'hono';
import type { AgentRunRecord } from '../store/types';
import { fail } from '../study/context';
import type { AgentService } from './service';

/** One agent game session as the study's results list it. */
export interface AgentRunRow {
  readonly guid: string;
  readonly cardId: string;
  readonly keyId: string;
  /** The agent key's name (`researcher token` when the researcher's token played). */
  readonly keyName: string;
  readonly gameId: string;
  readonly source: AgentRunRecord['source'];
  readonly openedAt: number;
  readonly lastAt: number;
  readonly cardClosed: boolean;
  /** Stored steps, the opening RESET included. */
  readonly steps: number;
  /** Scorecard actions over the session's plays. */
  readonly actions: number;
  /** Plays (the session split at full resets, as the scorecard counts them). */
  readonly plays: number;
  readonly levelsCompleted: number;
  readonly state: string;
  /** The best play's score on the official 0-115 scale, under `preset`. */
  readonly score: number;
  readonly preset: string;
  /** Where the baselines come from: `study:<id>`, `file` or `metadata`; null: none. */
  readonly baselines: string | null;
  /** The first play's actions per level and the baseline each was scored against (-1: none). */
  readonly levelActions: readonly number[];
  readonly levelBaselineActions: readonly number[];
}

/** One stored step for the replay viewer. */
export interface AgentReplayStep {
  readonly seq: number;
  readonly action: string;
  readonly x: number | null;
  readonly y: number | null;
  readonly state: string;
  readonly levelsCompleted: number;
  readonly winLevels: number;
  readonly fullReset: boolean;
  readonly frameHash: string;
  /** Encoded frames (core/formats/frames.ts) of games on the official engine; null for built-in games. */
  readonly frames: string | null;
  readonly at: number;
}

export interface AgentRunReplay {
  readonly run: AgentRunRecord;
  readonly card: { cardId: string; tags: readonly string[]; openedAt: number; closedAt: number | null; study: string | null };
  readonly keyName: string;
  readonly steps: readonly AgentReplayStep[];
}

/** The router; mount it under `/admin` behind `adminGuard`. */
export function agentRunRoutes(service: AgentService): Hono {
  const api = new Hono();
  api.get('/studies/:studyId/agent-runs', async (c) => c.json({ runs: await service.studyRuns(c.req.param('studyId')) }));
  api.get('/agent-runs/:guid', async (c) => {
    const guid = c.req.param('guid');
    const replay = await service.runReplay(guid);
    if (!replay) return fail(c, 404, 'not_found', `No agent run "${guid}"; GET /api/admin/studies/<id>/agent-runs lists a study's.`);
    return c.json(replay);
  });
  return api;
}
