/**
 * Campaign assignment through the real API on PGlite and PostgreSQL: pools drawn and claimed
 * when a session starts, candidates served and judged under their own ids, claims settled when
 * the session ends, a returning participant never meeting a candidate twice, abandoned sessions
 * giving their claims back, and simultaneous starts on two servers over one PostgreSQL database
 * never booking one candidate's last solve twice.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Hono } from 'hono';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApi } from '../app';
import { hashToken } from '../people/auth';
import { TaskLibrary } from '../collections/collections';
import { gameIds, replayWithEngine } from '../study/studies';
import { backends, postgresUrl } from '../store/testing';
import { apiCaller } from '../testing/api';
import { openStore } from '../store/open';
import type { Store } from '../store/types';
import { parseTaskText, type ArcTask } from '../../core/formats/arcTask';
import type { StudyDefinitionInput } from '../../core/study/schema';
import { drawCandidates } from '../../core/study/draw';
import { mixSeed } from '../../core/game/rng';
import { exportContext } from '../export/context';
import { EXPORT_FORMATS } from '../export/formats';
import { CAMPAIGN_COLUMNS } from '../export/campaign';
import { paymentsCsv } from '../../core/analysis/campaign';
import { readZip } from '../export/zip';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = 'campaign-researcher-token-0123456789';
const MIN = 60_000;
const TASKS = [
  'downscale-blocks',
  'mirror-across-wall',
  'color-by-orientation',
  'most-common-color',
  'crop-largest-object',
  'sort-bars-by-height',
];

const taskOf = (name: string) =>
  (
    parseTaskText(readFileSync(path.join(ROOT, 'data/tasks/samples', `${name}.json`), 'utf8')) as {
      ok: true;
      task: ArcTask;
    }
  ).task;

let library: TaskLibrary;
beforeAll(async () => {
  library = new TaskLibrary();
  await library.mount(path.join(ROOT, 'data/tasks/samples'));
});

export function campaignStudy(
  opts: {
    draw?: number | 'time';
    solves?: number;
    campaign?: string;
    sessionMinutes?: number;
    fill?: 'paced' | 'fast';
  } = {},
): StudyDefinitionInput {
  return {
    title: 'Campaign',
    consent: 'Consent.',
    completion: { code: 'DONE' },
    ...(opts.campaign ? { campaign: { id: opts.campaign } } : {}),
    payment: { currency: 'GBP', fee: 10, bonus: { perSolve: 5 } },
    limits: { sessionMinutes: opts.sessionMinutes ?? 90, abandonAfterMinutes: 30 },
    items: [
      {
        kind: 'pool',
        id: 'grid',
        draw: opts.draw ?? 2,
        target: { solves: opts.solves ?? 2 },
        ...(opts.fill ? { fill: opts.fill } : {}),
        candidates: TASKS.map((task, i) => ({ kind: 'task', id: `c${i}`, collection: 'samples', task })),
      },
      { kind: 'survey', id: 'end', questions: [{ id: 'q', prompt: 'Anything to add?', type: 'text' }] },
    ],
  };
}

interface Session {
  sessionId: string;
  token: string;
}

function client(app: Hono) {
  const call = apiCaller(() => app);
  const seqs = new Map<string, number>();
  const log = async (s: Session, kind: string, data: Record<string, unknown>) => {
    const seq = seqs.get(s.sessionId) ?? 0;
    seqs.set(s.sessionId, seq + 1);
    const r = await call('POST', `sessions/${s.sessionId}/events`, s.token, {
      events: [{ seq, t: seq * 10, kind, data }],
    });
    expect(r.status).toBe(200);
    return seq;
  };
  return {
    call,
    log,
    lastSeq: (s: Session) => (seqs.get(s.sessionId) ?? 0) - 1,
    start: async (studyId: string, params: Record<string, string>) => {
      const r = await call('POST', `studies/${studyId}/sessions`, null, { params });
      expect(r.status).toBe(201);
      return r.body as Session;
    },
    items: async (s: Session) =>
      (await call('GET', `sessions/${s.sessionId}`, s.token)).body.items as {
        id: string;
        kind: string;
        testIndices?: number[];
      }[],
  };
}

describe.each(backends)('campaign assignment on $name', (backend) => {
  let store: Store;
  let app: Hono;
  let clock: number;
  let api: ReturnType<typeof client>;

  beforeEach(async () => {
    store = await backend.open();
    clock = Date.UTC(2026, 0, 1);
    app = createApi({
      library,
      version: 'test',
      study: { store, adminTokenHash: hashToken(ADMIN), replay: replayWithEngine, games: gameIds, now: () => clock },
    });
    api = client(app);
  });
  afterEach(async () => {
    await store.close();
  });

  const save = async (id: string, definition: StudyDefinitionInput) => {
    const r = await api.call('POST', `admin/studies/${id}`, ADMIN, { definition });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };
  /** Plays every drawn candidate: solves those `solve` says, submits a wrong grid three times to the others. */
  const play = async (s: Session, solve: (id: string) => boolean) => {
    const items = await api.items(s);
    for (const item of items.filter((i) => i.kind === 'task')) {
      await api.log(s, 'item.start', { item: item.id, kind: 'task' });
      const name = TASKS[Number(item.id.slice(1))];
      for (const t of item.testIndices!) {
        if (solve(item.id)) {
          const r = await api.call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
            key: `${item.id}-${t}`,
            item: item.id,
            testIndex: t,
            grid: taskOf(name).test[t].output,
          });
          expect(r.body.verdict).toBe('correct');
        } else {
          for (let k = 0; k < 3; k++)
            await api.call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
              key: `${item.id}-${t}-${k}`,
              item: item.id,
              testIndex: t,
              grid: [[k + 1]],
            });
        }
      }
      await api.log(s, 'item.end', { item: item.id });
    }
    return items;
  };
  const finish = async (s: Session) => {
    await api.log(s, 'item.start', { item: 'end', kind: 'survey' });
    await api.log(s, 'item.end', { item: 'end' });
    const r = await api.call('POST', `sessions/${s.sessionId}/finish`, s.token, { lastSeq: api.lastSeq(s) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };

  it('serves the drawn candidates as ordinary items under their own ids, judges them there, and settles the claims at the end', async () => {
    await save('camp', campaignStudy());
    const intro = await api.call('GET', 'studies/camp', null);
    expect(intro.body.items).toBe(3);
    const s = await api.start('camp', { PROLIFIC_PID: 'p1' });
    const items = await api.items(s);
    expect(items.map((i) => i.kind)).toEqual(['task', 'task', 'survey']);
    expect(items.every((i) => i.kind !== 'pool')).toBe(true);
    const drawn = items.slice(0, 2).map((i) => i.id);
    expect(new Set(drawn).size).toBe(2);
    expect(drawn.every((id) => /^c[0-5]$/.test(id))).toBe(true);

    const claims = await store.campaigns.sessionClaims(s.sessionId);
    expect(claims.map((c) => [c.candidate, c.state, c.participant, c.campaign])).toEqual(
      drawn.map((id) => [id, 'held', 'prolific:p1', 'study:camp']),
    );
    const record = await store.campaigns.draw(s.sessionId);
    expect(record!.pools[0].drawn).toEqual(drawn);
    expect(record!.seed).toBe((await store.getSession(s.sessionId))!.seed);
    // The draw is recomputed from what was recorded: the figures and the seed.
    const figures = record!.pools[0].figures;
    const standings = TASKS.map((_, i) => {
      const [solves, attempts, inFlight, met, settled] = figures[`c${i}`] ?? [0, 0, 0, 0, 0];
      return { id: `c${i}`, solves, attempts, inFlight, met: met === 1, settled };
    });
    expect(drawCandidates(standings, { solves: 2 }, 2, mixSeed(record!.seed, 0))).toEqual(drawn);

    // A candidate this session did not draw is not one of its items.
    const other = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'].find((id) => !drawn.includes(id))!;
    const refused = await api.call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
      key: 'x',
      item: other,
      testIndex: 0,
      grid: [[1]],
    });
    expect(refused.status).toBe(404);

    await play(s, (id) => id === drawn[0]);
    await finish(s);
    const settled = await store.campaigns.sessionClaims(s.sessionId);
    expect(settled.map((c) => [c.candidate, c.state])).toEqual([
      [drawn[0], 'solved'],
      [drawn[1], 'attempted'],
    ]);
    const events = await api.call('GET', `admin/sessions/${s.sessionId}/events`, ADMIN);
    expect(
      events.body.events
        .filter((e: { kind: string }) => e.kind === 'item.start')
        .map((e: { data: { item: string } }) => e.data.item),
    ).toEqual([...drawn, 'end']);
  });

  it('never gives a returning participant a candidate they met, in this study or another of the campaign, and stops drawing a candidate at its target', async () => {
    await save('batch-1', campaignStudy({ campaign: 'cal', solves: 1 }));
    await save('batch-2', campaignStudy({ campaign: 'cal', solves: 1 }));
    const met: string[] = [];
    for (const study of ['batch-1', 'batch-2', 'batch-1']) {
      const s = await api.start(study, { PROLIFIC_PID: 'back-again' });
      const ids = (await play(s, () => false)).filter((i) => i.kind === 'task').map((i) => i.id);
      expect(ids).toHaveLength(2);
      for (const id of ids) expect(met).not.toContain(id);
      met.push(...ids);
      await finish(s);
    }
    // All six met: a fourth session of this participant runs its fixed items only.
    const fourth = await api.start('batch-2', { PROLIFIC_PID: 'back-again' });
    expect((await api.items(fourth)).map((i) => i.id)).toEqual(['end']);

    // Others solve every candidate once (target 1): then nothing is left to draw.
    for (let k = 0; k < 3; k++) {
      const s = await api.start('batch-1', { PROLIFIC_PID: `solver-${k}` });
      await play(s, () => true);
      await finish(s);
    }
    const late = await api.start('batch-2', { PROLIFIC_PID: 'late' });
    expect((await api.items(late)).map((i) => i.id)).toEqual(['end']);
    const claims = await store.campaigns.claims('cal');
    const solvedBy = new Map<string, number>();
    for (const c of claims) if (c.state === 'solved') solvedBy.set(c.candidate, (solvedBy.get(c.candidate) ?? 0) + 1);
    expect([...solvedBy.values()]).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('counts claims of sessions in progress, and gives back those of sessions abandoned or ended without counting', async () => {
    await save('camp', campaignStudy({ draw: 3, solves: 1 }));
    const a = await api.start('camp', { PROLIFIC_PID: 'a' });
    const b = await api.start('camp', { PROLIFIC_PID: 'b' });
    const ofA = (await api.items(a)).slice(0, 3).map((i) => i.id);
    const ofB = (await api.items(b)).slice(0, 3).map((i) => i.id);
    // Six candidates, each needing one solve: the second session takes the three the first did not.
    expect(new Set([...ofA, ...ofB]).size).toBe(6);

    // a goes silent past abandonAfterMinutes: its claims no longer hold, so c draws from all six.
    clock += 31 * MIN;
    await api.log(b, 'item.start', { item: ofB[0], kind: 'task' });
    const c = await api.start('camp', { PROLIFIC_PID: 'c' });
    const ofC = (await api.items(c)).slice(0, 3).map((i) => i.id);
    expect(ofC.every((id) => ofA.includes(id))).toBe(true);

    // b ends without starting two of its candidates: skipped, back in the pool (and not "met");
    // the one it opened is a counted attempt under the study's rule.
    await api.log(b, 'item.end', { item: ofB[0] });
    await finish(b);
    expect((await store.campaigns.sessionClaims(b.sessionId)).map((x) => x.state)).toEqual([
      'attempted',
      'skipped',
      'skipped',
    ]);
    const again = await api.start('camp', { PROLIFIC_PID: 'b' });
    const ofB2 = (await api.items(again)).slice(0, 3).map((i) => i.id);
    expect(ofB2).not.toContain(ofB[0]);
    expect(ofB2).toEqual(expect.arrayContaining(ofB.slice(1)));
  });

  it("keeps a session on a break in flight however long the break, in the view and the draws, and counts its silence from the break's end", async () => {
    await save('camp', campaignStudy({ draw: 3, solves: 1 }));
    const a = await api.start('camp', { PROLIFIC_PID: 'a' });
    const ofA = (await api.items(a)).slice(0, 3).map((i) => i.id);
    await api.log(a, 'item.start', { item: ofA[0], kind: 'task' });
    expect(await store.centre.pause(a.sessionId, clock)).toEqual({ found: true, changed: true });
    // An hour's break: twice abandonAfterMinutes, and a's claims still hold.
    clock += 60 * MIN;
    const live = async () => {
      const r = await api.call('GET', 'admin/studies/camp/campaign', ADMIN);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const view = r.body as {
        participants: { live: { sessionId: string }[] };
        candidates: { id: string; inProgress: number }[];
      };
      return {
        sessions: view.participants.live.map((l) => l.sessionId),
        held: view.candidates.filter((c) => c.inProgress > 0).map((c) => c.id),
      };
    };
    expect(await live()).toEqual({ sessions: [a.sessionId], held: expect.arrayContaining(ofA) });
    const b = await api.start('camp', { PROLIFIC_PID: 'b' });
    const ofB = (await api.items(b)).slice(0, 3).map((i) => i.id);
    expect(ofB.filter((id) => ofA.includes(id))).toEqual([]);

    // Resumed: quiet for 20 minutes after the break is still in flight; 31 is abandoned.
    await store.centre.resume(a.sessionId, clock);
    clock += 20 * MIN;
    expect((await live()).sessions).toContain(a.sessionId);
    clock += 11 * MIN;
    expect((await live()).sessions).not.toContain(a.sessionId);
  });

  it("settles the claims of a session abandoned in another study of the campaign when either study's view is read", async () => {
    await save('batch-1', campaignStudy({ campaign: 'cal', solves: 1, sessionMinutes: 60 }));
    await save('batch-2', campaignStudy({ campaign: 'cal', solves: 1, sessionMinutes: 60 }));
    const gone = await api.start('batch-2', { PROLIFIC_PID: 'gone' });
    const [first] = await api.items(gone);
    await api.log(gone, 'item.start', { item: first.id, kind: 'task' });
    // Past its session's time: abandoned for good. batch-1's view settles it (the one opened counts as an attempt; the other skipped).
    clock += 61 * MIN;
    const view = (await api.call('GET', 'admin/studies/batch-1/campaign', ADMIN)).body as {
      candidates: { id: string; drawn: number; inProgress: number }[];
    };
    expect((await store.campaigns.sessionClaims(gone.sessionId)).map((c) => [c.candidate, c.state])).toEqual([
      [first.id, 'attempted'],
      [expect.any(String), 'skipped'],
    ]);
    expect(view.candidates.find((c) => c.id === first.id)).toMatchObject({ drawn: 1, inProgress: 0 });
    expect((await store.campaigns.counters('cal')).reduce((n, k) => n + k.held, 0)).toBe(0);
  });

  it("keeps each candidate's counters equal to its claims through draws, settlements, exclusions and deletions", async () => {
    await save('camp', campaignStudy({ draw: 3, solves: 2 }));
    /** The counters as the claims give them, worked out here from every claim. */
    const fromClaims = async () => {
      const out = new Map<
        string,
        { drawn: number; held: number; attempts: number; solves: Set<string>; settled: number }
      >();
      for (const c of await store.campaigns.claims('study:camp')) {
        const k = out.get(c.candidate) ?? { drawn: 0, held: 0, attempts: 0, solves: new Set<string>(), settled: 0 };
        k.drawn++;
        if (c.state === 'held') k.held++;
        if (!c.excluded && (c.state === 'solved' || c.state === 'attempted')) k.attempts++;
        if (!c.excluded && c.state === 'solved') k.solves.add(c.participant ?? c.sessionId);
        if (!c.excluded && c.state !== 'held' && c.state !== 'skipped') k.settled++;
        out.set(c.candidate, k);
      }
      return [...out]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([candidate, k]) => ({
          candidate,
          drawn: k.drawn,
          held: k.held,
          attempts: k.attempts,
          solves: k.solves.size,
          settled: k.settled,
        }));
    };
    const agree = async () => {
      const counters = await store.campaigns.counters('study:camp');
      expect(counters).toEqual(await fromClaims());
      return counters;
    };
    const solver = await api.start('camp', { PROLIFIC_PID: 'solver' });
    const failer = await api.start('camp', { PROLIFIC_PID: 'failer' });
    const open = await api.start('camp', { PROLIFIC_PID: 'open' });
    expect((await agree()).reduce((n, k) => n + k.held, 0)).toBe(9);
    await play(solver, () => true);
    await finish(solver);
    await play(failer, () => false);
    await finish(failer);
    const settled = await agree();
    expect(settled.reduce((n, k) => n + k.solves, 0)).toBe(3);
    expect(settled.reduce((n, k) => n + k.attempts, 0)).toBe(6);
    expect(settled.reduce((n, k) => n + k.held, 0)).toBe(3);

    // An excluded session's solves stop counting, and count again when it is included.
    expect(
      (await api.call('POST', `admin/sessions/${solver.sessionId}/exclude`, ADMIN, { reason: 'test' })).status,
    ).toBe(200);
    expect((await agree()).reduce((n, k) => n + k.solves, 0)).toBe(0);
    expect((await api.call('POST', `admin/sessions/${solver.sessionId}/include`, ADMIN, {})).status).toBe(200);
    expect((await agree()).reduce((n, k) => n + k.solves, 0)).toBe(3);
    // A deleted session takes its claims with it; a new draw adds to what is left.
    expect(
      (await api.call('DELETE', `admin/sessions/${failer.sessionId}`, ADMIN, { confirm: failer.sessionId })).status,
    ).toBe(200);
    expect((await agree()).reduce((n, k) => n + k.drawn, 0)).toBe(6);
    await api.start('camp', { PROLIFIC_PID: 'late' });
    expect((await agree()).reduce((n, k) => n + k.drawn, 0)).toBe(9);
    await finish(open);
    expect((await agree()).reduce((n, k) => n + k.held, 0)).toBe(3);
    // Deleting the study leaves no counter behind.
    expect((await api.call('DELETE', 'admin/studies/camp', ADMIN, { confirm: 'camp' })).status).toBe(200);
    expect(await store.campaigns.counters('study:camp')).toEqual([]);
  });

  it('tells the time left, skips candidates the time left no longer allows, and ends when the budget is spent', async () => {
    await save('camp', campaignStudy({ draw: 'time', sessionMinutes: 60 }));
    const s = await api.start('camp', { PROLIFIC_PID: 'p1' });
    const view = async () => (await api.call('GET', `sessions/${s.sessionId}`, s.token)).body;
    const first = await view();
    // One candidate per 5 minutes of the budget, at most the pool: all six.
    expect(first.items.map((i: { kind: string }) => i.kind)).toEqual([
      'task',
      'task',
      'task',
      'task',
      'task',
      'task',
      'survey',
    ]);
    expect(first.budget).toEqual({ endsAt: clock + 60 * MIN, minutesLeft: 60 });
    const ids: string[] = first.items.map((i: { id: string }) => i.id);

    await api.log(s, 'item.start', { item: ids[0], kind: 'task' });
    clock += 20 * MIN;
    await api.log(s, 'item.end', { item: ids[0] });
    await api.log(s, 'item.start', { item: ids[1], kind: 'task' });
    // 31 minutes left: ids[2] may still start (its hard limit is 30); at 29 left it may not.
    clock += 9 * MIN;
    expect((await view()).progress.current).toBe(1);
    await api.log(s, 'item.end', { item: ids[1] });
    clock += 2 * MIN;
    const late = await view();
    expect(late.budget.minutesLeft).toBe(29);
    expect(
      late.progress.items.slice(2, 6).map((i: { skipped?: boolean; finished: boolean }) => [i.skipped, i.finished]),
    ).toEqual(Array(4).fill([true, true]));
    expect(late.progress.current).toBe(6);
    // The researcher's summary marks the same candidates skipped.
    const detail = await api.call('GET', `admin/sessions/${s.sessionId}`, ADMIN);
    expect(
      detail.body.summary.items.filter((i: { skipped?: boolean }) => i.skipped).map((i: { id: string }) => i.id),
    ).toEqual(ids.slice(2, 6));
    expect((await store.campaigns.sessionClaims(s.sessionId)).map((c) => c.state)).toEqual([
      'held',
      'held',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
    ]);
    const refused = await api.call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
      key: 'k',
      item: ids[2],
      testIndex: 0,
      grid: [[1]],
    });
    expect([refused.status, refused.body.error]).toEqual([409, 'item_skipped']);
    // A start sent after the view called ids[2] skipped does not reopen it: its answers are
    // still refused, and it is settled as skipped at the end (counting toward nothing).
    await api.log(s, 'item.start', { item: ids[2], kind: 'task' });
    const after = await api.call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
      key: 'k2',
      item: ids[2],
      testIndex: 0,
      grid: [[1]],
    });
    expect([after.status, after.body.error]).toEqual([409, 'item_skipped']);
    await api.log(s, 'item.end', { item: ids[2] });

    clock += 30 * MIN;
    const spent = await view();
    expect(spent.budget.minutesLeft).toBe(0);
    expect(spent.session.state).toBe('timed_out');
    await finish(s);
    expect((await store.getSession(s.sessionId))!.state).toBe('timed_out');
    expect((await store.campaigns.sessionClaims(s.sessionId)).map((c) => c.state)).toEqual([
      'attempted',
      'attempted',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
    ]);
  });

  it("shows every candidate's figures and status, every session's bonus, and the bonus file of the sessions that count", async () => {
    await save('camp', campaignStudy({ draw: 2, solves: 1 }));
    const p1 = await api.start('camp', { PROLIFIC_PID: 'p1' });
    const solvedByP1 = (await play(p1, () => true)).filter((i) => i.kind === 'task').map((i) => i.id);
    await finish(p1);
    const p2 = await api.start('camp', { PROLIFIC_PID: 'p2' });
    const failedByP2 = (await play(p2, () => false)).filter((i) => i.kind === 'task').map((i) => i.id);
    await finish(p2);
    const p3 = await api.start('camp', { PROLIFIC_PID: 'p3' });
    const ofP3 = (await api.items(p3)).filter((i) => i.kind === 'task').map((i) => i.id);
    await api.log(p3, 'item.start', { item: ofP3[0], kind: 'task' });
    const p4 = await api.start('camp', {});
    await play(p4, () => true);
    await finish(p4);
    await api.call('POST', `admin/sessions/${p4.sessionId}/exclude`, ADMIN, { reason: 'test' });

    const view = (await api.call('GET', 'admin/studies/camp/campaign', ADMIN)).body;
    expect(view.studyId).toBe('camp');
    expect(view.rule).toMatch(/^kept when 1 different participant solve/);
    expect(view.participants).toMatchObject({ inProgress: 1, finished: 3, total: 4 });
    expect(view.participants.live).toEqual([
      { sessionId: p3.sessionId, participant: 'p3', candidate: ofP3[0], startedAt: expect.any(Number) },
    ]);
    const byId = new Map(view.candidates.map((c: { id: string }) => [c.id, c]));
    for (const id of solvedByP1)
      expect(byId.get(id)).toMatchObject({ solves: 1, attempts: 1, status: 'met', inProgress: 0 });
    for (const id of failedByP2) expect(byId.get(id)).toMatchObject({ solves: 0, attempts: 1, status: 'never_solved' });
    for (const id of ofP3) expect(byId.get(id)).toMatchObject({ inProgress: 1 });
    expect(view.candidates.reduce((n: number, c: { drawn: number }) => n + c.drawn, 0)).toBe(8);
    expect(byId.get(solvedByP1[0])).toMatchObject({ versions: [{ attempts: 1, solves: 1 }], medianActions: 0 });

    const pay = (await api.call('GET', 'admin/studies/camp/campaign/payments', ADMIN)).body;
    expect(pay).toMatchObject({ currency: 'GBP', fee: 10, total: 10 });
    const bySession = new Map(pay.sessions.map((x: { sessionId: string }) => [x.sessionId, x]));
    expect(bySession.get(p1.sessionId)).toEqual({
      sessionId: p1.sessionId,
      participant: 'p1',
      stage: 'main',
      solved: 2,
      levels: 0,
      bonus: 10,
      counts: true,
      signals: [],
    });
    expect(bySession.get(p2.sessionId)).toMatchObject({ bonus: 0, counts: true });
    expect(bySession.get(p3.sessionId)).toMatchObject({ counts: false, reason: 'not_finished' });
    expect(bySession.get(p4.sessionId)).toMatchObject({ counts: false, reason: 'excluded' });
    const res = await app.request('/admin/studies/camp/campaign/bonuses.csv', {
      headers: { Authorization: `Bearer ${ADMIN}` },
    });
    expect(res.headers.get('Content-Type')).toMatch(/^text\/csv/);
    expect(await res.text()).toBe('p1,10.00\n');

    // The export bundle holds the same figures.
    const ctx = await exportContext({ store, studyId: 'camp', library, replay: replayWithEngine, now: clock });
    const chunks: Buffer[] = [];
    for await (const chunk of EXPORT_FORMATS.zip.write(ctx)) chunks.push(Buffer.from(chunk));
    const files = new Map(readZip(Buffer.concat(chunks)).map((e) => [e.name, e.data.toString('utf8')]));
    const exported = JSON.parse(files.get('campaign.json')!);
    expect(exported.candidates).toEqual(view.candidates);
    const rows = files.get('campaign.csv')!.trim().split('\r\n');
    expect(rows[0]).toBe(CAMPAIGN_COLUMNS.join(','));
    expect(rows).toHaveLength(7);
    expect(files.get('SHA256SUMS')).toMatch(/ {2}campaign\.csv\n/);
    // And the payments, each session with its signals, as GET .../campaign/payments answers them.
    expect(files.get('payments.csv')).toBe(paymentsCsv(pay));

    expect((await api.call('GET', 'admin/studies/nope/campaign', ADMIN)).status).toBe(404);
    expect((await api.call('GET', 'admin/studies/camp/campaign', null)).status).toBe(401);
  });

  it('accepts the example campaign study', async () => {
    await save(
      'grid-calibration',
      JSON.parse(readFileSync(path.join(ROOT, 'data/example-studies/campaign.json'), 'utf8')),
    );
    const s = await api.start('grid-calibration', { PROLIFIC_PID: 'p1' });
    // 60 minutes, one candidate per 5: twelve of the thirteen, then the survey.
    expect((await api.items(s)).map((i) => i.kind)).toEqual(['page', ...Array(12).fill('task'), 'survey']);
  });

  it('marks the studies with pools in the study list, with their campaign', async () => {
    await save(
      'grid-calibration',
      JSON.parse(readFileSync(path.join(ROOT, 'data/example-studies/campaign.json'), 'utf8')),
    );
    await save('batch-1', campaignStudy({ campaign: 'cal' }));
    await save('plain', {
      title: 'Plain',
      consent: 'Consent.',
      completion: { code: 'X' },
      items: [{ kind: 'page', id: 'p', markdown: 'Hello.' }],
    });
    const list = (await api.call('GET', 'admin/studies', ADMIN)).body.studies as {
      id: string;
      pools: number;
      campaignId: string | null;
    }[];
    const example = JSON.parse(readFileSync(path.join(ROOT, 'data/example-studies/campaign.json'), 'utf8')) as {
      campaign?: { id: string };
    };
    expect(Object.fromEntries(list.map((s) => [s.id, [s.pools, s.campaignId]]))).toEqual({
      'grid-calibration': [1, example.campaign?.id ?? null],
      'batch-1': [1, 'cal'],
      plain: [0, null],
    });
  });

  it('settles the claims of a participant who withdraws: a solve counts, the rest go back to the pool', async () => {
    await save('camp', campaignStudy({ draw: 3, solves: 1 }));
    const s = await api.start('camp', { PROLIFIC_PID: 'leaver' });
    const ids = (await api.items(s)).filter((i) => i.kind === 'task').map((i) => i.id);
    await api.log(s, 'item.start', { item: ids[0], kind: 'task' });
    const name = TASKS[Number(ids[0].slice(1))];
    for (const t of taskOf(name).test.map((_, i) => i)) {
      expect(
        (
          await api.call('POST', `sessions/${s.sessionId}/submissions`, s.token, {
            key: `k${t}`,
            item: ids[0],
            testIndex: t,
            grid: taskOf(name).test[t].output,
          })
        ).body.verdict,
      ).toBe('correct');
    }
    expect(
      (
        await api.call('POST', `sessions/${s.sessionId}/withdraw`, s.token, {
          key: 'w',
          reason: 'no_time',
          item: ids[0],
        })
      ).status,
    ).toBe(200);
    expect((await store.campaigns.sessionClaims(s.sessionId)).map((c) => c.state)).toEqual([
      'solved',
      'skipped',
      'skipped',
    ]);
    // The solved one is at its target (1) and never drawn again; the two skipped are back in the
    // pool as if never drawn: no claim in flight, and not met, even by the same participant.
    const back = await api.start('camp', { PROLIFIC_PID: 'leaver' });
    const drawn = (await api.items(back)).filter((i) => i.kind === 'task').map((i) => i.id);
    expect(drawn).not.toContain(ids[0]);
    const figures = (await store.campaigns.draw(back.sessionId))!.pools[0].figures;
    expect(figures).toEqual({ [ids[0]]: [1, 1, 0, 1, 1] });
  });

  it('makes the draws queued on one server in turn, and a draw that fails in a batch leaves no trace while the others stand', async () => {
    await save('lane', campaignStudy({ draw: 2 }));
    const request = {
      campaign: 'study:lane',
      pools: [{ id: 'grid', candidates: ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'] }],
      quietBefore: clock - 30 * MIN,
      createdBefore: clock - 90 * MIN,
      claim: true,
    };
    const draw = (k: number, fail: boolean) =>
      store.campaigns.createDrawnSession(
        {
          id: `00000000-0000-4000-8000-00000000000${k}`,
          studyId: 'lane',
          studyVersion: 1,
          tokenHash: `hash-${k}`,
          params: { PROLIFIC_PID: `lane-${k}` },
          seed: k,
          createdAt: clock,
        },
        { ...request, participant: `prolific:lane-${k}` },
        (standings) => {
          if (fail) throw new Error(`draw ${k} refused`);
          const open = [...standings.get('grid')!].sort((a, b) => a.inFlight - b.inFlight || a.id.localeCompare(b.id));
          const drawn = open.slice(0, 2).map((x) => x.id);
          return {
            order: drawn.map((id) => Number(id.slice(1))),
            pools: [{ pool: 'grid', count: 2, drawn, figures: {} }],
          };
        },
      );
    // Five at once: the first runs alone, the other four wait in the campaign's queue and run as
    // one batch, where the fourth fails in its turn.
    const outcomes = await Promise.allSettled([0, 1, 2, 3, 4].map((k) => draw(k, k === 3)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(((outcomes[3] as PromiseRejectedResult).reason as Error).message).toBe('draw 3 refused');
    expect(await store.getSession('00000000-0000-4000-8000-000000000003')).toBeNull();
    const claims = await store.campaigns.claims('study:lane');
    // Each draw saw the claims of those before it: the four sessions took two of the least held each.
    expect(claims.map((c) => [c.sessionId.slice(-1), c.candidate])).toEqual([
      ['0', 'c0'],
      ['0', 'c1'],
      ['1', 'c2'],
      ['1', 'c3'],
      ['2', 'c4'],
      ['2', 'c5'],
      ['4', 'c0'],
      ['4', 'c1'],
    ]);
    expect((await store.campaigns.counters('study:lane')).map((k) => [k.candidate, k.drawn])).toEqual([
      ['c0', 2],
      ['c1', 2],
      ['c2', 1],
      ['c3', 1],
      ['c4', 1],
      ['c5', 1],
    ]);
  });

  it('draws for a playtest without claiming anything', async () => {
    await save('camp', campaignStudy());
    const r = await api.call('POST', 'studies/camp/sessions', ADMIN, { params: { mode: 'playtest' } });
    expect(r.status).toBe(201);
    expect((await api.items(r.body)).filter((i) => i.kind === 'task')).toHaveLength(2);
    expect(await store.campaigns.sessionClaims(r.body.sessionId)).toEqual([]);
  });

  it('names an unknown collection of a candidate where it is written', async () => {
    const bad = campaignStudy();
    (bad.items[0] as { candidates: { collection: string }[] }).candidates[4].collection = 'nowhere';
    const r = await api.call('POST', 'admin/studies/bad', ADMIN, { definition: bad });
    expect(r.status).toBe(422);
    expect(r.body.problems[0]).toMatch(/^items\[0\]\.candidates\[4\] \(c4\): /);
  });
});

describe('simultaneous starts on two servers over one PostgreSQL', () => {
  let stores: Store[] = [];
  let schema = '';
  afterEach(async () => {
    for (const s of stores) await s.close();
    stores = [];
    const c = new pg.Client({ connectionString: postgresUrl() });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
  });

  it('paced, never books more claims on a candidate than it needs while every session is in flight; filling fast, books evenly beyond', async () => {
    schema = `t_${randomBytes(6).toString('hex')}`;
    // Both servers open (and migrate) the same database at once.
    stores = await Promise.all([0, 1].map(() => openStore({ databaseUrl: postgresUrl(), schema, poolSize: 6 })));
    const clock = Date.UTC(2026, 0, 1);
    const apps = stores.map((store) =>
      client(
        createApi({
          library,
          version: 'test',
          study: {
            store,
            adminTokenHash: hashToken(ADMIN),
            replay: replayWithEngine,
            games: gameIds,
            now: () => clock,
          },
        }),
      ),
    );
    expect(
      (
        await apps[0].call('POST', 'admin/studies/camp', ADMIN, {
          definition: campaignStudy({ draw: 1, solves: 2, fill: 'fast' }),
        })
      ).status,
    ).toBe(201);
    // 6 candidates x 2 solves = 12 places; 40 participants start at once, alternating servers.
    const sessions = await Promise.all(
      Array.from({ length: 40 }, (_, k) => apps[k % 2].start('camp', { PROLIFIC_PID: `p${k}` })),
    );
    const drawn = await Promise.all(
      sessions.map(async (s, k) => (await apps[k % 2].items(s)).filter((i) => i.kind === 'task').map((i) => i.id)),
    );
    const per = new Map<string, number>();
    for (const ids of drawn) for (const id of ids) per.set(id, (per.get(id) ?? 0) + 1);
    // Balanced: the first 12 fill every place exactly; the other 28 overbook evenly (each is
    // still short of its target), never more than one above another.
    expect([...per.keys()].sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect(Math.max(...per.values()) - Math.min(...per.values())).toBeLessThanOrEqual(1);
    expect(drawn.every((ids) => ids.length === 1)).toBe(true);
    const claims = await stores[1].campaigns.claims('study:camp');
    expect(claims).toHaveLength(40);
    // In claim order, the k-th claim on a candidate was made when k-1 were in flight: the first
    // 12 claims cover the 12 places, two per candidate.
    const first12 = claims.slice(0, 12).map((c) => c.candidate);
    for (const id of ['c0', 'c1', 'c2', 'c3', 'c4', 'c5']) expect(first12.filter((x) => x === id)).toHaveLength(2);

    // Paced (the default): a candidate never drawn is held by as many sessions as solves it needs,
    // so the 12 places go to the first 12 draws and the other 28 sessions draw nothing.
    expect(
      (await apps[1].call('POST', 'admin/studies/paced', ADMIN, { definition: campaignStudy({ draw: 1, solves: 2 }) }))
        .status,
    ).toBe(201);
    const paced = await Promise.all(
      Array.from({ length: 40 }, (_, k) => apps[k % 2].start('paced', { PROLIFIC_PID: `q${k}` })),
    );
    const pacedDrawn = await Promise.all(
      paced.map(async (s, k) => (await apps[k % 2].items(s)).filter((i) => i.kind === 'task').map((i) => i.id)),
    );
    expect(pacedDrawn.filter((ids) => ids.length === 1)).toHaveLength(12);
    const held = await stores[0].campaigns.claims('study:paced');
    for (const id of ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'])
      expect(held.filter((c) => c.candidate === id)).toHaveLength(2);
  });
});

describe('many simultaneous starts over PostgreSQL with a small connection pool', () => {
  let stores: Store[] = [];
  let holder: pg.Client | null = null;
  let schema = '';
  afterEach(async () => {
    await holder?.end().catch(() => {});
    holder = null;
    for (const s of stores) await s.close();
    stores = [];
    const c = new pg.Client({ connectionString: postgresUrl() });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
  });

  const servers = async (count: number, poolSize: number) => {
    schema = `t_${randomBytes(6).toString('hex')}`;
    stores = await Promise.all(
      Array.from({ length: count }, () => openStore({ databaseUrl: postgresUrl(), schema, poolSize })),
    );
    const clock = Date.UTC(2026, 0, 1);
    return stores.map((store) =>
      client(
        createApi({
          library,
          version: 'test',
          study: {
            store,
            adminTokenHash: hashToken(ADMIN),
            replay: replayWithEngine,
            games: gameIds,
            now: () => clock,
          },
        }),
      ),
    );
  };
  /** Every session's drawn candidates, by participant: none met twice, none drawn twice in one session. */
  const expectNoneMetTwice = async (claimsOf: Store) => {
    const byParticipant = new Map<string, string[]>();
    for (const c of await claimsOf.campaigns.claims('study:camp'))
      byParticipant.set(c.participant!, [...(byParticipant.get(c.participant!) ?? []), c.candidate]);
    for (const [participant, met] of byParticipant)
      expect(new Set(met).size, `${participant} met ${met.join(', ')}`).toBe(met.length);
    return byParticipant;
  };

  it("answers other requests while a campaign's draws wait for its lock, then makes every draw", async () => {
    const [api] = await servers(1, 2);
    expect(
      (
        await api.call('POST', 'admin/studies/camp', ADMIN, {
          definition: campaignStudy({ draw: 2, solves: 2, fill: 'fast' }),
        })
      ).status,
    ).toBe(201);
    // Another server holds the campaign's lock: every draw of this one has to wait.
    holder = new pg.Client({ connectionString: postgresUrl() });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock(hashtext('campaign:' || $1))`, ['study:camp']);
    const starts = Array.from({ length: 60 }, (_, k) => api.start('camp', { PROLIFIC_PID: `p${k}` }));
    await vi.waitFor(
      async () => {
        const waiting = await holder!.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
        );
        expect(waiting.rows[0].n).toBeGreaterThan(0);
      },
      { timeout: 180_000, interval: 50 },
    );
    // With 60 draws waiting, the server's pool of two still has a connection for everything else.
    const list = await api.call('GET', 'admin/studies', ADMIN);
    expect(list.status).toBe(200);
    const waiting = await holder.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
    );
    expect(waiting.rows[0].n).toBe(1);
    await holder.query('COMMIT');
    const sessions = await Promise.all(starts);
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(60);
    const byParticipant = await expectNoneMetTwice(stores[0]);
    expect([...byParticipant.values()].every((met) => met.length === 2)).toBe(true);
  });

  it('makes 400 simultaneous starts on two servers, each with a pool of three, without booking a candidate twice for one participant', async () => {
    const apps = await servers(2, 3);
    expect(
      (
        await apps[0].call('POST', 'admin/studies/camp', ADMIN, {
          definition: campaignStudy({ draw: 2, solves: 2, fill: 'fast' }),
        })
      ).status,
    ).toBe(201);
    // 200 participants start two sessions each, at once, one on each server.
    const sessions = await Promise.all(
      Array.from({ length: 400 }, (_, k) => apps[k % 2].start('camp', { PROLIFIC_PID: `p${Math.floor(k / 2)}` })),
    );
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(400);
    const byParticipant = await expectNoneMetTwice(stores[1]);
    expect(byParticipant.size).toBe(200);
    expect([...byParticipant.values()].every((met) => met.length === 4)).toBe(true);
    // Both servers' counters agree with the claims they made: every claim counted once, still held.
    const claims = await stores[0].campaigns.claims('study:camp');
    const counters = await stores[0].campaigns.counters('study:camp');
    expect(counters.map((k) => [k.candidate, k.drawn, k.held])).toEqual(
      ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'].map((id) => {
        const n = claims.filter((c) => c.candidate === id).length;
        return [id, n, n];
      }),
    );
    expect(claims).toHaveLength(800);
  });

  it('makes 1,000 simultaneous starts on two servers with a pool of two each, every one answered and none booked twice', async () => {
    // Each start's own reads (the study, the repeat check) queue for the same two connections as
    // the campaign's draws: they are shared and grouped, and the draws keep their connection.
    const apps = await servers(2, 2);
    expect(
      (
        await apps[0].call('POST', 'admin/studies/camp', ADMIN, {
          definition: campaignStudy({ draw: 2, solves: 2, fill: 'fast' }),
        })
      ).status,
    ).toBe(201);
    const sessions = await Promise.all(
      Array.from({ length: 1000 }, (_, k) => apps[k % 2].start('camp', { PROLIFIC_PID: `p${Math.floor(k / 2)}` })),
    );
    expect(new Set(sessions.map((s) => s.sessionId)).size).toBe(1000);
    const byParticipant = await expectNoneMetTwice(stores[0]);
    expect(byParticipant.size).toBe(500);
    expect([...byParticipant.values()].every((met) => met.length === 4)).toBe(true);
    const counters = await stores[1].campaigns.counters('study:camp');
    expect(counters.reduce((n, k) => n + k.drawn, 0)).toBe(2000);
    // A thousand starts through two connections each: on a heavily loaded machine, minutes.
  }, 300_000);
});
