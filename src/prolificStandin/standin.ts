/**
 * A stand-in for the parts of Prolific's API the studio uses, as Prolific's API reference
 * describes them, so that tests (and a person trying the studio) never reach the real service:
 *
 * - `POST /api/v1/submissions/bonus-payments/` `{study_id, csv_bonuses}`: sets up a bulk bonus
 *   (`<participant or submission id>,<amount>` lines, amounts in the study's currency); an id that
 *   did not take part in the study is a 400 naming it. Answers `{id, study, amount, fees,
 *   total_amount}` (cents). Nothing is paid yet.
 * - `POST /api/v1/bulk-bonus-payments/{id}/pay/`: pays the bulk bonus. Not idempotent, as on
 *   Prolific: every call pays every line again.
 * - `GET /api/v1/studies/{id}/submissions/`: the study's submissions (`results`, paged with
 *   `page` and `page_size`, `_links.next.href`), and `GET /api/v1/submissions/{id}/` one
 *   submission with its `bonus_payments` (cents).
 * - `POST /api/v1/hooks/secrets/` `{workspace_id}` and `POST /api/v1/hooks/subscriptions/`
 *   `{workspace_id, event_type, target_url}`: webhooks. A submission whose status changes is
 *   posted to each `submission.status.change` subscription as
 *   `{resource_id, event_type, participant_id, status}`, with `X-Prolific-Request-Timestamp` and
 *   `X-Prolific-Request-Signature`: base64 of HMAC-SHA256, keyed with the workspace's secret, over
 *   the timestamp followed by the body.
 *
 * Every API request needs `Authorization: Token <token>` (401 otherwise). Requests past the rate
 * limit (`rateLimit` per second) answer 429 with `Retry-After`. The stand-in's own routes, under
 * `/__standin/`, need no token: `GET /__standin/paid` (`{"<participant id>": <total paid>}`, the
 * amounts actually paid, in the currency), `POST /__standin/studies/{id}/submissions`
 * (`{participant_id, status?}`: a participant takes part), `POST /__standin/submissions/{id}/status`
 * (`{status}`: returned, timed out..., webhooks sent before it answers) and `POST /__standin/faults`
 * (the next N API requests answer 429 or 500, or the next N pays are paid and their connection
 * dropped unanswered).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Submission statuses, as Prolific names them. */
export const SUBMISSION_STATUSES = [
  'RESERVED',
  'ACTIVE',
  'AWAITING REVIEW',
  'APPROVED',
  'RETURNED',
  'TIMED-OUT',
  'REJECTED',
  'SCREENED OUT',
] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

interface Submission {
  id: string;
  study_id: string;
  participant_id: string;
  status: SubmissionStatus;
  started_at: string;
  completed_at: string | null;
  /** Cents, one entry per bonus paid. */
  bonus_payments: number[];
}

interface BulkBonus {
  id: string;
  study: string;
  /** Participant id and cents, one per line. */
  lines: { participant: string; submission: string; cents: number }[];
  pays: number;
}

/** What the next API requests meet, set by `POST /__standin/faults`. */
export interface Faults {
  /** The next N API requests answer 429 with `Retry-After`. */
  tooMany?: number;
  /** The next N API requests answer 500 and do nothing. */
  serverError?: number;
  /** The next N pay calls pay, then drop their connection without an answer. */
  dropAfterPay?: number;
}

export interface StandinOptions {
  readonly port?: number;
  readonly host?: string;
  /** The API token requests must carry. */
  readonly token: string;
  /** API requests allowed per second; more answer 429. */
  readonly rateLimit?: number;
  /** The workspace id whose webhook secret signs deliveries. */
  readonly workspace?: string;
  /** Prints a line per request. */
  readonly log?: (line: string) => void;
}

