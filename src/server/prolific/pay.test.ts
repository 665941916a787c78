/**
 * Paying bonuses through Prolific against the stand-in (`src/prolificStandin`), on PGlite and
 * PostgreSQL: 200 participants paid exactly once, by the stand-in's own count, whatever happens
 * between the steps: 429s, a server stopped between "create" and "pay", a pay whose answer is
 * lost, the call pressed again and twice at once, and two servers on one PostgreSQL at once.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Standin, startStandin } from '../../prolificStandin/standin';
import { openStore } from '../store/open';
import { backends, postgresUrl } from '../store/testing';
import type { Store } from '../store/types';
import { ProlificClient } from './client';
import { type PayDeps, payBonuses } from './pay';

const TOKEN = 'pay-test-token';
const N = 200;
let standin: Standin;
beforeAll(async () => {
  standin = await startStandin({ token: TOKEN, rateLimit: 100_000 });
});
afterAll(() => standin.close());

const noWait = () => Promise.resolve();
const client = () => new ProlificClient(standin.url, TOKEN, { wait: noWait });
const post = (path: string, body: unknown) =>
  fetch(`${standin.url}${path}`, { method: 'POST', body: JSON.stringify(body) }).then((r) => r.json());
const paidByStandin = async () =>
  (await (await fetch(`${standin.url}/__standin/paid`)).json()) as Record<string, number>;

/** A Prolific study with `n` participants taking part; their ids. */
async function prolificStudy(prefix: string, n: number): Promise<{ study: string; ids: string[] }> {
  const study = `${prefix}${randomBytes(4).toString('hex')}`;
  const ids = Array.from({ length: n }, (_, k) => `${study}p${String(k).padStart(3, '0')}`);
  for (const id of ids) await post(`/__standin/studies/${study}/submissions`, { participant_id: id });
  return { study, ids };
}

/** What the stand-in paid the study's participants, in cents. */
async function paidCents(ids: readonly string[]): Promise<Map<string, number>> {
  const all = await paidByStandin();
  return new Map(ids.flatMap((id) => (all[id] === undefined ? [] : [[id, Math.round(all[id] * 100)] as const])));
}

class Killed extends Error {}

describe.each(backends)('paying bonuses through Prolific on $name', (backend) => {
  let store: Store;
  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(() => store.close());
  const deps = (fault?: PayDeps['fault']): PayDeps => ({ store, client: client(), now: Date.now, fault });

  it('pays 200 participants exactly once through 429s, a stop between create and pay, a lost answer, retries and double clicks', async () => {
    const { study, ids } = await prolificStudy('s', N);
    const ref = { id: `study-${study}`, prolificStudyId: study };
    // Bonuses of 0.25 to 2.00 by participant.
    const owed = new Map(ids.map((id, k) => [id, 25 * (1 + (k % 8))] as const));

    // The first call meets 429s (waited out), then its server stops once the bulk bonus is set up.
    await post('/__standin/faults', { tooMany: 3 });
    await expect(
      payBonuses(
        deps((point) => {
          if (point === 'after-create') throw new Killed('stopped');
        }),
        ref,
        owed,
      ),
    ).rejects.toThrow(Killed);
    expect((await paidCents(ids)).size).toBe(0);
    expect((await store.prolific.batches(ref.id)).map((b) => b.state)).toEqual(['created']);

    // Pressed again, twice at once: the bulk bonus already set up is paid, once.
    const [a, b] = await Promise.all([payBonuses(deps(), ref, owed), payBonuses(deps(), ref, owed)]);
    expect(a.paidParticipants + b.paidParticipants).toBe(N);
    expect(await paidCents(ids)).toEqual(owed);
    // And again: nothing is owed.
    const again = await payBonuses(deps(), ref, owed);
    expect(again).toMatchObject({ paidParticipants: 0, errors: [] });
    expect(await paidCents(ids)).toEqual(owed);

    // More is owed to 30 of them; the pay is taken but its answer lost: confirmed from their
    // submissions, never sent again.
    const more = new Map(owed);
    for (const id of ids.slice(0, 30)) more.set(id, owed.get(id)! + 50);
    await post('/__standin/faults', { dropAfterPay: 1 });
    const lost = await payBonuses(deps(), ref, more);
    expect(lost.paidParticipants).toBe(30);
    expect(await paidCents(ids)).toEqual(more);
    expect(await payBonuses(deps(), ref, more)).toMatchObject({ paidParticipants: 0 });
    expect(await paidCents(ids)).toEqual(more);
    const states = (await store.prolific.batches(ref.id)).map((x) => x.state);
    expect(states).toEqual(['paid', 'paid']);
  });

  it('pays once a bulk bonus whose set-up was never answered, and names the participants not in the Prolific study', async () => {
    const { study, ids } = await prolificStudy('t', 5);
    const ref = { id: `study-${study}`, prolificStudyId: study };
    // A server stopped before Prolific answered the set-up: an intent without Prolific's id.
    await store.prolific.addBatch(
      {
        id: `intent-${study}`,
        studyId: ref.id,
        prolificStudyId: study,
        lines: [{ participantId: ids[0], submissionId: null, cents: 100 }],
      },
      Date.now(),
    );
    const owed = new Map([...ids.map((id) => [id, 100] as const), ['stranger', 300] as const]);
    const r = await payBonuses(deps(), ref, owed);
    expect(r.notOnProlific).toEqual(['stranger']);
    expect(r.paidParticipants).toBe(5);
    expect(await paidCents(ids)).toEqual(new Map(ids.map((id) => [id, 100])));
    expect((await store.prolific.batches(ref.id)).map((b) => b.state)).toEqual(['failed', 'paid']);
  });

  it('keeps a refused pay owed, and pays it at the next call', async () => {
    const { study, ids } = await prolificStudy('u', 3);
    const ref = { id: `study-${study}`, prolificStudyId: study };
    const owed = new Map(ids.map((id) => [id, 120] as const));
    // Once the bulk bonus is set up, Prolific throttles more than the client waits out.
    const r = await payBonuses(
      {
        ...deps((point) => {
          if (point === 'after-create') standin.setFaults({ tooMany: 5 });
        }),
        client: new ProlificClient(standin.url, TOKEN, { wait: noWait, retries: 1 }),
      },
      ref,
      owed,
    );
    standin.setFaults({ tooMany: 0 });
    expect(r.paidParticipants).toBe(0);
    expect(r.errors.join(' ')).toContain('429');
    expect((await store.prolific.batches(ref.id)).map((b) => [b.state, b.error?.includes('429')])).toEqual([
      ['created', true],
    ]);
    expect((await paidCents(ids)).size).toBe(0);
    await payBonuses(deps(), ref, owed);
    expect(await paidCents(ids)).toEqual(owed);
  });
});

describe('two servers pressing "Pay" at once on one PostgreSQL', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
    const c = new pg.Client({ connectionString: postgresUrl() });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
  });

  it('pays each of 200 participants once', async () => {
    for (let k = 0; k < 2; k++) stores.push(await openStore({ databaseUrl: postgresUrl(), schema, poolSize: 3 }));
    const { study, ids } = await prolificStudy('v', N);
    const ref = { id: `study-${study}`, prolificStudyId: study };
    const owed = new Map(ids.map((id, k) => [id, 10 + k] as const));
    const results = await Promise.all(
      [0, 1, 0, 1].map((k) => payBonuses({ store: stores[k], client: client(), now: Date.now }, ref, owed)),
    );
    expect(results.reduce((n, r) => n + r.paidParticipants, 0)).toBe(N);
    expect(await paidCents(ids)).toEqual(owed);
  });
});
