import * as z from 'zod';
import { grantPeriodAt } from '../../open-payments/interval';
import { type GrantLimits, REFUSALS } from '../../open-payments/limits';
import { createPaymentRecord, findGrantSpent, findPayment, type GrantedBy, pagePaymentsByWallet, paymentCursorOf, type SpentItem } from '../../payments';
import { paymentErrors } from '../../payments/errors';
import { priceQuote } from '../../payments/methods/quote';
import type { PaymentRecord } from '../../payments/schemas';
import { feeOf } from '../../quotes';
import { quoteErrors } from '../../quotes/errors';
import { type Amount, amount, amountOf } from '../../shared/amounts';
import { commonErrors, invalidFields } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { idIn, isResourceId, outgoingPaymentUrl, quoteUrl } from '../../shared/resources';
import { metadata } from '../../shared/values';
import { json, type OpReply, type OpRequest, parseJson } from '../http/open-payments';
import { fieldErrors } from '../http/problem';
import { authorize, type Caller, forbidden, reachesAll, shownTo } from './access';
import { listRoute } from './pagination';

// Open Payments outgoing payments, on the resource server: an app with an `outgoing-payment`
// grant for the sending wallet address (which only the wallet owner's consent gives) creates a
// payment like one from the Admin API: the same record, visible there with its grant and client,
// announced by `payment.created` for the FSP to fund or cancel, and sent locally or over
// Interledger. Each payment must fit its grant's limits, charged in its creation's transaction
// (lib/payments). `read` and `list` reach only the payments the client created; `read-all` and
// `list-all` all of the wallet address's, another client's (or the FSP's) without its metadata.
const incomingPaymentUrl = z
  .string()
  .max(512)
  .regex(/^https?:\/\/.+\/incoming-payments\/.+$/i, "must be an incoming payment's URL");
const byQuote = z.strictObject({ walletAddress: z.string().max(512), quoteId: z.string().max(512), metadata });
const byIncomingPayment = z.strictObject({ walletAddress: z.string().max(512), incomingPayment: incomingPaymentUrl, debitAmount: amount, metadata });

// Which of the specification's two request shapes, by whether it names a quote.
function createBodyOf(req: OpRequest) {
  const body = parseJson(req, z.looseObject({}));
  const parsed = ('quoteId' in body ? byQuote : byIncomingPayment).safeParse(body);
  if (!parsed.success) throw invalidFields(fieldErrors(parsed.error));
  return parsed.data;
}

// A quote's id as a payment names it: the quote's URL on this resource server (however spelled), or its bare id.
function quoteIdOf(node: Node, quoteId: string): string {
  const id = isResourceId(quoteId) ? quoteId.toLowerCase() : idIn(quoteUrl(node, ''), quoteId);
  if (!id) throw quoteErrors.unknown(quoteId, ' on this resource server');
  return id;
}

// The payment as Open Payments shows it (its schema allows nothing more). It `failed` when it
// ended without sending its whole debit amount (less its sending fee, which is never sent).
function view(node: Node, r: PaymentRecord) {
  const ended = r.state === 'failed' || r.state === 'cancelled';
  return {
    id: outgoingPaymentUrl(node, r.id),
    walletAddress: r.walletAddress,
    quoteId: quoteUrl(node, r.quoteId),
    failed: ended && BigInt(r.sentAmount.value) < BigInt(r.debitAmount.value) - BigInt(feeOf(r).value),
    receiver: r.receiver,
    debitAmount: r.debitAmount,
    receiveAmount: r.receiveAmount,
    sentAmount: r.sentAmount,
    ...(r.metadata && { metadata: r.metadata }),
    createdAt: r.createdAt,
  };
}

// What the grant has spent, as amounts (no receive amount when its payments' receive assets differ).
const spentAmounts = (s: SpentItem | undefined): { debit: Amount | null; receive: Amount | null } => ({
  debit: s ? amountOf(s.debit, s.debitAsset) : null,
  receive: s && !s.mixedReceive ? amountOf(s.receive, s.receiveAsset) : null,
});

const limitsOf = (caller: Caller) => caller.access.find((a) => a.type === 'outgoing-payment')?.limits as GrantLimits | undefined;

export async function createOutgoingPayment(node: Node, req: OpRequest): Promise<OpReply> {
  const body = createBodyOf(req);
  const caller = await authorize(node, req, [{ type: 'outgoing-payment', actions: ['create'], identifier: body.walletAddress }]);
  const limits = limitsOf(caller);
  const period = grantPeriodAt(limits?.interval, new Date());
  if (!period) throw paymentErrors.insufficientGrant(REFUSALS.no_interval);
  const by = { client: caller.client, grantId: caller.grantId, limits, period };
  const { metadata } = body;
  const created =
    'quoteId' in body
      ? await createPaymentRecord(node, { walletAddress: body.walletAddress, quoteId: quoteIdOf(node, body.quoteId), metadata }, by)
      : await createWithQuote(node, body, by);
  const spent = spentAmounts(created.spent);
  return json(201, { ...view(node, created.record), grantSpentDebitAmount: spent.debit, grantSpentReceiveAmount: spent.receive });
}

// A payment of a debit amount to an incoming payment: its quote is priced for it and stored with it.
async function createWithQuote(node: Node, body: z.infer<typeof byIncomingPayment>, by: GrantedBy) {
  const priced = await priceQuote(node, { walletAddress: body.walletAddress, receiver: body.incomingPayment, debitAmount: body.debitAmount }, by.client);
  return createPaymentRecord(node, { walletAddress: body.walletAddress, quoteId: priced.id, metadata: body.metadata }, by, priced);
}

export async function getOutgoingPayment(node: Node, req: OpRequest): Promise<OpReply> {
  const payment = isResourceId(req.params.id) ? await findPayment(node, req.params.id) : undefined;
  if (!payment) throw commonErrors.notFound(`No outgoing payment ${req.params.id}`);
  const caller = await authorize(node, req, [{ type: 'outgoing-payment', actions: ['read'], identifier: payment.walletAddress }]);
  if (payment.client !== caller.client && !reachesAll(caller, 'read'))
    throw forbidden(node, `Outgoing payment ${req.params.id} was not created by this client, and the access token reaches only those it did`);
  return json(200, shownTo(caller, payment.client, view(node, payment)));
}

// A wallet address's outgoing payments, newest first (./pagination.ts).
export const listOutgoingPayments = (node: Node, req: OpRequest): Promise<OpReply> =>
  listRoute(node, req, 'outgoing-payment', {
    page: (walletAddressId, opts) => pagePaymentsByWallet(node, walletAddressId, opts),
    sortKeyOf: paymentCursorOf,
    view: (r, caller) => shownTo(caller, r.client, view(node, r)),
  });

// What the token's grant has spent in its current period (Open Payments 1.3's
// /outgoing-payment-grant); nulls when nothing, or when its interval has no period now.
export async function getGrantSpentAmounts(node: Node, req: OpRequest): Promise<OpReply> {
  const caller = await authorize(node, req, [{ type: 'outgoing-payment', actions: ['create'] }]);
  const period = grantPeriodAt(limitsOf(caller)?.interval, new Date());
  const spent = spentAmounts(period && (await findGrantSpent(node, caller.grantId, period.key)));
  return json(200, { spentDebitAmount: spent.debit, spentReceiveAmount: spent.receive });
}