export interface Standin {
  readonly url: string;
  readonly server: Server;
  /** What the stand-in paid: cents by participant. */
  paid(): ReadonlyMap<string, number>;
  /** Sets what the next API requests meet, as `POST /__standin/faults` does. */
  setFaults(f: Faults): void;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const newId = () => randomBytes(12).toString('hex');

/** Parses `csv_bonuses`: one `<id>,<amount>` per line, the amount in the currency with at most two decimals. */
export function parseCsvBonuses(text: string): { id: string; cents: number }[] | string {
  const out: { id: string; cents: number }[] = [];
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (!lines.length) return 'csv_bonuses has no line; write one "<participant_id>,<amount>" per line.';
  for (const [k, line] of lines.entries()) {
    const m = /^\s*([A-Za-z0-9_-]{1,64})\s*,\s*(\d{1,6}(?:\.\d{1,2})?)\s*$/.exec(line);
    if (!m) return `csv_bonuses line ${k + 1} ("${line.slice(0, 80)}") is not "<participant_id>,<amount>".`;
    const cents = Math.round(Number(m[2]) * 100);
    if (cents <= 0) return `csv_bonuses line ${k + 1}: the amount must be above zero.`;
    out.push({ id: m[1], cents });
  }
  return out;
}

/** Signs a webhook delivery as Prolific does: base64 HMAC-SHA256 of timestamp + body. */
export function signDelivery(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret)
    .update(timestamp + body)
    .digest('base64');
}

/** What the stand-in holds: Prolific's records as its endpoints change them, and the faults asked for. */
interface StandinState {
  readonly submissions: Map<string, Submission>;
  readonly bulks: Map<string, BulkBonus>;
  readonly paid: Map<string, number>;
  readonly secrets: Map<string, string>;
  readonly subscriptions: { id: string; workspace: string; event: string; target: string }[];
  readonly faults: Required<Faults>;
  readonly workspace: string;
}

/** A route's answer: status 0 drops the connection without one (a reply lost on the way). */
interface Reply {
  readonly status: number;
  readonly json: unknown;
}

type BodyReader = () => Promise<Record<string, unknown>>;

const ofStudy = (st: StandinState, study: string) => [...st.submissions.values()].filter((s) => s.study_id === study);

/** Sends `submission.status.change` for `s` to every subscription, signed with its workspace's secret. */
async function deliver(st: StandinState, s: Submission): Promise<{ target: string; status: number | string }[]> {
  const body = JSON.stringify({
    resource_id: s.id,
    event_type: 'submission.status.change',
    participant_id: s.participant_id,
    status: s.status,
  });
  const out: { target: string; status: number | string }[] = [];
  for (const sub of st.subscriptions.filter((x) => x.event === 'submission.status.change')) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const secret = st.secrets.get(sub.workspace) ?? '';
    try {
      const r = await fetch(sub.target, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Prolific-Request-Timestamp': timestamp,
          'X-Prolific-Request-Signature': signDelivery(secret, timestamp, body),
        },
        body,
      });
      await r.arrayBuffer();
      out.push({ target: sub.target, status: r.status });
    } catch (e) {
      out.push({ target: sub.target, status: (e as Error).message });
    }
  }
  return out;
}

