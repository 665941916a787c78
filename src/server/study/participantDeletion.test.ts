import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { COMMAND_LINE, addPerson, createToken } from '../people/service';
import { takePart, type TakenPart } from '../testing/takePart';
import { SAMPLE_TASKS, oneTaskCampaign, sampleStudiesApi, taskAndGameStudy } from '../testing/sampleStudies';
import type { AuditEntry, DeletionReceipt, ParticipantSearch } from '../../core/protocol/api';

const ADMIN = 'researcher-token-for-deletions-0123456789';
const SURVEY = { kind: 'survey', id: 'end', questions: [{ id: 'q', prompt: 'Anything to add?', type: 'text' }] };

/** Three studies: tasks and a game, a game alone, and a campaign whose pool draws its one candidate. */
const STUDIES = {
  first: taskAndGameStudy('First', 'C-1', [SURVEY]),
  second: {
    title: 'Second',
    consent: 'ok',
    completion: { code: 'C-2' },
    items: [{ kind: 'game', id: 'lamps', game: 'glow', seed: 0 }],
  },
  third: oneTaskCampaign('Third', 'C-3', 3, [SURVEY]),
};

const T0 = Date.UTC(2026, 7, 3, 9);

/** A server of its own with the three studies, on a store of its own. */
async function world(store: Store) {
  let clock = T0;
  const { app, call } = await sampleStudiesApi(store, { admin: ADMIN, now: () => clock, studies: STUDIES });
  const sessions = new Map<string, string>();
  return {
    app,
    call,
    at: (t: number) => (clock = T0 + t),
    /** Takes part at a fixed time, so that both worlds store the same participants at the same times. */
    part: async (study: string, pid: string, t: number): Promise<TakenPart> => {
      clock = T0 + t;
      const s = await takePart(app, study, { PROLIFIC_PID: pid }, SAMPLE_TASKS);
      sessions.set(s.sessionId, `${pid}@${study}`);
      return s;
    },
    /** A figure of the server, JSON with every session id replaced by its participant and study (ids are random). */
    read: async (url: string): Promise<unknown> => {
      const r = await call('GET', url, ADMIN);
      expect(r.status, `${url}: ${JSON.stringify(r.body)}`).toBe(200);
      let text = JSON.stringify(r.body);
      for (const [id, who] of sessions) text = text.replaceAll(id, who);
      return JSON.parse(text);
    },
  };
}

/** Everything the studies' figures show: results of every stage, surveys, baselines, the campaign and its payments. */
const FIGURES = [
  '/admin/studies/first/results?stage=all',
  '/admin/studies/first/results/surveys?stage=all',
  '/admin/studies/second/results?stage=all',
  '/admin/studies/third/results?stage=all',
  '/admin/games/glow/baselines',
  '/admin/studies/third/campaign?stage=all',
  '/admin/studies/third/campaign/payments?stage=all',
];

