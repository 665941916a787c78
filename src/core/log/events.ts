/**
 * The event envelope shared by every part of ARC Studio: grid tasks, games and the study shell.
 * A session is an append-only stream of these, keyed by `seq`; everything else is derived.
 */
import { z } from 'zod';

export const EventEnvelope = z.object({
  /** 0, 1, 2, ... without gaps within a session. */
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the session started, from `performance.now()` (sub-millisecond). */
  t: z.number().nonnegative().finite(),
  /** What happened, e.g. `paint`, `submit`, `game.action`. */
  kind: z.string().min(1).max(64),
  /** The kind's payload. */
  data: z.record(z.string(), z.unknown()),
});

export type LogEvent<D = Record<string, unknown>> = {
  readonly seq: number;
  readonly t: number;
  readonly kind: string;
  readonly data: D;
};

/** Parses a JSONL log (one event per line; blank lines ignored) into validated events. */
export function parseJsonl(text: string): { events: LogEvent[]; errors: string[] } {
  const events: LogEvent[] = [];
  const errors: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      errors.push(`line ${i + 1} is not JSON`);
      return;
    }
    const parsed = EventEnvelope.safeParse(json);
    if (parsed.success) events.push(parsed.data);
    else
      errors.push(
        `line ${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join('.') || 'event'} ${x.message}`).join('; ')}`,
      );
  });
  return { events, errors };
}

export function toJsonl(events: readonly LogEvent[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : '');
}