/** The Prolific API endpoints the studio uses (`/api/v1/...`), as Prolific documents them. */
async function prolificApi(
  st: StandinState,
  method: string,
  parts: string[],
  url: URL,
  body: BodyReader,
): Promise<Reply> {
  const { submissions, bulks, paid, secrets, subscriptions, faults, workspace } = st;
  const key = `${method} /${parts.join('/')}/`;
  // POST /api/v1/submissions/bonus-payments/
  if (method === 'POST' && parts.join('/') === 'submissions/bonus-payments') {
    const b = await body();
    const study = typeof b.study_id === 'string' ? b.study_id : '';
    if (!ID.test(study)) throw new HttpError(400, 'study_id is required: the id of the study the bonuses are for.');
    if (typeof b.csv_bonuses !== 'string') throw new HttpError(400, 'csv_bonuses is required.');
    const rows = parseCsvBonuses(b.csv_bonuses);
    if (typeof rows === 'string') throw new HttpError(400, rows);
    const taking = ofStudy(st, study);
    const lines: BulkBonus['lines'] = [];
    const wrong: string[] = [];
    for (const r of rows) {
      const s = taking.find((x) => x.participant_id === r.id || x.id === r.id);
      if (!s) wrong.push(r.id);
      else lines.push({ participant: s.participant_id, submission: s.id, cents: r.cents });
    }
    if (wrong.length)
      throw new HttpError(400, `These ids did not take part in study ${study}: ${wrong.slice(0, 20).join(', ')}.`);
    const bulk: BulkBonus = { id: newId(), study, lines, pays: 0 };
    bulks.set(bulk.id, bulk);
    const amount = lines.reduce((n, l) => n + l.cents, 0);
    const fees = Math.round(amount / 3);
    return { status: 201, json: { id: bulk.id, study, amount, fees, total_amount: amount + fees } };
  }
  // POST /api/v1/bulk-bonus-payments/{id}/pay/
  if (method === 'POST' && parts.length === 3 && parts[0] === 'bulk-bonus-payments' && parts[2] === 'pay') {
    const bulk = bulks.get(parts[1]);
    if (!bulk) throw new HttpError(404, `No bulk bonus payment ${parts[1]}.`);
    bulk.pays++;
    for (const l of bulk.lines) {
      paid.set(l.participant, (paid.get(l.participant) ?? 0) + l.cents);
      submissions.get(l.submission)?.bonus_payments.push(l.cents);
    }
    if (faults.dropAfterPay > 0) {
      faults.dropAfterPay--;
      return { status: 0, json: null };
    }
    return { status: 202, json: { message: 'The bonuses will be paid asynchronously.' } };
  }
  // GET /api/v1/studies/{id}/submissions/
  if (method === 'GET' && parts.length === 3 && parts[0] === 'studies' && parts[2] === 'submissions') {
    const all = ofStudy(st, parts[1]);
    const size = Math.min(200, Math.max(1, Number(url.searchParams.get('page_size')) || 20));
    const page = Math.max(1, Number(url.searchParams.get('page')) || 1);
    const results = all.slice((page - 1) * size, page * size).map(({ bonus_payments: _, ...s }) => s);
    const more = page * size < all.length;
    const next = new URL(url);
    next.searchParams.set('page', String(page + 1));
    next.searchParams.set('page_size', String(size));
    return {
      status: 200,
      json: { results, _links: { next: { href: more ? next.toString() : null } }, meta: { count: all.length } },
    };
  }
  // GET /api/v1/submissions/{id}/
  if (method === 'GET' && parts.length === 2 && parts[0] === 'submissions') {
    const s = submissions.get(parts[1]);
    if (!s) throw new HttpError(404, `No submission ${parts[1]}.`);
    return { status: 200, json: { ...s, participant: s.participant_id } };
  }
  if (method === 'POST' && parts.join('/') === 'hooks/secrets') {
    const b = await body();
    const ws = typeof b.workspace_id === 'string' && ID.test(b.workspace_id) ? b.workspace_id : workspace;
    const value = randomBytes(24).toString('base64');
    secrets.set(ws, value);
    return { status: 201, json: { id: newId(), value, workspace_id: ws } };
  }
  if (method === 'POST' && parts.join('/') === 'hooks/subscriptions') {
    const b = await body();
    const target = typeof b.target_url === 'string' ? b.target_url : '';
    if (!/^https?:\/\//.test(target)) throw new HttpError(400, 'target_url must be an http(s) URL.');
    const event = typeof b.event_type === 'string' ? b.event_type : '';
    const ws = typeof b.workspace_id === 'string' && ID.test(b.workspace_id) ? b.workspace_id : workspace;
    const sub = { id: newId(), workspace: ws, event, target };
    subscriptions.push(sub);
    return {
      status: 201,
      json: { id: sub.id, workspace_id: ws, event_type: event, target_url: target, is_enabled: true },
    };
  }
  throw new HttpError(404, `The stand-in has no ${key}.`);
}

/** The stand-in's own routes (`/__standin/...`): what it paid, submissions made and moved, faults. */
async function standinRoutes(st: StandinState, method: string, parts: string[], body: BodyReader): Promise<Reply> {
  const { submissions, paid, faults } = st;
  if (method === 'GET' && parts[0] === 'paid' && parts.length === 1) {
    const out: Record<string, number> = {};
    for (const [p, cents] of [...paid].sort()) out[p] = cents / 100;
    return { status: 200, json: out };
  }
  if (method === 'POST' && parts.length === 3 && parts[0] === 'studies' && parts[2] === 'submissions') {
    const b = await body();
    const participant = typeof b.participant_id === 'string' ? b.participant_id : '';
    if (!ID.test(participant)) throw new HttpError(400, 'participant_id must be 1-64 letters, digits, "_" or "-".');
    const status = (b.status ?? 'ACTIVE') as SubmissionStatus;
    if (!SUBMISSION_STATUSES.includes(status))
      throw new HttpError(400, `status must be one of ${SUBMISSION_STATUSES.join(', ')}.`);
    const s: Submission = {
      id: typeof b.id === 'string' && ID.test(b.id) ? b.id : newId(),
      study_id: parts[1],
      participant_id: participant,
      status,
      started_at: new Date().toISOString(),
      completed_at: null,
      bonus_payments: [],
    };
    submissions.set(s.id, s);
    return { status: 201, json: s };
  }
  if (method === 'POST' && parts.length === 3 && parts[0] === 'submissions' && parts[2] === 'status') {
    const s = submissions.get(parts[1]);
    if (!s) throw new HttpError(404, `No submission ${parts[1]}.`);
    const b = await body();
    if (!SUBMISSION_STATUSES.includes(b.status as SubmissionStatus))
      throw new HttpError(400, `status must be one of ${SUBMISSION_STATUSES.join(', ')}.`);
    s.status = b.status as SubmissionStatus;
    if (s.status === 'AWAITING REVIEW') s.completed_at = new Date().toISOString();
    return { status: 200, json: { submission: s, deliveries: await deliver(st, s) } };
  }
  if (method === 'POST' && parts[0] === 'faults' && parts.length === 1) {
    const b = await body();
    for (const k of ['tooMany', 'serverError', 'dropAfterPay'] as const)
      if (Number.isSafeInteger(b[k]) && (b[k] as number) >= 0) faults[k] = b[k] as number;
    return { status: 200, json: faults };
  }
  throw new HttpError(404, `The stand-in has no ${method} /__standin/${parts.join('/')}.`);
}

/** Reads the request's JSON object once, when a route first asks for it (at most 1 MB). */
function bodyReader(req: IncomingMessage): BodyReader {
  let raw: Record<string, unknown> | null = null;
  return async () => {
    if (raw) return raw;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) throw new HttpError(413, 'The body is over 1 MB.');
      chunks.push(c as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      const v: unknown = text ? JSON.parse(text) : {};
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
      raw = v as Record<string, unknown>;
    } catch {
      throw new HttpError(400, 'The body must be a JSON object.');
    }
    return raw;
  };
}

