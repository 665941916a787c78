/**
 * Overload, answered at the door. Past capacity a server that queues every request makes every
 * participant wait (and goes on working for clients that gave up long ago); this one answers
 * 503 with `Retry-After` at once, so browsers back off and what is admitted stays fast.
 *
 * Capacity is judged on three figures: requests in progress (admitted and not yet answered), the
 * event loop's delay (how late a timer fires, the worst over the last second: a busy thread
 * answers everything late) and the standing queue of participants' writes: when even the
 * fastest of the writes answered in the last second took longer than `maxWaitMs`, every write
 * waits behind a queue that is not draining (the database or the workers are behind, not a
 * burst), so new requests are refused until a second passes in which one is answered in time.
 * Refusing early keeps what is admitted fast and the server's throughput near its capacity,
 * instead of every request waiting its turn in a queue that only grows. `/api/health` is always answered and reports both, and static files are
 * never refused.
 *
 * Participants' writes are shed earlier: while the event loop is late by more than `shedLagMs`
 * now (the last sample's delay, or how late the next sample already is), a new write is answered
 * 503 before its body is read. Why: past capacity the requests wait in the sockets while the
 * thread is busy, where no figure of the admitted writes sees them; every write admitted then
 * costs a parse, a queue place and a group commit that only makes the next one later. Reads (the
 * study page, a session's items) and the writes already admitted go on, so what was taken on is
 * finished at the server's own pace and throughput stays near its capacity.
 *
 * A request whose client has already gone is dropped before any work. The limits are documented
 * in docs/api.md ("Overload") and docs/deploy.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiErrorBody } from '../core/protocol/errors';

export interface LoadLimits {
  /** Most API requests in progress at once; past it new ones get 503. */
  readonly maxInFlight: number;
  /** Event-loop delay (the worst over the last second, ms) past which new API requests get 503. */
  readonly maxLagMs: number;
  /** The fastest participant write of the last second (ms, admitted to answered) past which new API requests get 503. */
  readonly maxWaitMs: number;
  /** Event-loop delay now (ms) past which new participant writes get 503 (reads go on until `maxLagMs`). */
  readonly shedLagMs: number;
}

export const DEFAULT_LOAD_LIMITS: LoadLimits = { maxInFlight: 1024, maxLagMs: 1000, maxWaitMs: 500, shedLagMs: 250 };

/** Without `ARC_STUDIO_SHED_LAG_MS`, participants' writes are shed at this part of `maxLagMs`. */
const SHED_PART_OF_MAX_LAG = 4;

/** Environment variables that change the limits. */
export const LOAD_VARIABLES = {
  ARC_STUDIO_MAX_IN_FLIGHT: 'maxInFlight',
  ARC_STUDIO_MAX_LAG_MS: 'maxLagMs',
  ARC_STUDIO_MAX_WAIT_MS: 'maxWaitMs',
  ARC_STUDIO_SHED_LAG_MS: 'shedLagMs',
} as const satisfies Record<string, keyof LoadLimits>;

/**
 * The limits with the environment's overrides; throws a message naming a bad variable. Without
 * `ARC_STUDIO_SHED_LAG_MS`, writes are shed at a quarter of `maxLagMs` (250 ms by default), so a
 * server given a higher `ARC_STUDIO_MAX_LAG_MS` (a busy test machine) sheds later too.
 */
export function loadLimitsFromEnv(env: Record<string, string | undefined>): LoadLimits {
  const out: Record<string, number> = { ...DEFAULT_LOAD_LIMITS };
  for (const [name, field] of Object.entries(LOAD_VARIABLES)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0)
      throw new Error(
        `${name}=${raw} is not a positive whole number; unset it or give one, e.g. ${name}=${DEFAULT_LOAD_LIMITS[field]}.`,
      );
    out[field] = n;
  }
  if (!env.ARC_STUDIO_SHED_LAG_MS) out.shedLagMs = Math.max(1, Math.round(out.maxLagMs / SHED_PART_OF_MAX_LAG));
  return out as unknown as LoadLimits;
}

