import { describe, expect, it } from 'vitest';
import {
  type CandidateStanding,
  type DrawPolicy,
  claimCap,
  claimOutcome,
  drawCandidates,
  isRetired,
  participantKey,
} from './draw';
import { parseStudy, poolOf, writtenPath, type StudyDefinitionInput } from './schema';
import { sessionOrder } from './shuffle';

const standing = (id: string, solves = 0, inFlight = 0, met = false, attempts = solves): CandidateStanding => ({
  id,
  solves,
  attempts,
  inFlight,
  met,
});

const FAST: DrawPolicy = { reviseAfter: 10, fill: 'fast' };

describe('drawCandidates', () => {
  it('filling fast, draws those furthest from their target first, counting claims in flight', () => {
    const pool = [standing('a', 1), standing('b', 0, 1), standing('c', 0), standing('d', 0, 2)];
    // need: a 1, b 1, c 2, d 0
    expect(drawCandidates(pool, { solves: 2 }, 1, 7, FAST)).toEqual(['c']);
    expect(drawCandidates(pool, { solves: 2 }, 3, 7, FAST).slice(0, 1)).toEqual(['c']);
    expect(new Set(drawCandidates(pool, { solves: 2 }, 3, 7, FAST).slice(1))).toEqual(new Set(['a', 'b']));
    // Booked in full by sessions in flight, but not yet at target: drawn last, not never.
    expect(drawCandidates(pool, { solves: 2 }, 4, 7, FAST)[3]).toBe('d');
  });

  it('paced, holds no more claims on a candidate than it still needs at its observed rate', () => {
    // One solve short of 5, solved in 4 of 4 settled draws: rate (4+1)/(4+1), so one claim at a time.
    const sure = { ...standing('sure', 4, 0, false, 4), settled: 4 };
    expect(claimCap(sure, { solves: 5 }, 10)).toBe(1);
    expect(drawCandidates([sure], { solves: 5 }, 1, 3)).toEqual(['sure']);
    expect(drawCandidates([{ ...sure, inFlight: 1 }], { solves: 5 }, 1, 3)).toEqual([]);
    // Filling fast, the last solve is handed to every session that asks.
    expect(drawCandidates([{ ...sure, inFlight: 9 }], { solves: 5 }, 1, 3, FAST)).toEqual(['sure']);
    // A candidate never drawn: as many claims as solves it needs.
    expect(claimCap(standing('new'), { solves: 2 }, 10)).toBe(2);
    // Hard, 1 solve in 8 settled draws: rate 2/9, 1 still needed, 5 at once.
    expect(claimCap({ ...standing('hard', 1, 0, false, 8), settled: 8 }, { solves: 2 }, 10)).toBe(5);
    // No solve in 8 attempts: no more at once than the 2 attempts left before it retires.
    expect(claimCap({ ...standing('none', 0, 0, false, 8), settled: 8 }, { solves: 2 }, 10)).toBe(2);
    // Claims in flight count at the rate: c first, then a and b (one solve, or one held at rate 1).
    const pool = [standing('a', 1), standing('b', 0, 1), standing('c', 0)];
    const drawn = drawCandidates(pool, { solves: 2 }, 3, 7);
    expect(drawn[0]).toBe('c');
    expect(new Set(drawn.slice(1))).toEqual(new Set(['a', 'b']));
  });

  it('never draws a candidate attempted reviseAfter times without a solve, filling fast or paced', () => {
    const retired = { ...standing('r', 0, 0, false, 10), settled: 12 };
    const open = { ...standing('o', 0, 0, false, 9), settled: 9 };
    for (const policy of [FAST, { reviseAfter: 10, fill: 'paced' as const }]) {
      expect(drawCandidates([retired, open], { solves: 2 }, 2, 1, policy)).toEqual(['o']);
    }
    expect(isRetired(retired, { solves: 2 }, 10)).toBe(true);
    expect(isRetired(retired, { solves: 2 }, 11)).toBe(false);
    // A solve keeps it in; an attempts target never retires a candidate.
    expect(isRetired({ solves: 1, attempts: 40 }, { solves: 2 }, 10)).toBe(false);
    expect(isRetired({ solves: 0, attempts: 40 }, { attempts: 50 }, 10)).toBe(false);
  });

  it('never draws a candidate at its target or one the participant met', () => {
    const pool = [standing('a', 2), standing('b', 0, 0, true), standing('c', 1), standing('d', 3)];
    expect(drawCandidates(pool, { solves: 2 }, 10, 1)).toEqual(['c']);
    expect(drawCandidates([standing('a', 2), standing('b', 2)], { solves: 2 }, 1, 1)).toEqual([]);
  });

  it('counts attempts for an attempts target', () => {
    const pool = [standing('a', 0, 0, false, 3), standing('b', 1, 0, false, 1)];
    expect(drawCandidates(pool, { attempts: 3 }, 2, 5)).toEqual(['b']);
  });

  it('breaks ties by the seed: reproducible, and every candidate comes first for some seed', () => {
    const pool = ['a', 'b', 'c', 'd', 'e'].map((id) => standing(id));
    expect(drawCandidates(pool, { solves: 2 }, 5, 42)).toEqual(drawCandidates(pool, { solves: 2 }, 5, 42));
    const firsts = new Set(Array.from({ length: 200 }, (_, seed) => drawCandidates(pool, { solves: 2 }, 1, seed)[0]));
    expect(firsts).toEqual(new Set(['a', 'b', 'c', 'd', 'e']));
  });

  it('balances: sessions drawing one after another spread over the pool before any candidate gets a second claim', () => {
    const claims = new Map<string, number>(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => [id, 0]));
    for (let seed = 0; seed < 6; seed++) {
      const [id] = drawCandidates(
        [...claims].map(([id, n]) => standing(id, 0, n)),
        { solves: 2 },
        1,
        seed,
      );
      claims.set(id, claims.get(id)! + 1);
    }
    expect([...claims.values()]).toEqual([1, 1, 1, 1, 1, 1]);
  });
});

