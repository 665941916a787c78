/**
 * The studio's Prolific routes, documented in docs/api.md ("Prolific"):
 *
 * - `GET /api/admin/prolific`: whether a Prolific API token and a webhook secret are set, and
 *   where from (the studio, or `ARC_STUDIO_PROLIFIC_TOKEN` / `ARC_STUDIO_PROLIFIC_WEBHOOK_SECRET`);
 *   never their values. `PUT`/`DELETE /api/admin/prolific/token` and `.../webhook-secret` set or
 *   clear them (sealed at rest, `secrets.ts`).
 * - `POST /api/admin/studies/:id/campaign/bonuses/pay`: pays what the study's bonus file owes
 *   beyond the ledger, through Prolific (`pay.ts`); safe to call again at any time.
 * - `POST /api/admin/studies/:id/prolific/sync`: reads the Prolific study's submissions now and
 *   ends the sessions of those returned or timed out (`returns.ts`).
 * - `POST /api/prolific/webhook`: Prolific's `submission.status.change`, its signature verified.
 */
import { Hono, type Context } from 'hono';
import { z } from 'zod';
import { ledgerView, owedCents } from '../../core/analysis/ledger';
import { paymentsView } from '../../core/analysis/campaign';
import type { PayBonusesResult } from '../../core/protocol/campaign';
import { type CampaignServices, campaignFigures } from '../campaign/routes';
import { fail, readBody } from '../http';
import type { StudyDeps } from '../study/context';
import { studyServices } from '../study/services';
import { PROLIFIC_API_URL, ProlificClient } from './client';
import { type PayFaultPoint, payBonuses } from './pay';
import { isReturnStatus } from '../../core/study/prolific';
import { type ReturnServices, applyStatusChange, prolificStudies } from './returns';
import { seal, unseal } from './secrets';
import { signatureMatches } from './signature';

/** How the server reaches Prolific. */
export interface ProlificSettings {
  /** `ARC_STUDIO_PROLIFIC_API_URL`, else Prolific's. */
  readonly apiUrl: string;
  /** `ARC_STUDIO_PROLIFIC_TOKEN`; a token set in the studio is used before it. */
  readonly envToken: string | null;
  /** `ARC_STUDIO_PROLIFIC_WEBHOOK_SECRET`; one set in the studio is used before it. */
  readonly envWebhookSecret: string | null;
  /** The key secrets are sealed with (`loadSecretKey`). */
  readonly key: Buffer;
  /** `ARC_STUDIO_FAULT_PROLIFIC`: the tests' crash point in a pay; the process ends there. */
  readonly fault?: PayFaultPoint | null;
}

/** Reads the settings from the environment. */
export function prolificSettings(key: Buffer, env: NodeJS.ProcessEnv = process.env): ProlificSettings {
  const fault = env.ARC_STUDIO_FAULT_PROLIFIC;
  return {
    apiUrl: env.ARC_STUDIO_PROLIFIC_API_URL?.trim() || PROLIFIC_API_URL,
    envToken: env.ARC_STUDIO_PROLIFIC_TOKEN?.trim() || null,
    envWebhookSecret: env.ARC_STUDIO_PROLIFIC_WEBHOOK_SECRET?.trim() || null,
    key,
    fault: fault === 'after-create' || fault === 'after-pay' ? fault : null,
  };
}

const SECRETS = { token: 'api_token', 'webhook-secret': 'webhook_secret' } as const;
/** How old a webhook's timestamp may be, either way, before it is refused as a replay. */
const WEBHOOK_SKEW_S = 300;
const MAX_WEBHOOK_BYTES = 16 * 1024;

const SecretBody = z.strictObject({ value: z.string().trim().min(8).max(500) });
const WebhookBody = z.object({
  resource_id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  event_type: z.string().max(100),
  participant_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  status: z.string().max(40).optional(),
});

/** What a poll of a study's submissions found and did. */
export interface SyncOutcome {
  returned: number;
  timedOut: number;
  /** Sessions ended now. */
  ended: string[];
  /** Sessions already ended, flagged now. */
  flagged: string[];
}

/** Reads a Prolific study's submissions and applies those returned or timed out to the studio study `id`. */
export async function syncStudy(
  services: ReturnServices,
  client: ProlificClient,
  id: string,
  prolificStudyId: string,
): Promise<SyncOutcome> {
  const out: SyncOutcome = { returned: 0, timedOut: 0, ended: [], flagged: [] };
  for (const s of await client.studySubmissions(prolificStudyId)) {
    if (s.status === 'RETURNED') out.returned++;
    else if (s.status === 'TIMED-OUT') out.timedOut++;
    else continue;
    const r = await applyStatusChange(services, {
      submissionId: s.id,
      participantId: s.participantId,
      status: s.status,
      via: 'poll',
      studyId: id,
    });
    out.ended.push(...r.ended);
    out.flagged.push(...r.flagged);
  }
  return out;
}

