import type { Node } from '../node';
import type { IntentRecord } from '../payment-intents/schemas';
import type { PaymentRecord } from './schemas';

// A payment method: how a funded payment (state `sending`) reaches its receiver. Two exist: local,
// to a payment intent of this node (./local.ts), and Interledger, to an incoming payment on
// another node through a peer (./interledger.ts). The payment worker (./deliver.ts) picks one by
// the payment's quote and knows nothing else of either; a new method is one more implementation.
export type SendOutcome = 'completed' | 'failed' | 'skipped' | 'continued';

export interface PaymentMethod {
  // Sends the payment, as one attempt (`attempt` names it: the queue message's id). Ends it
  // completed or failed, or leaves it for a later attempt ('continued', or by throwing to retry).
  // `read`: what the worker read beside the payment (a local payment's message names its intent,
  // so that both are read at once); a method reads what it lacks itself.
  send(node: Node, payment: PaymentRecord, attempt: string, read?: { intent: IntentRecord | undefined }): Promise<SendOutcome>;
  // The last attempt failed: end the payment, its funds left to withdraw.
  giveUp(node: Node, payment: PaymentRecord, attempt: string): Promise<void>;
}
