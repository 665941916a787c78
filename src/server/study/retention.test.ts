/**
 * Retention: once a study's retention period after a session's end is over, the session's
 * recruitment ids and its answers to identifying questions are replaced by the keyed pseudonym
 * of each, in its row, its log, its responses, the Prolific tables and a testing centre's, once,
 * and on schedule (never before); a server
 * whose key differs from the database's does nothing. Then the real thing: two servers on one
 * PostgreSQL, one killed and started again meanwhile, pseudonymise on their own schedule, and
 * every figure of the results and the survey summaries stays what it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { backends } from '../store/testing';
import type { Store } from '../store/types';
import { freePort } from '../store/pgCluster';
import { kill9, serveFolders, startServe, type ServeProcess } from '../testing/serve';
import { freshPostgresDatabase } from '../store/testing';
import { surveyStudy } from '../testing/surveyStudy';
import { RetentionJob, pseudonymOf } from './retention';
import { participantKey } from '../../core/study/draw';
import { pseudonymousParams } from '../../core/study/retention';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 5, 9);
const KEY = Buffer.from('a-pseudonym-key-for-the-retention-tests-0123456789');
const ps = pseudonymOf(KEY);

describe.each(backends)('the retention job on $name', (backend) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  /** A finished (or, with `finishedAt` null, still open) session of participant `pid` that answered the survey. */
  const session = async (id: string, pid: string, finishedAt: number | null) => {
    const params = { PROLIFIC_PID: pid, STUDY_ID: 'study-7' };
    await store.createSession({
      id,
      studyId: 'kept',
      studyVersion: 1,
      tokenHash: `h-${id}`,
      params,
      seed: 1,
      order: [0, 1],
      createdAt: T0,
    });
    const events = [
      { seq: 0, t: 1, kind: 'session.start', data: { mode: 'study', params } },
      { seq: 1, t: 2, kind: 'survey.answer', data: { item: 'about', question: 'notes', value: `${pid}@example.org` } },
      { seq: 2, t: 3, kind: 'survey.answer', data: { item: 'about', question: 'age', value: 33 } },
    ];
    await store.appendEvents(id, events, { receivedAt: T0, pastSessionLimit: false });
    const answers = { notes: `${pid}@example.org`, age: 33, hand: 'Left' };
    await store.addResponse({
      sessionId: id,
      key: `k-${id}`,
      item: 'about',
      kind: 'survey',
      part: '',
      value: answers,
      at: T0,
    });
    if (finishedAt !== null) await store.setSessionState(id, 'finished', { finishedAt });
  };

  it('replaces identifiers on schedule, once, with the same pseudonym for the same person', async () => {
    store = await backend.open();
    await store.saveStudy(
      'kept',
      { ...surveyStudy('Kept a day'), retention: { days: 1, identifyingQuestions: ['notes'] } },
      'file',
      T0,
    );
    await session('alice-1', 'alice', T0 + 3_600_000);
    await session('alice-2', 'alice', T0 + 5 * 3_600_000);
    // Still open: its period counts from its last event.
    await session('bob', 'bob', null);
    // What else names them: Prolific's returned submissions and the bonus ledger, a station.
    for (const pid of ['alice', 'bob'])
      await store.prolific.seeSubmission({
        studyId: 'kept',
        submissionId: `sub-${pid}`,
        participantId: pid,
        status: 'RETURNED',
        via: 'poll',
        at: T0,
      });
    await store.prolific.addBatch(
      {
        id: 'b1',
        studyId: 'kept',
        prolificStudyId: 'P1',
        lines: ['alice', 'bob'].map((pid) => ({ participantId: pid, submissionId: `sub-${pid}`, cents: 50 })),
      },
      T0,
    );
    await store.centre.addStation({
      id: 'st',
      studyId: 'kept',
      name: 'Desk',
      secretHash: 'sh',
      createdAt: T0,
      createdBy: 'lab',
    });
    await store.centre.checkIn({
      sessionId: 'bob',
      stationId: 'st',
      studyId: 'kept',
      participant: 'bob',
      checkedInAt: T0,
    });
    await store.centre.setPending('kept', 'st', 'alice');
    const prolificIds = async () => ({
      submissions: (await store.prolific.seenSubmissions('kept')).map((x) => x.participantId).sort(),
      lines: (await store.prolific.batches('kept'))[0].lines.map((l) => l.participantId).sort(),
    });
    let now = T0 + DAY - 1;
    const job = new RetentionJob(store, KEY, { now: () => now });

    expect(await job.runOnce()).toBe(0);
    now = T0 + DAY + 2 * 3_600_000;
    expect(await job.runOnce()).toBe(2);
    expect(await job.runOnce()).toBe(0);
    expect((await store.getSession('alice-2'))!.params.PROLIFIC_PID).toBe('alice');
    // Alice's Prolific rows wait for her last session: the ledger and her sessions change together.
    expect(await prolificIds()).toEqual({
      submissions: ['alice', ps('bob')].sort(),
      lines: ['alice', ps('bob')].sort(),
    });
    now = T0 + DAY + 6 * 3_600_000;
    expect(await job.runOnce()).toBe(1);
    expect(await prolificIds()).toEqual({
      submissions: [ps('alice'), ps('bob')].sort(),
      lines: [ps('alice'), ps('bob')].sort(),
    });
    expect((await store.centre.checkinOf('bob'))!.participant).toBe(ps('bob'));
    expect((await store.centre.listStations('kept'))[0].pendingParticipant).toBe(ps('alice'));

    for (const [id, pid] of [
      ['alice-1', 'alice'],
      ['alice-2', 'alice'],
      ['bob', 'bob'],
    ] as const) {
      const s = (await store.getSession(id))!;
      // The pseudonym of the identifier itself, never of a pseudonym: each session was done once.
      expect(s.params).toEqual({ PROLIFIC_PID: ps(pid), STUDY_ID: 'study-7' });
      const events = await store.readEvents(id);
      expect(events[0].data.params).toEqual({ PROLIFIC_PID: ps(pid), STUDY_ID: 'study-7' });
      expect(events[1].data.value).toBe(ps(`${pid}@example.org`));
      expect(events[2].data.value).toBe(33);
      expect((await store.listResponses(id))[0].value).toEqual({
        notes: ps(`${pid}@example.org`),
        age: 33,
        hand: 'Left',
      });
    }
    expect(ps('alice')).toMatch(/^ps-[0-9a-f]{24}$/);
    expect(ps('alice')).not.toBe(ps('bob'));
  });

  it("keeps a campaign's met-before: a person's pseudonymised claims are found by their pseudonym", async () => {
    store = await backend.open();
    await store.saveStudy('camp', { title: 'Campaign', retention: { days: 1 } }, 'file', T0);
    const request = {
      campaign: 'study:camp',
      pools: [{ id: 'grid', candidates: ['c0', 'c1'] }],
      quietBefore: 0,
      createdBefore: 0,
      claim: true,
    };
    /** Alice's session `k` draws c0 and answers whether she had met it. */
    const draw = async (k: number, knownAs: string | null) => {
      let met: boolean | undefined;
      const params = { PROLIFIC_PID: 'alice' };
      await store.campaigns.createDrawnSession(
        { id: `camp-${k}`, studyId: 'camp', studyVersion: 1, tokenHash: `camp-${k}`, params, seed: k, createdAt: T0 },
        { ...request, participant: participantKey(params), knownAs },
        (standings) => {
          met = standings.get('grid')!.find((c) => c.id === 'c0')!.met;
          return { order: [0], pools: [{ pool: 'grid', count: 1, drawn: ['c0'], figures: {} }] };
        },
      );
      return met;
    };
    expect(await draw(1, null)).toBe(false);
    await store.setSessionState('camp-1', 'finished', { finishedAt: T0 });
    expect(await new RetentionJob(store, KEY, { now: () => T0 + 2 * DAY }).runOnce()).toBe(1);
    expect((await store.campaigns.sessionClaims('camp-1'))[0].participant).toBe(`prolific:${ps('alice')}`);
    // The raw id alone no longer finds her claim; with her pseudonym it does.
    expect(await draw(2, null)).toBe(false);
    expect(await draw(3, participantKey(pseudonymousParams({ PROLIFIC_PID: 'alice' }, ps)))).toBe(true);
  });

  it('does nothing on a server whose key is not the one the database recorded, and says so', async () => {
    store = await backend.open();
    await store.saveStudy('kept', { ...surveyStudy('Kept a day'), retention: { days: 1 } }, 'file', T0);
    await session('carol', 'carol', T0);
    const now = () => T0 + 2 * DAY;
    // The first server records its key's fingerprint, and does carol.
    expect(await new RetentionJob(store, KEY, { now }).runOnce()).toBe(1);
    await session('dave', 'dave', T0);
    const lines: string[] = [];
    const other = new RetentionJob(store, Buffer.from('another-key-that-no-other-server-of-this-database-has'), {
      now,
      log: (l) => lines.push(l),
    });
    expect(await other.runOnce()).toBe(0);
    expect(lines.join('\n')).toContain('ARC_STUDIO_PSEUDONYM_KEY');
    expect((await store.getSession('dave'))!.params.PROLIFIC_PID).toBe('dave');
    // Without identifying questions, answers stay as they were.
    expect(await new RetentionJob(store, KEY, { now }).runOnce()).toBe(1);
    expect((await store.listResponses('dave'))[0].value).toEqual({ notes: 'dave@example.org', age: 33, hand: 'Left' });
  });
});

