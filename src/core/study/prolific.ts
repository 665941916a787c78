/**
 * What a study on Prolific means for its participants: where the end of the study sends them,
 * and the flags a session gets when Prolific reports its submission returned or timed out.
 */
import type { WrittenStudy } from './schema';

/** Prolific's completion page; `?cc=<code>` completes the participant's submission with that code. */
export const PROLIFIC_COMPLETE_URL = 'https://app.prolific.com/submissions/complete';

/** Seconds the completion code stays on screen before the redirect, when the study does not say. */
export const REDIRECT_AFTER_SECONDS = 5;

/** The flag of a session whose Prolific submission was returned, or timed out. */
export const RETURN_FLAGS = { RETURNED: 'prolific_returned', 'TIMED-OUT': 'prolific_timed_out' } as const;

/** The flag of a session a participant started after returning the study on Prolific (`afterReturn: allow`). */
export const AFTER_RETURN_FLAG = 'after_prolific_return';

/** The Prolific statuses that end a participant's place in the study. */
export function isReturnStatus(status: string): status is keyof typeof RETURN_FLAGS {
  return Object.hasOwn(RETURN_FLAGS, status);
}

/**
 * Where the participant is sent at the end: the study's `completion.redirectUrl`, else, for a
 * study on Prolific, Prolific's completion URL with the study's code; null when neither.
 *
 * @example
 * completionRedirect({ completion: { code: 'C0DE' }, prolific: { studyId: 's1' } })
 * // 'https://app.prolific.com/submissions/complete?cc=C0DE'
 */
export function completionRedirect(study: {
  readonly completion: Pick<WrittenStudy['completion'], 'code' | 'redirectUrl'>;
  readonly prolific?: unknown;
}): string | null {
  if (study.completion.redirectUrl) return study.completion.redirectUrl;
  if (study.prolific) return `${PROLIFIC_COMPLETE_URL}?cc=${encodeURIComponent(study.completion.code)}`;
  return null;
}
