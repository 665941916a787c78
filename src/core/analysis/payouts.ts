/**
 * A testing centre's check-out: each participant's payout slip and the day's payout sheet, from
 * the study's payment rule as `paymentsView` applies it for the Prolific bonus file
 * (`campaign.ts`), so the centre and the platform pay by one rule:
 *
 * - the fee is paid for every session begun at the centre (the participant came and sat down);
 * - the bonus is `paymentsView`'s: per candidate solved and per game level completed, at most
 *   the rule's `max`, and only for a session that counts there (finished or out of time, not
 *   excluded, not flagged); a session that does not count is listed with its bonus at 0 and the
 *   reason;
 * - the total is fee plus bonus, in the study's currency, to the cent.
 */
import type { PaymentsView } from '../protocol/campaign';
import { csvRecord } from '../formats/csv';
import { isoTimestamp } from '../formats/recording';

/** A session begun at the centre, as the check-in recorded it. */
export interface CentreCheckin {
  readonly sessionId: string;
  readonly participant: string;
  readonly station: string;
  readonly checkedInAt: number;
}

/** One participant's payout slip. */
export interface PayoutSlip {
  readonly sessionId: string;
  readonly participant: string;
  readonly station: string;
  readonly checkedInAt: number;
  readonly currency: string;
  readonly fee: number;
  /** Candidates solved, as the bonus rule counts them. */
  readonly solves: number;
  readonly levels: number;
  readonly bonus: number;
  readonly total: number;
  /** Why no bonus is paid, when the session does not count for one. */
  readonly withheld?: string;
}

export interface PayoutSheet {
  readonly currency: string;
  readonly slips: readonly PayoutSlip[];
  readonly totals: { readonly fee: number; readonly bonus: number; readonly total: number };
}

const cents = (x: number): number => Math.round(x * 100) / 100;

const WITHHELD: Record<string, string> = {
  excluded: 'session excluded by the researcher',
  flagged: 'session flagged: the researcher decides',
  not_finished: 'session not finished yet',
  no_participant_id: 'no participant id the bonus rule can use',
};

/**
 * The slips of the given check-ins (in their order) and their totals, from the study's payments.
 *
 * @example
 * payoutSheet({ currency: 'USD', fee: 130, total: 10, sessions: [
 *   { sessionId: 's', participant: 'p1', solved: 2, levels: 0, bonus: 10, counts: true }] },
 *   [{ sessionId: 's', participant: 'p1', station: 'A', checkedInAt: 0 }],
 * ).totals // { fee: 130, bonus: 10, total: 140 }
 */
export function payoutSheet(payments: PaymentsView, checkins: readonly CentreCheckin[]): PayoutSheet {
  const bySession = new Map(payments.sessions.map((p) => [p.sessionId, p]));
  const slips = checkins.map((c): PayoutSlip => {
    const p = bySession.get(c.sessionId);
    const bonus = p?.counts ? cents(p.bonus) : 0;
    const reason = p ? p.reason : 'not_finished';
    return {
      sessionId: c.sessionId,
      participant: c.participant,
      station: c.station,
      checkedInAt: c.checkedInAt,
      currency: payments.currency,
      fee: cents(payments.fee),
      solves: p?.solved ?? 0,
      levels: p?.levels ?? 0,
      bonus,
      total: cents(payments.fee + bonus),
      ...(reason ? { withheld: WITHHELD[reason] ?? reason } : {}),
    };
  });
  const sum = (f: (s: PayoutSlip) => number) => cents(slips.reduce((n, s) => n + f(s), 0));
  return {
    currency: payments.currency,
    slips,
    totals: { fee: sum((s) => s.fee), bonus: sum((s) => s.bonus), total: sum((s) => s.total) },
  };
}

/** The sheet as CSV: a header, one line per slip, and a last line of totals. */
export function payoutCsv(sheet: PayoutSheet): string {
  let out = csvRecord([
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
  for (const s of sheet.slips)
    out += csvRecord([
      s.participant,
      s.station,
      isoTimestamp(s.checkedInAt),
      s.sessionId,
      s.currency,
      s.fee.toFixed(2),
      s.solves,
      s.levels,
      s.bonus.toFixed(2),
      s.total.toFixed(2),
      s.withheld ?? '',
    ]);
  out += csvRecord([
    'TOTAL',
    '',
    '',
    '',
    sheet.currency,
    sheet.totals.fee.toFixed(2),
    '',
    '',
    sheet.totals.bonus.toFixed(2),
    sheet.totals.total.toFixed(2),
    '',
  ]);
  return out;
}
