import type { PaymentRecord, PaymentState } from './schemas';

// The payment state machine, pure:
// funding -(fund)-> sending -(complete | fail)-> completed | failed;  funding -(cancel)-> cancelled,
// by the FSP, or by the service once the payment's quote expired unfunded (neverFundable, below).
export const TRANSITIONS = {
  fund: { from: 'funding', to: 'sending' },
  cancel: { from: 'funding', to: 'cancelled' },
  complete: { from: 'sending', to: 'completed' },
  fail: { from: 'sending', to: 'failed' },
} as const satisfies Record<string, { from: PaymentState; to: PaymentState }>;

export type PaymentAction = keyof typeof TRANSITIONS;

// The id of a payment's funding transfer: one funding a payment, however often it is asked for.
export const fundingTransferId = (paymentId: string) => `fund:${paymentId}`;

// What a payment in `state` may do next.
export const actionsFrom = (state: PaymentState): PaymentAction[] => (Object.keys(TRANSITIONS) as PaymentAction[]).filter((a) => TRANSITIONS[a].from === state);

// Its account may be settled back only once nothing is left to send from it.
export const mayWithdraw = (state: PaymentState) => state !== 'funding' && state !== 'sending';

// A payment is funded at its quote's rate only while the quote is valid (`now`: an ISO time).
export const quoteExpired = (p: Pick<PaymentRecord, 'quoteExpiresAt'>, now: string) => p.quoteExpiresAt <= now;

// A payment still in `funding` past its quote's expiry can never be funded: the service cancels it
// (cancelExpiredFundings, lib/payments), as nothing else would take it out of `funding`.
export const neverFundable = (p: Pick<PaymentRecord, 'state' | 'quoteExpiresAt'>, now: string) => p.state === 'funding' && quoteExpired(p, now);
