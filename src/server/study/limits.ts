/**
 * What one participant may send: per request, per session in all, and per session per second.
 * Every figure is documented in docs/api.md ("Limits") and can be changed with the environment
 * variables below when the server starts.
 */

export interface IngestLimits {
  /** Most events in one batch. */
  readonly maxBatchEvents: number;
  /** Largest request body, in bytes. */
  readonly maxBodyBytes: number;
  /** How far past the acknowledged mark an event may be (events held for a gap are bounded). */
  readonly maxSeqAhead: number;
  /** Most events one session may store. */
  readonly maxSessionEvents: number;
  /** Most bytes of event data one session may store. */
  readonly maxSessionBytes: number;
  /** Sustained events per second per session, and the burst allowed above it. */
  readonly eventsPerSecond: number;
  readonly burstEvents: number;
  /** Sustained bytes per second per session, and the burst allowed above it. */
  readonly bytesPerSecond: number;
  readonly burstBytes: number;
  /**
   * New sessions per minute from one client address (the burst is the same figure): a script
   * that opens a study link in a loop is refused, a lab of participants behind one address is not.
   */
  readonly sessionsPerMinutePerClient: number;
  /** New sessions per minute of one study, from every address together. */
  readonly sessionsPerMinutePerStudy: number;
  /** A study's storage budget, for every session together, when the study sets none (`storage` in its definition). */
  readonly studyEvents: number;
  readonly studyBytes: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: IngestLimits = {
  maxBatchEvents: 500,
  maxBodyBytes: MiB,
  maxSeqAhead: 10_000,
  maxSessionEvents: 200_000,
  maxSessionBytes: 64 * MiB,
  eventsPerSecond: 50,
  burstEvents: 5_000,
  bytesPerSecond: 256 * 1024,
  burstBytes: 8 * MiB,
  sessionsPerMinutePerClient: 60,
  sessionsPerMinutePerStudy: 3_000,
  studyEvents: 50_000_000,
  studyBytes: 10 * 1024 * MiB,
};

/** Environment variables that change the limits, with the field each sets and its unit. */
export const LIMIT_VARIABLES = {
  ARC_STUDIO_MAX_SESSION_EVENTS: ['maxSessionEvents', 1],
  ARC_STUDIO_MAX_SESSION_MB: ['maxSessionBytes', MiB],
  ARC_STUDIO_SESSION_EVENTS_PER_SECOND: ['eventsPerSecond', 1],
  ARC_STUDIO_SESSION_BURST_EVENTS: ['burstEvents', 1],
  ARC_STUDIO_SESSION_KB_PER_SECOND: ['bytesPerSecond', 1024],
  ARC_STUDIO_SESSION_BURST_MB: ['burstBytes', MiB],
  ARC_STUDIO_SESSIONS_PER_MINUTE_PER_CLIENT: ['sessionsPerMinutePerClient', 1],
  ARC_STUDIO_STUDY_SESSIONS_PER_MINUTE: ['sessionsPerMinutePerStudy', 1],
  ARC_STUDIO_STUDY_STORAGE_EVENTS: ['studyEvents', 1],
  ARC_STUDIO_STUDY_STORAGE_MB: ['studyBytes', MiB],
} as const satisfies Record<string, readonly [keyof IngestLimits, number]>;

/** The limits with the environment's overrides; throws a message naming a bad variable. */
export function limitsFromEnv(env: Record<string, string | undefined>): IngestLimits {
  const out: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [name, [field, unit]] of Object.entries(LIMIT_VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0)
      throw new Error(
        `${name}=${raw} is not a positive number; unset it or give one, e.g. ${name}=${DEFAULT_LIMITS[field] / unit}.`,
      );
    out[field] = Math.round(n * unit);
  }
  return out as unknown as IngestLimits;
}

/** A study's storage budget: its own (`storage` in the definition), else the server's. */
export function studyStorageBudget(
  study: { storage?: { events?: number; megabytes?: number } },
  limits: IngestLimits,
): { events: number; bytes: number } {
  return {
    events: study.storage?.events ?? limits.studyEvents,
    bytes: study.storage?.megabytes !== undefined ? Math.round(study.storage.megabytes * MiB) : limits.studyBytes,
  };
}

/** One kind of token: refilled at `rate` per second, holding at most `burst`. */
export interface BucketSpec {
  readonly rate: number;
  readonly burst: number;
}

/**
 * Token buckets per key, in this process: each key may take `rate` units per second on average
 * and up to `burst` at once after a quiet spell, for every kind of unit at once. Bounded in
 * memory: the least recently seen keys are forgotten first (a forgotten key starts full).
 */
export class TokenBuckets<K extends string> {
  private readonly buckets = new Map<string, { level: Record<K, number>; at: number }>();
  private readonly kinds: K[];

  constructor(
    private readonly specs: Readonly<Record<K, BucketSpec>>,
    private readonly maxKeys = 100_000,
  ) {
    this.kinds = Object.keys(specs) as K[];
  }

  /**
   * Takes `amounts` from the key's buckets at time `now` (ms). Returns 0 when allowed (and takes
   * them), or the whole seconds to wait before the same request would be (and takes nothing).
   */
  take(key: string, amounts: Readonly<Record<K, number>>, now: number): number {
    const held = this.buckets.get(key);
    this.buckets.delete(key);
    const dt = held ? Math.max(0, now - held.at) / 1000 : 0;
    const level = {} as Record<K, number>;
    let wait = 0;
    for (const k of this.kinds) {
      const { rate, burst } = this.specs[k];
      level[k] = held ? Math.min(burst, held.level[k] + dt * rate) : burst;
      if (amounts[k] > level[k]) wait = Math.max(wait, (amounts[k] - level[k]) / rate);
    }
    if (wait === 0) for (const k of this.kinds) level[k] -= amounts[k];
    this.buckets.set(key, { level, at: now });
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    return wait > 0 ? Math.max(1, Math.ceil(wait)) : 0;
  }
}

/** Events and bytes per session per second (`IngestLimits`). */
export class RateLimiter {
  private readonly buckets: TokenBuckets<'events' | 'bytes'>;

  constructor(limits: IngestLimits, maxSessions = 100_000) {
    this.buckets = new TokenBuckets(
      {
        events: { rate: limits.eventsPerSecond, burst: limits.burstEvents },
        bytes: { rate: limits.bytesPerSecond, burst: limits.burstBytes },
      },
      maxSessions,
    );
  }

  /**
   * Takes `events` and `bytes` from the session's buckets at time `now` (ms). Returns 0 when
   * allowed, or the seconds to wait before the same request would be.
   */
  take(sessionId: string, events: number, bytes: number, now: number): number {
    return this.buckets.take(sessionId, { events, bytes }, now);
  }
}
