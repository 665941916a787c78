/**
 * Every error the ARC Studio API answers, as `{error, message, ...}`: `error` is one of these codes,
 * `message` a sentence that says what is wrong and what to do. The server's reply helpers take an
 * `ErrorCode`, so a misspelt code fails the typecheck; the browser switches on the same union.
 * docs/api.md says which route answers which code, and with which status.
 *
 * The agents' routes (`/api/agents/...`) speak the official ARC-AGI-3 protocol instead, with its
 * own error names (`server/agents/protocol.ts`, `ProtocolError`).
 */

/** Refusals of a participant's write by the session's state and its items' (docs/api.md, "Admission"). */
export type AdmissionRefusal =
  | 'session_closed'
  | 'session_idle'
  | 'events_pending'
  | 'not_current_item'
  | 'item_closed'
  | 'item_skipped'
  | 'not_started'
  | 'item_time_up';

export type ErrorCode =
  | AdmissionRefusal
  // The request itself.
  | 'malformed'
  | 'too_large'
  | 'not_found'
  | 'unknown_format'
  | 'confirmation_mismatch'
  // Who asks.
  | 'unauthorized'
  | 'forbidden'
  | 'revoked'
  | 'sealed'
  // The server and its database.
  | 'internal'
  | 'overloaded'
  | 'database_unavailable'
  | 'storage_full'
  | 'rate_limited'
  | 'too_many_sessions'
  | 'study_busy'
  | 'storage_budget'
  // Studies and their definitions.
  | 'invalid_study'
  | 'invalid_task'
  | 'exists'
  | 'defined_by_file'
  | 'conflict'
  | 'gone'
  | 'not_a_campaign'
  | 'task_unavailable'
  | 'question_unavailable'
  // A participant's session and what it sends.
  | 'session_withdrawn'
  | 'invalid_event'
  | 'seq_too_far'
  | 'quota_exceeded'
  | 'key_reused'
  | 'items_unfinished'
  | 'already_answered'
  | 'already_solved'
  | 'no_trials_left'
  | 'not_asked'
  | 'no_answer'
  | 'invalid_answers'
  // Prolific.
  | 'prolific_returned'
  | 'prolific_not_configured'
  | 'prolific_error'
  | 'bad_signature'
  // Reference recordings: a line that is not the official format, a recording of another version.
  | 'invalid_recording'
  | 'other_version'
  // Games run by the server (ARC-AGI-3).
  | 'run_lost'
  | 'game_lost'
  | 'game_error'
  | 'game_unavailable'
  | 'ambiguous_game'
  | 'no_engine'
  | 'too_many_runs'
  | 'too_many_open_runs'
  /** A state-graph exploration its researcher cancelled. */
  | 'cancelled';

/** Every error body: a machine-readable code and a sentence that says what to do. */
export interface ApiErrorBody {
  readonly error: ErrorCode;
  readonly message: string;
  /** Where in the request body the problem is (`events.3.data.rect`), when it is in the body. */
  readonly path?: string;
  /** The server's acknowledged mark, with `events_pending`. */
  readonly ackedThrough?: number;
  /** Seconds to wait, with `rate_limited`, `overloaded`, `database_unavailable`, `storage_full` and `storage_budget` (also in the `Retry-After` header). */
  readonly retryAfter?: number;
  /** The route's largest body in bytes, with `too_large` for a body over it. */
  readonly limit?: number;
  /** A game's Python traceback, with `game_error` and `game_unavailable`, for researchers only. */
  readonly traceback?: string;
}
