/**
 * The researcher's campaign routes (researcher token), documented in docs/api.md ("Campaigns"):
 *
 * - `GET /api/admin/studies/:id/campaign`: the live `CampaignView` of a study's pools.
 * - `GET /api/admin/studies/:id/campaign/payments`: each session's bonus (`PaymentsView`), with
 *   the ledger of bonuses paid through Prolific (`ledger`).
 * - `GET /api/admin/studies/:id/campaign/bonuses.csv`: Prolific's bulk-bonus file.
 * - `GET /api/admin/studies/:id/campaign/ledger.csv`: the ledger, one line per participant.
 *
 * Each counts the sessions of the `main` stage, or of the stage `?stage=` names (`all`: every
 * stage): candidates' progress toward their targets, the sessions and claims listed, payments.
 *
 * The figures read each candidate's counters, the claims of the study's sessions and those still
 * held, and the per-session digests the results use
 * (computed on the digest threads when the server has them, and kept). Claims of sessions that
 * ended without finishing (abandoned, out of time), in any study of the campaign, are settled
 * here from their summaries, once.
 */
import { Hono } from 'hono';
import {
  type CampaignClaim,
  type CampaignSession,
  type CandidateCounts,
  bonusFile,
  campaignView,
  paymentsView,
} from '../../core/analysis/campaign';
import {
  ITEM_END,
  ITEM_START,
  type SessionClock,
  type SessionState,
  effectiveState,
  isFinalState,
  isInFlight,
} from '../../core/study/rules';
import type { StudyDefinition } from '../../core/study/schema';
import { ledgerCsv, ledgerView, owedCents } from '../../core/analysis/ledger';
import type { PaymentsView } from '../../core/protocol/campaign';
import { type ResultsDeps, type ResultsStore, studySessionDigests, withCrossSignalsOff } from '../digests/studyDigests';
import { fail, stageQuery } from '../http';
import type { StudyStages } from '../../core/protocol/api';
import { MAIN_STAGE, inStage } from '../../core/study/stages';
import type { SessionRecord, Store, StudyRecord } from '../store/types';
import { claimSessionClock } from '../store/campaignStore';
import { campaignOf } from './assign';
import { firstRunVersions, gameVersionNow } from './versions';

export type CampaignFigures = {
  study: StudyDefinition;
  campaignId: string | null;
  claims: CampaignClaim[];
  counts: Map<string, CandidateCounts>;
  draws: { started: number; sessions: number };
  sessions: CampaignSession[];
  now: number;
};

/**
 * What the campaign figures are computed with: the results' dependencies (the figures add up the
 * same digests), and of the study's services (`study/services.ts`, which gives them; declared here
 * in the terms of the layers below, as the study feature is built on this one) the definitions,
 * the claims' settling, the games' level counts and the clock.
 */
export interface CampaignServices extends ResultsDeps {
  /** What the results read, and the campaigns' claims, the study's stages and its Prolific ledger. */
  readonly store: ResultsStore & Pick<Store, 'campaigns' | 'stages' | 'prolific'>;
  readonly definitions: {
    at(id: string, version: number): Promise<StudyDefinition>;
    ofRecord(rec: StudyRecord): StudyDefinition;
  };
  readonly endings: { settle(session: SessionRecord, study: StudyDefinition, t: number): Promise<void> };
  readonly summaries: { gameLevels(game: string): number | null };
  readonly now: () => number;
}

