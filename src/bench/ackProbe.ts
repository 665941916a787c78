/**
 * Participants of a study acknowledging event batches over and over, beside a researcher's heavy
 * request (results, an export) on the same server: the `acks` bench measures how much it delays
 * them, and the tests that the acknowledgements go on meanwhile.
 */
import { performance } from 'node:perf_hooks';
import type { Hono } from 'hono';

/** Two events per batch and a 50 ms pause: under the 50 events a second a session may send. */
const EVENTS_PER_BATCH = 2;
const PAUSE_MS = 50;

export const quantile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

export interface AckProbe {
  /** The participants' session ids. */
  readonly sessionIds: ReadonlySet<string>;
  /**
   * Every participant sends a batch, waits for its acknowledgement, pauses, until `until()`; the
   * latencies in ms of the batches acknowledged before `until()` held.
   */
  acks(until: () => boolean): Promise<number[]>;
}

/** `n` participants with sessions in the study, each with one batch acknowledged. */
export async function ackProbe(app: Hono, studyId: string, n: number): Promise<AckProbe> {
  const participant = async () => {
    const created = await app.request(`/studies/${studyId}/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    if (created.status !== 201) throw new Error(`creating a session: ${created.status} ${await created.text()}`);
    const { sessionId, token } = (await created.json()) as { sessionId: string; token: string };
    let seq = 0;
    const ack = async () => {
      const events = Array.from({ length: EVENTS_PER_BATCH }, () => ({
        seq,
        t: seq * 10,
        kind: 'paint',
        data: { row: 0, col: seq++ % 3, color: 1, stroke: seq },
      }));
      const t0 = performance.now();
      const res = await app.request(`/sessions/${sessionId}/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ events }),
      });
      if (res.status !== 200) throw new Error(`an event batch was answered ${res.status}: ${await res.text()}`);
      await res.json();
      return performance.now() - t0;
    };
    await ack();
    return { sessionId, ack };
  };
  const participants = await Promise.all(Array.from({ length: n }, participant));
  return {
    sessionIds: new Set(participants.map((p) => p.sessionId)),
    async acks(until) {
      const latencies: number[] = [];
      await Promise.all(
        participants.map(async ({ ack }) => {
          while (!until()) {
            const ms = await ack();
            if (until()) break;
            latencies.push(ms);
            await new Promise((r) => setTimeout(r, PAUSE_MS));
          }
        }),
      );
      return latencies;
    },
  };
}
