import * as z from 'zod';
import { asset, assetWithLiquidity } from '../assets/schemas';
import { grant } from '../auth-server/admin-schemas';
import { liquidityWithdrawal } from '../liquidity-withdrawals/schemas';
import { paymentIntent } from '../payment-intents/schemas';
import { payment } from '../payments/schemas';
import { peerWithLiquidity } from '../peers/schemas';
import { walletAddress, walletAddressNotFound } from '../wallet-addresses/schemas';
import type { webhookEventNames } from './schemas';

// Every event type the service sends the FSP's webhook URL, each with the zod schema of its `data`
// (the resource as it is after the change) and what it means: the one list that the OpenAPI
// document's `webhooks` section is built from. A type emitted anywhere in lib/ must be here
// (test/unit/webhook-catalog.test.ts reads the source for them).
export interface WebhookEventType {
  data: z.ZodType;
  about: string;
}

const intent = (about: string): WebhookEventType => ({ data: paymentIntent, about });
const paid = (about: string): WebhookEventType => ({ data: payment, about });
const withdrawal = (about: string): WebhookEventType => ({ data: liquidityWithdrawal, about });

export const webhookEvents = {
  'asset.updated': { data: asset, about: 'An asset was changed (PATCH /assets/{id}): its threshold or fees.' },
  'asset.liquidity_low': {
    data: assetWithLiquidity,
    about: "A payment took the asset's liquidity below its liquidityThreshold (once, as it crossed it); `liquidity` is what is left.",
  },
  'peer.liquidity_low': {
    data: peerWithLiquidity,
    about: 'Packets from the peer took its liquidity below its liquidityThreshold (once, as it crossed it); `liquidity` is what is left.',
  },
  'wallet_address.updated': {
    data: walletAddress,
    about: 'A wallet address was changed (PATCH /wallet-addresses/{id}): its name, approval or `status` (an `inactive` one takes and sends nothing).',
  },
  'wallet_address.not_found': {
    data: walletAddressNotFound,
    about:
      "An Open Payments client looked up an address under the FSP's prefix that does not exist (once per address in 5 minutes, for at most 100 addresses a minute): create it, and its next lookup finds it.",
  },
  'grant.revoked': { data: grant, about: 'The FSP revoked an Open Payments grant (POST /grants/{id}/revoke): its access token is refused from now on.' },
  'payment_intent.created': intent('A payment intent was made; in state `pending_approval`, it waits for the FSP to approve or cancel it.'),
  'payment_intent.approved': intent('The FSP approved an intent held for approval: it takes payments from now on.'),
  'payment_intent.cancelled': intent('The FSP cancelled an intent held for approval; `cancelReason` says why.'),
  'payment_intent.completed': intent('The intent took all it asked for, or the FSP completed it (with `partialPayment` if short).'),
  'payment_intent.expired': intent('The intent expired (with `partialPayment` if it received something short of its amount).'),
  'payment.created': paid('A payment was made and waits to be funded: fund it (POST /payments/{id}/fund) or cancel it.'),
  'payment.funded': paid('The payment was funded and is being sent.'),
  'payment.completed': paid('The payment was delivered.'),
  'payment.failed': paid('The payment failed (`failureReason`); what it did not send can be withdrawn.'),
  'payment.cancelled': paid('The payment was cancelled before it was funded: by the FSP, or by the service once its quote expired (`cancelReason`).'),
  'liquidity_withdrawal.created': withdrawal('A two-phase withdrawal holds its amount (state `pending`).'),
  'liquidity_withdrawal.posted': withdrawal("A two-phase withdrawal was posted: the amount left the ledger, to the asset's settlement account."),
  'liquidity_withdrawal.voided': withdrawal('A two-phase withdrawal was voided (`voidedBy`: `request` or `timeout`): the amount went back.'),
} satisfies Record<WebhookEventName, WebhookEventType>; // each name of ./schemas.ts, and no other

export type WebhookEventName = (typeof webhookEventNames)[number];

// What the FSP's webhook URL receives for an event of `type`: the envelope, its data as the catalog says.
export const webhookBody = (type: string, data: z.ZodType) =>
  z.object({
    id: z.uuid().describe('The event’s id, the same on every retry (and the `webhook-id` header): de-duplicate on it'),
    type: z.literal(type),
    createdAt: z.iso.datetime(),
    data,
  });
