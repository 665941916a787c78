import { describe, expect, it } from 'vitest';
import {
  type CampaignClaim,
  type CampaignSession,
  bonusFile,
  campaignView,
  levelFunnel,
  paymentsView,
} from './campaign';
import { parseStudy, type StudyDefinition } from '../study/schema';
import type { SessionDigest } from './results';

function study(): StudyDefinition {
  const r = parseStudy({
    title: 'C',
    consent: 'c',
    completion: { code: 'X' },
    payment: { currency: 'USD', fee: 2, bonus: { perSolve: 1.25, perLevel: 0.1, max: 2 } },
    items: [
      {
        kind: 'pool',
        id: 'p',
        draw: 2,
        target: { solves: 2 },
        candidates: [
          { kind: 'task', id: 'a', collection: 's', task: 'ta' },
          { kind: 'task', id: 'b', collection: 's', task: 'tb' },
          { kind: 'game', id: 'g', game: 'push' },
        ],
      },
    ],
  });
  if (!r.ok) throw new Error(r.problems.join('; '));
  return r.study;
}

const run = (completed: number, entered: number) => ({
  version: 'v1',
  actions: null,
  ms: null,
  levels: Array.from({ length: entered }, (_, k) => ({
    completed: k < completed,
    actions: 10 * (k + 1),
    ms: 1000 * (k + 1),
  })),
});

describe('levelFunnel', () => {
  it('counts who reached and completed each level and flags a level whose completion share halves', () => {
    // 10 players: all complete level 1; 8 reach level 2 (entered after level 1), 2 complete it.
    const plays = [...Array(2).fill(run(3, 3)), ...Array(6).fill(run(1, 2)), ...Array(2).fill(run(1, 1))];
    const f = levelFunnel(plays, 3);
    expect(f.map((l) => [l.level, l.reached, l.completed, l.dropOff])).toEqual([
      [1, 10, 10, false],
      [2, 8, 2, true],
      [3, 2, 2, false],
    ]);
    expect(f[0]).toMatchObject({ medianActions: 10, medianSeconds: 1 });
  });

  it('flags no level reached by fewer than 3 players', () => {
    expect(levelFunnel([run(0, 1), run(0, 1)], 2).map((l) => l.dropOff)).toEqual([false, false]);
  });
});

const claim = (
  sessionId: string,
  candidate: string,
  state: CampaignClaim['state'],
  participant: string | null = sessionId,
  extra: Partial<CampaignClaim> = {},
): CampaignClaim => ({ sessionId, candidate, participant, state, excluded: false, inFlight: false, ...extra });
const digest = (tasks: Record<string, boolean>, levels = 0): SessionDigest => ({
  analysis: 1,
  itemsDone: 0,
  itemsTotal: 0,
  activeMs: 0,
  actions: 0,
  flags: [],
  tasks: Object.fromEntries(
    Object.entries(tasks).map(([id, solved]) => [
      id,
      {
        attempted: true,
        solvedWithin: [solved, solved, solved],
        actions: 4,
        firstActionMs: 0,
        solveMs: solved ? 30_000 : null,
        toolUses: {},
        version: null,
      },
    ]),
  ),
  games: levels
    ? {
        g: {
          version: 'push-1',
          status: 'verified',
          detail: {
            levels: Array.from({ length: levels }, () => ({ completed: true, actions: 5 })),
            timeMs: Array(levels).fill(1000),
            resets: [],
            undos: [],
          },
          clicks: [],
        },
      }
    : {},
  questions: {},
});
const session = (
  id: string,
  pid: string | null,
  d: SessionDigest | null,
  extra: Partial<CampaignSession> = {},
): CampaignSession => ({
  id,
  params: pid ? { PROLIFIC_PID: pid } : {},
  state: 'finished',
  inFlight: false,
  excluded: false,
  flags: [],
  createdAt: 0,
  digest: d,
  current: null,
  ...extra,
});

