/** The researcher's server data: studies, sessions, results and logs (see docs/api.md). */
import { queryOptions } from '@tanstack/react-query';
import type { AdminSessionDetail, SessionEvents, StudyListEntry, StudyUsage } from '../../core/protocol/api';
import { adminJson } from './auth';
import type { StudyResults } from '../../core/analysis/results';

export type { StudyListEntry } from '../../core/protocol/api';

// The results endpoint returns exactly what the pure analysis computes: one set of types.
export type {
  Dist,
  ParticipantResult as Participant,
  TaskResult,
  LevelResultRow as LevelResult,
  GameResult,
  StudyResults,
} from '../../core/analysis/results';
export type { QuestionResult, QuestionGroupResult, OptionCount } from '../../core/analysis/results';
export type { Interval } from '../../core/analysis/wilson';

export const studiesQuery = queryOptions({
  queryKey: ['admin', 'studies'],
  queryFn: () => adminJson<{ studies: StudyListEntry[] }>('/api/admin/studies').then((r) => r.studies),
});

/** What a study stores against its storage budget, and the game versions its runs played. */
export const studyUsageQuery = (studyId: string) =>
  queryOptions({
    queryKey: ['admin', 'study-usage', studyId],
    queryFn: () => adminJson<StudyUsage>(`/api/admin/studies/${encodeURIComponent(studyId)}/usage`),
    staleTime: 10_000,
  });

/**
 * The query string of a results or campaign request: the version (null: every one) and the stage
 * (`main` is the server's default, so it is left out; null: every stage, `all`).
 */
export function figuresQuery(version: number | null, stage: string | null): string {
  const q = new URLSearchParams();
  if (version !== null) q.set('version', String(version));
  if (stage !== MAIN_STAGE) q.set('stage', stage ?? ALL_STAGES);
  const text = q.toString();
  return text ? `?${text}` : '';
}

export const resultsQuery = (studyId: string, version: number | null, stage: string | null = MAIN_STAGE) =>
  queryOptions({
    queryKey: ['admin', 'results', studyId, version, stage],
    queryFn: () =>
      adminJson<StudyResults & { stages: StudyStages }>(
        `/api/admin/studies/${encodeURIComponent(studyId)}/results${figuresQuery(version, stage)}`,
      ),
    staleTime: 10_000,
  });

export type {
  StudySurveySummaries,
  SurveySummary,
  SurveyQuestionSummary,
  TextAnswer,
} from '../../core/analysis/surveys';
import type { StudySurveySummaries } from '../../core/analysis/surveys';

/** Each survey question of a study summarised across participants (docs/api.md, "Survey summaries"). */
export const surveySummariesQuery = (studyId: string, version: number | null, stage: string | null = MAIN_STAGE) =>
  queryOptions({
    queryKey: ['admin', 'results-surveys', studyId, version, stage],
    queryFn: () =>
      adminJson<StudySurveySummaries>(
        `/api/admin/studies/${encodeURIComponent(studyId)}/results/surveys${figuresQuery(version, stage)}`,
      ),
    staleTime: 10_000,
  });

/** What the server is digesting for a study now (docs/api.md, "Study results"). */
export type ResultsProgress =
  | { running: false }
  | { running: true; reason: 'results' | 'ended' | 'update'; done: number; total: number; startedAt: number };

export const resultsProgressQuery = (studyId: string, busy: boolean) =>
  queryOptions({
    queryKey: ['admin', 'results-progress', studyId],
    queryFn: () => adminJson<ResultsProgress>(`/api/admin/studies/${encodeURIComponent(studyId)}/results/progress`),
    refetchInterval: busy ? 1000 : 5000,
  });

/** A built-in game's recorded solutions, one action string per level (researchers only). */
export const gameSolutionsQuery = (gameId: string) =>
  queryOptions({
    queryKey: ['admin', 'game-solutions', gameId],
    queryFn: () =>
      adminJson<{ game: string; levels: (string | null)[] }>(
        `/api/admin/games/${encodeURIComponent(gameId)}/solutions`,
      ),
    staleTime: Infinity,
  });

