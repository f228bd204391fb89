import { noteLiquidityTaken } from '../../assets';
import { account, balanceOf, blindThenRead, insufficient, isInsufficient, type Leg, TOO_LARGE, TRANSFER_EXISTS, transfer } from '../../ledger';
import { creditIntent, findIntent } from '../../payment-intents';
import type { IntentRecord } from '../../payment-intents/schemas';
import { event } from '../../platform/events';
import { countPayment } from '../../platform/metrics';
import { feeOf } from '../../quotes';
import type { LocalFields } from '../../quotes/method';
import { toLedger } from '../../shared/amounts';
import type { Node } from '../../shared/node';
import { isActive } from '../../wallet-addresses';
import { feeLeg, finishPayment, paymentView } from '..';
import type { PaymentRecord } from '../schemas';
import * as store from '../store';
import type { Sending, SendOutcome } from './method';

// The local payment method: to a payment intent of this node, priced at the FSP-wide rate
// (./local-quote.ts). The intent is read together with the payment (its id rides on the payment's
// message). One DynamoDB transaction moves the
// money (through both assets' liquidity accounts when the currencies differ), credits the intent
// (payment-intents creditIntent), completes the payment and records the events. The transfer id
// `deliver:<payment>` and the state conditions make a second delivery of the same message a no-op.
// Permanent failures (intent closed, not enough destination liquidity) fail the payment and leave
// its funds in its account to withdraw; anything else is thrown, so the message is retried.
const ATTEMPTS = 5;

// The intent the payment's message names (lib/quotes/method.ts readAheadOf), and whether its wallet
// address is active (when the message names it), as read with the payment.
interface Ahead {
  intentId: string;
  intent: IntentRecord | undefined;
  active?: boolean;
}

// Each fee is booked in its own asset, with no conversion: the sending fee from the payment's
// account, the receiving fee from what the intent is paid (`receivingFee`, ledger units). `debit`:
// what is sent, without the sending fee.
function legsFor(p: PaymentRecord, { intentId, destinationAssetId }: LocalFields, debit: bigint, receive: bigint, receivingFee: bigint): Leg[] {
  const payer = p.sourceAssetId === destinationAssetId ? account.payment(p.id) : account.liquidity(destinationAssetId);
  const legs: Leg[] = [
    { debit: payer, credit: account.intent(intentId), amount: receive - receivingFee },
    { debit: payer, credit: account.fee(destinationAssetId), amount: receivingFee },
    feeLeg(p, BigInt(feeOf(p).value)),
  ];
  if (p.sourceAssetId !== destinationAssetId) legs.push({ debit: account.payment(p.id), credit: account.liquidity(p.sourceAssetId), amount: debit });
  return legs.filter((l) => l.amount > 0n);
}

const fail = (node: Node, p: PaymentRecord, reason: string) => finishPayment(node, p, 'failed', { reason });

async function sendLocal(node: Node, p: PaymentRecord, ahead?: Ahead): Promise<SendOutcome> {
  if (p.method !== 'local') throw new Error(`Payment ${p.id} is not local`);
  const fields = p.local;
  const { intentId, destinationAssetId } = fields;
  if (ahead && ahead.intentId !== intentId) return 'skipped';
  const sentAmount = { ...p.debitAmount, value: (BigInt(p.debitAmount.value) - BigInt(feeOf(p).value)).toString() };
  const debit = toLedger(BigInt(sentAmount.value), sentAmount.assetScale);
  const receiveValue = BigInt(p.receiveAmount.value);
  const receive = toLedger(receiveValue, p.receiveAmount.assetScale);
  const now = new Date().toISOString();
  const completed = { ...p, state: 'completed' as const, sentAmount };
  // The credit is conditional on the intent as read, so racing payments decide one after the
  // other; one that would overpay it fails instead (two quotes can each cover what remains).
  const intent = ahead ? ahead.intent : await findIntent(node, intentId);
  const result = await blindThenRead(
    (readShards) =>
      creditIntent(node, intent, {
        amount: receiveValue,
        ...(p.sourceAssetId === destinationAssetId && { returnTo: p.id }),
        writes: async (_credit, receivingFee) => [
          ...(await transfer(
            node,
            `deliver:${p.id}`,
            { kind: 'payment', resource: { type: 'payment', id: p.id } },
            legsFor(p, fields, debit, receive, toLedger(receivingFee, p.receiveAmount.assetScale)),
            { read: readShards },
          )),
          ...store.transition(node, p, 'sending', 'completed', { sentAmount, completedAt: now }),
        ],
        outgoing: [event(store.partition(node, p.id), 'payment.completed', paymentView(completed))],
        attempts: ATTEMPTS,
        name: 'payment-worker',
        via: 'local',
        active: ahead?.active,
      }),
    (r) => r.kind === 'refused' && r.refusals.some(isInsufficient),
  );
  switch (result.kind) {
    case 'credited':
      countPayment('completed');
      if (p.sourceAssetId !== destinationAssetId) await noteLiquidityTaken(node, destinationAssetId, receive);
      return 'completed';
    case 'not_found':
      return fail(node, p, 'payment_intent_not_found');
    case 'held': // its money stays in its account, to withdraw, as with every failure
      return fail(node, p, 'payment_intent_pending_approval');
    case 'inactive':
      return fail(node, p, 'wallet_address_inactive');
    case 'closed':
      return fail(node, p, `payment_intent_${result.state}`);
    case 'exceeds':
      return fail(node, p, 'amount_exceeds_remaining');
    case 'refused': {
      const r = result.refusals;
      if (r.includes(TRANSFER_EXISTS) || r.includes(store.PAYMENT_MOVED)) return 'skipped'; // a duplicate got there first
      if (r.includes(insufficient(account.liquidity(destinationAssetId)))) {
        // The shards it read were taken meanwhile while the asset as a whole still holds enough:
        // a retry reads them again.
        if ((await balanceOf(node, account.liquidity(destinationAssetId))) >= receive) throw new Error(`Payment ${p.id}: liquidity moved meanwhile; retrying`);
        return fail(node, p, 'insufficient_liquidity');
      }
      if (r.includes(TOO_LARGE)) return fail(node, p, 'balance_too_large');
      throw new Error(`Payment ${p.id}: its account holds less than its debit amount`);
    }
    default:
      throw new Error(`Payment ${p.id}: the payment intent kept changing; retrying later`);
  }
}

export const local: Sending<Ahead> = {
  readAhead: async (node, { intentId, walletAddress }) => {
    if (!intentId) return undefined;
    const [intent, active] = await Promise.all([findIntent(node, intentId), walletAddress ? isActive(node, walletAddress) : undefined]);
    // The status counts only for the wallet address the intent is on.
    return { intentId, intent, active: intent?.walletAddress === walletAddress ? active : undefined };
  },
  send: (node, p, _attempt, ahead) => sendLocal(node, p, ahead),
  giveUp: async (node, p) => {
    await fail(node, p, 'delivery_failed');
  },
};