/** Starts the stand-in; resolves once it listens. */
export async function startStandin(o: StandinOptions): Promise<Standin> {
  const st: StandinState = {
    submissions: new Map(),
    bulks: new Map(),
    paid: new Map(),
    secrets: new Map(),
    subscriptions: [],
    faults: { tooMany: 0, serverError: 0, dropAfterPay: 0 },
    workspace: o.workspace ?? 'standin-workspace',
  };
  const { faults, paid } = st;
  const rate = o.rateLimit ?? 50;
  let windowStart = 0;
  let inWindow = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const method = req.method ?? 'GET';
    const parts = url.pathname.split('/').filter(Boolean);
    const body = bodyReader(req);
    let out: Reply;
    try {
      if (parts[0] === '__standin') out = await standinRoutes(st, method, parts.slice(1), body);
      else if (parts[0] === 'api' && parts[1] === 'v1') {
        if (req.headers.authorization !== `Token ${o.token}`)
          throw new HttpError(401, 'Authentication credentials were not provided or are wrong: send "Token <token>".');
        const now = Date.now();
        if (now - windowStart >= 1000) {
          windowStart = now;
          inWindow = 0;
        }
        if (faults.tooMany > 0 || ++inWindow > rate) {
          if (faults.tooMany > 0) faults.tooMany--;
          throw new HttpError(429, 'Request was throttled.', { 'Retry-After': '1' });
        }
        if (faults.serverError > 0) {
          faults.serverError--;
          throw new HttpError(500, 'A server error occurred.');
        }
        out = await prolificApi(st, method, parts.slice(2), url, body);
      } else throw new HttpError(404, `Not found: ${url.pathname}`);
    } catch (e) {
      const err = e instanceof HttpError ? e : new HttpError(500, (e as Error).message);
      res.writeHead(err.status, { 'Content-Type': 'application/json', ...err.headers });
      res.end(JSON.stringify({ error: { detail: err.message } }));
      o.log?.(`${method} ${url.pathname} ${err.status}`);
      return;
    }
    o.log?.(`${method} ${url.pathname} ${out.status || 'dropped'}`);
    if (out.status === 0) {
      req.socket.destroy();
      return;
    }
    res.writeHead(out.status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(out.json));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${o.host ?? '127.0.0.1'}:${port}`,
    server,
    paid: () => paid,
    setFaults: (f) => Object.assign(faults, f),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