/** What `/api/health` says of the load. */
export interface LoadReport {
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** Event-loop delay, the worst over the last second, ms. */
  readonly eventLoopLagMs: number;
  readonly maxLagMs: number;
  /** Participants' writes are shed while the event loop is this late now, ms. */
  readonly shedLagMs: number;
  /** The fastest participant write answered in the last full second, ms (null: none was). */
  readonly queueWaitMs: number | null;
  /** How long the oldest participant write in progress has been waiting since it was admitted, ms (0: none is). */
  readonly oldestWriteMs: number;
  readonly maxWaitMs: number;
  /** Whether new API requests are being refused now. */
  readonly overloaded: boolean;
  /** Whether new participant writes are being shed now (the event loop past `shedLagMs`). */
  readonly shedding: boolean;
  /** Requests refused with 503 since the server started (`shed` included). */
  readonly refused: number;
  /** Participants' writes refused early (the event loop past `shedLagMs`) since the server started. */
  readonly shed: number;
  /** Requests dropped because their client had gone before any work began. */
  readonly dropped: number;
}

const HEALTH = '/api/health';
/** How often the delay is measured; the figure is the worst of the last {@link WINDOW} samples. */
const SAMPLE_MS = 100;
const WINDOW = 10;
/** How long the fastest write is watched before the queue is judged standing (or not). */
const QUEUE_INTERVAL_MS = 1000;
/** Writes an interval needs before its fastest says anything of the queue. */
const QUEUE_MIN_SAMPLES = 4;

/** Participants' writes: what a standing queue delays (reads, exports and downloads take long by nature). */
export function isParticipantWrite(method: string | undefined, url: string): boolean {
  return (
    method === 'POST' &&
    (url.startsWith('/api/sessions/') || (url.startsWith('/api/studies/') && url.includes('/sessions')))
  );
}

/**
 * The standing-queue judge: the fastest write answered in each interval. A burst leaves some
 * write fast; a queue that does not drain makes even the fastest slow.
 */
export class QueueWatch {
  private fastest = Infinity;
  private samples = 0;
  private intervalStart: number;
  private last: number | null = null;
  standing = false;

  constructor(
    private readonly maxWaitMs: number,
    now: number,
  ) {
    this.intervalStart = now;
  }

  /** A write answered `waitedMs` after it was admitted, at time `now`. */
  answered(waitedMs: number, now: number): void {
    this.tick(now);
    this.fastest = Math.min(this.fastest, waitedMs);
    this.samples++;
  }

  /** Closes the interval when it is over, and judges the queue by it. */
  tick(now: number): void {
    if (now - this.intervalStart < QUEUE_INTERVAL_MS) return;
    const judged = this.samples >= QUEUE_MIN_SAMPLES;
    this.last = judged ? this.fastest : null;
    // Too few writes to judge: refusing stops once nothing is answered late any more.
    this.standing = judged && this.fastest > this.maxWaitMs;
    this.fastest = Infinity;
    this.samples = 0;
    this.intervalStart = now;
  }

  /** The fastest write of the last judged interval, ms. */
  lastFastest(): number | null {
    return this.last;
  }
}

export class LoadGate {
  private inFlight = 0;
  private refused = 0;
  private shed = 0;
  private dropped = 0;
  private readonly lags: number[] = [];
  private lagMs = 0;
  /** The last sample's delay, and when the next sample is due. */
  private lastLagMs = 0;
  private expected: number;
  private readonly sampler: NodeJS.Timeout;
  private readonly queue: QueueWatch;
  /** Admission times of the participant writes in progress, oldest first (a Map keeps insertion order). */
  private readonly writes = new Map<number, number>();
  private nextWrite = 0;
  /** With `timing`: when each connection was accepted, and how many requests it has carried. */
  private readonly sockets = new WeakMap<object, { accepted: number; requests: number }>();

