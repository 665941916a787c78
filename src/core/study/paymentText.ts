import type { Payment } from './schema';

/** What a participant is told a study pays: `Payment` without what only the bonus file needs. */
export interface PaymentOffer {
  readonly currency: string;
  readonly fee: number;
  readonly bonus: { readonly perSolve: number; readonly perLevel: number; readonly max?: number };
}

/** The offer a study makes, or null when it pays nothing (no payment, or every amount 0). */
export function paymentOffer(payment: Payment | undefined): PaymentOffer | null {
  if (!payment) return null;
  const { currency, fee, bonus } = payment;
  if (fee === 0 && bonus.perSolve === 0 && bonus.perLevel === 0) return null;
  return {
    currency,
    fee,
    bonus: {
      perSolve: bonus.perSolve,
      perLevel: bonus.perLevel,
      ...(bonus.max !== undefined ? { max: bonus.max } : {}),
    },
  };
}

/**
 * The offer in one sentence for the consent page, amounts in the study's currency.
 * @example paymentSentence({ currency: 'GBP', fee: 3, bonus: { perSolve: 0.5, perLevel: 0 } })
 * // "You are paid £3.00 for taking part, and a bonus of £0.50 for each puzzle you solve."
 */
export function paymentSentence(offer: PaymentOffer): string {
  const money = (n: number) =>
    new Intl.NumberFormat('en-GB', { style: 'currency', currency: offer.currency }).format(n);
  const bonuses = [
    offer.bonus.perSolve > 0 ? `${money(offer.bonus.perSolve)} for each puzzle you solve` : null,
    offer.bonus.perLevel > 0 ? `${money(offer.bonus.perLevel)} for each game level you complete` : null,
  ].filter((b): b is string => b !== null);
  const cap = offer.bonus.max !== undefined && bonuses.length ? ` (at most ${money(offer.bonus.max)} in bonuses)` : '';
  const bonusText = bonuses.length ? `a bonus of ${bonuses.join(' and ')}${cap}` : '';
  if (offer.fee > 0) return `You are paid ${money(offer.fee)} for taking part${bonusText ? `, and ${bonusText}` : ''}.`;
  return `You are paid ${bonusText}.`;
}