describe('retention with two servers on one PostgreSQL, one restarted meanwhile', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const ADMIN = 'retention-test-researcher-token-0123456789';
  /** Seconds after a session's end that its identifiers are kept. */
  const KEPT_S = 1;

  it('pseudonymises every session on schedule, and no figure of the results or the surveys changes', async () => {
    const db = await freshPostgresDatabase('retention');
    cleanups.push(db.drop);
    // The servers first look for sessions due only as they start (before there are any), so the
    // figures before are read whatever the machine's speed; started again, they look every 300 ms.
    const env = { ARC_STUDIO_PSEUDONYM_KEY: KEY.toString('utf8'), ARC_STUDIO_RETENTION_EVERY_MS: '3600000' };
    const often = { ...env, ARC_STUDIO_RETENTION_EVERY_MS: '300' };
    const start = async (prefix: string, port: number) => {
      const f = serveFolders(prefix);
      cleanups.push(f.remove);
      const s = await startServe({
        dataDir: f.dataDir,
        dist: f.dist,
        port,
        adminToken: ADMIN,
        databaseUrl: db.url,
        env,
      });
      cleanups.push(() => kill9(s));
      return { s, f };
    };
    const a = await start('arc-studio-retention-a-', await freePort());
    const b = await start('arc-studio-retention-b-', await freePort());
    const call = async (server: ServeProcess, method: string, url: string, token: string | null, body?: unknown) => {
      const res = await fetch(`${server.url}/api/${url}`, {
        method,
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
    };
    const definition = {
      ...surveyStudy('Kept briefly'),
      retention: { days: KEPT_S / 86_400, identifyingQuestions: ['notes'] },
    };
    expect((await call(a.s, 'PUT', 'admin/studies/kept', ADMIN, { definition })).status).toBe(201);

    /** A participant who goes through the page and the survey on `server` and finishes. */
    const participant = async (server: ServeProcess, pid: string, hand: string, age: number) => {
      const made = await call(server, 'POST', 'studies/kept/sessions', null, { params: { PROLIFIC_PID: pid } });
      const { sessionId, token } = made.body as { sessionId: string; token: string };
      const events = [
        {
          seq: 0,
          t: 5,
          kind: 'session.start',
          data: { mode: 'study', studyId: 'kept', params: { PROLIFIC_PID: pid } },
        },
        { seq: 1, t: 10, kind: 'item.start', data: { item: 'hello' } },
        { seq: 2, t: 920.5, kind: 'item.end', data: { item: 'hello' } },
        { seq: 3, t: 930, kind: 'item.start', data: { item: 'about', kind: 'survey' } },
        { seq: 4, t: 2410.25, kind: 'survey.answer', data: { item: 'about', question: 'notes', value: `I am ${pid}` } },
      ];
      expect((await call(server, 'POST', `sessions/${sessionId}/events`, token, { events })).status).toBe(200);
      const answers = { hand, age, ease: 2, devices: ['Phone'], notes: `I am ${pid}` };
      const sent = await call(server, 'POST', `sessions/${sessionId}/survey`, token, {
        key: `s-${pid}`,
        item: 'about',
        answers,
      });
      expect(sent.status).toBe(200);
      const end = [{ seq: 5, t: 2500, kind: 'item.end', data: { item: 'about' } }];
      expect((await call(server, 'POST', `sessions/${sessionId}/events`, token, { events: end })).status).toBe(200);
      expect((await call(server, 'POST', `sessions/${sessionId}/finish`, token, { lastSeq: 5 })).status).toBe(200);
      return sessionId;
    };
    await participant(a.s, 'alice', 'Left', 31);
    await participant(b.s, 'bob', 'Right', 45);
    await participant(b.s, 'alice', 'Left', 31);

    type Results = { participants: { params: Record<string, string>; flags: string[] }[] } & Record<string, unknown>;
    const results = async (server: ServeProcess) =>
      (await call(server, 'GET', 'admin/studies/kept/results', ADMIN)).body as Results;
    const surveys = async (server: ServeProcess) =>
      (await call(server, 'GET', 'admin/studies/kept/results/surveys', ADMIN)).body;
    const before = await results(b.s);
    const surveysBefore = await surveys(b.s);
    expect(before.participants.map((p) => p.params.PROLIFIC_PID)).toEqual(['alice', 'bob', 'alice']);

    // Both servers started again, both running the job: the job's state is the database's, not
    // the server's, and each session is done by one of them.
    const restart = async (old: { s: ServeProcess; f: { dataDir: string; dist: string } }) => {
      await kill9(old.s);
      const s = await startServe({
        dataDir: old.f.dataDir,
        dist: old.f.dist,
        port: await freePort(),
        adminToken: ADMIN,
        databaseUrl: db.url,
        env: often,
      });
      cleanups.push(() => kill9(s));
      return s;
    };
    const [again, bAgain] = await Promise.all([restart(a), restart(b)]);

    await expect
      .poll(async () => (await results(again)).participants.map((p) => p.params.PROLIFIC_PID), { timeout: 150_000 })
      .toEqual([ps('alice'), ps('bob'), ps('alice')]);
    const after = await results(again);
    const withoutIds = (r: Results) => ({ ...r, participants: r.participants.map((p) => ({ ...p, params: {} })) });
    expect(withoutIds(after)).toEqual(withoutIds(before));
    expect(await results(bAgain)).toEqual(after);

    // The survey figures are the same; the identifying question's text answers are pseudonyms of them.
    const surveysAfter = await surveys(again);
    const text = JSON.stringify(surveysBefore)
      .replaceAll('I am alice', ps('I am alice'))
      .replaceAll('I am bob', ps('I am bob'))
      .replaceAll('"alice"', `"${ps('alice')}"`)
      .replaceAll('"bob"', `"${ps('bob')}"`);
    expect(surveysAfter).toEqual(JSON.parse(text));

    // Alice, back after her sessions were pseudonymised, is still known as a repeat participant.
    await call(again, 'POST', 'studies/kept/sessions', null, { params: { PROLIFIC_PID: 'alice' } });
    const flags = (await results(again)).participants.map((p) => p.flags.includes('repeat_participant'));
    expect(flags).toEqual([false, false, true, true]);

    // Every session done once, in every table that held its identifiers.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const rows = (
        await c.query(
          `SELECT s.pseudonymised_at IS NOT NULL AS done, e.data FROM sessions s JOIN events e ON e.session_id = s.id AND e.kind = 'session.start' ORDER BY s.created_at`,
        )
      ).rows as { done: boolean; data: { params: Record<string, string> } }[];
      expect(rows.map((r) => [r.done, r.data.params.PROLIFIC_PID])).toEqual([
        [true, ps('alice')],
        [true, ps('bob')],
        [true, ps('alice')],
      ]);
      const leaked = await c.query(`SELECT count(*)::int AS n FROM responses WHERE value::text LIKE '%I am %'`);
      expect(leaked.rows[0].n).toBe(0);
    } finally {
      await c.end();
    }
  });
});