export const sessionEventsQuery = (sessionId: string) =>
  queryOptions({
    queryKey: ['admin', 'events', sessionId],
    queryFn: () =>
      adminJson<SessionEvents>(`/api/admin/sessions/${encodeURIComponent(sessionId)}/events`).then((r) => r.events),
  });

export const sessionQuery = (sessionId: string) =>
  queryOptions({
    queryKey: ['admin', 'session', sessionId],
    queryFn: () => adminJson<AdminSessionDetail>(`/api/admin/sessions/${encodeURIComponent(sessionId)}`),
  });

// Agents over the ARC-AGI-3 protocol: their keys, and their runs in a study (docs/api.md).
export type { AgentRunRow, AgentRunReplay, AgentReplayStep } from '../../core/protocol/agents';
import type { AgentKeyEntry, AgentRunRow, AgentRunReplay } from '../../core/protocol/agents';

export const agentKeysQuery = queryOptions({
  queryKey: ['admin', 'agent-keys'],
  queryFn: () => adminJson<{ keys: AgentKeyEntry[] }>('/api/admin/agent-keys').then((r) => r.keys),
});

export const agentRunsQuery = (studyId: string) =>
  queryOptions({
    queryKey: ['admin', 'agent-runs', studyId],
    queryFn: () =>
      adminJson<{ runs: AgentRunRow[] }>(`/api/admin/studies/${encodeURIComponent(studyId)}/agent-runs`).then(
        (r) => r.runs,
      ),
    staleTime: 10_000,
  });

export const agentRunQuery = (guid: string) =>
  queryOptions({
    queryKey: ['admin', 'agent-run', guid],
    queryFn: () => adminJson<AgentRunReplay>(`/api/admin/agent-runs/${encodeURIComponent(guid)}`),
  });

// Curation: excluding and deleting sessions, deleting a study, and the audit log (docs/api.md, "Excluding and deleting").
export type { AuditEntry } from '../../core/protocol/api';
import type { AuditEntry } from '../../core/protocol/api';

export const auditQuery = (studyId: string) =>
  queryOptions({
    queryKey: ['admin', 'audit', studyId],
    queryFn: () =>
      adminJson<{ events: AuditEntry[] }>(`/api/admin/studies/${encodeURIComponent(studyId)}/audit`).then(
        (r) => r.events,
      ),
  });

// The mounted question collections, for the study editor's question picker.
import type { PublicQuestion } from '../../core/questions/schema';
import type { QuestionType } from '../../core/analysis/questions';

export const questionCollectionsQuery = queryOptions({
  queryKey: ['admin', 'question-collections'],
  queryFn: () =>
    adminJson<{ collections: { id: string; name: string; count: number }[] }>('/api/admin/question-collections').then(
      (r) => r.collections,
    ),
});

export const questionsQuery = (collection: string) =>
  queryOptions({
    queryKey: ['admin', 'question-collections', collection],
    queryFn: () =>
      adminJson<{ questions: (PublicQuestion & { type: QuestionType })[] }>(
        `/api/admin/question-collections/${encodeURIComponent(collection)}/questions`,
      ).then((r) => r.questions),
  });

// Campaigns: a study's pools live (docs/api.md, "Campaigns").
export type {
  CampaignView,
  CampaignCandidateView,
  CampaignLevelView,
  CampaignVersionView,
  CampaignLiveSession,
  CampaignSignalSession,
  CampaignNeededView,
  CandidateNeedView,
  CandidateStatus,
  PaymentsView,
  SessionPayment,
} from '../../core/protocol/campaign';
import type { CampaignView, PaymentsView } from '../../core/protocol/campaign';
import type { StudyDefinitionInput } from '../../core/study/schema';
import type { DeletionReceipt, StudyStages } from '../../core/protocol/api';
import { ALL_STAGES, MAIN_STAGE } from '../../core/study/stages';

/** How often the campaign view asks again: seconds, so it follows participants as they play. */
export const CAMPAIGN_POLL_MS = 2000;

