import { describe, expect, it } from 'vitest';
import { paymentOffer, paymentSentence } from './paymentText';

const pay = (fee: number, perSolve: number, perLevel: number, max?: number) => ({
  currency: 'GBP',
  fee,
  bonus: { perSolve, perLevel, ...(max !== undefined ? { max } : {}) },
});

describe('what a study pays, as a participant reads it', () => {
  it('is nothing for a study without payment or with every amount 0', () => {
    expect(paymentOffer(undefined)).toBeNull();
    expect(paymentOffer(pay(0, 0, 0))).toBeNull();
  });

  it.each([
    [pay(3, 0.5, 0), 'You are paid £3.00 for taking part, and a bonus of £0.50 for each puzzle you solve.'],
    [pay(3, 0, 0), 'You are paid £3.00 for taking part.'],
    [
      pay(2.5, 0.5, 0.1, 4),
      'You are paid £2.50 for taking part, and a bonus of £0.50 for each puzzle you solve and £0.10 for each game level you complete (at most £4.00 in bonuses).',
    ],
    [pay(0, 0, 0.25), 'You are paid a bonus of £0.25 for each game level you complete.'],
  ])('%o reads "%s"', (payment, text) => {
    expect(paymentSentence(paymentOffer(payment)!)).toBe(text);
  });

  it('uses the study currency', () => {
    expect(paymentSentence({ currency: 'USD', fee: 5, bonus: { perSolve: 0, perLevel: 0 } })).toBe(
      'You are paid US$5.00 for taking part.',
    );
  });
});
