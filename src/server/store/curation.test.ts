import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from './testing';
import type { EventInput, Store } from './types';

const ev = (seq: number): EventInput => ({ seq, t: seq, kind: 'paint', data: { n: seq } });
const who = { actor: 'researcher', at: 50_000 };

/** Two sessions of study s1 with events, a submission and a server-run game with steps; one session of s2. */
async function fill(store: Store): Promise<void> {
  await store.saveStudy('s1', { title: 'one' }, 'studio', 1000);
  await store.saveStudy('s2', { title: 'two' }, 'studio', 1000);
  for (const [id, study] of [
    ['a', 's1'],
    ['b', 's1'],
    ['c', 's2'],
  ] as const) {
    await store.createSession({
      id,
      studyId: study,
      studyVersion: 1,
      tokenHash: `h-${id}`,
      params: {},
      seed: 1,
      order: [0],
      createdAt: 2000,
    });
    await store.appendEvents(id, [ev(0), ev(1), ev(2)], { receivedAt: 3000, pastSessionLimit: false });
    await store.addSubmission({
      sessionId: id,
      key: 'k',
      item: 't',
      testIndex: 0,
      trial: 1,
      grid: [[1]],
      verdict: 'wrong',
      practice: false,
      at: 4000,
    });
    await store.addGameRun({
      runId: `run-${id}`,
      sessionId: id,
      item: 'g',
      gameId: 'ls20-0',
      source: 'arcengine',
      engine: 'arcengine 0.9.3',
      seed: 0,
      openedAt: 4000,
    });
    for (const step of [0, 1]) {
      await store.addGameStep({
        runId: `run-${id}`,
        step,
        action: 'RESET',
        x: null,
        y: null,
        state: 'NOT_FINISHED',
        levelsCompleted: 0,
        winLevels: 3,
        available: [1],
        fullReset: step === 0,
        frameHash: 'f',
        frames: '',
        keyframe: true,
        at: 4000,
      });
    }
  }
}