/** The token the server uses: the studio's (sealed), else the environment's; null when neither can be read. */
async function tokenOf({ store }: Pick<StudyDeps, 'store'>, settings: ProlificSettings): Promise<string | null> {
  const sealed = await store.prolific.secret(SECRETS.token);
  if (sealed) return unseal(settings.key, sealed.sealed);
  return settings.envToken;
}

/**
 * Polls every study on Prolific every `seconds` (`ARC_STUDIO_PROLIFIC_POLL_SECONDS`, default 60;
 * 0: never), while a token is set, so returns and time-outs free their places without a webhook.
 * Every server may poll: applying a change twice changes nothing. Returns the stop function.
 */
export function startProlificPoll(
  deps: StudyDeps,
  settings: ProlificSettings,
  seconds: number,
  log: (line: string) => void,
): () => void {
  if (!(seconds > 0)) return () => {};
  const services = { ...deps, ...studyServices(deps) };
  let running = false;
  let reported = '';
  const round = async () => {
    if (running) return;
    running = true;
    try {
      const token = await tokenOf(deps, settings);
      if (!token) return;
      const client = new ProlificClient(settings.apiUrl, token);
      for (const s of await prolificStudies(deps)) await syncStudy(services, client, s.id, s.prolificStudyId);
      reported = '';
    } catch (e) {
      // Said once until it changes: a Prolific that is away is not a line every minute.
      const line = `Prolific could not be polled: ${(e as Error).message}`;
      if (line !== reported) log(line);
      reported = line;
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void round(), seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** What the Prolific routes take: the campaign figures' services (for the bonuses owed) and those a return is applied with. */
export type ProlificServices = CampaignServices & ReturnServices;

export function prolificRoutes(services: ProlificServices, settings: ProlificSettings): Hono {
  const { store, now, definitions } = services;
  const api = new Hono();

  const secret = async (name: keyof typeof SECRETS) => {
    const sealed = await store.prolific.secret(SECRETS[name]);
    if (sealed) {
      const value = unseal(settings.key, sealed.sealed);
      return { value, source: 'studio' as const };
    }
    const env = name === 'token' ? settings.envToken : settings.envWebhookSecret;
    return env ? { value: env, source: 'env' as const } : { value: null, source: null };
  };
  const clientOr = async (c: Context) => {
    const t = await secret('token');
    if (t.value) return new ProlificClient(settings.apiUrl, t.value);
    return fail(
      c,
      409,
      'prolific_not_configured',
      t.source === 'studio'
        ? "The Prolific API token stored in the studio cannot be read with this server's key (ARC_STUDIO_SECRET_KEY or the data folder's secret-key changed). Enter the token again under Settings, Prolific."
        : 'No Prolific API token is set. Enter one under Settings, Prolific (or set ARC_STUDIO_PROLIFIC_TOKEN), then try again.',
    );
  };

  api.get('/admin/prolific', async (c) => {
    const [token, hook] = await Promise.all([secret('token'), secret('webhook-secret')]);
    return c.json({
      apiUrl: settings.apiUrl,
      token: { set: token.value !== null, source: token.source },
      webhookSecret: { set: hook.value !== null, source: hook.source },
    });
  });
  for (const name of Object.keys(SECRETS) as (keyof typeof SECRETS)[]) {
    api.put(`/admin/prolific/${name}`, async (c) => {
      const parsed = await readBody(
        c,
        SecretBody,
        `The Prolific ${name === 'token' ? 'API token' : 'webhook secret'} is not valid`,
      );
      if (!parsed.ok) return parsed.res;
      await store.prolific.setSecret(SECRETS[name], seal(settings.key, parsed.data.value), now());
      return c.json({ set: true, source: 'studio' });
    });
    api.delete(`/admin/prolific/${name}`, async (c) => {
      await store.prolific.setSecret(SECRETS[name], null, now());
      const left = await secret(name);
      return c.json({ set: left.value !== null, source: left.source });
    });
  }

  api.post('/admin/studies/:studyId/campaign/bonuses/pay', async (c) => {
    const id = c.req.param('studyId');
    const f = await campaignFigures(services, id);
    if ('error' in f) return fail(c, f.status, f.status === 404 ? 'not_found' : 'not_a_campaign', f.error);
    if (!f.study.prolific)
      return fail(
        c,
        409,
        'prolific_not_configured',
        `Study "${id}" names no Prolific study: add "prolific": {"studyId": "<Prolific's study id>"} to its definition, then pay.`,
      );
    const client = await clientOr(c);
    if (!(client instanceof ProlificClient)) return client;
    const owed = owedCents(paymentsView(f.study, f.sessions, f.claims));
    const fault = settings.fault
      ? (point: PayFaultPoint) => {
          if (point === settings.fault) process.kill(process.pid, 'SIGKILL');
        }
      : undefined;
    const ref = { id, prolificStudyId: f.study.prolific.studyId };
    const r = await payBonuses({ store, client, now, fault }, ref, owed);
    return c.json({
      paid: r.paidParticipants,
      amount: r.paidCents / 100,
      notOnProlific: r.notOnProlific,
      errors: r.errors,
      ledger: ledgerView(owed, await store.prolific.batches(id), ref.prolificStudyId),
    } satisfies PayBonusesResult);
  });

  api.post('/admin/studies/:studyId/prolific/sync', async (c) => {
    const id = c.req.param('studyId');
    const rec = await store.getStudy(id);
    if (!rec) return fail(c, 404, 'not_found', `No study "${id}". GET /api/admin/studies lists the studies there are.`);
    const study = definitions.ofRecord(rec);
    if (!study.prolific)
      return fail(
        c,
        409,
        'prolific_not_configured',
        `Study "${id}" names no Prolific study: add "prolific": {"studyId": "<Prolific's study id>"} to its definition.`,
      );
    const client = await clientOr(c);
    if (!(client instanceof ProlificClient)) return client;
    try {
      return c.json(await syncStudy(services, client, id, study.prolific.studyId));
    } catch (e) {
      return fail(c, 502, 'prolific_error', `${(e as Error).message} Nothing was changed; try again later.`);
    }
  });

  api.post('/prolific/webhook', async (c) => {
    const hook = await secret('webhook-secret');
    if (!hook.value)
      return fail(
        c,
        409,
        'prolific_not_configured',
        'This server has no Prolific webhook secret: set it under Settings, Prolific (or ARC_STUDIO_PROLIFIC_WEBHOOK_SECRET).',
      );
    const length = Number(c.req.header('Content-Length') ?? 0);
    if (length > MAX_WEBHOOK_BYTES)
      return fail(c, 413, 'too_large', `A webhook body is at most ${MAX_WEBHOOK_BYTES} bytes.`);
    const body = await c.req.text();
    if (body.length > MAX_WEBHOOK_BYTES)
      return fail(c, 413, 'too_large', `A webhook body is at most ${MAX_WEBHOOK_BYTES} bytes.`);
    const timestamp = c.req.header('X-Prolific-Request-Timestamp') ?? '';
    const signature = c.req.header('X-Prolific-Request-Signature') ?? '';
    const age = Math.abs(now() / 1000 - Number(timestamp));
    if (!/^\d{1,12}$/.test(timestamp) || !(age <= WEBHOOK_SKEW_S))
      return fail(c, 401, 'bad_signature', 'X-Prolific-Request-Timestamp is missing or more than 5 minutes off.');
    if (!signatureMatches(hook.value, timestamp, body, signature))
      return fail(c, 401, 'bad_signature', 'X-Prolific-Request-Signature does not match the webhook secret.');
    let parsed;
    try {
      parsed = WebhookBody.safeParse(JSON.parse(body));
    } catch {
      parsed = null;
    }
    if (!parsed?.success)
      return fail(c, 400, 'malformed', 'The webhook body is not a Prolific event: {resource_id, event_type, ...}.');
    const e = parsed.data;
    if (e.event_type !== 'submission.status.change' || !e.participant_id || !e.status) return c.json({ ignored: true });
    // Which studio studies it belongs to: the submission's Prolific study, read back with the token.
    let studyIds: Set<string> | undefined;
    const token = await tokenOf(services, settings);
    if (token && isReturnStatus(e.status)) {
      try {
        const sub = await new ProlificClient(settings.apiUrl, token, { retries: 2 }).submission(e.resource_id);
        if (sub.studyId !== null)
          studyIds = new Set(
            (await prolificStudies(services)).filter((s) => s.prolificStudyId === sub.studyId).map((s) => s.id),
          );
      } catch {
        // Not readable now: only a session carrying this submission's SESSION_ID is touched.
      }
    }
    const r = await applyStatusChange(services, {
      submissionId: e.resource_id,
      participantId: e.participant_id,
      status: e.status,
      via: 'webhook',
      studyIds,
    });
    return c.json({ ended: r.ended.length, flagged: r.flagged.length });
  });

  return api;
}
