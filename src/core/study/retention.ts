/**
 * What retention replaces in a session's stored data once its study's retention period is over
 * (`retention` in the study definition): the recruitment ids in its link's parameters, and the
 * answers to the survey questions the study marks identifying, each by a stable pseudonym. The
 * pseudonym itself (a keyed hash) is the server's; these rules only say where identifiers are.
 * Every other value is kept as it is, so every analysis figure stays what it was.
 */

/** The link parameters that identify a participant: Prolific's, MTurk's, and a lab's own. */
export const IDENTIFYING_PARAMS = ['PROLIFIC_PID', 'workerId', 'participantId'] as const;

/** A stable pseudonym of an identifier: the same identifier always gives the same pseudonym. */
export type Pseudonym = (identifier: string) => string;

/** The parameters with each identifying one replaced by its pseudonym. */
export function pseudonymousParams(params: Readonly<Record<string, string>>, p: Pseudonym): Record<string, string> {
  const out = { ...params };
  for (const key of IDENTIFYING_PARAMS) if (typeof out[key] === 'string' && out[key]) out[key] = p(out[key]);
  return out;
}

/** A survey answer with its text replaced (a list's every entry); numbers are kept. */
function pseudonymousAnswer(value: unknown, p: Pseudonym): unknown {
  if (typeof value === 'string') return value ? p(value) : value;
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' && v ? p(v) : v));
  return value;
}

/** A survey's answers (`{question: value}`) with those of identifying questions replaced. */
export function pseudonymousAnswers(
  answers: Readonly<Record<string, unknown>>,
  identifying: ReadonlySet<string>,
  p: Pseudonym,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(answers).map(([q, v]) => [q, identifying.has(q) ? pseudonymousAnswer(v, p) : v]),
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A logged event's data with its identifiers replaced: the link's parameters of `session.start`,
 * and identifying answers of `survey.answer` and `survey.submit`. Null when it holds none.
 */
export function pseudonymousEventData(
  kind: string,
  data: Readonly<Record<string, unknown>>,
  identifying: ReadonlySet<string>,
  p: Pseudonym,
): Record<string, unknown> | null {
  if (kind === 'session.start' && isRecord(data.params))
    return { ...data, params: pseudonymousParams(data.params as Record<string, string>, p) };
  if (kind === 'survey.answer' && typeof data.question === 'string' && identifying.has(data.question))
    return { ...data, value: pseudonymousAnswer(data.value, p) };
  if (kind === 'survey.submit' && isRecord(data.answers))
    return { ...data, answers: pseudonymousAnswers(data.answers, identifying, p) };
  return null;
}
