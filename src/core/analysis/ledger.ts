/**
 * The bonus ledger: what the bonus file owes each participant against the bulk bonuses paid
 * through Prolific. Pure; the server reads the batches (`store.prolific`). Amounts are whole
 * cents inside, the currency's units (two decimals) outside.
 */
import type { LedgerBatch, LedgerParticipant, PaymentLedger, PaymentsView } from '../protocol/campaign';

/** A bulk bonus as the ledger reads it. */
export interface LedgerInputBatch {
  readonly id: string;
  readonly bulkId: string | null;
  readonly state: LedgerBatch['state'];
  readonly error: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lines: readonly {
    readonly participantId: string;
    readonly submissionId: string | null;
    readonly cents: number;
  }[];
}

/** What the bonus file owes each participant, in cents (the sessions that count, summed; none for zero). */
export function owedCents(payments: PaymentsView): Map<string, number> {
  const per = new Map<string, number>();
  for (const p of payments.sessions)
    if (p.counts && p.participant !== null) per.set(p.participant, (per.get(p.participant) ?? 0) + p.bonus);
  const out = new Map<string, number>();
  for (const [id, amount] of per) {
    const cents = Math.round(amount * 100);
    if (cents > 0) out.set(id, cents);
  }
  return out;
}

/** Cents a participant holds in batches that may pay or have paid (all but `failed`). */
export function committedCents(batches: readonly LedgerInputBatch[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const b of batches)
    if (b.state !== 'failed')
      for (const l of b.lines) out.set(l.participantId, (out.get(l.participantId) ?? 0) + l.cents);
  return out;
}

const units = (cents: number) => Math.round(cents) / 100;

/** The ledger: every participant owed a bonus or named in a bulk bonus, in id order. */
export function ledgerView(
  owed: ReadonlyMap<string, number>,
  batches: readonly LedgerInputBatch[],
  prolificStudyId: string | null,
): PaymentLedger {
  type Acc = { paid: number; pending: number; unconfirmed: number; submission: string | null; bulks: string[] };
  const acc = new Map<string, Acc>();
  const of = (id: string) => {
    let a = acc.get(id);
    if (!a) acc.set(id, (a = { paid: 0, pending: 0, unconfirmed: 0, submission: null, bulks: [] }));
    return a;
  };
  for (const id of owed.keys()) of(id);
  for (const b of batches) {
    if (b.state === 'failed') continue;
    for (const l of b.lines) {
      const a = of(l.participantId);
      if (b.state === 'paid') a.paid += l.cents;
      else if (b.state === 'unconfirmed') a.unconfirmed += l.cents;
      else a.pending += l.cents;
      a.submission = l.submissionId ?? a.submission;
      if (b.bulkId) a.bulks.push(b.bulkId);
    }
  }
  const participants: LedgerParticipant[] = [...acc]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, a]) => {
      const amount = owed.get(id) ?? 0;
      const paid = a.paid >= amount && amount > 0;
      return {
        participant_id: id,
        amount: units(amount),
        paid,
        paid_amount: units(a.paid),
        pending_amount: units(a.pending + a.unconfirmed),
        state: paid ? 'paid' : a.unconfirmed ? 'unconfirmed' : a.pending ? 'pending' : 'unpaid',
        submission_id: a.submission,
        bulk_bonus_ids: [...new Set(a.bulks)],
      };
    });
  const unpaid = participants.reduce(
    (n, p) => n + Math.max(0, Math.round(p.amount * 100) - Math.round((p.paid_amount + p.pending_amount) * 100)),
    0,
  );
  return {
    prolific_study_id: prolificStudyId,
    participants,
    batches: batches.map((b) => ({
      id: b.id,
      bulk_bonus_id: b.bulkId,
      state: b.state,
      participants: b.lines.length,
      amount: units(b.lines.reduce((n, l) => n + l.cents, 0)),
      error: b.error,
      created_at: b.createdAt,
      updated_at: b.updatedAt,
    })),
    unpaid: units(unpaid),
  };
}

/** The ledger as CSV: a header, then one line per participant (ids are letters, digits, "_" and "-"). */
export function ledgerCsv(ledger: PaymentLedger): string {
  const head = 'participant_id,amount,paid,paid_amount,pending_amount,state,submission_id,bulk_bonus_ids\n';
  return (
    head +
    ledger.participants
      .map(
        (p) =>
          `${p.participant_id},${p.amount.toFixed(2)},${p.paid},${p.paid_amount.toFixed(2)},${p.pending_amount.toFixed(2)},${p.state},${p.submission_id ?? ''},${p.bulk_bonus_ids.join(' ')}\n`,
      )
      .join('')
  );
}
