/**
 * Paying a study's bonuses through Prolific, so that retries, double clicks, two servers and a
 * crash anywhere never pay anyone twice and never leave anyone out. Prolific's pay is not
 * idempotent (a second pay of one bulk bonus pays everyone in it again), so every step is
 * written down before the next is taken (`prolific_bonus_batches`, migration 18):
 *
 * 1. Under the study's pay lock (one pay at a time, on any server: `withPayLock`), bulk bonuses
 *    left half-way by an earlier call are finished first: `intent` (the server stopped before
 *    Prolific answered the set-up: at most an unpaid bulk bonus exists there, which nobody pays)
 *    becomes `failed` and its lines are owed again; `created` (set up, pay never sent) is paid;
 *    `paying` and `unconfirmed` (pay sent, answer never seen) are confirmed from the submissions'
 *    `bonus_payments` on Prolific, and never paid again.
 * 2. What the bonus file owes each participant, less what batches not `failed` hold for them, is
 *    owed now. Participants without a submission in the Prolific study are named, not sent (a
 *    bulk bonus naming one is refused whole).
 * 3. Per 200 participants: the intent with its lines is stored, Prolific sets up the bulk bonus,
 *    its id is stored (`created`), the batch is marked `paying`, the pay is sent once, and the
 *    batch is marked `paid`. A pay refused (4xx) goes back to `created` with the error; a pay that
 *    met no answer (or a 5xx) is confirmed as in step 1.
 */
import { randomUUID } from 'node:crypto';
import { committedCents } from '../../core/analysis/ledger';
import type { BonusBatch, BonusLine, ProlificStore } from '../store/prolificStore';
import { type ProlificClient, ProlificError } from './client';

/** Most participants in one bulk bonus. */
export const BULK_MAX = 200;

/** Points where a test may stop the server (`ARC_STUDIO_FAULT_PROLIFIC`). */
export type PayFaultPoint = 'after-create' | 'after-pay';

export interface PayDeps {
  readonly store: { readonly prolific: ProlificStore };
  readonly client: ProlificClient;
  readonly now: () => number;
  /** Called at each fault point; a test's hook ends the process there. */
  readonly fault?: (point: PayFaultPoint) => void;
}

export interface PayOutcome {
  readonly paidParticipants: number;
  readonly paidCents: number;
  readonly notOnProlific: string[];
  readonly errors: string[];
}

/** Pays what `owed` (cents by participant) holds beyond the ledger, for one study. */
export async function payBonuses(
  deps: PayDeps,
  study: { readonly id: string; readonly prolificStudyId: string },
  owed: ReadonlyMap<string, number>,
): Promise<PayOutcome> {
  const { store } = deps;
  return store.prolific.withPayLock(study.id, async () => {
    const out = { paidParticipants: 0, paidCents: 0, notOnProlific: [] as string[], errors: [] as string[] };
    const paidNow = (b: Pick<BonusBatch, 'lines'>) => {
      out.paidParticipants += b.lines.length;
      out.paidCents += b.lines.reduce((n, l) => n + l.cents, 0);
    };
    for (const b of await store.prolific.batches(study.id)) {
      if (b.state === 'intent')
        await store.prolific.setBatch(b.id, 'failed', deps.now(), {
          error: 'Stopped before Prolific set it up; its participants are paid by a later bulk bonus.',
        });
      else if (b.state === 'created') {
        if (await pay(deps, b, out.errors)) paidNow(b);
      } else if (b.state === 'paying' || b.state === 'unconfirmed') {
        if (await confirm(deps, b, out.errors)) paidNow(b);
      }
    }

    const committed = committedCents(await store.prolific.batches(study.id));
    const due = [...owed]
      .map(([participantId, cents]) => ({ participantId, cents: cents - (committed.get(participantId) ?? 0) }))
      .filter((x) => x.cents > 0)
      .sort((a, b) => (a.participantId < b.participantId ? -1 : 1));
    if (!due.length) return out;

    let submissions: Map<string, string>;
    try {
      // The latest submission of each participant: what Prolific pays a participant id through.
      submissions = new Map(
        (await deps.client.studySubmissions(study.prolificStudyId)).map((s) => [s.participantId, s.id] as const),
      );
    } catch (e) {
      out.errors.push(`Could not read the Prolific study's submissions: ${(e as Error).message} Nothing was paid.`);
      return out;
    }
    const lines: BonusLine[] = [];
    for (const d of due) {
      const submissionId = submissions.get(d.participantId);
      if (submissionId === undefined) out.notOnProlific.push(d.participantId);
      else lines.push({ participantId: d.participantId, submissionId, cents: d.cents });
    }
    for (let k = 0; k < lines.length; k += BULK_MAX) {
      const batch = {
        id: randomUUID(),
        studyId: study.id,
        prolificStudyId: study.prolificStudyId,
        lines: lines.slice(k, k + BULK_MAX),
      };
      await store.prolific.addBatch(batch, deps.now());
      let bulkId: string;
      try {
        bulkId = (
          await deps.client.createBulkBonus(
            study.prolificStudyId,
            batch.lines.map((l) => ({ id: l.participantId, cents: l.cents })),
          )
        ).id;
      } catch (e) {
        await store.prolific.setBatch(batch.id, 'failed', deps.now(), { error: (e as Error).message });
        out.errors.push(`Prolific did not set up a bulk bonus: ${(e as Error).message}`);
        continue;
      }
      await store.prolific.setBatch(batch.id, 'created', deps.now(), { bulkId });
      deps.fault?.('after-create');
      if (await pay(deps, { ...batch, bulkId }, out.errors)) paidNow(batch);
    }
    return out;
  });
}