  /**
   * @param timing With `ARC_STUDIO_SERVER_TIMING=1`: every participant write's answer carries a
   * `Server-Timing` header saying when the server saw its headers (`arrived`, ms since the epoch,
   * comparable with a load generator's clock on the same machine), when its connection was
   * accepted (`accepted`, the same clock; `serve` reports its connections to {@link accepted}),
   * which request of that connection it is (`nth`), and how long after its headers its body was
   * read (`body`, -1: not read) and its answer begun (`answer`). Read by `npm run bench -- overload`;
   * off unless asked for, as it tells how the server is built.
   */
  constructor(
    readonly limits: LoadLimits,
    private readonly headers: Readonly<Record<string, string>> = {},
    private readonly timing = false,
  ) {
    this.expected = performance.now() + SAMPLE_MS;
    this.queue = new QueueWatch(limits.maxWaitMs, performance.now());
    this.sampler = setInterval(() => {
      const now = performance.now();
      this.queue.tick(now);
      this.lastLagMs = Math.max(0, now - this.expected);
      this.lags.push(this.lastLagMs);
      if (this.lags.length > WINDOW) this.lags.shift();
      this.lagMs = Math.max(...this.lags);
      this.expected = now + SAMPLE_MS;
    }, SAMPLE_MS);
    this.sampler.unref();
  }

  report(): LoadReport {
    return {
      inFlight: this.inFlight,
      maxInFlight: this.limits.maxInFlight,
      eventLoopLagMs: Math.round(this.lagMs),
      maxLagMs: this.limits.maxLagMs,
      shedLagMs: this.limits.shedLagMs,
      queueWaitMs: this.queue.lastFastest() === null ? null : Math.round(this.queue.lastFastest()!),
      oldestWriteMs: Math.round(this.oldestWriteMs()),
      maxWaitMs: this.limits.maxWaitMs,
      overloaded: this.overloaded(),
      shedding: this.lagNowMs() > this.limits.shedLagMs,
      refused: this.refused,
      shed: this.shed,
      dropped: this.dropped,
    };
  }

  private oldestWriteMs(): number {
    for (const admitted of this.writes.values()) return performance.now() - admitted;
    return 0;
  }

  private overloaded(): boolean {
    return this.inFlight >= this.limits.maxInFlight || this.lagMs > this.limits.maxLagMs || this.queue.standing;
  }

  /**
   * How late the event loop is now: the last sample's delay, or how late the next sample already
   * is (a thread held since then has not run the sampler yet, but reads the requests that
   * waited meanwhile before it does).
   */
  private lagNowMs(): number {
    return Math.max(this.lastLagMs, performance.now() - this.expected);
  }

  /**
   * Admits a request (true: go on and handle it) or answers it here (false): 503 past capacity,
   * nothing at all when its client has gone. Only API requests count and can be refused.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '';
    if (!url.startsWith('/api/') || url === HEALTH || url.startsWith(`${HEALTH}?`)) return true;
    if (req.socket.destroyed) {
      this.dropped++;
      return false;
    }
    const write = isParticipantWrite(req.method, url);
    if (write && this.timing) timeWrite(req, res, this.sockets.get(req.socket));
    const shedding = write && this.lagNowMs() > this.limits.shedLagMs;
    if (shedding || this.overloaded()) {
      this.refused++;
      if (shedding) this.shed++;
      // 1-4 s, spread so that the browsers refused together do not all come back together.
      const wait = 1 + Math.floor(Math.random() * 4);
      const body = JSON.stringify({
        error: 'overloaded',
        retryAfter: wait,
        message: `The server is at capacity right now; nothing of this request was done. Send it again in ${wait} s (the study page does so by itself, and nothing is lost).`,
      } satisfies ApiErrorBody);
      res.writeHead(503, {
        ...this.headers,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'Retry-After': String(wait),
      });
      res.end(body);
      req.resume();
      return false;
    }
    this.inFlight++;
    const admitted = write ? performance.now() : 0;
    const id = this.nextWrite++;
    if (write) this.writes.set(id, admitted);
    res.once('close', () => {
      this.inFlight--;
      this.writes.delete(id);
      if (write && res.writableFinished) this.queue.answered(performance.now() - admitted, performance.now());
    });
    return true;
  }

  /** A connection the server accepted (only watched with `timing`). */
  accepted(socket: object): void {
    if (this.timing) this.sockets.set(socket, { accepted: performance.now(), requests: 0 });
  }

  stop(): void {
    clearInterval(this.sampler);
  }
}