export const campaignQuery = (studyId: string, stage: string | null = MAIN_STAGE) =>
  queryOptions({
    queryKey: ['admin', 'campaign', studyId, stage],
    queryFn: () =>
      adminJson<CampaignView & { stages: StudyStages }>(
        `/api/admin/studies/${encodeURIComponent(studyId)}/campaign${figuresQuery(null, stage)}`,
      ),
    refetchInterval: CAMPAIGN_POLL_MS,
  });

export const paymentsQuery = (studyId: string, stage: string | null = MAIN_STAGE) =>
  queryOptions({
    queryKey: ['admin', 'campaign-payments', studyId, stage],
    queryFn: () =>
      adminJson<PaymentsView>(
        `/api/admin/studies/${encodeURIComponent(studyId)}/campaign/payments${figuresQuery(null, stage)}`,
      ),
    refetchInterval: CAMPAIGN_POLL_MS * 2,
  });

/** The stage new sessions of a study start in (`GET /api/admin/studies/:id`). */
export const studyStageQuery = (studyId: string) =>
  queryOptions({
    queryKey: ['admin', 'stage', studyId],
    queryFn: () =>
      adminJson<{ stage: string }>(`/api/admin/studies/${encodeURIComponent(studyId)}`).then((r) => r.stage),
    staleTime: 10_000,
  });

/** The receipts of the deletions this person made (every one for the owner). */
export const deletionReceiptsQuery = queryOptions({
  queryKey: ['admin', 'deletion-receipts'],
  queryFn: () =>
    adminJson<{ receipts: DeletionReceipt[] }>('/api/admin/participants/deletions').then((r) => r.receipts),
});

/** One deletion's receipt. */
export const deletionReceiptQuery = (id: string) =>
  queryOptions({
    queryKey: ['admin', 'deletion-receipt', id],
    queryFn: () => adminJson<DeletionReceipt>(`/api/admin/participants/deletions/${encodeURIComponent(id)}`),
  });

/** A study's current definition (pools included), as the editor reads it. */
export const studyDefinitionQuery = (studyId: string) =>
  queryOptions({
    queryKey: ['admin', 'definition', studyId],
    queryFn: () =>
      adminJson<{ definition: StudyDefinitionInput }>(`/api/admin/studies/${encodeURIComponent(studyId)}`).then(
        (r) => r.definition,
      ),
    staleTime: 30_000,
  });

/** One version of a study's written definition: a session's replay reads the version it ran. */
export const studyVersionQuery = (studyId: string, version: number) =>
  queryOptions({
    queryKey: ['admin', 'definition', studyId, version],
    queryFn: () =>
      adminJson<{ definition: StudyDefinitionInput }>(
        `/api/admin/studies/${encodeURIComponent(studyId)}?version=${version}`,
      ).then((r) => r.definition),
    // A stored version never changes.
    staleTime: Infinity,
  });

/** Whether a study draws from a pool, so it has a campaign view. */
export function hasPool(definition: StudyDefinitionInput | undefined): boolean {
  return (definition?.items as readonly { kind: string }[] | undefined)?.some((i) => i.kind === 'pool') ?? false;
}

// People: a study's members, and the signed-in person's own API tokens (docs/api.md, "People, roles and tokens").

/** A study's member as `GET /api/admin/studies/:id/members` lists them. */
export interface StudyMember {
  readonly personId: string;
  readonly email: string;
  readonly name: string;
  readonly role: 'researcher' | 'proctor' | 'viewer';
  readonly addedAt: number;
}

export const membersQuery = (studyId: string) =>
  queryOptions({
    queryKey: ['admin', 'members', studyId],
    queryFn: () =>
      adminJson<{ members: StudyMember[] }>(`/api/admin/studies/${encodeURIComponent(studyId)}/members`).then(
        (r) => r.members,
      ),
  });

/** A personal API token as `GET /api/me/tokens` lists it: never the token itself. */
export interface PersonalToken {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly createdAt: number;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
}

export const myTokensQuery = queryOptions({
  queryKey: ['me', 'tokens'],
  queryFn: () => adminJson<{ tokens: PersonalToken[] }>('/api/me/tokens').then((r) => r.tokens),
});
