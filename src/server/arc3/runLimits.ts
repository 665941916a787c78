/**
 * How much of the game workers the sessions may hold: the limits, their defaults, and the
 * environment variables that change them.
 */

/**
 * What one session may hold of the game workers (docs/api.md, "ARC-AGI-3 games run by the
 * server"), so that a flood of runs from one participant cannot grow the workers' memory while
 * others play. A closed run is never lost: its next action rebuilds it from its stored steps.
 */
export interface RunLimits {
  /** Runs one session may open for one item, in all. */
  readonly runsPerItem: number;
  /** Runs one session may hold open in this server's workers at once. */
  readonly openRunsPerSession: number;
  /** Session runs open in this server's workers at once; past it the least recently used is closed. */
  readonly openRuns: number;
  /** A session's run nobody acted on for this long is closed in its worker, in minutes. */
  readonly idleMinutes: number;
}

/** Runs not stored (playtests, agents' runs) cannot be rebuilt once closed: they are kept this long without an action. */
export const UNSTORED_IDLE_MS = 30 * 60_000;

export const DEFAULT_RUN_LIMITS: RunLimits = {
  runsPerItem: 5,
  openRunsPerSession: 2,
  openRuns: 2_000,
  idleMinutes: 10,
};

/** Environment variables that change the run limits, with the field each sets. */
export const RUN_LIMIT_VARIABLES = {
  ARC_STUDIO_RUNS_PER_ITEM: 'runsPerItem',
  ARC_STUDIO_OPEN_RUNS_PER_SESSION: 'openRunsPerSession',
  ARC_STUDIO_MAX_OPEN_RUNS: 'openRuns',
  ARC_STUDIO_RUN_IDLE_MINUTES: 'idleMinutes',
} as const satisfies Record<string, keyof RunLimits>;

/** The run limits with the environment's overrides; throws a message naming a bad variable. */
export function runLimitsFromEnv(env: Record<string, string | undefined>): RunLimits {
  const out: Record<string, number> = { ...DEFAULT_RUN_LIMITS };
  for (const [name, field] of Object.entries(RUN_LIMIT_VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0 || (field !== 'idleMinutes' && !Number.isInteger(n))) {
      throw new Error(
        `${name}=${raw} is not a positive ${field === 'idleMinutes' ? 'number' : 'whole number'}; unset it or give one, e.g. ${name}=${DEFAULT_RUN_LIMITS[field]}.`,
      );
    }
    out[field] = n;
  }
  return out as unknown as RunLimits;
}
