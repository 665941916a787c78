/**
 * `surveys.json`: the study's survey summaries (`core/analysis/surveys.ts`) as the results page's
 * Surveys tab and `GET /api/admin/studies/:id/results/surveys` give them, for the exported
 * version (or every version): per question the counts and shares of its options, the
 * distribution of its values, or every text answer with its participant. Playtests and excluded
 * sessions are left out, as in every result; their raw answers are in `responses.csv`.
 */
import { isPlaytest } from '../../core/analysis/results';
import { surveySummaries, type StudySurveySummaries, type SurveySummaryInput } from '../../core/analysis/surveys';
import { participantWrites } from '../load';
import type { ResponseRecord, SessionRecord } from '../store/types';
import { type ExportContext, participantId } from './context';

/** The format version of `surveys.json`, written in its schema. */
export const SURVEYS_VERSION = 1;

/** `surveys.json`. */
export interface ExportedSurveys {
  readonly format: 'arc-studio.surveys';
  readonly formatVersion: number;
  readonly studyId: string;
  /** The study version exported, or null for every version. */
  readonly studyVersion: number | null;
  readonly surveys: StudySurveySummaries['surveys'];
}

/**
 * What the summary reads, from the study's stored versions, sessions and survey responses: a
 * playtest or an excluded session counts toward nothing. The results route
 * (`digests/surveys.ts`) and this file both summarise it.
 */
export function surveyInput(
  versions: SurveySummaryInput['versions'],
  version: number | null,
  sessions: readonly SessionRecord[],
  responses: readonly ResponseRecord[],
): SurveySummaryInput {
  return {
    versions,
    version,
    sessions: sessions.map((s) => ({
      id: s.id,
      participant: participantId(s),
      studyVersion: s.studyVersion,
      counted: !isPlaytest(s) && s.excludedAt === null,
    })),
    responses: responses.map((r) => ({ sessionId: r.sessionId, item: r.item, value: r.value, at: r.at })),
  };
}

/** The content of `surveys.json`; `surveys` is empty for a study without a survey. */
export async function exportSurveys(ctx: ExportContext): Promise<ExportedSurveys> {
  const versions = [...ctx.versions].map(([version, definition]) => ({ version, definition }));
  const head = { format: 'arc-studio.surveys', formatVersion: SURVEYS_VERSION, studyId: ctx.studyId } as const;
  if (!versions.some((v) => v.definition.items.some((item) => item.kind === 'survey')))
    return { ...head, studyVersion: ctx.version, surveys: [] };
  const responses = await ctx.store.listStudyResponses(ctx.studyId, 'survey');
  // Summarising is one pass over the answers; on the main thread it waits for participants' writes first.
  await participantWrites.turn();
  const summary = surveySummaries(surveyInput(versions, ctx.version, ctx.sessions, responses));
  return { ...head, studyVersion: summary.version, surveys: summary.surveys };
}

/** `surveys.json` as written (indented, one line end). */
export async function* surveysJson(ctx: ExportContext): AsyncGenerator<string> {
  yield JSON.stringify(await exportSurveys(ctx), null, 2) + '\n';
}
