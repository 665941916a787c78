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
};

/** Environment variables that change the limits, with the field each sets and its unit. */
export const LIMIT_VARIABLES = {
  ARC_STUDIO_MAX_SESSION_EVENTS: ['maxSessionEvents', 1],
  ARC_STUDIO_MAX_SESSION_MB: ['maxSessionBytes', MiB],
  ARC_STUDIO_SESSION_EVENTS_PER_SECOND: ['eventsPerSecond', 1],
  ARC_STUDIO_SESSION_BURST_EVENTS: ['burstEvents', 1],
  ARC_STUDIO_SESSION_KB_PER_SECOND: ['bytesPerSecond', 1024],
  ARC_STUDIO_SESSION_BURST_MB: ['burstBytes', MiB],
} as const satisfies Record<string, readonly [keyof IngestLimits, number]>;

/** The limits with the environment's overrides; throws a message naming a bad variable. */
export function limitsFromEnv(env: Record<string, string | undefined>): IngestLimits {
  const out: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [name, [field, unit]] of Object.entries(LIMIT_VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw} is not a positive number; unset it or give one, e.g. ${name}=${DEFAULT_LIMITS[field] / unit}.`);
    out[field] = Math.round(n * unit);
  }
  return out as unknown as IngestLimits;
}

/**
 * Token buckets per session, in this process: each session may send `rate` units per second
 * on average, and up to `burst` at once after a quiet spell. Bounded in memory: the least
 * recently seen sessions are forgotten first (a forgotten session starts with a full bucket).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { events: number; bytes: number; at: number }>();

  constructor(private readonly limits: IngestLimits, private readonly maxSessions = 100_000) {}

  /**
   * Takes `events` and `bytes` from the session's buckets at time `now` (ms). Returns 0 when
   * allowed, or the seconds to wait before the same request would be.
   */
  take(sessionId: string, events: number, bytes: number, now: number): number {
    const L = this.limits;
    const b = this.buckets.get(sessionId) ?? { events: L.burstEvents, bytes: L.burstBytes, at: now };
    this.buckets.delete(sessionId);
    const dt = Math.max(0, now - b.at) / 1000;
    const ev = Math.min(L.burstEvents, b.events + dt * L.eventsPerSecond);
    const by = Math.min(L.burstBytes, b.bytes + dt * L.bytesPerSecond);
    let wait = 0;
    if (events > ev) wait = Math.max(wait, (events - ev) / L.eventsPerSecond);
    if (bytes > by) wait = Math.max(wait, (bytes - by) / L.bytesPerSecond);
    const next = wait > 0 ? { events: ev, bytes: by, at: now } : { events: ev - events, bytes: by - bytes, at: now };
    this.buckets.set(sessionId, next);
    if (this.buckets.size > this.maxSessions) this.buckets.delete(this.buckets.keys().next().value!);
    return wait > 0 ? Math.max(1, Math.ceil(wait)) : 0;
  }
}