describe.each(backends)('curation in the store on $name', (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = await backend.open();
    await fill(store);
  });
  afterEach(async () => {
    await store.close();
  });

  it('excludes a session with its reason and counts it again, auditing each change once', async () => {
    const r = await store.setSessionExclusion('a', { reason: 'my own test run' }, who);
    expect(r).toMatchObject({
      changed: true,
      session: { id: 'a', excludedAt: 50_000, excludedReason: 'my own test run' },
    });
    expect(await store.getSession('a')).toMatchObject({ excludedAt: 50_000, excludedReason: 'my own test run' });
    // Excluding it again changes nothing and writes no second entry.
    expect(
      await store.setSessionExclusion('a', { reason: 'again' }, { actor: 'researcher', at: 60_000 }),
    ).toMatchObject({ changed: false, session: { excludedAt: 50_000, excludedReason: 'my own test run' } });
    const back = await store.setSessionExclusion('a', null, { actor: 'researcher', at: 70_000 });
    expect(back).toMatchObject({ changed: true, session: { excludedAt: null, excludedReason: null } });
    expect(await store.setSessionExclusion('nope', { reason: null }, who)).toBeNull();
    const log = await store.listAuditEvents('s1');
    expect(log.map((e) => [e.action, e.target, e.actor, e.reason, e.at])).toEqual([
      ['session.include', 'a', 'researcher', null, 70_000],
      ['session.exclude', 'a', 'researcher', 'my own test run', 50_000],
    ]);
    expect(log[0].id).toBeGreaterThan(log[1].id);
    expect(await store.listAuditEvents('s2')).toEqual([]);
  });

  it('deletes a session with its events, submissions and game runs, and nothing of the others', async () => {
    const deleted = await store.deleteSession('a', { ...who, reason: 'pilot' });
    expect(deleted).toEqual({ studies: 0, sessions: 1, events: 3, submissions: 1, gameRuns: 1, gameSteps: 2 });
    expect(await store.getSession('a')).toBeNull();
    expect(await store.getSessionByTokenHash('h-a')).toBeNull();
    expect(await store.readEvents('a')).toEqual([]);
    expect(await store.listSubmissions('a')).toEqual([]);
    expect(await store.listGameRuns('a')).toEqual([]);
    expect(await store.getGameRun('run-a')).toBeNull();
    expect(await store.readGameSteps('run-a')).toEqual([]);
    expect((await store.readEvents('b')).length).toBe(3);
    expect((await store.readGameSteps('run-b')).length).toBe(2);
    expect((await store.listSessions('s1')).map((s) => s.id)).toEqual(['b']);
    expect(await store.deleteSession('a', { ...who, reason: null })).toBeNull();
    const [entry] = await store.listAuditEvents('s1');
    expect(entry).toMatchObject({
      action: 'session.delete',
      target: 'a',
      reason: 'pilot',
      studyId: 's1',
      detail: { deleted },
    });
    // The id is free again, and events under it start from nothing.
    await store.createSession({
      id: 'a',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'h-a2',
      params: {},
      seed: 1,
      order: [0],
      createdAt: 9000,
    });
    expect((await store.appendEvents('a', [ev(0)], { receivedAt: 9001, pastSessionLimit: false })).ackedThrough).toBe(
      0,
    );
  });

  it('deletes a study with every version and session and everything of them, keeping its audit log', async () => {
    await store.createSession({
      id: 'v',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'h-v',
      params: {},
      seed: 1,
      order: [0],
      createdAt: 2500,
    });
    expect(await store.saveStudy('s1', { title: 'one, v2' }, 'studio', 3000)).toEqual({ version: 2, created: true });
    await store.setSessionExclusion('b', { reason: null }, who);
    const deleted = await store.deleteStudy('s1', { ...who, reason: 'a rehearsal' });
    expect(deleted).toEqual({ studies: 2, sessions: 3, events: 6, submissions: 2, gameRuns: 2, gameSteps: 4 });
    expect(await store.getStudy('s1')).toBeNull();
    expect(await store.getStudy('s1', 1)).toBeNull();
    expect(await store.listSessions('s1')).toEqual([]);
    for (const id of ['a', 'b', 'v']) expect(await store.readEvents(id)).toEqual([]);
    expect(await store.readGameSteps('run-b')).toEqual([]);
    expect((await store.listStudies()).map((s) => s.id)).toEqual(['s2']);
    expect((await store.readEvents('c')).length).toBe(3);
    expect((await store.listAuditEvents('s1')).map((e) => [e.action, e.target])).toEqual([
      ['study.delete', 's1'],
      ['session.exclude', 'b'],
    ]);
    expect(await store.deleteStudy('s1', { ...who, reason: null })).toBeNull();
    // The id can be used again for a new study.
    expect(await store.saveStudy('s1', { title: 'new' }, 'studio', 80_000)).toEqual({ version: 1, created: true });
  });

  it("deletes a study's testing-centre stations, Prolific rows, members and download links with it, and nothing of another study's", async () => {
    // Each study: a station with a session checked in on it and a note, a bonus paid, a submission returned.
    for (const [study, session] of [
      ['s1', 'a'],
      ['s2', 'c'],
    ] as const) {
      const stationId = `station-${study}`;
      const base = { studyId: study, createdAt: 2000, createdBy: 'proctor' };
      expect(await store.centre.addStation({ ...base, id: stationId, name: 'Desk 1', secretHash: `x-${study}` })).toBe(
        true,
      );
      expect(
        await store.centre.addStation({ ...base, id: `spare-${study}`, name: 'Desk 2', secretHash: `y-${study}` }),
      ).toBe(true);
      await store.centre.setRetired(study, `spare-${study}`, 2500);
      const checkin = { sessionId: session, stationId, studyId: study, participant: `p-${study}`, checkedInAt: 3000 };
      expect(await store.centre.checkIn(checkin)).toBe(true);
      await store.centre.addNote({
        sessionId: session,
        studyId: study,
        at: 3500,
        actor: 'proctor',
        personId: null,
        text: 'late',
        flag: true,
      });
      const lines = [{ participantId: `p-${study}`, submissionId: `sub-${study}`, cents: 50 }];
      await store.prolific.addBatch({ id: `batch-${study}`, studyId: study, prolificStudyId: 'pro', lines }, 4000);
      await store.prolific.setBatch(`batch-${study}`, 'paid', 4500, { bulkId: `bulk-${study}` });
      const seen = { studyId: study, submissionId: `gone-${study}`, participantId: `q-${study}`, status: 'RETURNED' };
      expect(await store.prolific.seeSubmission({ ...seen, via: 'webhook', at: 5000 })).toBe(true);
    }
    await store.prolific.setSecret('api-token', 'sealed', 1000);
    await store.people.addPerson({
      id: 'ada',
      email: 'ada@lab.org',
      name: 'Ada',
      role: 'researcher',
      passwordHash: null,
      oidcSubject: null,
      createdAt: 1000,
      disabledAt: null,
    });
    for (const study of ['s1', 's2']) {
      await store.people.putMember(study, 'ada', 'viewer', 1500);
      await store.addDownloadTicket({
        tokenHash: `ticket-${study}`,
        studyId: study,
        version: null,
        format: 'jsonl',
        stage: null,
        expiresAt: 9_000_000_000_000,
      });
    }

    await store.deleteStudy('s1', { ...who, reason: null });
    // No one keeps a role on a study made again under the id, and its export links open nothing.
    expect(await store.people.listMembers('s1')).toEqual([]);
    expect(await store.claimDownloadTicket('ticket-s1', 10_000)).toBe('missing');
    expect(await store.people.memberRole('s2', 'ada')).toBe('viewer');
    expect(await store.claimDownloadTicket('ticket-s2', 10_000)).toMatchObject({ studyId: 's2' });
    expect(await store.centre.listStations('s1', true)).toEqual([]);
    expect(await store.centre.stationBySecret('x-s1')).toBeNull();
    expect(await store.centre.checkins('s1')).toEqual([]);
    expect(await store.centre.notes('s1')).toEqual([]);
    expect(await store.prolific.batches('s1')).toEqual([]);
    expect(await store.prolific.seenSubmissions('s1')).toEqual([]);
    // The same names are free for a study made again under the id.
    await store.saveStudy('s1', { title: 'new' }, 'studio', 80_000);
    const again = { studyId: 's1', name: 'Desk 1', createdAt: 80_000, createdBy: 'proctor' };
    expect(await store.centre.addStation({ ...again, id: 'station-s1', secretHash: 'x-s1' })).toBe(true);

    expect((await store.centre.listStations('s2', true)).map((s) => s.id)).toEqual(['station-s2', 'spare-s2']);
    expect(await store.centre.checkins('s2')).toMatchObject([{ sessionId: 'c', stationId: 'station-s2' }]);
    expect(await store.centre.notes('s2')).toMatchObject([{ sessionId: 'c', text: 'late' }]);
    expect(await store.prolific.batches('s2')).toMatchObject([
      { id: 'batch-s2', state: 'paid', lines: [{ participantId: 'p-s2', cents: 50 }] },
    ]);
    expect(await store.prolific.seenSubmissions('s2')).toMatchObject([{ submissionId: 'gone-s2' }]);
    // The server's sealed secrets are no study's.
    expect(await store.prolific.secret('api-token')).toMatchObject({ sealed: 'sealed' });
  });
});
