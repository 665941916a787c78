/**
 * Test helper: a participant's browser sending events to a real server, as the outbox does:
 * events in order, sent again from the first unacknowledged one until acknowledged, a pause after
 * a refusal. It records every refusal and any acknowledged event the server later did not have.
 */

export interface Refusal {
  readonly status: number;
  readonly error: string;
  readonly retryAfter: string | null;
}

export interface EventSenderOptions {
  /** Events added per batch while running. */
  readonly perBatch?: number;
  /** Each event's kind and data, by its seq (`data.i` must be the seq, for `storedOnce`). */
  readonly event?: (seq: number) => { kind: string; data: Record<string, unknown> & { i: number } };
}

const paint = (seq: number) => ({
  kind: 'paint',
  data: { row: 0, col: seq % 3, color: 1, stroke: seq, i: seq },
});

export class EventSender {
  acked = -1;
  sent = -1;
  readonly refusals: Refusal[] = [];
  /** Acknowledged events the server later did not have. */
  readonly lost: string[] = [];
  /** Failures that are not an HTTP answer (the server gone). */
  readonly networkErrors: string[] = [];
  private stopping = false;
  private done: Promise<void> | null = null;
  private readonly perBatch: number;
  private readonly event: NonNullable<EventSenderOptions['event']>;

  private constructor(
    private readonly url: string,
    readonly sessionId: string,
    readonly token: string,
    opts: EventSenderOptions,
  ) {
    this.perBatch = opts.perBatch ?? 5;
    this.event = opts.event ?? paint;
  }

  /** A new session of the bundled `sample` study. */
  static async join(url: string, opts: EventSenderOptions = {}): Promise<EventSender> {
    const res = await fetch(`${url}/api/studies/sample/sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ params: {} }),
    });
    if (res.status !== 201) throw new Error(`creating a session: ${res.status} ${await res.text()}`);
    const { sessionId, token } = (await res.json()) as { sessionId: string; token: string };
    return new EventSender(url, sessionId, token, opts);
  }

  /** Sends until `finish` is called and then until everything sent is acknowledged. */
  start(): void {
    this.done = (async () => {
      while (!this.stopping || this.acked < this.sent) {
        // New events only while running; afterwards the unacknowledged ones are sent again.
        if (!this.stopping && this.sent - this.acked < this.perBatch) this.sent += this.perBatch;
        const from = this.acked + 1;
        const events = Array.from({ length: this.sent - from + 1 }, (_, i) => ({
          seq: from + i,
          t: (from + i) * 10,
          ...this.event(from + i),
        }));
        let pause = 20;
        try {
          const res = await fetch(`${this.url}/api/sessions/${this.sessionId}/events`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.token}` },
            body: JSON.stringify({ events }),
          });
          const body = (await res.json()) as { ackedThrough?: number; error?: string };
          if (res.status === 200) {
            const acked = body.ackedThrough ?? -1;
            // The server no longer holds events it acknowledged: the browser has already let them go.
            if (acked < this.acked)
              this.lost.push(`the server acknowledged through ${this.acked}, then answered ackedThrough ${acked}`);
            this.acked = Math.max(this.acked, acked);
          } else {
            this.refusals.push({
              status: res.status,
              error: body.error ?? '',
              retryAfter: res.headers.get('retry-after'),
            });
            pause = 200;
          }
        } catch (e) {
          this.networkErrors.push((e as Error).message);
          pause = 200;
        }
        // The pace of a participant's browser, not a wait for anything.
        await new Promise((r) => setTimeout(r, pause));
      }
    })();
  }

  /** No new events from now on; resolves when everything sent is acknowledged. */
  finish(): Promise<void> {
    this.stopping = true;
    return this.done ?? Promise.resolve();
  }

  /**
   * What the server stores of this session, read with the researcher's token: a problem when an
   * acknowledged event is missing, doubled or changed, or the stored mark is not the acknowledged one.
   */
  async storedOnce(adminToken: string): Promise<string | null> {
    const res = await fetch(`${this.url}/api/admin/sessions/${this.sessionId}/events`, {
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    if (res.status !== 200) return `reading session ${this.sessionId}: ${res.status}`;
    const stored = (await res.json()) as { ackedThrough: number; events: { seq: number; data: { i: number } }[] };
    if (stored.ackedThrough !== this.acked) return `stored through ${stored.ackedThrough}, acknowledged ${this.acked}`;
    const seqs = stored.events.map((e) => e.seq);
    if (seqs.length !== this.acked + 1 || seqs.some((s, i) => s !== i))
      return `stored seqs are not 0..${this.acked} once each (${seqs.length} events)`;
    if (!stored.events.every((e) => e.data.i === e.seq)) return 'a stored event differs from the one sent';
    return null;
  }
}