describe('campaignView', () => {
  it("reads each candidate's counts, counts claims in flight and live sessions, and states each status", () => {
    const claims = [
      claim('s1', 'a', 'solved', 'p1'),
      claim('s2', 'a', 'solved', 'p1'),
      claim('s3', 'a', 'solved', 'p2'),
      claim('s1', 'b', 'attempted', 'p1'),
      claim('s3', 'b', 'attempted', 'p2'),
      claim('s4', 'b', 'solved', 'p3', { excluded: true }),
      claim('s4', 'g', 'held', 'p3', { inFlight: true }),
    ];
    // The counts as the database keeps them for these claims (s4 is excluded).
    const counts = new Map([
      ['a', { drawn: 3, attempts: 3, solves: 2, settled: 3 }],
      ['b', { drawn: 3, attempts: 2, solves: 0, settled: 2 }],
      ['g', { drawn: 1, attempts: 0, solves: 0, settled: 0 }],
    ]);
    const v = campaignView({
      studyId: 'st',
      campaignId: null,
      study: study(),
      claims,
      counts,
      draws: { started: 7, sessions: 4 },
      now: 5,
      gameLevels: () => 3,
      sessions: [
        session('s1', 'p1', digest({ a: true, b: false })),
        session('s2', 'p1', digest({ a: true })),
        session('s3', 'p2', digest({ a: true, b: false })),
        session('s4', 'p3', digest({ b: true }), { excluded: true, state: 'active', inFlight: true, current: 'g' }),
      ],
    });
    const by = Object.fromEntries(v.candidates.map((c) => [c.id, c]));
    expect(by.a).toMatchObject({ drawn: 3, attempts: 3, solves: 2, status: 'met', medianSeconds: 30 });
    expect(by.b).toMatchObject({ drawn: 3, attempts: 2, solves: 0, status: 'never_solved' });
    expect(by.g).toMatchObject({
      drawn: 1,
      inProgress: 1,
      attempts: 0,
      status: 'needs_more',
      levels: [{ level: 1 }, { level: 2 }, { level: 3 }],
    });
    expect(v.participants).toMatchObject({
      inProgress: 1,
      finished: 3,
      total: 4,
      live: [{ sessionId: 's4', participant: 'p3', candidate: 'g' }],
    });
    expect(v.rule).toMatch(/^kept when 2 different participants solve it fully/);
    // b and g have too thin a record of their own (2 and 0 settled draws): no estimate, and no
    // other candidate's rate stands in for theirs.
    expect(by.a.needed).toEqual({ state: 'met' });
    expect(by.b.needed).toEqual({ state: 'unknown', reason: 'thin_record', settled: 2 });
    expect(by.g.needed).toEqual({ state: 'unknown', reason: 'thin_record', settled: 0 });
    expect(v.participantsNeeded).toBeNull();
    expect(v.needed).toMatchObject({ participants: null, unknown: 2, atLeast: 0 });
    expect(v.needed.method).toMatch(/never as certain solves/);
  });
});

describe('campaignView of a task edited mid-campaign', () => {
  it('keys its figures by the content hash of the task its submissions were judged on', () => {
    const on = (hash: string, solved: boolean): SessionDigest => {
      const d = digest({ a: solved });
      return { ...d, tasks: { a: { ...d.tasks.a, version: hash } } };
    };
    const v = campaignView({
      studyId: 'st',
      campaignId: null,
      study: study(),
      claims: [claim('s1', 'a', 'attempted', 'p1'), claim('s2', 'a', 'solved', 'p2')],
      counts: new Map([['a', { drawn: 2, attempts: 2, solves: 1, settled: 2 }]]),
      draws: { started: 2, sessions: 2 },
      now: 5,
      gameLevels: () => 3,
      sessions: [
        session('s1', 'p1', on('aaaaaaaaaaaa', false)),
        session('s2', 'p2', on('bbbbbbbbbbbb', true), { createdAt: 1 }),
      ],
    });
    const a = v.candidates.find((c) => c.id === 'a')!;
    expect(a.versions.map((x) => [x.version, x.attempts, x.solves])).toEqual([
      ['s/ta@aaaaaaaaaaaa', 1, 0],
      ['s/ta@bbbbbbbbbbbb', 1, 1],
    ]);
  });
});

describe('payments', () => {
  it('pays per solve and level up to the most, lists apart sessions that do not count, and writes one line per participant', () => {
    const s = study();
    const claims = [
      claim('s1', 'a', 'solved'),
      claim('s2', 'a', 'solved'),
      claim('s2', 'b', 'solved'),
      claim('s3', 'a', 'solved'),
      claim('s4', 'b', 'solved'),
      claim('s5', 'a', 'solved'),
    ];
    const sessions = [
      session('s1', 'p1', digest({}, 2)),
      session('s2', 'p1', digest({}, 0), { flags: ['repeat_participant'] }),
      session('s3', 'p3', digest({}), { flags: ['low_effort'] }),
      session('s4', 'p4', digest({}), { excluded: true }),
      session('s5', 'p5', digest({}), { state: 'abandoned' }),
      session('s6', null, digest({}, 1)),
      session('s7', 'bad,id', digest({}, 1)),
    ];
    const p = paymentsView(s, sessions, claims);
    expect(p.sessions.map((x) => [x.sessionId, x.bonus, x.counts, x.reason ?? ''])).toEqual([
      ['s1', 1.45, true, ''],
      ['s2', 2, true, ''],
      ['s3', 1.25, false, 'flagged'],
      ['s4', 1.25, false, 'excluded'],
      ['s5', 1.25, false, 'not_finished'],
      ['s6', 0.1, false, 'no_participant_id'],
      ['s7', 0.1, false, 'no_participant_id'],
    ]);
    expect(p).toMatchObject({ currency: 'USD', fee: 2, total: 3.45 });
    expect(bonusFile(p)).toBe('p1,3.45\n');
  });
});
