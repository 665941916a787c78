/**
 * A campaign's figures in the export bundle: `campaign.json` (the `CampaignView` as
 * `GET /api/admin/studies/:id/campaign` answers it, without live sessions' current candidates)
 * and `campaign.csv` (one row per candidate), and `payments.csv` (`paymentsCsv`: each session's fee,
 * bonus and signals of help and low effort). Written only for a study with pools.
 */
import { type CampaignSession, campaignView, paymentsView } from '../../core/analysis/campaign';
import { digestSession } from '../../core/analysis/results';
import { withCrossSignals } from '../../core/analysis/signals';
import type { CampaignView, PaymentsView } from '../../core/protocol/campaign';
import { csvRecord } from '../../core/formats/csv';
import { type SessionClock, effectiveState, isInFlight } from '../../core/study/rules';
import { campaignOf } from '../campaign/assign';
import { claimSessionClock } from '../store/campaignStore';
import { firstRunVersions, gameVersionNow } from '../campaign/versions';
import { type ExportContext, definitionFor, isExcludedSession, sessionEvents } from './context';
import { inStage } from '../../core/study/stages';

export const CAMPAIGN_VERSION = 1;

export const CAMPAIGN_COLUMNS = [
  'study_id',
  'campaign_id',
  'pool',
  'candidate_id',
  'kind',
  'label',
  'target_kind',
  'target',
  'drawn',
  'in_progress',
  'attempts',
  'solves',
  'status',
  'median_actions',
  'median_seconds',
  'versions',
  'drop_off_levels',
] as const;

/**
 * The study's campaign view and payments from the exported sessions' logs and the campaign's
 * claims, as the campaign routes answer them; null for a study without pools.
 */
export async function exportCampaignView(
  ctx: ExportContext,
): Promise<{ view: CampaignView; payments: PaymentsView } | null> {
  const latest = Math.max(...ctx.versions.keys());
  const study = ctx.versions.get(latest);
  if (!study || study.pools.length === 0) return null;
  const campaign = campaignOf(ctx.studyId, study);
  const [claims, counters, draws, runs] = await Promise.all([
    ctx.store.campaigns.viewClaims(campaign, ctx.studyId),
    ctx.store.campaigns.counters(campaign, ctx.stage),
    ctx.store.campaigns.draws(campaign, ctx.stage),
    firstRunVersions(ctx.store, ctx.studyId),
  ]);
  // In flight as the campaign view says it, a break keeping a session in flight.
  const flight = (clock: SessionClock) => isInFlight(clock, study, ctx.now);
  const sessions: CampaignSession[] = [];
  for (const s of ctx.sessions) {
    if (!inStage(s.stage, ctx.stage)) continue;
    const def = definitionFor(ctx, s);
    const [events, submissions] = await Promise.all([sessionEvents(ctx, s.id), ctx.store.listSubmissions(s.id)]);
    const digest = digestSession(def, s, events, submissions, ctx.testCount, ctx.replay);
    sessions.push({
      id: s.id,
      params: s.params,
      state: effectiveState(s, def, ctx.now),
      inFlight: flight(s),
      excluded: isExcludedSession(s),
      flags: [...new Set([...s.flags, ...digest.flags])],
      createdAt: s.createdAt,
      stage: s.stage,
      digest,
      current: null,
      gameRuns: runs.get(s.id),
    });
  }
  const counted = withCrossSignals(sessions);
  const claimViews = claims
    .filter((c) => inStage(c.stage, ctx.stage))
    .map((c) => ({
      sessionId: c.sessionId,
      candidate: c.candidate,
      participant: c.participant,
      state: c.state,
      excluded: c.excluded,
      inFlight: c.state === 'held' && flight(claimSessionClock(c)),
    }));
  const view = campaignView({
    studyId: ctx.studyId,
    campaignId: study.campaign?.id ?? null,
    study,
    sessions: counted,
    now: ctx.now,
    gameLevels: (game) => ctx.games[game]?.levels ?? null,
    gameVersionNow: gameVersionNow(ctx.games),
    counts: new Map(counters.map((k) => [k.candidate, k])),
    draws,
    claims: claimViews,
  });
  return { view, payments: paymentsView(study, counted, claimViews) };
}

export function campaignJson(view: CampaignView): string {
  return JSON.stringify({ format: 'arc-studio.campaign', version: CAMPAIGN_VERSION, ...view }, null, 2) + '\n';
}

export function campaignCsv(view: CampaignView): string {
  let out = csvRecord(CAMPAIGN_COLUMNS);
  for (const c of view.candidates) {
    const solves = 'solves' in c.target;
    out += csvRecord([
      view.studyId,
      view.campaignId ?? '',
      c.pool,
      c.id,
      c.kind,
      c.label,
      solves ? 'solves' : 'attempts',
      solves ? (c.target as { solves: number }).solves : (c.target as { attempts: number }).attempts,
      c.drawn,
      c.inProgress,
      c.attempts,
      c.solves,
      c.status,
      c.medianActions ?? '',
      c.medianSeconds ?? '',
      c.versions.map((v) => v.version).join(' '),
      (c.levels ?? [])
        .filter((l) => l.dropOff)
        .map((l) => l.level)
        .join(' '),
    ]);
  }
  return out;
}
