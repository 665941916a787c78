/**
 * Returns and time-outs mid-campaign, against the Prolific stand-in: one participant returns
 * their submission (the stand-in's signed webhook reaches the studio), another times out (read by
 * the poll of the study's submissions), one finishes and one is still playing. The returned and
 * timed-out sessions end, flagged with why, their claims are released at once, the campaign view
 * counts them apart, and the participant who returned cannot start again. Also: the token is
 * stored sealed and never read back, and a webhook without the right signature changes nothing.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Standin, signDelivery, startStandin } from '../../prolificStandin/standin';
import type { CampaignView } from '../../core/protocol/campaign';
import { createApi } from '../app';
import { TaskLibrary } from '../collections/collections';
import { hashToken } from '../people/auth';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { gameIds, replayWithEngine } from '../study/studies';
import { apiCaller } from '../testing/api';
import { prolificSettings } from './routes';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'prolific-researcher-token-0123456789';
const TOKEN = 'returns-test-prolific-token';
const TASKS = ['downscale-blocks', 'mirror-across-wall', 'color-by-orientation', 'most-common-color'];

let library: TaskLibrary;
let standin: Standin;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
  standin = await startStandin({ token: TOKEN, rateLimit: 100_000 });
});
afterAll(() => standin.close());

const toStandin = async (p: string, body: unknown, token: string | null = null) => {
  const r = await fetch(`${standin.url}${p}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Token ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return (await r.json()) as Record<string, unknown>;
};

describe.each(backends)('returns and time-outs from Prolific on $name', (backend) => {
  let store: Store;
  let server: ServerType;
  let url: string;
  const call = apiCaller(() => app);
  let app: Hono;

  beforeAll(async () => {
    store = await backend.open();
    const api = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds },
      prolific: prolificSettings(randomBytes(32), { ARC_STUDIO_PROLIFIC_API_URL: standin.url }),
    });
    app = new Hono().route('/api', api);
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await store.close();
  });

  it('ends returned and timed-out sessions with why, releases their claims at once, counts them apart, and refuses a returned participant who comes back', async () => {
    const pstudy = `ps${randomBytes(4).toString('hex')}`;
    const definition = {
      title: 'On Prolific',
      consent: 'Consent.',
      completion: { code: 'DONE' },
      prolific: { studyId: pstudy },
      payment: { currency: 'GBP', fee: 5, bonus: { perSolve: 1 } },
      items: [
        {
          kind: 'pool',
          id: 'grid',
          draw: 2,
          target: { solves: 3 },
          candidates: TASKS.map((task, i) => ({ kind: 'task', id: `c${i}`, collection: 'samples', task })),
        },
      ],
    };
    expect((await call('POST', '/api/admin/studies/onp', ADMIN, { definition })).status).toBe(201);

    // The researcher enters the token: shown as set, never read back, sealed in the database.
    expect((await call('GET', '/api/admin/prolific', ADMIN)).body.token).toEqual({ set: false, source: null });
    expect((await call('PUT', '/api/admin/prolific/token', ADMIN, { value: TOKEN })).status).toBe(200);
    const shown = await call('GET', '/api/admin/prolific', ADMIN);
    expect(shown.body.token).toEqual({ set: true, source: 'studio' });
    expect(JSON.stringify(shown.body)).not.toContain(TOKEN);
    expect((await store.prolific.secret('api_token'))!.sealed).not.toContain(TOKEN);

    // Four participants take part on Prolific and start their sessions.
    const people = ['returns', 'timesout', 'finishes', 'plays'].map((n) => `${n}${randomBytes(3).toString('hex')}`);
    const subs: string[] = [];
    const sessions: { sessionId: string; token: string }[] = [];
    for (const pid of people) {
      subs.push((await toStandin(`/__standin/studies/${pstudy}/submissions`, { participant_id: pid })).id as string);
      const r = await call('POST', '/api/studies/onp/sessions', null, {
        params: { PROLIFIC_PID: pid, STUDY_ID: pstudy, SESSION_ID: subs.at(-1) },
      });
      expect(r.status).toBe(201);
      sessions.push(r.body);
    }
    // The third finishes (its candidates attempted).
    const s3 = sessions[2];
    const view = await call('GET', `/api/sessions/${s3.sessionId}`, s3.token);
    let seq = 0;
    for (const item of view.body.items as { id: string }[]) {
      await call('POST', `/api/sessions/${s3.sessionId}/events`, s3.token, {
        events: [
          { seq: seq++, t: seq * 10, kind: 'item.start', data: { item: item.id, kind: 'task' } },
          { seq: seq++, t: seq * 10, kind: 'item.end', data: { item: item.id } },
        ],
      });
    }
    expect((await call('POST', `/api/sessions/${s3.sessionId}/finish`, s3.token, { lastSeq: seq - 1 })).status).toBe(
      200,
    );

    // The second times out before the studio subscribes: only the poll will see it.
    await toStandin(`/__standin/submissions/${subs[1]}/status`, { status: 'TIMED-OUT' });
    // The webhook: a secret from Prolific, entered in the studio, and a subscription to the studio.
    const secret = (await toStandin('/api/v1/hooks/secrets/', { workspace_id: 'ws' }, TOKEN)).value as string;
    expect((await call('PUT', '/api/admin/prolific/webhook-secret', ADMIN, { value: secret })).status).toBe(200);
    await toStandin(
      '/api/v1/hooks/subscriptions/',
      { workspace_id: 'ws', event_type: 'submission.status.change', target_url: `${url}/api/prolific/webhook` },
      TOKEN,
    );
    const delivered = await toStandin(`/__standin/submissions/${subs[0]}/status`, { status: 'RETURNED' });
    // (The stand-in is shared by the file: an earlier backend's subscription may answer too.)
    expect(delivered.deliveries).toContainEqual({ target: `${url}/api/prolific/webhook`, status: 200 });
    const s1 = await store.getSession(sessions[0].sessionId);
    expect([s1!.state, s1!.flags]).toEqual(['withdrawn', ['prolific_returned']]);
    expect((await store.campaigns.sessionClaims(sessions[0].sessionId)).map((c) => c.state)).not.toContain('held');
    // Still held until the poll.
    expect((await store.campaigns.sessionClaims(sessions[1].sessionId)).map((c) => c.state)).toEqual(['held', 'held']);

    const polled = await call('POST', '/api/admin/studies/onp/prolific/sync', ADMIN);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ returned: 1, timedOut: 1, ended: [sessions[1].sessionId] });
    const s2 = await store.getSession(sessions[1].sessionId);
    expect([s2!.state, s2!.flags]).toEqual(['withdrawn', ['prolific_timed_out']]);
    expect((await store.campaigns.sessionClaims(sessions[1].sessionId)).map((c) => c.state)).not.toContain('held');

    const campaign = (await call('GET', '/api/admin/studies/onp/campaign', ADMIN)).body as CampaignView;
    expect(campaign.participants).toMatchObject({ returned: 1, timedOut: 1, finished: 1, inProgress: 1, total: 4 });
    // Only the one still playing holds candidates.
    expect(campaign.candidates.reduce((n, c) => n + c.inProgress, 0)).toBe(2);

    // The participant who returned comes back: refused (the study's rule), nothing made.
    const again = await call('POST', '/api/studies/onp/sessions', null, { params: { PROLIFIC_PID: people[0] } });
    expect([again.status, again.body.error]).toEqual([409, 'prolific_returned']);
    // The one still playing may start another session as before.
    expect(
      (await call('POST', '/api/studies/onp/sessions', null, { params: { PROLIFIC_PID: people[3] } })).status,
    ).toBe(201);
  });

  it('refuses a webhook whose signature or timestamp is wrong, and changes nothing', async () => {
    const secret = 'the-webhook-secret-of-this-test';
    expect((await call('PUT', '/api/admin/prolific/webhook-secret', ADMIN, { value: secret })).status).toBe(200);
    const s = await call('POST', '/api/studies/onp/sessions', null, {
      params: { PROLIFIC_PID: 'victim01', SESSION_ID: 'sub01' },
    });
    // A session of the same participant without SESSION_ID, whose study Prolific cannot confirm: not touched.
    const other = await call('POST', '/api/studies/onp/sessions', null, { params: { PROLIFIC_PID: 'victim01' } });
    const body = JSON.stringify({
      resource_id: 'sub01',
      event_type: 'submission.status.change',
      participant_id: 'victim01',
      status: 'RETURNED',
    });
    const send = (timestamp: string, signature: string) =>
      fetch(`${url}/api/prolific/webhook`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Prolific-Request-Timestamp': timestamp,
          'X-Prolific-Request-Signature': signature,
        },
        body,
      });
    const now = String(Math.floor(Date.now() / 1000));
    expect((await send(now, signDelivery('another-secret', now, body))).status).toBe(401);
    const old = String(Math.floor(Date.now() / 1000) - 3600);
    expect((await send(old, signDelivery(secret, old, body))).status).toBe(401);
    expect((await send(now, 'not-a-signature')).status).toBe(401);
    expect((await store.getSession(s.body.sessionId))!.state).toBe('started');
    // Signed right, it ends the session.
    const ok = await send(now, signDelivery(secret, now, body));
    expect(ok.status).toBe(200);
    expect((await store.getSession(s.body.sessionId))!.state).toBe('withdrawn');
    expect((await store.getSession(other.body.sessionId))!.state).toBe('started');
  });
});
