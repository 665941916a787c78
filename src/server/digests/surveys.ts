/**
 * A study's survey summaries (`core/analysis/surveys.ts`) for the results page: the study's
 * survey responses read in one query and summarised on a digest thread, so that a study with
 * thousands of answers never holds up the thread that acknowledges participants' events.
 */
import { surveySummaries, type StudySurveySummaries } from '../../core/analysis/surveys';
import { surveyInput } from '../export/surveys';
import { participantWrites } from '../load';
import { MAIN_STAGE, inStage } from '../../core/study/stages';
import type { AnswerStore, SessionStore, StudyStore } from '../store/types';
import type { DigestPool } from './pool';
import { studyVersions } from './studyDigests';

/**
 * The survey summaries of a study, every version or one; `{error}` for an unknown study or
 * version. Computed on `digests` when given (as the server does), else here after the
 * participants' writes waiting for their turn.
 */
export async function computeSurveySummaries(
  deps: { readonly store: StudyStore & SessionStore & AnswerStore; readonly digests?: DigestPool },
  id: string,
  version: number | null,
  stage: string | null = MAIN_STAGE,
): Promise<StudySurveySummaries | { error: string }> {
  const versions = await studyVersions(deps.store, id, version);
  if ('error' in versions) return versions;
  if (!versions.some((v) => v.definition.items.some((item) => item.kind === 'survey'))) return { version, surveys: [] };
  const [sessions, responses] = await Promise.all([
    deps.store.listSessions(id),
    deps.store.listStudyResponses(id, 'survey'),
  ]);
  const counted = sessions.filter((s) => inStage(s.stage, stage));
  const ids = new Set(counted.map((s) => s.id));
  const input = surveyInput(
    versions,
    version,
    counted,
    responses.filter((r) => ids.has(r.sessionId)),
  );
  if (deps.digests) return deps.digests.surveys(input);
  await participantWrites.turn();
  return surveySummaries(input);
}
