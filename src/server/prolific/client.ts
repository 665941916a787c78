/**
 * Prolific's API as the studio uses it (`ARC_STUDIO_PROLIFIC_API_URL`, by default
 * https://api.prolific.com): bulk bonuses set up and paid, a study's submissions, one submission.
 * Requests carry `Authorization: Token <token>`. A 429 is waited out (its `Retry-After`, at most
 * 30 s, a few times) and sent again: Prolific did nothing with it. Reads and set-ups are sent again
 * after a network error or a 5xx too; a pay never is, as Prolific's pay is not idempotent: its
 * failure says whether it may have been paid (`ProlificError.maybeDone`).
 */

/** The default address of Prolific's API. */
export const PROLIFIC_API_URL = 'https://api.prolific.com';

/** A request Prolific refused or that met no answer. */
export class ProlificError extends Error {
  override readonly name = 'ProlificError';
  constructor(
    message: string,
    /** The HTTP status; null when no answer came. */
    readonly status: number | null,
    /** Whether the request may have taken effect (no answer, or a 5xx). */
    readonly maybeDone: boolean,
  ) {
    super(message);
  }
}

export interface Submission {
  readonly id: string;
  readonly participantId: string;
  readonly status: string;
  /** Cents, one per bonus paid; only on a single submission's read. */
  readonly bonusPayments?: readonly number[];
}

export interface ClientOptions {
  /** Times a 429 (or, for retried requests, a failure) is sent again. */
  readonly retries?: number;
  /** Waits `ms`; tests keep the real one. */
  readonly wait?: (ms: number) => Promise<void>;
}

const MAX_WAIT_MS = 30_000;
const realWait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ProlificClient {
  private readonly retries: number;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(
    private readonly base: string,
    private readonly token: string,
    o: ClientOptions = {},
  ) {
    this.retries = o.retries ?? 6;
    this.wait = o.wait ?? realWait;
  }

  /** Sets up a bulk bonus (`POST /api/v1/submissions/bonus-payments/`); nothing is paid yet. */
  async createBulkBonus(
    studyId: string,
    lines: readonly { id: string; cents: number }[],
  ): Promise<{ id: string; totalCents: number | null }> {
    const csv = lines.map((l) => `${l.id},${(l.cents / 100).toFixed(2)}\n`).join('');
    const r = (await this.request(
      'POST',
      '/api/v1/submissions/bonus-payments/',
      { study_id: studyId, csv_bonuses: csv },
      true,
    )) as {
      id?: unknown;
      total_amount?: unknown;
    };
    if (typeof r.id !== 'string' || !r.id)
      throw new ProlificError('Prolific set up the bulk bonus but its answer holds no id.', 200, true);
    return { id: r.id, totalCents: typeof r.total_amount === 'number' ? r.total_amount : null };
  }

  /** Pays a bulk bonus (`POST /api/v1/bulk-bonus-payments/{id}/pay/`). Never sent twice here. */
  async payBulkBonus(bulkId: string): Promise<void> {
    await this.request('POST', `/api/v1/bulk-bonus-payments/${encodeURIComponent(bulkId)}/pay/`, {}, false);
  }

  /** Every submission of a Prolific study (`GET /api/v1/studies/{id}/submissions/`, page after page). */
  async studySubmissions(studyId: string): Promise<Submission[]> {
    const out: Submission[] = [];
    let path: string | null = `/api/v1/studies/${encodeURIComponent(studyId)}/submissions/?page_size=200`;
    for (let pages = 0; path && pages < 1000; pages++) {
      const r = (await this.request('GET', path, undefined, true)) as {
        results?: unknown;
        _links?: { next?: { href?: unknown } };
      };
      for (const s of Array.isArray(r.results) ? r.results : []) {
        const x = s as Record<string, unknown>;
        const participantId = x.participant_id ?? x.participant;
        if (typeof x.id === 'string' && typeof participantId === 'string' && typeof x.status === 'string')
          out.push({ id: x.id, participantId, status: x.status });
      }
      const next = r._links?.next?.href;
      path = typeof next === 'string' && next ? this.relative(next) : null;
    }
    return out;
  }

  /** One submission (`GET /api/v1/submissions/{id}/`), with the bonuses paid on it. */
  async submission(id: string): Promise<Submission & { studyId: string | null }> {
    const x = (await this.request('GET', `/api/v1/submissions/${encodeURIComponent(id)}/`, undefined, true)) as Record<
      string,
      unknown
    >;
    const participantId = x.participant ?? x.participant_id;
    return {
      id,
      participantId: typeof participantId === 'string' ? participantId : '',
      status: typeof x.status === 'string' ? x.status : '',
      studyId: typeof x.study_id === 'string' ? x.study_id : null,
      bonusPayments: Array.isArray(x.bonus_payments) ? x.bonus_payments.filter((n) => typeof n === 'number') : [],
    };
  }

  /** A next-page link as a path on this API (a link elsewhere is not followed). */
  private relative(href: string): string | null {
    const u = new URL(href, this.base);
    if (u.origin !== new URL(this.base).origin) return null;
    return u.pathname + u.search;
  }

  private async request(method: string, path: string, body: unknown, retryFailures: boolean): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(new URL(path, this.base), {
          method,
          headers: { Authorization: `Token ${this.token}`, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
      } catch (e) {
        if (retryFailures && attempt < this.retries) {
          await this.wait(backoff(attempt));
          continue;
        }
        // Refused before anything was sent: Prolific never saw it.
        const refused = (e as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
        throw new ProlificError(
          `No answer from Prolific (${method} ${path}): ${(e as Error).message}.`,
          null,
          !refused,
        );
      }
      const text = await res.text().catch(() => '');
      if (res.ok) {
        try {
          return text ? JSON.parse(text) : {};
        } catch {
          return {};
        }
      }
      if (res.status === 429 && attempt < this.retries) {
        const after = Number(res.headers.get('Retry-After'));
        await this.wait(Number.isFinite(after) && after >= 0 ? Math.min(after * 1000, MAX_WAIT_MS) : backoff(attempt));
        continue;
      }
      if (res.status >= 500 && retryFailures && attempt < this.retries) {
        await this.wait(backoff(attempt));
        continue;
      }
      throw new ProlificError(
        `Prolific answered ${res.status} to ${method} ${path}: ${detail(text)}${res.status === 401 ? ' Check the Prolific API token.' : ''}`,
        res.status,
        res.status >= 500,
      );
    }
  }
}

const backoff = (attempt: number) => Math.min(MAX_WAIT_MS, 250 * 2 ** attempt);

/** What Prolific said, from its error body, short. */
function detail(text: string): string {
  try {
    const v = JSON.parse(text) as { error?: { detail?: unknown }; detail?: unknown };
    const d = v.error?.detail ?? v.detail;
    if (d !== undefined) return (typeof d === 'string' ? d : JSON.stringify(d)).slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || '(no message)';
}