describe.each(backends)("a participant's data deleted on request on $name", (backend) => {
  let stores: Store[] = [];
  beforeEach(() => {
    stores = [];
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
  });
  const open = async () => {
    const s = await backend.open();
    stores.push(s);
    return s;
  };

  it('deletes every session of one id across three studies in one action, and leaves figures equal to a server that never had them', async () => {
    // The same others at the same times in both; the one who asks takes part in every study (twice
    // in the first). One server after the other: PGlite's stores of one test file share a connection.
    const others = async (w: Awaited<ReturnType<typeof world>>) => {
      await w.part('first', 'ann', 1_000);
      await w.part('second', 'ann', 2_000);
      await w.part('third', 'ann', 3_000);
      await w.part('first', 'ben', 9_000);
      await w.part('third', 'ben', 10_000);
    };
    const never = await world(await open());
    await others(never);
    never.at(30_000);
    const expected = new Map<string, unknown>();
    for (const url of FIGURES) expected.set(url, await never.read(url));
    await stores.pop()!.close();

    const had = await world(await open());
    await others(had);
    const zed = [
      await had.part('first', 'zed-5f0c', 4_000),
      await had.part('second', 'zed-5f0c', 5_000),
      await had.part('third', 'zed-5f0c', 6_000),
      await had.part('first', 'zed-5f0c', 7_000),
    ];

    // An export of the first study written while the participant was in it: listed to recall.
    had.at(8_000);
    const ticket = await had.call('POST', '/admin/studies/first/exports', ADMIN, { format: 'jsonl' });
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(201);
    const file = await had.app.request((ticket.body.url as string).replace(/^\/api/, ''));
    expect(file.status).toBe(200);
    await file.text();

    const found = (await had.call('POST', '/admin/participants/find', ADMIN, { participantId: 'zed-5f0c' }))
      .body as ParticipantSearch;
    expect(found.participantHash).toMatch(/^[0-9a-f]{64}$/);
    expect(found.studies.map((s) => [s.studyId, s.title, s.sessions.length])).toEqual([
      ['first', 'First', 2],
      ['second', 'Second', 1],
      ['third', 'Third', 1],
    ]);
    expect(found.studies[0].sessions.every((s) => s.param === 'PROLIFIC_PID' && s.stage === 'main')).toBe(true);
    expect(found.studies[0].exports).toEqual([expect.objectContaining({ format: 'jsonl', at: T0 + 8_000 })]);
    expect(found.studies[0].exports[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(found.studies[1].exports).toEqual([]);

    // Refused without the id repeated, or without a reason; nothing goes.
    const body = { participantId: 'zed-5f0c', reason: 'The participant asked by email on 3 August.' };
    expect((await had.call('POST', '/admin/participants/delete', ADMIN, { ...body, confirm: 'zed' })).body.error).toBe(
      'confirmation_mismatch',
    );
    expect(
      (await had.call('POST', '/admin/participants/delete', ADMIN, { participantId: 'zed-5f0c', confirm: 'zed-5f0c' }))
        .status,
    ).toBe(400);
    expect(await had.call('POST', '/admin/participants/find', ADMIN, { participantId: 'zed-5f0c' })).toMatchObject({
      body: { studies: [{}, {}, {}] },
    });

    // Prolific reported a submission of theirs returned, and a station holds them checked in anew.
    const seen = { studyId: 'first', submissionId: 'sub-zed', participantId: 'zed-5f0c', status: 'RETURNED' };
    await stores[0].prolific.seeSubmission({ ...seen, via: 'webhook', at: T0 });
    const station = { id: 'st-1', studyId: 'first', name: 'A', secretHash: 'f'.repeat(64), createdAt: T0 };
    expect(await stores[0].centre.addStation({ ...station, createdBy: 'researcher' })).toBe(true);
    expect(await stores[0].centre.setPending('first', 'st-1', 'zed-5f0c')).toBe(true);

    had.at(20_000);
    const deleted = await had.call('POST', '/admin/participants/delete', ADMIN, { ...body, confirm: 'zed-5f0c' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const receipt = deleted.body as DeletionReceipt;
    expect(receipt).toMatchObject({
      participantHash: found.participantHash,
      reason: body.reason,
      by: 'researcher',
      at: T0 + 20_000,
      total: { sessions: 4 },
    });
    expect(receipt.studies.map((s) => [s.studyId, s.deleted.sessions, s.sessions.length])).toEqual([
      ['first', 2, 2],
      ['second', 1, 1],
      ['third', 1, 1],
    ]);
    expect(receipt.studies.every((s) => s.deleted.events > 0)).toBe(true);
    expect(receipt.studies[0].exports).toHaveLength(1);
    expect(JSON.stringify(receipt)).not.toContain('zed-5f0c');

    // Gone from every table that held it, and its tokens refused.
    for (const s of zed) {
      expect(await stores[0].getSession(s.sessionId)).toBeNull();
      expect(await stores[0].readEvents(s.sessionId)).toEqual([]);
      expect(await stores[0].listResponses(s.sessionId)).toEqual([]);
      expect(await stores[0].campaigns.sessionClaims(s.sessionId)).toEqual([]);
      expect((await had.call('GET', `/sessions/${s.sessionId}`, s.token)).status).toBe(401);
    }
    expect(await stores[0].prolific.seenSubmissions('first', 'zed-5f0c')).toEqual([]);
    expect((await stores[0].centre.listStations('first')).map((x) => x.pendingParticipant)).toEqual([null]);
    expect(
      (await had.call('POST', '/admin/participants/find', ADMIN, { participantId: 'zed-5f0c' })).body.studies,
    ).toEqual([]);
    expect((await had.call('POST', '/admin/participants/delete', ADMIN, { ...body, confirm: 'zed-5f0c' })).status).toBe(
      404,
    );

    // The audit trail names the hash, never the id; the receipt can be read again.
    for (const study of ['first', 'second', 'third']) {
      const events = (await had.call('GET', `/admin/studies/${study}/audit`, ADMIN)).body.events as AuditEntry[];
      const entry = events.find((e) => e.action === 'participant.delete');
      expect(entry).toMatchObject({ target: `participant:${found.participantHash}`, reason: body.reason });
      expect(JSON.stringify(events)).not.toContain('zed-5f0c');
    }
    expect((await had.call('GET', `/admin/participants/deletions/${receipt.receipt}`, ADMIN)).body).toEqual(receipt);
    expect((await had.call('GET', '/admin/participants/deletions', ADMIN)).body.receipts).toEqual([receipt]);

    had.at(30_000);
    for (const url of FIGURES) expect(await had.read(url), url).toEqual(expected.get(url));
  });

  it("deletes only in the studies a researcher is a researcher of, and keeps each one's receipts to them", async () => {
    const store = await open();
    const w = await world(store);
    const { person } = await addPerson(store.people, { email: 'rae@lab.org', role: 'researcher' }, COMMAND_LINE, T0);
    await store.people.putMember('first', person.id, 'researcher', T0);
    await store.people.putMember('second', person.id, 'viewer', T0);
    const rae = (await createToken(store.people, person, { name: 'requests', days: 1 }, COMMAND_LINE, T0)).token;
    await w.part('first', 'zed-5f0c', 1_000);
    const other = await w.part('second', 'zed-5f0c', 2_000);

    const found = (await w.call('POST', '/admin/participants/find', rae, { participantId: 'zed-5f0c' }))
      .body as ParticipantSearch;
    expect(found.studies.map((s) => s.studyId)).toEqual(['first']);
    const body = { participantId: 'zed-5f0c', reason: 'Asked on the phone.', confirm: 'zed-5f0c' };
    const receipt = (await w.call('POST', '/admin/participants/delete', rae, body)).body as DeletionReceipt;
    expect(receipt).toMatchObject({ by: 'rae@lab.org', total: { sessions: 1 } });
    expect(receipt.studies.map((s) => s.studyId)).toEqual(['first']);
    // A viewer of the second study cannot delete there: the session stays.
    expect(await store.getSession(other.sessionId)).not.toBeNull();
    expect((await w.call('GET', '/admin/participants/deletions', rae)).body.receipts).toEqual([receipt]);
    expect((await w.call('GET', `/admin/participants/deletions/${receipt.receipt}`, ADMIN)).body).toEqual(receipt);
  });

  it('refuses what it cannot act on, saying what to send', async () => {
    const w = await world(await open());
    const s = await w.part('first', 'ann', 1_000);
    for (const bad of [
      {},
      { participantId: '' },
      { participantId: 'x'.repeat(201) },
      { participantId: 'ann', more: 1 },
    ]) {
      const r = await w.call('POST', '/admin/participants/find', ADMIN, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.message).toMatch(/participantId|more/);
    }
    expect((await w.call('POST', '/admin/participants/find', s.token, { participantId: 'ann' })).status).toBe(403);
    expect((await w.call('POST', '/admin/participants/find', null, { participantId: 'ann' })).status).toBe(401);
    expect((await w.call('GET', '/admin/participants/deletions/not-a-receipt', ADMIN)).status).toBe(404);
    expect(await w.read('/admin/studies/first/results')).toMatchObject({
      participants: [{ params: { PROLIFIC_PID: 'ann' } }],
    });
  });
});
