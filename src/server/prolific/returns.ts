/**
 * Returns and time-outs: a Prolific submission that became `RETURNED` or `TIMED-OUT` (its webhook
 * `submission.status.change`, or a poll of the study's submissions) ends the participant's
 * session in the studio at once:
 *
 * - a session still open ends as `withdrawn`, flagged `prolific_returned` or `prolific_timed_out`
 *   (so results and payments say why; it is not excluded), and its campaign claims are settled
 *   from its summary as a withdrawal's are: what was not done is released for other participants;
 * - a session already ended keeps its state and gains the flag;
 * - the submission is recorded for the study, so the participant coming back meets the study's
 *   `prolific.afterReturn` rule (`study/sessionRoutes.ts`).
 *
 * A participant's sessions are found by their `PROLIFIC_PID` in the studies the submission belongs
 * to; where a session carries Prolific's `SESSION_ID`, only the session of that submission. When
 * the study is not known (a webhook whose submission cannot be read back from Prolific), only a
 * session carrying the submission's `SESSION_ID` is touched, never one of another study.
 */
import { RETURN_FLAGS, isReturnStatus } from '../../core/study/prolific';
import { isFinalState } from '../../core/study/rules';
import type { StudyWiring } from '../study/services';
import { definitionOf } from '../study/studies';

/** A submission's new status, as the webhook or the poll tells it. */
export interface StatusChange {
  readonly submissionId: string;
  readonly participantId: string;
  readonly status: string;
  readonly via: 'webhook' | 'poll';
  /** The studio study it is known to belong to (a poll knows it). */
  readonly studyId?: string;
  /**
   * The studio studies it may belong to (a webhook's submission read back from Prolific: the
   * studies naming its Prolific study). Without `studyId` or `studyIds`, only sessions whose
   * `SESSION_ID` is the submission's id are touched.
   */
  readonly studyIds?: ReadonlySet<string>;
}

/** What a change did: the sessions it ended or flagged. */
export interface ChangeOutcome {
  readonly ended: string[];
  readonly flagged: string[];
}

/** What a status change is applied with. */
export type ReturnServices = Pick<StudyWiring, 'store' | 'now' | 'definitions' | 'endings'>;

/** Applies one status change; a status other than returned or timed out changes nothing. */
export async function applyStatusChange(services: ReturnServices, change: StatusChange): Promise<ChangeOutcome> {
  const out: ChangeOutcome = { ended: [], flagged: [] };
  if (!isReturnStatus(change.status)) return out;
  const { store, definitions, endings } = services;
  const flag = RETURN_FLAGS[change.status];
  const now = services.now();
  const known = change.studyId !== undefined ? new Set([change.studyId]) : change.studyIds;
  const sessions = (await store.prolific.sessionsOfParticipant(change.participantId)).filter((s) =>
    known
      ? known.has(s.studyId) && (s.submissionId === null || s.submissionId === change.submissionId)
      : s.submissionId === change.submissionId,
  );
  const studies = new Set([...sessions.map((s) => s.studyId), ...(known ?? [])]);
  for (const studyId of studies)
    await store.prolific.seeSubmission({
      studyId,
      submissionId: change.submissionId,
      participantId: change.participantId,
      status: change.status,
      via: change.via,
      at: now,
    });
  for (const { sessionId } of sessions) {
    const session = await store.getSession(sessionId);
    if (!session || session.flags.includes(flag)) continue;
    const flags = [...new Set([...session.flags, flag])];
    if (isFinalState(session.state)) {
      await store.setSessionState(session.id, session.state, { flags });
      out.flagged.push(session.id);
      continue;
    }
    const study = await definitions.at(session.studyId, session.studyVersion);
    await endings.end(session, study, { state: 'withdrawn', flags: [flag] }, now);
    out.ended.push(session.id);
  }
  return out;
}

/** The studio's studies on Prolific: studio id and Prolific's study id. */
export async function prolificStudies({
  store,
}: Pick<StudyWiring, 'store'>): Promise<{ id: string; prolificStudyId: string }[]> {
  const out: { id: string; prolificStudyId: string }[] = [];
  for (const s of await store.listStudies()) {
    const rec = await store.getStudy(s.id);
    if (!rec) continue;
    try {
      const def = definitionOf(rec);
      if (def.prolific) out.push({ id: s.id, prolificStudyId: def.prolific.studyId });
    } catch {
      // A stored study that no longer parses is not polled.
    }
  }
  return out;
}
