import type { PaymentState } from './schemas';

// The payment state machine, pure:
// funding -(fund)-> sending -(complete | fail)-> completed | failed;  funding -(cancel)-> cancelled.
export const TRANSITIONS = {
  fund: { from: 'funding', to: 'sending' },
  cancel: { from: 'funding', to: 'cancelled' },
  complete: { from: 'sending', to: 'completed' },
  fail: { from: 'sending', to: 'failed' },
} as const satisfies Record<string, { from: PaymentState; to: PaymentState }>;

export type PaymentAction = keyof typeof TRANSITIONS;

// What a payment in `state` may do next.
export const actionsFrom = (state: PaymentState): PaymentAction[] => (Object.keys(TRANSITIONS) as PaymentAction[]).filter((a) => TRANSITIONS[a].from === state);

// Its account may be settled back only once nothing is left to send from it.
export const mayWithdraw = (state: PaymentState) => state !== 'funding' && state !== 'sending';