describe('participantKey', () => {
  it('takes the Prolific id, then the MTurk worker id, then a participantId', () => {
    expect(participantKey({ PROLIFIC_PID: 'p', workerId: 'w' })).toBe('prolific:p');
    expect(participantKey({ workerId: 'w', participantId: 'x' })).toBe('worker:w');
    expect(participantKey({ participantId: 'x' })).toBe('participant:x');
    expect(participantKey({ STUDY_ID: 's' })).toBeNull();
  });
});

describe('claimOutcome', () => {
  const base = {
    id: 'c',
    kind: 'task' as const,
    practice: false,
    started: true,
    startedAt: 0,
    finished: true,
    actions: 4,
    durationMs: 1000,
    activeMs: 1000,
  };
  it('solved, attempted, released or skipped', () => {
    const levels = () => 3;
    expect(claimOutcome(undefined, levels, null)).toBe('skipped');
    expect(claimOutcome({ ...base, started: false, counts: false }, levels, null)).toBe('skipped');
    expect(
      claimOutcome({ ...base, counts: true, tests: [{ testIndex: 0, solved: true, trialsUsed: 1 }] }, levels, null),
    ).toBe('solved');
    expect(
      claimOutcome({ ...base, counts: true, tests: [{ testIndex: 0, solved: false, trialsUsed: 3 }] }, levels, null),
    ).toBe('attempted');
    expect(
      claimOutcome({ ...base, counts: false, tests: [{ testIndex: 0, solved: false, trialsUsed: 0 }] }, levels, null),
    ).toBe('released');
    const game = (levelsCompleted: number, verified = true) => ({
      ...base,
      kind: 'game' as const,
      counts: true,
      game: {
        verified,
        status: verified ? ('verified' as const) : ('unverified' as const),
        levelsCompleted,
        flags: [],
      },
    });
    expect(claimOutcome(game(3), levels, 'push')).toBe('solved');
    expect(claimOutcome(game(2), levels, 'push')).toBe('attempted');
    expect(claimOutcome(game(3, false), levels, 'push')).toBe('attempted');
  });
});

const campaignStudy: StudyDefinitionInput = {
  title: 'Campaign',
  consent: 'ok',
  completion: { code: 'C' },
  items: [
    { kind: 'page', id: 'intro', markdown: 'hi' },
    {
      kind: 'pool',
      id: 'tasks',
      draw: 2,
      candidates: [
        { kind: 'task', id: 'c1', collection: 'samples', task: 'a' },
        { kind: 'task', id: 'c2', collection: 'samples', task: 'b' },
        { kind: 'game', id: 'c3', game: 'push' },
      ],
    },
    { kind: 'survey', id: 'end', questions: [{ id: 'q', prompt: 'How was it?', type: 'text' }] },
  ],
};

describe('pools in a study', () => {
  it('runs a pool as its candidates, in place, with a default target of 2 solves', () => {
    const parsed = parseStudy(campaignStudy);
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const { study, written } = parsed;
    expect(written.items.map((i) => i.kind)).toEqual(['page', 'pool', 'survey']);
    expect(study.items.map((i) => i.id)).toEqual(['intro', 'c1', 'c2', 'c3', 'end']);
    expect(study.pools).toEqual([
      {
        id: 'tasks',
        title: '',
        index: 1,
        candidates: [1, 2, 3],
        draw: 2,
        target: { solves: 2 },
        reviseAfter: 10,
        fill: 'paced',
      },
    ]);
    expect(poolOf(study, 2)?.id).toBe('tasks');
    expect(poolOf(study, 4)).toBeNull();
    expect(writtenPath(study, 3)).toBe('items[1].candidates[2]');
    expect(writtenPath(study, 4)).toBe('items[2]');
  });

  it('puts the drawn candidates where the pool is, and nothing when none was drawn', () => {
    const parsed = parseStudy(campaignStudy);
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    expect(sessionOrder(parsed.study, 1, new Map([['tasks', [3, 1]]]))).toEqual([0, 3, 1, 4]);
    expect(sessionOrder(parsed.study, 1)).toEqual([0, 4]);
  });

  it('refuses a candidate id used elsewhere in the study, naming where', () => {
    const dup = {
      ...campaignStudy,
      items: [...campaignStudy.items, { kind: 'task', id: 'c2', collection: 'samples', task: 'x' }],
    } as StudyDefinitionInput;
    const parsed = parseStudy(dup);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(parsed.problems).toEqual([
        'items[3].id: "c2" is used by an earlier item or candidate; item and candidate ids must be unique',
      ]);
    const page = parseStudy({
      ...campaignStudy,
      items: [{ kind: 'pool', id: 'p', draw: 1, candidates: [{ kind: 'page', id: 'x', markdown: 'no' }] }],
    });
    expect(page.ok).toBe(false);
  });
});
