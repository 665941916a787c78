/** The errors of running arcengine games: the engine's own, the worker's, and the limits on runs. */
export type Arc3ErrorCode =
  | 'bad_request'
  | 'unknown_game'
  | 'unknown_run'
  | 'load_error'
  | 'game_error'
  | 'no_engine'
  | 'internal'
  | 'timeout'
  | 'worker_died'
  | 'no_python'
  | 'ambiguous_game'
  /** A state-graph exploration cancelled by its researcher (`Arc3Service.cancelGraph`). */
  | 'cancelled'
  /** A session's limits on runs (`RunLimits`, runs.ts): too many for one item, or too many open at once. */
  | 'too_many_runs'
  | 'too_many_open_runs'
  /** A remote server lost a run's play and it could not be rebuilt (remote.ts). */
  | 'upstream_lost';

/** An error from the worker or from talking to it; `traceback` is the game's Python traceback when it raised. */
export class Arc3Error extends Error {
  /** `retryAfter`: seconds until the same request may succeed (`too_many_open_runs`). */
  constructor(
    readonly code: Arc3ErrorCode,
    message: string,
    readonly traceback?: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'Arc3Error';
  }
}