/** Everything the campaign view and payments are computed from; `{error}` for a study that is not there or has no pool. */
export async function campaignFigures(
  services: CampaignServices,
  id: string,
  stage: string | null = MAIN_STAGE,
): Promise<CampaignFigures | { error: string; status: 404 | 409 }> {
  const { store, definitions } = services;
  const rec = await store.getStudy(id);
  if (!rec) return { error: `No study "${id}". GET /api/admin/studies lists the studies there are.`, status: 404 };
  const study = definitions.ofRecord(rec);
  if (study.pools.length === 0)
    return {
      error: `Study "${id}" has no pool item, so it is not a campaign. Add an item of kind "pool" (docs/api.md, "Campaigns").`,
      status: 409,
    };
  const campaign = campaignOf(id, study);
  const digests = await studySessionDigests(services, id);
  if ('error' in digests) return { error: digests.error, status: 404 };
  const now = services.now();
  const states = new Map<string, string>();
  const stateOf = async (s: SessionRecord) => {
    let st = states.get(s.id);
    if (st === undefined)
      states.set(s.id, (st = effectiveState(s, await definitions.at(s.studyId, s.studyVersion), now)));
    return st;
  };

  // Sessions that ended without finishing still hold their claims: settle them from their
  // summaries, in every study of the campaign (a claim held by another study's abandoned session
  // keeps its candidate from this study's draws just the same).
  let claims = await store.campaigns.viewClaims(campaign, id);
  const own = new Map(digests.data.map((d) => [d.session.id, d.session as SessionRecord]));
  const unsettled = new Set(claims.filter((c) => c.state === 'held').map((c) => c.sessionId));
  let settled = false;
  for (const sessionId of unsettled) {
    const record = own.get(sessionId) ?? (await store.getSession(sessionId));
    if (!record || !isFinalState((await stateOf(record)) as SessionState)) continue;
    await services.endings.settle(record, await definitions.at(record.studyId, record.studyVersion), now);
    settled = true;
  }
  if (settled) claims = await store.campaigns.viewClaims(campaign, id);
  const [counters, draws, runs] = await Promise.all([
    store.campaigns.counters(campaign, stage),
    store.campaigns.draws(campaign, stage),
    firstRunVersions(store, id),
  ]);

  const flight = (clock: SessionClock) => isInFlight(clock, study, now);
  const candidateIds = new Set(study.pools.flatMap((p) => p.candidates.map((i) => study.items[i].id)));
  const sessions: CampaignSession[] = [];
  for (const d of digests.data) {
    const s = d.session as SessionRecord;
    if (!inStage(s.stage, stage)) continue;
    const state = await stateOf(s);
    const inFlight = flight(s) && !isFinalState(state as SessionState);
    let current: string | null = null;
    if (inFlight) {
      const marks = await store.readEvents(s.id, { kinds: [ITEM_START, ITEM_END] });
      const open = new Set<string>();
      for (const e of marks) {
        const item = typeof e.data.item === 'string' ? e.data.item : null;
        if (item === null) continue;
        if (e.kind === ITEM_START) {
          open.clear();
          open.add(item);
        } else open.delete(item);
      }
      current = [...open].find((x) => candidateIds.has(x)) ?? null;
    }
    const digest = 'digest' in d ? d.digest : null;
    sessions.push({
      id: s.id,
      params: s.params,
      state,
      inFlight,
      excluded: s.excludedAt !== null,
      createdAt: s.createdAt,
      stage: s.stage,
      digest,
      current,
      flags: [...new Set([...s.flags, ...(digest?.flags ?? [])])],
      gameRuns: runs.get(s.id),
    });
  }
  return {
    study,
    campaignId: study.campaign?.id ?? null,
    now,
    sessions: await withCrossSignalsOff(services, sessions),
    draws,
    counts: new Map(counters.map((k) => [k.candidate, k])),
    claims: claims
      .filter((c) => inStage(c.stage, stage))
      .map((c) => ({
        sessionId: c.sessionId,
        candidate: c.candidate,
        participant: c.participant,
        state: c.state,
        excluded: c.excluded,
        inFlight: c.state === 'held' && flight(claimSessionClock(c)),
      })),
  };
}

/** The campaign routes, to mount under `/admin` (they carry the researcher guard themselves). */
export function campaignRoutes(services: CampaignServices): Hono {
  const { store, gameInfo } = services;
  const { gameLevels } = services.summaries;
  const admin = new Hono();

  admin.get('/studies/:studyId/campaign', async (c) => {
    const id = c.req.param('studyId');
    const st = stageQuery(c);
    if (!st.ok) return st.res;
    const f = await campaignFigures(services, id, st.stage);
    if ('error' in f) return fail(c, f.status, f.status === 404 ? 'not_found' : 'not_a_campaign', f.error);
    const [current, perStage] = await Promise.all([store.stages.studyStage(id), store.stages.stageCounts(id)]);
    const stages: StudyStages = { current: current.stage, sessions: perStage };
    return c.json({
      ...campaignView({
        studyId: id,
        campaignId: f.campaignId,
        study: f.study,
        claims: f.claims,
        counts: f.counts,
        draws: f.draws,
        sessions: f.sessions,
        gameLevels,
        gameVersionNow: (game) => (gameInfo ? gameVersionNow(gameInfo())(game) : null),
        now: f.now,
      }),
      stage: st.stage,
      stages,
    });
  });

  const ledgerOf = async (id: string, f: CampaignFigures) => {
    const payments = paymentsView(f.study, f.sessions, f.claims);
    const ledger = ledgerView(owedCents(payments), await store.prolific.batches(id), f.study.prolific?.studyId ?? null);
    return { payments, ledger };
  };

  admin.get('/studies/:studyId/campaign/payments', async (c) => {
    const id = c.req.param('studyId');
    const st = stageQuery(c);
    if (!st.ok) return st.res;
    const f = await campaignFigures(services, id, st.stage);
    if ('error' in f) return fail(c, f.status, f.status === 404 ? 'not_found' : 'not_a_campaign', f.error);
    const { payments, ledger } = await ledgerOf(id, f);
    return c.json({ ...payments, ledger } satisfies PaymentsView);
  });

  admin.get('/studies/:studyId/campaign/ledger.csv', async (c) => {
    const id = c.req.param('studyId');
    const st = stageQuery(c);
    if (!st.ok) return st.res;
    const f = await campaignFigures(services, id, st.stage);
    if ('error' in f) return fail(c, f.status, f.status === 404 ? 'not_found' : 'not_a_campaign', f.error);
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="${id}-bonus-ledger.csv"`);
    return c.body(ledgerCsv((await ledgerOf(id, f)).ledger));
  });

  admin.get('/studies/:studyId/campaign/bonuses.csv', async (c) => {
    const id = c.req.param('studyId');
    const st = stageQuery(c);
    if (!st.ok) return st.res;
    const f = await campaignFigures(services, id, st.stage);
    if ('error' in f) return fail(c, f.status, f.status === 404 ? 'not_found' : 'not_a_campaign', f.error);
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="${id}-bonuses.csv"`);
    return c.body(bonusFile(paymentsView(f.study, f.sessions, f.claims)));
  });

  return admin;
}
