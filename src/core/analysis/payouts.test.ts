import { describe, expect, it } from 'vitest';
import { payoutCsv, payoutSheet } from './payouts';
import { paymentsView, type CampaignClaim, type CampaignSession } from './campaign';
import { parseCsv } from '../formats/csv';
import { parseStudy } from '../study/schema';

const study = (() => {
  const r = parseStudy({
    id: 'centre',
    title: 'Centre',
    consent: 'ok',
    completion: { code: 'DONE' },
    payment: { currency: 'USD', fee: 130, bonus: { perSolve: 5, max: 12 } },
    items: [{ kind: 'pool', id: 'p', draw: 1, candidates: [{ kind: 'task', id: 'x', collection: 'c', task: 't' }] }],
  });
  if (!r.ok) throw new Error(r.problems.join('\n'));
  return r.study;
})();

const session = (id: string, participantId: string, state: string, extra: Partial<CampaignSession> = {}) =>
  ({
    id,
    params: { participantId },
    state,
    inFlight: false,
    excluded: false,
    createdAt: 0,
    digest: null,
    current: null,
    flags: [],
    ...extra,
  }) as CampaignSession;
const solved = (sessionId: string, n: number): CampaignClaim[] =>
  Array.from({ length: n }, (_, i) => ({
    sessionId,
    candidate: `c${i}`,
    participant: null,
    state: 'solved',
    excluded: false,
    inFlight: false,
  }));

describe('the payout sheet', () => {
  const payments = paymentsView(
    study,
    [
      session('a', 'p1', 'finished'),
      session('b', 'p2', 'finished'),
      session('c', 'p3', 'active'),
      session('d', 'p4', 'finished', { flags: ['low_effort'] }),
    ],
    [...solved('a', 1), ...solved('b', 3), ...solved('c', 2), ...solved('d', 1)],
  );
  const sheet = payoutSheet(payments, [
    { sessionId: 'a', participant: 'p1', station: 'A', checkedInAt: 0 },
    { sessionId: 'b', participant: 'p2', station: 'B', checkedInAt: 1 },
    { sessionId: 'c', participant: 'p3', station: 'A', checkedInAt: 2 },
    { sessionId: 'd', participant: 'p4', station: 'C', checkedInAt: 3 },
  ]);

  it('pays the fee to everyone seated and the bonus by the bonus file’s rule, capped at its max', () => {
    expect(sheet.slips.map((s) => [s.participant, s.fee, s.solves, s.bonus, s.total])).toEqual([
      ['p1', 130, 1, 5, 135],
      ['p2', 130, 3, 12, 142],
      ['p3', 130, 2, 0, 130],
      ['p4', 130, 1, 0, 130],
    ]);
    expect(sheet.slips[2].withheld).toMatch(/not finished/);
    expect(sheet.slips[3].withheld).toMatch(/flagged/);
    expect(sheet.totals).toEqual({ fee: 520, bonus: 17, total: 537 });
  });

  it('writes a CSV whose lines add up to its totals line', () => {
    const rows = parseCsv(payoutCsv(sheet));
    expect(rows[0]).toEqual([
      'participant_id',
      'station',
      'checked_in_at',
      'session_id',
      'currency',
      'fee',
      'solves',
      'levels',
      'bonus',
      'total',
      'withheld',
    ]);
    const body = rows.slice(1, -1);
    const last = rows[rows.length - 1];
    expect(body).toHaveLength(4);
    expect(last[0]).toBe('TOTAL');
    expect(body.reduce((n, r) => n + Number(r[9]), 0)).toBe(Number(last[9]));
    expect(Number(last[9])).toBe(537);
  });
});
