/**
 * The Prolific stand-in over HTTP: bulk bonuses set up and paid (and paid again by a second pay,
 * as Prolific's pay is not idempotent), ids that did not take part refused, the token required,
 * 429 with Retry-After past the rate limit and on demand, submissions listed in pages, and
 * webhooks signed as Prolific signs them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Standin, parseCsvBonuses, signDelivery, startStandin } from './standin';

const TOKEN = 'test-token';
let s: Standin;
beforeAll(async () => {
  s = await startStandin({ token: TOKEN, rateLimit: 1000 });
});
afterAll(() => s.close());

const call = async (method: string, path: string, body?: unknown, token: string | null = TOKEN) => {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Token ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};
const take = (study: string, participant: string, status?: string) =>
  call('POST', `/__standin/studies/${study}/submissions`, { participant_id: participant, status }, null);

describe('the Prolific stand-in', () => {
  it('sets up a bulk bonus without paying, pays it on pay, and pays again on a second pay', async () => {
    await take('studyA', 'pA1');
    await take('studyA', 'pA2');
    const created = await call('POST', '/api/v1/submissions/bonus-payments/', {
      study_id: 'studyA',
      csv_bonuses: 'pA1,1.50\npA2,0.25\n',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ study: 'studyA', amount: 175 });
    expect((await call('GET', '/__standin/paid', undefined, null)).body).not.toHaveProperty('pA1');
    expect((await call('POST', `/api/v1/bulk-bonus-payments/${created.body.id}/pay/`)).status).toBe(202);
    expect((await call('GET', '/__standin/paid', undefined, null)).body).toMatchObject({ pA1: 1.5, pA2: 0.25 });
    await call('POST', `/api/v1/bulk-bonus-payments/${created.body.id}/pay/`);
    expect((await call('GET', '/__standin/paid', undefined, null)).body).toMatchObject({ pA1: 3, pA2: 0.5 });
  });

  it('refuses ids that did not take part, a malformed file, a missing token and an unknown bulk bonus', async () => {
    await take('studyB', 'pB1');
    const wrong = await call('POST', '/api/v1/submissions/bonus-payments/', {
      study_id: 'studyB',
      csv_bonuses: 'pB1,1.00\nstranger,2.00\n',
    });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.body)).toContain('stranger');
    const bad = await call('POST', '/api/v1/submissions/bonus-payments/', { study_id: 'studyB', csv_bonuses: 'pB1;1' });
    expect(bad.status).toBe(400);
    expect((await call('GET', '/api/v1/studies/studyB/submissions/', undefined, null)).status).toBe(401);
    expect((await call('GET', '/api/v1/studies/studyB/submissions/', undefined, 'other')).status).toBe(401);
    expect((await call('POST', '/api/v1/bulk-bonus-payments/nope/pay/')).status).toBe(404);
  });

  it('answers 429 with Retry-After when told to, then serves again', async () => {
    await call('POST', '/__standin/faults', { tooMany: 2 }, null);
    const a = await call('GET', '/api/v1/studies/x/submissions/');
    expect(a.status).toBe(429);
    expect(a.headers.get('Retry-After')).toBe('1');
    expect((await call('GET', '/api/v1/studies/x/submissions/')).status).toBe(429);
    expect((await call('GET', '/api/v1/studies/x/submissions/')).status).toBe(200);
  });

  it('answers 429 past its rate limit', async () => {
    const slow = await startStandin({ token: TOKEN, rateLimit: 3 });
    try {
      const statuses = await Promise.all(
        Array.from({ length: 6 }, () =>
          fetch(`${slow.url}/api/v1/studies/x/submissions/`, { headers: { Authorization: `Token ${TOKEN}` } }).then(
            (r) => r.status,
          ),
        ),
      );
      expect(statuses.filter((x) => x === 429).length).toBeGreaterThanOrEqual(1);
      expect(statuses.filter((x) => x === 200).length).toBeGreaterThanOrEqual(1);
    } finally {
      await slow.close();
    }
  });

  it('pays, then drops the connection, when told to: the payment stands though no answer came', async () => {
    await take('studyC', 'pC1');
    const created = await call('POST', '/api/v1/submissions/bonus-payments/', {
      study_id: 'studyC',
      csv_bonuses: 'pC1,2.00',
    });
    await call('POST', '/__standin/faults', { dropAfterPay: 1 }, null);
    await expect(call('POST', `/api/v1/bulk-bonus-payments/${created.body.id}/pay/`)).rejects.toThrow();
    expect((await call('GET', '/__standin/paid', undefined, null)).body).toMatchObject({ pC1: 2 });
    const listed = await call('GET', '/api/v1/studies/studyC/submissions/');
    const sub = (listed.body.results as { id: string }[])[0];
    expect((await call('GET', `/api/v1/submissions/${sub.id}/`)).body).toMatchObject({ bonus_payments: [200] });
  });

  it("lists a study's submissions in pages", async () => {
    for (let k = 0; k < 5; k++) await take('studyD', `pD${k}`);
    const seen: string[] = [];
    let next: string | null = `${s.url}/api/v1/studies/studyD/submissions/?page_size=2`;
    while (next) {
      const r = await fetch(next, { headers: { Authorization: `Token ${TOKEN}` } });
      const page = (await r.json()) as {
        results: { participant_id: string }[];
        _links: { next: { href: string | null } };
      };
      seen.push(...page.results.map((x) => x.participant_id));
      next = page._links.next.href;
    }
    expect(seen).toEqual(['pD0', 'pD1', 'pD2', 'pD3', 'pD4']);
  });

  it('posts a status change to its subscriptions, signed with the workspace secret over timestamp and body', async () => {
    const got: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const target = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    try {
      const secret = (await call('POST', '/api/v1/hooks/secrets/', { workspace_id: 'ws1' })).body.value as string;
      const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
      const sub = await call('POST', '/api/v1/hooks/subscriptions/', {
        workspace_id: 'ws1',
        event_type: 'submission.status.change',
        target_url: url,
      });
      expect(sub.status).toBe(201);
      const made = await take('studyE', 'pE1');
      const changed = await call('POST', `/__standin/submissions/${made.body.id}/status`, { status: 'RETURNED' }, null);
      expect(changed.body.deliveries).toEqual([{ target: url, status: 200 }]);
      expect(got).toHaveLength(1);
      const { headers, body } = got[0];
      expect(JSON.parse(body)).toEqual({
        resource_id: made.body.id,
        event_type: 'submission.status.change',
        participant_id: 'pE1',
        status: 'RETURNED',
      });
      const ts = headers['x-prolific-request-timestamp'] as string;
      expect(headers['x-prolific-request-signature']).toBe(signDelivery(secret, ts, body));
    } finally {
      await new Promise<void>((r) => target.close(() => r()));
    }
  });

  it('reads a bonus file line by line and names the line it cannot read', () => {
    expect(parseCsvBonuses('a,1\nb,0.05\n')).toEqual([
      { id: 'a', cents: 100 },
      { id: 'b', cents: 5 },
    ]);
    expect(parseCsvBonuses('a,1\nb,x\n')).toContain('line 2');
    expect(parseCsvBonuses('')).toContain('no line');
  });
});
