import { describe, expect, it } from 'vitest';
import { PoolItem, Payment, parseStudy } from '../../core/study/schema';
import { studyFieldProblems } from '../../core/study/fieldProblems';
import {
  candidateId,
  editorFieldProblems,
  makeCandidate,
  paymentProblems,
  poolProblems,
  sourceKey,
  type CandidateSource,
  type PoolInput,
} from './pool';

const sources: CandidateSource[] = [
  { kind: 'task', collection: 'arc-agi-1', task: 'evaluation/00576224' },
  { kind: 'game', game: 'push' },
  { kind: 'question', collection: 'science', question: 'q 1' },
];

function pool(over: Partial<PoolInput> = {}): PoolInput {
  const used = new Set<string>();
  return {
    kind: 'pool',
    id: 'pool-1',
    title: '',
    candidates: sources.map((s) => makeCandidate(s, candidateId(s, used))),
    draw: 2,
    target: { solves: 2 },
    ...over,
  };
}

describe('the pool the editor writes', () => {
  it('is a pool of the study format, with candidates written as the other items are', () => {
    const p = pool();
    expect(PoolItem.safeParse(p).success).toBe(true);
    expect(p.candidates).toEqual([
      { kind: 'task', id: 'evaluation-00576224', collection: 'arc-agi-1', task: 'evaluation/00576224' },
      { kind: 'game', id: 'push', game: 'push', seed: 0 },
      { kind: 'question', id: 'q-1', collection: 'science', question: 'q 1' },
    ]);
    const study = parseStudy({
      title: 'T',
      consent: 'C',
      completion: { code: 'X' },
      items: [{ kind: 'page', id: 'push-2', markdown: 'hi' }, p],
    });
    expect(study.ok).toBe(true);
  });

  it('gives each new candidate an id no other item or candidate has', () => {
    const used = new Set(['push', 'push-2']);
    expect(candidateId({ kind: 'game', game: 'push' }, used)).toBe('push-3');
    expect(candidateId({ kind: 'task', collection: 'c', task: '__' }, used)).toBe('task');
    expect(candidateId({ kind: 'task', collection: 'c', task: 'x'.repeat(100) }, used)).toMatch(/^x{56}$/);
    expect(sourceKey({ kind: 'task', collection: 'c', task: 't' })).not.toBe(
      sourceKey({ kind: 'question', collection: 'c', question: 't' }),
    );
  });

  it('names the field of every problem the study format would refuse, in words', () => {
    expect(poolProblems(pool())).toEqual({});
    expect(poolProblems(pool({ candidates: [] })).candidates).toMatch(/^Add at least one candidate/);
    expect(poolProblems(pool({ draw: 0 })).draw).toMatch(/whole number from 1 to 500/);
    expect(poolProblems(pool({ draw: Number.NaN })).draw).toBeDefined();
    expect(poolProblems(pool({ draw: 'time' })).draw).toBeUndefined();
    expect(poolProblems(pool({ target: { attempts: 0 } })).target).toMatch(/1 to 1,000/);
    expect(poolProblems(pool({ minMinutesLeft: -1 })).minMinutesLeft).toMatch(/more than 0/);
    const twice = pool();
    twice.candidates.push({ ...twice.candidates[0] });
    expect(poolProblems(twice).candidates).toMatch(/Two candidates have the id “evaluation-00576224”/);
    // Whatever the editor lets through, the schema takes; whatever it stops, the schema refuses.
    for (const p of [
      pool({ draw: 0 }),
      pool({ target: { solves: 1001 } }),
      pool({ minMinutesLeft: 0 }),
      pool({ candidates: [] }),
    ]) {
      expect(Object.keys(poolProblems(p)).length).toBeGreaterThan(0);
      expect(PoolItem.safeParse(p).success).toBe(false);
    }
  });

  it('checks the payment and the campaign id as the study format does', () => {
    expect(paymentProblems(undefined, undefined)).toEqual({});
    expect(
      paymentProblems({ currency: 'GBP', fee: 3, bonus: { perSolve: 0.5, perLevel: 0 } }, 'arc3-calibration'),
    ).toEqual({});
    const bad = paymentProblems(
      { currency: 'gb', fee: -1, bonus: { perSolve: 2000, perLevel: 0, max: Number.NaN } },
      'Not An Id',
    );
    expect(Object.keys(bad).sort()).toEqual(['campaign', 'currency', 'fee', 'max', 'perSolve']);
    expect(Payment.safeParse({ currency: 'gb' }).success).toBe(false);
    expect(Payment.safeParse({ currency: 'GBP', fee: 3, bonus: { perSolve: 0.5, perLevel: 0 } }).success).toBe(true);
  });

  it('ties each pool and payment problem to the field the study format names', () => {
    const def = {
      title: 'T',
      consent: 'C',
      completion: { code: 'X' },
      campaign: { id: 'Not An Id' },
      payment: { currency: 'GBP', fee: -1, bonus: { perSolve: 0.5, perLevel: 0 } },
      items: [{ kind: 'page' as const, id: 'p', markdown: 'hi' }, pool({ draw: 0 })],
    };
    const own = editorFieldProblems(def);
    expect(own.map((p) => p.path)).toEqual(['items[1].draw', 'campaign.id', 'payment.fee']);
    const schema = studyFieldProblems(def).map((p) => p.path);
    for (const p of own) expect(schema).toContain(p.path);
    expect(editorFieldProblems({ ...def, campaign: undefined, payment: undefined, items: [pool()] })).toEqual([]);
  });
});
