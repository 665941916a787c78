import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from './testing';
import { SessionChanged, type EventInput, type SessionStamp, type Store } from './types';

const ev = (seq: number, kind = 'paint'): EventInput => ({ seq, t: seq * 10.5, kind, data: { n: seq } });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ev(from + i));

describe.each(backends)('store on $name', (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = await backend.open();
    await store.saveStudy('s1', { title: 'one' }, 'file', 1000);
    await store.createSession({
      id: 'a',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'h',
      params: { PROLIFIC_PID: 'p1' },
      seed: 7,
      order: [1, 0],
      createdAt: 2000,
    });
  });
  afterEach(async () => {
    await store.close();
  });

  /** Step `n` of a run: the opening RESET (a keyframe) at 0, ACTION1 after it. */
  const gameStep = (runId: string, n: number, frames = `f${n}`) => ({
    runId,
    step: n,
    action: n ? 'ACTION1' : 'RESET',
    x: null,
    y: null,
    state: 'NOT_FINISHED',
    levelsCompleted: 0,
    winLevels: 3,
    available: [1, 2],
    fullReset: n === 0,
    frameHash: `h${n}`,
    frames,
    keyframe: n === 0,
    at: 4000 + n,
  });
  /** Runs r1, r2 and r3 of session a. */
  const openRuns = async () => {
    for (const r of ['r1', 'r2', 'r3'])
      await store.addGameRun({
        runId: r,
        sessionId: 'a',
        item: 'g',
        gameId: 'ls20-0',
        source: 'arcengine',
        engine: 'arcengine 0.9.3',
        seed: 0,
        openedAt: 4000,
      });
  };

  it('answers through a method taken off it, and a store derived from it through the rest', async () => {
    // Its methods are bound: handed on alone (a callback, a destructured dependency) they still work.
    const { getSession, listSessions } = store;
    expect((await getSession('a'))?.studyId).toBe('s1');
    expect((await listSessions('s1')).map((s) => s.id)).toEqual(['a']);
    const derived = Object.create(store, { getStudy: { value: async () => null } }) as Store;
    expect(await derived.getStudy('s1')).toBeNull();
    expect((await derived.getSession('a'))?.seed).toBe(7);
  });

  it('creates a session with everything it was given', async () => {
    expect(store.kind).toBe(backend.name);
    const s = await store.getSession('a');
    expect((await store.getSessionByTokenHash('h'))!.id).toBe('a');
    expect(await store.getSessionByTokenHash('x')).toBeNull();
    expect(s).toMatchObject({
      studyId: 's1',
      studyVersion: 1,
      state: 'started',
      ackedThrough: -1,
      eventCount: 0,
      order: [1, 0],
      seed: 7,
      params: { PROLIFIC_PID: 'p1' },
      createdAt: 2000,
      lastEventAt: null,
    });
  });

  it('stores the steps of runs sent at once, each once, and fails only a step whose run is unknown', async () => {
    const step = gameStep;
    await openRuns();
    // Sent in the same turn of the event loop: one group, with the same step of r1 twice and a run that does not exist.
    const results = await Promise.allSettled([
      store.addGameStep(step('r1', 0)),
      store.addGameStep(step('r2', 0)),
      store.addGameStep(step('r3', 0)),
      store.addGameStep(step('r1', 0, 'other')),
      store.addGameStep(step('nope', 0)),
      store.addGameStep(step('r1', 1)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([
      true,
      true,
      true,
      false,
      'failed',
      true,
    ]);
    const r1 = await store.readGameSteps('r1');
    expect(r1.map((s) => [s.step, s.frames])).toEqual([
      [0, 'f0'],
      [1, 'f1'],
    ]);
    expect(r1[1]).toEqual({ ...step('r1', 1) });
    expect((await store.readGameSteps('r3')).length).toBe(1);
  });

  it("stores a step on a session's stamp only while the row still has it, each of a group by its own stamp", async () => {
    const step = gameStep;
    await openRuns();
    const row = (await store.getSession('a'))!;
    const stamp = { id: 'a', state: row.state, eventCount: row.eventCount, ackedThrough: row.ackedThrough };
    // One group: the row's stamp, a stamp the row no longer has, and no stamp.
    const results = await Promise.allSettled([
      store.addGameStep(step('r1', 0), { session: stamp }),
      store.addGameStep(step('r2', 0), { session: { ...stamp, eventCount: stamp.eventCount + 1 } }),
      store.addGameStep(step('r3', 0)),
    ]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: true });
    expect(results[1].status === 'rejected' && results[1].reason).toBeInstanceOf(SessionChanged);
    expect(results[2]).toEqual({ status: 'fulfilled', value: true });
    expect((await store.readGameSteps('r2')).length).toBe(0);
    // Events stored since change the row: the stamp it had is refused, and nothing stored.
    await store.appendEvents('a', range(0, 1), { receivedAt: 3000, pastSessionLimit: false });
    await expect(store.addGameStep({ ...step('r1', 1), action: 'ACTION1' }, { session: stamp })).rejects.toThrow(
      SessionChanged,
    );
    expect((await store.readGameSteps('r1')).map((s) => s.step)).toEqual([0]);
    await store.setSessionState('a', 'withdrawn');
    const now = (await store.getSession('a'))!;
    await expect(
      store.addGameStep(step('r2', 0), { session: { ...stamp, eventCount: now.eventCount, ackedThrough: 1 } }),
    ).rejects.toThrow(SessionChanged);
    expect(
      await store.addGameStep(step('r2', 0), {
        session: { id: 'a', state: now.state, eventCount: now.eventCount, ackedThrough: now.ackedThrough },
      }),
    ).toBe(true);
    // The same step again on a stamp the row still has: there already, so not stored, not refused.
    expect(
      await store.addGameStep(
        { ...step('r2', 0), frameHash: 'other' },
        { session: { id: 'a', state: now.state, eventCount: now.eventCount, ackedThrough: now.ackedThrough } },
      ),
    ).toBe(false);
    // Stored alone (a group of one is written with plain parameters) as in a group.
    expect(await store.readGameSteps('r2')).toEqual([step('r2', 0)]);
  });

  it("stores a run's consecutive steps in one call up to the first not stored, and none past it", async () => {
    const step = gameStep;
    await openRuns();
    const row = (await store.getSession('a'))!;
    const stamp = { id: 'a', state: row.state, eventCount: row.eventCount, ackedThrough: row.ackedThrough };
    const old = { ...stamp, eventCount: stamp.eventCount + 1 };
    // Another server's step 2 of r1, stored once its steps before it are.
    expect(await store.addGameStep({ ...step('r1', 2), frames: 'theirs' })).toBe(false);
    for (const n of [0, 1]) expect(await store.addGameStep(step('r1', n))).toBe(true);
    expect(await store.addGameStep({ ...step('r1', 2), frames: 'theirs' })).toBe(true);
    const upTo = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const steps = (runId: string, from: number, to: number, session?: (n: number) => SessionStamp) =>
      upTo(from, to).map((n) => ({ step: step(runId, n), session: session?.(n) }));
    // Sent in the same turn of the event loop: one group, three runs' batches.
    const [r1, r2, r3] = await Promise.all([
      store.addGameSteps(steps('r1', 0, 4)),
      store.addGameSteps(steps('r2', 0, 3, (n) => (n === 2 ? old : stamp))),
      store.addGameSteps(steps('r3', 0, 2, () => stamp)),
    ]);
    expect(r1).toEqual(['exists', 'after', 'after', 'after', 'after']);
    expect(r2).toEqual(['stored', 'stored', 'changed', 'after']);
    expect(r3).toEqual(['stored', 'stored', 'stored']);
    expect((await store.readGameSteps('r1')).map((s) => [s.step, s.frames])).toEqual([
      [0, 'f0'],
      [1, 'f1'],
      [2, 'theirs'],
    ]);
    expect((await store.readGameSteps('r2')).map((s) => s.step)).toEqual([0, 1]);
    expect(await store.readGameSteps('r3')).toEqual(upTo(0, 2).map((n) => step('r3', n)));
    // The rest, sent again on the row's stamp: stored from where they stopped.
    expect(await store.addGameSteps(steps('r2', 2, 3, () => stamp))).toEqual(['stored', 'stored']);
    expect((await store.readGameSteps('r2')).map((s) => s.step)).toEqual([0, 1, 2, 3]);
    // Alone, a batch is one statement too; a step there already stops it at once.
    expect(await store.addGameSteps(steps('r3', 3, 5))).toEqual(['stored', 'stored', 'stored']);
    expect(await store.addGameSteps(steps('r3', 5, 6))).toEqual(['exists', 'after']);
    await expect(store.addGameSteps([...steps('r3', 6, 6), ...steps('r3', 8, 8)])).rejects.toThrow(/consecutive/);
    // Never a hole: a step whose step before is not stored is not stored, alone or in a group.
    expect(await store.addGameSteps(steps('r3', 7, 8))).toEqual(['gap', 'after']);
    const [alone, grouped] = await Promise.all([
      store.addGameSteps(steps('r3', 7, 7)),
      store.addGameSteps(steps('r2', 5, 6)),
    ]);
    expect([alone, grouped]).toEqual([['gap'], ['gap', 'after']]);
    expect(await store.addGameStep(step('r3', 7))).toBe(false);
    expect((await store.readGameSteps('r3')).map((s) => s.step)).toEqual(upTo(0, 5));
    // The same pages as the database's JSON text, for an export thread.
    for (const [from, limit] of [
      [0, 4],
      [4, 4],
      [2, 100],
      [9, 3],
    ]) {
      const page = await store.readGameStepsJson('r3', { from, limit });
      const steps = JSON.parse(page.json) as unknown[];
      expect(steps, `${from}+${limit}`).toEqual(await store.readGameSteps('r3', { from, limit }));
      expect(page.count).toBe(steps.length);
    }
  });

  it('stores a batch sent twice once', async () => {
    const first = await store.appendEvents('a', range(0, 4), { receivedAt: 3000, pastSessionLimit: false });
    expect(first).toEqual({ ackedThrough: 4, stored: 5, state: 'active', eventCount: 5, eventBytes: 40 });
    const again = await store.appendEvents('a', range(0, 4), { receivedAt: 3500, pastSessionLimit: false });
    expect(again).toEqual({ ackedThrough: 4, stored: 0, state: 'active', eventCount: 5, eventBytes: 40 });
    const events = await store.readEvents('a');
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(events[2]).toEqual({ seq: 2, t: 21, kind: 'paint', data: { n: 2 }, receivedAt: 3000 });
    expect((await store.getSession('a'))!.eventCount).toBe(5);
  });

  it('holds a gap until it is filled, then acknowledges everything held', async () => {
    expect((await store.appendEvents('a', range(0, 2), { receivedAt: 1, pastSessionLimit: false })).ackedThrough).toBe(
      2,
    );
    expect((await store.appendEvents('a', range(6, 9), { receivedAt: 2, pastSessionLimit: false })).ackedThrough).toBe(
      2,
    );
    expect((await store.appendEvents('a', [ev(4)], { receivedAt: 3, pastSessionLimit: false })).ackedThrough).toBe(2);
    expect(
      (await store.appendEvents('a', [ev(3), ev(5)], { receivedAt: 4, pastSessionLimit: false })).ackedThrough,
    ).toBe(9);
    expect((await store.readEvents('a')).map((e) => e.seq)).toEqual(range(0, 9).map((e) => e.seq));
    expect((await store.getSession('a'))!.ackedThrough).toBe(9);
  });

  it('keeps ackedThrough exact under concurrent batches of one session', async () => {
    const batches = Array.from({ length: 20 }, (_, i) => range(i * 10, i * 10 + 9)).reverse();
    const results = await Promise.all(
      batches.map((b) => store.appendEvents('a', b, { receivedAt: 5, pastSessionLimit: false })),
    );
    expect(Math.max(...results.map((r) => r.ackedThrough))).toBe(199);
    expect(results.reduce((n, r) => n + r.stored, 0)).toBe(200);
    expect((await store.getSession('a'))!.ackedThrough).toBe(199);
  });

  it('moves the state with the heartbeat and keeps finished sessions finished', async () => {
    expect((await store.appendEvents('a', [ev(0)], { receivedAt: 1, pastSessionLimit: false })).state).toBe('active');
    expect((await store.appendEvents('a', [ev(1)], { receivedAt: 2, pastSessionLimit: true })).state).toBe('timed_out');
    expect((await store.appendEvents('a', [ev(2)], { receivedAt: 3, pastSessionLimit: false })).state).toBe(
      'timed_out',
    );
    await store.setSessionState('a', 'finished');
    expect((await store.appendEvents('a', [ev(3)], { receivedAt: 4, pastSessionLimit: false })).state).toBe('finished');
    expect(await store.getSession('a')).toMatchObject({ ackedThrough: 3, eventCount: 4, lastEventAt: 4 });
  });

  it('merges concurrent batches of many sessions and answers each its own', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `m${i}`);
    for (const id of ids)
      await store.createSession({
        id,
        studyId: 's1',
        studyVersion: 1,
        tokenHash: `h-${id}`,
        params: {},
        seed: 1,
        order: [],
        createdAt: 1,
      });
    const calls = ids.flatMap((id, i) => [
      store.appendEvents(id, i % 3 === 0 ? range(3, 5) : range(0, 2), { receivedAt: 10 + i, pastSessionLimit: false }),
      store.appendEvents(id, range(0, 1), { receivedAt: 10 + i, pastSessionLimit: i === 7 }),
    ]);
    const missing = store.appendEvents('nope', [ev(0)], { receivedAt: 1, pastSessionLimit: false }).then(
      () => 'stored',
      (e: Error) => e.message,
    );
    const results = await Promise.all(calls);
    expect(await missing).toBe('No session nope.');
    for (const [i, id] of ids.entries()) {
      const s = (await store.getSession(id))!;
      expect(s.ackedThrough).toBe(i % 3 === 0 ? 1 : 2);
      expect(s.eventCount).toBe(i % 3 === 0 ? 5 : 3);
      expect(s.state).toBe(i === 7 ? 'timed_out' : 'active');
      expect(results[2 * i].stored + results[2 * i + 1].stored).toBe(s.eventCount);
      expect((await store.readEvents(id)).map((e) => e.receivedAt)).toEqual(Array(s.eventCount).fill(10 + i));
    }
  });

  it('filters events by kind in seq order', async () => {
    await store.appendEvents('a', [ev(0, 'item.start'), ev(1), ev(2, 'item.end')], {
      receivedAt: 1,
      pastSessionLimit: false,
    });
    expect((await store.readEvents('a', { kinds: ['item.start', 'item.end'] })).map((e) => e.seq)).toEqual([0, 2]);
  });

  it("reads events the same whichever way: the whole log, pages, pages as JSON text, tails of many sessions' logs", async () => {
    await store.createSession({
      id: 'b',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'hb',
      params: {},
      seed: 1,
      order: [0],
      createdAt: 2000,
    });
    const odd = {
      seq: 3,
      t: 0.1 + 0.2,
      kind: 'note',
      data: { text: 'é "quoted"\n', deep: { list: [1, 2.5, null, true] } },
    };
    await store.appendEvents('a', [...range(0, 2), odd, ...range(4, 9), ev(11)], {
      receivedAt: 1_767_225_600_123,
      pastSessionLimit: false,
    });
    await store.appendEvents('b', range(0, 4), { receivedAt: 1_767_225_600_456, pastSessionLimit: false });
    const all = await store.readEvents('a');
    expect(all.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11]);
    expect(all[3]).toEqual({ ...odd, receivedAt: 1_767_225_600_123 });
    const paged: unknown[] = [];
    for await (const page of store.streamEvents('a', { batchSize: 4 })) paged.push(...page);
    expect(paged).toEqual(all);
    const texts: unknown[] = [];
    for await (const page of store.streamEventsJson('a', { batchSize: 4, afterSeq: 2 })) {
      const events = JSON.parse(page.json) as { seq: number }[];
      expect(page.count).toBe(events.length);
      expect(page.last).toBe(events[events.length - 1].seq);
      texts.push(...events);
    }
    expect(texts).toEqual(all.slice(3));
    const tails = await store.readEventTails([
      { sessionId: 'a', afterSeq: 2, throughSeq: 9 },
      { sessionId: 'b', afterSeq: -1, throughSeq: 4 },
      { sessionId: 'b', afterSeq: 4, throughSeq: 9 },
    ]);
    expect(tails.get('a')).toEqual(all.slice(3, 10));
    expect(tails.get('b')).toEqual(await store.readEvents('b'));
  });

  it('refuses events for a session that does not exist and stores nothing', async () => {
    await expect(store.appendEvents('nope', [ev(0)], { receivedAt: 1, pastSessionLimit: false })).rejects.toThrow(
      /No session nope/,
    );
    expect(await store.readEvents('nope')).toEqual([]);
  });

  it('edits a study in place until a session has run it, then adds a version', async () => {
    expect(await store.saveStudy('s2', { title: 'a' }, 'studio', 10)).toEqual({ version: 1, created: true });
    expect(await store.saveStudy('s2', { title: 'b' }, 'studio', 11)).toEqual({ version: 1, created: false });
    await store.createSession({
      id: 'b',
      studyId: 's2',
      studyVersion: 1,
      tokenHash: 'h2',
      params: {},
      seed: 1,
      order: [],
      createdAt: 12,
    });
    expect(await store.saveStudy('s2', { title: 'c' }, 'studio', 13)).toEqual({ version: 2, created: true });
    expect((await store.getStudy('s2'))!.definition).toEqual({ title: 'c' });
    expect((await store.getStudy('s2', 1))!.definition).toEqual({ title: 'b' });
    const list = await store.listStudies();
    expect(list.map((s) => [s.id, s.version, s.sessions])).toEqual([
      ['s1', 1, 1],
      ['s2', 2, 1],
    ]);
  });

  it('answers reads of a study started together alike, and a read after a save with the saved version', async () => {
    const before = [store.getStudy('s1'), store.getStudy('s1'), store.getStudy('nope')];
    const saved = store.saveStudy('s1', { title: 'two' }, 'studio', 3000);
    const [a, b, none] = await Promise.all(before);
    expect(a).toEqual(b);
    expect(none).toBeNull();
    await saved;
    expect((await store.getStudy('s1'))!.definition).toEqual({ title: 'two' });
    await store.deleteStudy('s1', { actor: 'researcher', reason: null, at: 4000 });
    expect(await store.getStudy('s1')).toBeNull();
  });

  it("counts many participants' sessions asked at once, each answer its own", async () => {
    await store.createSession({
      id: 'b',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'hb',
      params: { PROLIFIC_PID: 'p1', workerId: 'w1' },
      seed: 1,
      order: [],
      createdAt: 2001,
    });
    await store.createSession({
      id: 'c',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'hc',
      params: { PROLIFIC_PID: 'p2' },
      seed: 1,
      order: [],
      createdAt: 2002,
    });
    const asked: [string, string, string, number][] = [
      ['s1', 'PROLIFIC_PID', 'p1', 2],
      ['s1', 'PROLIFIC_PID', 'p2', 1],
      ['s1', 'PROLIFIC_PID', 'p3', 0],
      ['s1', 'workerId', 'w1', 1],
      ['s1', 'workerId', 'p1', 0],
      ['other', 'PROLIFIC_PID', 'p1', 0],
    ];
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, k) => asked[k % asked.length]).map(([study, key, value]) =>
        store.countSessionsWithParam(study, key, value),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 300 }, (_, k) => asked[k % asked.length][3]));
  });

  it('sets state, finish time and flags; counts sessions by a participant param', async () => {
    await store.setSessionState('a', 'finished', { finishedAt: 9000, flags: ['low_effort'] });
    expect(await store.getSession('a')).toMatchObject({ state: 'finished', finishedAt: 9000, flags: ['low_effort'] });
    expect(await store.countSessionsWithParam('s1', 'PROLIFIC_PID', 'p1')).toBe(1);
    expect(await store.countSessionsWithParam('s1', 'PROLIFIC_PID', 'p2')).toBe(0);
    expect((await store.listSessions('s1')).map((s) => s.id)).toEqual(['a']);
  });

  it('takes a submission key and a trial number once', async () => {
    const sub = {
      sessionId: 'a',
      key: 'k1',
      item: 't1',
      testIndex: 0,
      trial: 1,
      grid: [[1]],
      verdict: 'wrong' as const,
      practice: false,
      at: 5,
    };
    expect(await store.addSubmission(sub)).toBe(true);
    expect(await store.addSubmission(sub)).toBe(false);
    expect(await store.addSubmission({ ...sub, key: 'k2' })).toBe(false);
    expect(await store.addSubmission({ ...sub, key: 'k3', trial: null, verdict: 'duplicate' })).toBe(true);
    expect(await store.addSubmission({ ...sub, key: 'k4', trial: null, verdict: 'duplicate' })).toBe(true);
    expect((await store.listSubmissions('a')).map((s) => [s.key, s.trial, s.verdict])).toEqual([
      ['k1', 1, 'wrong'],
      ['k3', null, 'duplicate'],
      ['k4', null, 'duplicate'],
    ]);
  });

  it("reads many sessions' submissions, responses and runs at once, each session's as its own list reads them", async () => {
    await store.createSession({
      id: 'b',
      studyId: 's1',
      studyVersion: 1,
      tokenHash: 'hb',
      params: {},
      seed: 1,
      order: [0],
      createdAt: 2001,
    });
    const sub = {
      key: 'k',
      item: 't1',
      testIndex: 0,
      trial: 1,
      grid: [[1]],
      verdict: 'wrong' as const,
      practice: false,
    };
    await store.addSubmission({ ...sub, sessionId: 'a', key: 'k2', at: 6 });
    await store.addSubmission({ ...sub, sessionId: 'a', key: 'k1', at: 5 });
    await store.addSubmission({ ...sub, sessionId: 'b', at: 5 });
    const response = { item: 'q', kind: 'survey' as const, part: 'q1', value: { choice: 'x' } };
    await store.addResponse({ ...response, sessionId: 'b', key: 'r2', at: 8 });
    await store.addResponse({ ...response, sessionId: 'b', key: 'r1', part: 'q0', at: 7 });
    await openRuns();
    await store.addGameRun({
      runId: 'r0',
      sessionId: 'a',
      item: 'g',
      gameId: 'ls20-0',
      source: 'arcengine',
      engine: 'arcengine 0.9.3',
      seed: 0,
      openedAt: 3000,
    });
    const ids = ['a', 'b', 'none'];
    const subs = await store.listSubmissionsOf(ids);
    const responses = await store.listResponsesOf(ids);
    const runs = await store.listGameRunsOf(ids);
    for (const id of ids) {
      expect(subs.get(id), id).toEqual(await store.listSubmissions(id));
      expect(responses.get(id), id).toEqual(await store.listResponses(id));
      expect(runs.get(id), id).toEqual(await store.listGameRuns(id));
    }
    expect(runs.get('a')!.map((r) => r.runId)).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(responses.get('b')!.map((r) => r.key)).toEqual(['r1', 'r2']);
    expect((await store.listResponsesOf([])).size).toBe(0);
  });
});