/** Adds the `Server-Timing` header of {@link LoadGate}'s `timing` to the answer of `req`. */
function timeWrite(
  req: IncomingMessage,
  res: ServerResponse,
  socket: { accepted: number; requests: number } | undefined,
): void {
  const arrived = performance.now();
  const accepted = socket ? (performance.timeOrigin + socket.accepted).toFixed(1) : '';
  const nth = socket ? ++socket.requests : 0;
  let body = NaN;
  req.once('end', () => {
    body = performance.now() - arrived;
  });
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    const answer = performance.now() - arrived;
    const epoch = (performance.timeOrigin + arrived).toFixed(1);
    this.setHeader(
      'Server-Timing',
      `arrived;desc="${epoch}", accepted;desc="${accepted}", nth;desc="${nth}", body;dur=${Number.isNaN(body) ? -1 : body.toFixed(1)}, answer;dur=${answer.toFixed(1)}`,
    );
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

/** The longest a researcher's read waits for participants' writes between two of its pages, ms. */
export const MAX_YIELD_MS = 1_000;

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Participants' writes in progress, so that a researcher's long read lets them go first. On
 * PGlite every query runs on the thread that acknowledges events, one at a time in arrival order:
 * a read that asks for its next page at once would put it ahead of the writes that arrived
 * during the last one. Between two pages a read calls `turn()`, which waits until every
 * participant write that had arrived is answered. Writes arriving after the call do not hold it,
 * so a steady stream of participants slows a read down but never stops it.
 */
export class ParticipantsFirst {
  private next = 0;
  /** Ids of the writes in progress, in the order they began (a Set keeps insertion order). */
  private readonly open = new Set<number>();
  private waiters: { upTo: number; resolve: () => void }[] = [];

  /** A participant write began; the function returned is called once it is answered. */
  begin(): () => void {
    const id = this.next++;
    this.open.add(id);
    return () => {
      if (this.open.delete(id)) this.wake();
    };
  }

  /** Participants' writes in progress now. */
  get inProgress(): number {
    return this.open.size;
  }

  /**
   * Resolves once every participant write begun before the call is answered (at most
   * `MAX_YIELD_MS` later: a write held up elsewhere, such as a game's Python worker, never
   * stops a read). It first lets the event loop read the requests that arrived while the caller
   * held the thread, so that they count as begun.
   */
  async turn(): Promise<void> {
    await nextTurn();
    await nextTurn();
    const upTo = this.next;
    if (this.oldest() >= upTo) return;
    await new Promise<void>((resolve) => {
      const waiter = {
        upTo,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      }, MAX_YIELD_MS);
      timer.unref();
      this.waiters.push(waiter);
    });
  }

  private oldest(): number {
    for (const id of this.open) return id;
    return Infinity;
  }

  private wake(): void {
    const oldest = this.oldest();
    const ready = this.waiters.filter((w) => oldest >= w.upTo);
    if (!ready.length) return;
    this.waiters = this.waiters.filter((w) => oldest < w.upTo);
    for (const w of ready) w.resolve();
  }
}

/**
 * The process's participant writes, counted by the API (`createApi`) and yielded to by the
 * researchers' long reads (session events, summaries, game runs, exports, digests).
 */
export const participantWrites = new ParticipantsFirst();

/**
 * Events per page when a researcher's read streams a session's log beside participants (its
 * events, the export of its study): each page is one query on the participants' thread on
 * PGlite, and a participant's batch that arrives meanwhile waits for it (a page of 2,000 is
 * about 13 ms of the database's time there). Beside 200 participants and a 200,000-event session
 * (`bench -- scale`, idle 2-core machine) their acknowledgement p99 was 27-40 ms during reads of
 * its events and 28-35 ms during exports of its study (17-55 ms alone).
 */
export const EVENTS_PAGE = 2_000;

/**
 * Pages of a researcher's read with the participants' writes going first before each page is
 * asked for (`participantWrites.turn()`): once it is, the database runs it before anything that
 * arrives after.
 */
export async function* participantsFirst<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
  const it = pages[Symbol.asyncIterator]();
  try {
    for (;;) {
      await participantWrites.turn();
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}