/** Sends the pay of a `created` batch once; true when Prolific took it. */
async function pay(
  deps: PayDeps,
  b: Pick<BonusBatch, 'id' | 'bulkId' | 'lines' | 'studyId'>,
  errors: string[],
): Promise<boolean> {
  const { store } = deps;
  // Written before the pay is sent: a server that stops now leaves `paying`, which is confirmed, never sent again.
  await store.prolific.setBatch(b.id, 'paying', deps.now());
  try {
    await deps.client.payBulkBonus(b.bulkId!);
  } catch (e) {
    if (e instanceof ProlificError && !e.maybeDone) {
      await store.prolific.setBatch(b.id, 'created', deps.now(), { error: e.message });
      errors.push(`Prolific did not pay bulk bonus ${b.bulkId}: ${e.message} Press "Pay bonuses" again to retry.`);
      return false;
    }
    return confirm(deps, b, errors);
  }
  deps.fault?.('after-pay');
  await store.prolific.setBatch(b.id, 'paid', deps.now(), { error: null });
  return true;
}

/**
 * Whether a batch whose pay was sent without an answer seen was paid: a line's bonus shows on the
 * participant's submission more often than the batches known paid account for. Prolific pays a
 * bulk bonus whole or not at all, so one line is enough. Not seen: `unconfirmed`, checked again
 * by the next call and never paid again here.
 */
async function confirm(
  deps: PayDeps,
  b: Pick<BonusBatch, 'id' | 'bulkId' | 'lines' | 'studyId'>,
  errors: string[],
): Promise<boolean> {
  const { store } = deps;
  const paid = (await store.prolific.batches(b.studyId)).filter((x) => x.state === 'paid' && x.id !== b.id);
  for (const l of b.lines) {
    if (!l.submissionId) continue;
    const known = paid.flatMap((x) => x.lines).filter((x) => x.submissionId === l.submissionId && x.cents === l.cents);
    try {
      const s = await deps.client.submission(l.submissionId);
      if ((s.bonusPayments ?? []).filter((c) => c === l.cents).length > known.length) {
        await store.prolific.setBatch(b.id, 'paid', deps.now(), { error: null });
        return true;
      }
    } catch (e) {
      errors.push(`Could not check bulk bonus ${b.bulkId} on Prolific: ${(e as Error).message}`);
      break;
    }
  }
  const error = `The pay of bulk bonus ${b.bulkId} was sent but no answer came, and Prolific shows no sign of it yet (its bonuses are paid within minutes). It is checked again at the next "Pay bonuses" and never sent twice; if it never shows, check the study's bonuses on Prolific.`;
  await store.prolific.setBatch(b.id, 'unconfirmed', deps.now(), { error });
  errors.push(error);
  return false;
}
