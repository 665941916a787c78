/**
 * The wire type of `POST /api/admin/studies/:studyId/question-scores` (a model's answers file
 * scored beside a study's people), shared by the server route and the studio's Score page.
 */
import type { BesideHumans } from '../questions/beside';
import type { ScoreReport } from '../questions/score';

/** The answer of `POST /api/admin/studies/:studyId/question-scores`. */
export interface QuestionScoreResponse {
  readonly study: { readonly id: string; readonly title: string; readonly version: number | null };
  readonly collection: { readonly id: string; readonly name: string; readonly count: number };
  /** The model's report over every question of the collection. */
  readonly model: ScoreReport;
  /** Per subset: the model beside the study's human accuracy. */
  readonly beside: BesideHumans;
}
