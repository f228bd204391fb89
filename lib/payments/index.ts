import { account, type Leg, refuseTooLarge, settleAll, transfer, transferReplayRefusal } from '../ledger';
import type { GrantPeriod } from '../open-payments/interval';
import { fitsBeside, type GrantLimits, REFUSALS, refusalOf } from '../open-payments/limits';
import { getPeerRecord } from '../peers';
import { RECONCILIATION_MAX_DAYS, type Reconciliation, type ReconciliationQuery } from '../peers/schemas';
import { event, message, type Outgoing } from '../platform/events';
import { holdPoint } from '../platform/faults';
import { drawnForNamed, uuidFrom } from '../platform/ids';
import { logger } from '../platform/log';
import { countPayment } from '../platform/metrics';
import { BATCH_GET_MAX, type Page, readTogether } from '../platform/store';
import { annotate } from '../platform/tracing';
import { commit, heldRiderRefusal, spentRiderRefusal, type Write } from '../platform/tx';
import { feeOf, findQuote, recordQuote } from '../quotes';
import { quoteErrors } from '../quotes/errors';
import { methodFieldsOf, readAheadOf } from '../quotes/method';
import type { QuoteRecord } from '../quotes/schemas';
import { type Amount, amountOf, fromLedger, toLedger } from '../shared/amounts';
import { GUARD_ID } from '../shared/audited';
import { commonErrors, invalidField } from '../shared/errors';
import type { Node } from '../shared/node';
import { intentUrl, localIntentId } from '../shared/resources';
import { canonicalOrUndefined } from '../shared/wallet-address-url';
import { activeForSending, standingOf, WALLET_INACTIVE, walletAddressIdOf } from '../wallet-addresses';
import { walletAddressErrors } from '../wallet-addresses/errors';
import { paymentErrors } from './errors';
import type { CreatePayment, ListPaymentsQuery, Payment, PaymentMessage, PaymentRecord } from './schemas';
import { fundingTransferId, mayWithdraw, neverFundable, type PaymentAction, quoteExpired, TRANSITIONS } from './states';
import * as store from './store';

// Outgoing payments on a sender's wallet address (their state machine: ./states.ts). Funding moves the debit amount from the sender asset's settlement account into the payment's
// account and queues the payment for the worker (lib/payments/deliver.ts), which sends it by its quote's
// payment method (lib/payments/methods). Whatever acts on a
// payment annotates its trace with the payment's id, by which its traces are found (lib/platform/tracing.ts).
export const PAYMENT_ANNOTATION = 'paymentId';

export function paymentView(r: PaymentRecord): Payment {
  return {
    id: r.id,
    walletAddress: r.walletAddress,
    quoteId: r.quoteId,
    receiver: r.receiver,
    debitAmount: r.debitAmount,
    receiveAmount: r.receiveAmount,
    fee: feeOf(r),
    sentAmount: r.sentAmount,
    state: r.state,
    ...(r.failureReason && { failureReason: r.failureReason }),
    ...(r.cancelReason && { cancelReason: r.cancelReason }),
    createdAt: r.createdAt,
    metadata: r.metadata,
    ...(r.grantId && { grantId: r.grantId, client: r.client }),
  };
}

export const findPayment = (node: Node, id: string) => store.findPayment(node, id);
export const findPayments = (node: Node, ids: string[]) => store.findPayments(node, ids);
export { cursorOf as paymentCursorOf, paymentLookup, type SpentItem } from './store';
export const pagePaymentsByWallet = (node: Node, walletAddressId: string, opts: Parameters<typeof store.pageByWallet>[2]) =>
  store.pageByWallet(node, walletAddressId, opts);

export async function getPaymentRecord(node: Node, id: string): Promise<PaymentRecord> {
  const r = await store.findPayment(node, id);
  if (!r) throw paymentErrors.notFound(id);
  return r;
}

export const getPayment = async (node: Node, id: string) => paymentView(await getPaymentRecord(node, id));

export async function listPayments(node: Node, q: ListPaymentsQuery): Promise<Page<Payment>> {
  const walletAddressId = q.walletAddress === undefined ? undefined : await walletAddressIdOf(node, q.walletAddress, 'walletAddress');
  const { metadataKey: key, metadataValue: value, receiver, walletAddress, ...rest } = q;
  const page = await store.listPayments(node, {
    ...rest,
    walletAddressId,
    ...(receiver !== undefined && { receiver: receiverOf(node, receiver) }),
    ...(key !== undefined && value !== undefined && { metadata: { key, value } }),
  });
  return { items: page.items.map(paymentView), nextCursor: page.nextCursor };
}

// A receiver as a payment names it: this node's intent by its URL (its id is taken for it), another's as given.
function receiverOf(node: Node, receiver: string): string {
  const intentId = localIntentId(node, receiver);
  return intentId ? intentUrl(node, intentId) : receiver;
}

// Who creates a payment over Open Payments: the client, its grant, the limits of the access item
// that lets it (lib/open-payments/limits.ts), and the period of the grant it is charged in (now).
export interface GrantedBy {
  client: string;
  grantId: string;
  limits?: GrantLimits;
  period: GrantPeriod;
}

export interface CreatedPayment {
  record: PaymentRecord;
  spent?: store.SpentItem; // what its grant has spent in its period, this payment included
}

// How often a creation reads its grant's spent amounts again when a racing one changed them.
const SPEND_ATTEMPTS = 5;

// A payment's id, named by its quote: one quote, one payment, so that the payment's own conditional
// put takes its quote once, and the quote is not written. Whether a quote is taken is whether its
// payment is there (or, taken before this, the quote's `paymentId`).
export const paymentIdOf = (quoteId: string) => uuidFrom(`payment-of#${quoteId}`);

// `by`: the app's grant, whose limits it must fit (checked and charged in the payment's
// transaction). `priced`: a quote priced for this payment alone, stored with it (an Open Payments
// payment asked for by incoming payment and debit amount), rather than one to take.
export async function createPaymentRecord(node: Node, input: CreatePayment, by?: GrantedBy, priced?: QuoteRecord): Promise<CreatedPayment> {
  // The quote, the sender as it stands now, and the quote's payment if it has one, in one read (a
  // quote priced for this payment alone read the sender's standing as it was priced, and has none).
  const sender = canonicalOrUndefined(input.walletAddress, node.urls.walletAddresses);
  const [quote, standing, taken, spent] = priced
    ? [priced, undefined, undefined, undefined]
    : await readTogether(() =>
        Promise.all([
          findQuote(node, input.quoteId),
          sender ? standingOf(node, sender) : undefined,
          store.findPayment(node, paymentIdOf(input.quoteId)),
          spentRiderRefusal(),
        ]),
      );
  // The payment this very signed request made, or the guard it left when refused: this is its replay
  // (refused as such, before anything else).
  const replayed = spent ?? (taken && heldRiderRefusal(taken));
  if (replayed) throw replayed;
  if (!quote) throw quoteErrors.unknown(input.quoteId);
  if (quote.walletAddress !== sender) throw quoteErrors.walletMismatch(quote.id, quote.walletAddress, input.walletAddress);
  if (standing && !standing.active) throw walletAddressErrors.inactive(quote.walletAddress);
  // An app pays the quotes it made; with OPEN_PAYMENTS_ANY_CLIENT_QUOTES, as in Rafiki, any client's
  // for this wallet address (the grant's limits, its receiver included, bound it whoever priced it).
  if (by && quote.client !== by.client && !(node.anyClientQuotes && quote.client)) throw paymentErrors.quoteNotYours(quote.id);
  if (taken || quote.paymentId) throw quoteErrors.used(quote.id);
  const now = new Date().toISOString();
  if (quote.expiresAt <= now) throw quoteErrors.expired(`Quote ${quote.id}`, quote.expiresAt, 'create a new quote');

  const amounts = { receiver: quote.receiver, debit: quote.debitAmount, receive: quote.receiveAmount };
  const refused = by && refusalOf(by.limits, amounts);
  if (refused) throw paymentErrors.insufficientGrant(REFUSALS[refused]);
  const asset = (a: Amount) => ({ code: a.assetCode, scale: a.assetScale });
  const charge: store.SpentItem = {
    debit: BigInt(quote.debitAmount.value),
    receive: BigInt(quote.receiveAmount.value),
    debitAsset: asset(quote.debitAmount),
    receiveAsset: asset(quote.receiveAmount),
  };
  const guard = drawnForNamed();
  const record: PaymentRecord = {
    id: paymentIdOf(quote.id),
    walletAddress: quote.walletAddress,
    walletAddressId: quote.walletAddressId,
    quoteId: quote.id,
    receiver: quote.receiver,
    sourceAssetId: quote.sourceAssetId,
    ...methodFieldsOf(quote),
    debitAmount: quote.debitAmount,
    receiveAmount: quote.receiveAmount,
    fee: feeOf(quote),
    sentAmount: { ...quote.debitAmount, value: '0' },
    quoteExpiresAt: quote.expiresAt,
    state: 'funding',
    createdAt: now,
    metadata: input.metadata ?? null,
    ...(by && {
      grantId: by.grantId,
      client: by.client,
      grantPeriod: by.period.key,
    }),
    ...(guard && { [GUARD_ID]: guard }),
  };
  const view = paymentView(record);
  annotate(PAYMENT_ANNOTATION, record.id);
  const quoteWrite = priced ? [recordQuote(node, priced)] : [];
  for (let attempt = 1; ; attempt++) {
    const seen = by && (await store.findSpent(node, by.grantId, by.period.key));
    if (by && !fitsBeside(by.limits, seen ?? NOTHING_SPENT, amounts))
      throw paymentErrors.insufficientGrant(`This payment and what the grant has spent${by.period.end ? ' in this interval' : ''} come to more than it allows`);
    const after = added(seen, charge);
    const spending = by ? [store.spend(node, by.grantId, by.period.key, seen, charge, after, by.period.end)] : [];
    const refusals = await commit(
      node,
      [...store.insertPayment(node, record), ...quoteWrite, ...spending],
      [event(store.partition(node, record.id), 'payment.created', view)],
    );
    if (!refusals.length) return { record, ...(by && { spent: after }) };
    if (refusals.includes(store.QUOTE_TAKEN)) {
      const other = await store.findPayment(node, record.id);
      throw (other && heldRiderRefusal(other)) ?? quoteErrors.used(quote.id);
    }
    if (!refusals.includes(store.GRANT_SPENT_CHANGED)) throw new Error(`Payment ${record.id} could not be created: ${refusals.join(', ')}`);
    if (attempt === SPEND_ATTEMPTS) throw paymentErrors.grantBusy();
    await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
  }
}
const NOTHING_SPENT = { debit: 0n, receive: 0n };
const added = (seen: store.SpentItem | undefined, charge: store.SpentItem): store.SpentItem =>
  seen
    ? {
        ...seen,
        debit: seen.debit + charge.debit,
        receive: seen.receive + charge.receive,
        // Receive amounts in different assets do not add up.
        ...((seen.mixedReceive || seen.receiveAsset.code !== charge.receiveAsset.code || seen.receiveAsset.scale !== charge.receiveAsset.scale) && {
          mixedReceive: true,
        }),
      }
    : charge;

// A payment the FSP creates on the Admin API.
export const createPayment = async (node: Node, input: CreatePayment): Promise<Payment> => paymentView((await createPaymentRecord(node, input)).record);

// What an app's grant has spent in the period it is in now, if anything.
export const findGrantSpent = (node: Node, grantId: string, period: string) => store.findSpent(node, grantId, period);

// An Admin action on the payment as read; answers the payment as it is after. `build` gives the
// writes besides the transition (a transfer) and the events. `payment-<action>` names its fault
// points (lib/platform/faults.ts): `hold:payment-fund` stops a funding after its Idempotency-Key is taken.
// `guarded`: how a funding reads its payment and tells its own replay (fundingGuard, below).
async function move(
  node: Node,
  id: string,
  action: PaymentAction,
  done: string,
  build: (r: PaymentRecord, next: PaymentRecord) => { writes?: Write[] | Promise<Write[]>; outgoing: Outgoing[] },
  guarded?: Guarded,
) {
  const { from, to } = TRANSITIONS[action];
  annotate(PAYMENT_ANNOTATION, id);
  const r = await (guarded ? guarded.read() : getPaymentRecord(node, id));
  const movedOn = async (state: string) => (await guarded?.replay()) ?? commonErrors.invalidState('Payment', id, state, done);
  if (r.state !== from) throw await movedOn(r.state);
  const next: PaymentRecord = { ...r, state: to };
  const { writes = [], outgoing } = build(r, next);
  await holdPoint(`payment-${action}`);
  const refusals = await commit(node, [...store.transition(node, r, from, to), ...(await writes)], outgoing, `payment-${action}`);
  refuseTooLarge(refusals);
  if (refusals.includes(WALLET_INACTIVE)) throw walletAddressErrors.inactive(r.walletAddress);
  if (refusals.length) throw await movedOn((await getPaymentRecord(node, id)).state);
  return paymentView(next);
}

// A funding's transfer, named by its payment, keeps the id its signed request drew (lib/platform/tx):
// its put holds the request's replay guard, at no item of its own. So the guard a refused request
// left in its own place is read with the payment (its replay is 401 even once it would fund), and a
// payment found moved on by this very request (its transfer keeps the request's id) is its replay:
// 401, not 409. (Not in move itself: a cancel's bundle would then read in batches, which its role
// does not grant.)
interface Guarded {
  read: () => Promise<PaymentRecord>;
  replay: () => Promise<Error | undefined>;
}
const fundingGuard = (node: Node, id: string): Guarded => ({
  read: async () => {
    const [r, spent] = await readTogether(() => Promise.all([store.findPayment(node, id), spentRiderRefusal()]));
    if (spent) throw spent;
    if (!r) throw paymentErrors.notFound(id);
    return r;
  },
  replay: () => transferReplayRefusal(node, fundingTransferId(id)),
});

export const fundPayment = (node: Node, id: string) =>
  move(
    node,
    id,
    'fund',
    'funded',
    (r, next) => {
      // Funding later would send at a rate nobody quoted: the service cancels it (cancelExpiredFundings).
      if (quoteExpired(r, new Date().toISOString())) {
        throw quoteErrors.expired(`Payment ${r.id}'s quote`, r.quoteExpiresAt, 'the payment is cancelled within a minute; create a new quote');
      }
      const units = toLedger(BigInt(r.debitAmount.value), r.debitAmount.assetScale);
      // Named by its payment (one funding each), keeping the id a signed request drew: its put is that
      // request's replay guard, at no item of its own.
      const funding = transfer(
        node,
        fundingTransferId(r.id),
        { kind: 'funding', resource: { type: 'payment', id: r.id } },
        [{ debit: account.settlement(r.sourceAssetId), credit: account.payment(r.id), amount: units }],
        { guardId: drawnForNamed() },
      );
      return {
        // Nothing funds a payment from a frozen wallet address; one funded before completes as it would.
        writes: funding.then((items) => [...items, activeForSending(node, r.walletAddress)]),
        outgoing: [
          event(store.partition(node, r.id), 'payment.funded', paymentView(next)),
          // What its method reads ahead rides along, so that the worker reads it with the payment at once.
          message(store.partition(node, r.id), node.queues.payments, { paymentId: r.id, ...readAheadOf(r) } satisfies PaymentMessage),
        ],
      };
    },
    fundingGuard(node, id),
  );

// What cancelling `r` (in funding) writes besides its transition: nothing moved into its account,
// so nothing moves out; its grant's charge is given back; payment.cancelled says so.
const cancelling = (node: Node, r: PaymentRecord, next: PaymentRecord) => ({
  writes: givingBack(node, r, 0n, 0n),
  outgoing: [event(store.partition(node, r.id), 'payment.cancelled', paymentView(next))],
});

export async function cancelPayment(node: Node, id: string) {
  const cancelled = await move(node, id, 'cancel', 'cancelled', (r, next) => cancelling(node, r, next));
  countPayment('cancelled');
  return cancelled;
}

// Scheduled: cancels every payment left in `funding` past its quote's expiry, which can never be
// funded (a funding that failed for good, an FSP that never answered), with `cancelReason`
// quote_expired, as the FSP's cancel would. They are found in the funding state's listing
// partitions, which hold only the payments waiting for their funding, so the hot path writes
// nothing more for this. Answers how many it cancelled.
export async function cancelExpiredFundings(node: Node): Promise<number> {
  const now = new Date().toISOString();
  const ids = await store.listFundingIds(node);
  let cancelled = 0;
  // A BatchGetItem's worth at a time: a backlog is read as it is worked through.
  for (let i = 0; i < ids.length; i += BATCH_GET_MAX) {
    for (const r of await store.findPayments(node, ids.slice(i, i + BATCH_GET_MAX))) {
      if (neverFundable(r, now) && (await cancelNeverFundable(node, r))) cancelled++;
    }
  }
  return cancelled;
}

// A fund that races this commits first or is refused: the transition's condition on `funding`
// lets one through. False when the payment had left `funding` meanwhile.
async function cancelNeverFundable(node: Node, r: PaymentRecord): Promise<boolean> {
  const { from, to } = TRANSITIONS.cancel;
  const reason = 'quote_expired';
  const { writes, outgoing } = cancelling(node, r, { ...r, state: to, cancelReason: reason });
  const refusals = await commit(node, [...store.transition(node, r, from, to, { cancelReason: reason }), ...writes], outgoing, 'payment-expire');
  if (refusals.includes(store.PAYMENT_MOVED)) return false;
  if (refusals.length) throw new Error(`Payment ${r.id} could not be cancelled: ${refusals.join(', ')}`);
  logger.info('Payment cancelled: its quote expired before it was funded', { paymentId: r.id, quoteExpiresAt: r.quoteExpiresAt });
  countPayment('cancelled', reason);
  return true;
}

// When an Open Payments payment ends, its grant gets back what it charged and did not leave: all
// of it when cancelled; the rest of the debit amount, and of the receive amount, when less was
// sent or delivered. Money that did leave stays spent, as the user agreed to it (Rafiki gives all
// back on failure). In the transaction of the payment's last transition, so once.
function givingBack(node: Node, p: PaymentRecord, sent: bigint, delivered: bigint): Write[] {
  if (!p.grantId || !p.grantPeriod) return [];
  const positive = (n: bigint) => (n > 0n ? n : 0n);
  const back = { debit: positive(BigInt(p.debitAmount.value) - sent), receive: positive(BigInt(p.receiveAmount.value) - delivered) };
  return back.debit || back.receive ? [store.giveBack(node, p.grantId, p.grantPeriod, back)] : [];
}

// Ends a payment that is being sent: completed, or failed with a reason; `sentAmount` when what
// was sent is known (over Interledger). Answers 'skipped' if it had left `sending` already.
export async function finishPayment(
  node: Node,
  p: PaymentRecord,
  state: 'completed' | 'failed',
  opts: { reason?: string; sentAmount?: PaymentRecord['sentAmount']; delivered?: bigint } = {},
) {
  const next: PaymentRecord = { ...p, state, ...(opts.sentAmount && { sentAmount: opts.sentAmount }), ...(opts.reason && { failureReason: opts.reason }) };
  const set = {
    ...(opts.sentAmount && { sentAmount: opts.sentAmount }),
    ...(state === 'completed' ? { completedAt: new Date().toISOString() } : { failureReason: opts.reason }),
  };
  const sent = BigInt(opts.sentAmount?.value ?? p.sentAmount.value);
  // A completed payment pays its sending fee (a failed one leaves it to withdraw, with the rest).
  const fee = state === 'completed' ? BigInt(feeOf(p).value) : 0n;
  const writes = [
    ...store.transition(node, p, 'sending', state, set),
    // Under Rafiki's pricing a completed payment keeps its grant charged with all it was quoted, as
    // Rafiki counts it (its debit carries the slippage the grant's owner consented to spend).
    ...(state === 'completed' && node.quotePricing === 'rafiki' ? [] : givingBack(node, p, sent + fee, opts.delivered ?? 0n)),
    ...(fee > 0n ? await transfer(node, `fee:${p.id}`, { kind: 'fee', resource: { type: 'payment', id: p.id } }, [feeLeg(p, fee)]) : []),
  ];
  if ((await commit(node, writes, [event(store.partition(node, p.id), `payment.${state}`, paymentView(next))])).length) return 'skipped';
  if (state === 'failed') logger.warn('Payment failed', { paymentId: p.id, reason: opts.reason, sent: opts.sentAmount?.value });
  countPayment(state, opts.reason);
  return state;
}

// The sending fee's booking: from the payment's account to its asset's fee account.
export const feeLeg = (p: PaymentRecord, fee: bigint): Leg => ({
  debit: account.payment(p.id),
  credit: account.fee(p.sourceAssetId),
  amount: toLedger(fee, p.debitAmount.assetScale),
});

// Settles what a payment's account still holds (all of it after a failure) back to the sender
// asset's settlement account. Not while the payment is being sent.
export async function withdrawPayment(node: Node, id: string) {
  annotate(PAYMENT_ANNOTATION, id);
  const r = await getPaymentRecord(node, id);
  if (!mayWithdraw(r.state)) throw commonErrors.invalidState('Payment', id, r.state, 'withdrawn from');
  const units = await settleAll(node, account.payment(id), r.sourceAssetId, { type: 'payment', id });
  const asset = { code: r.debitAmount.assetCode, scale: r.debitAmount.assetScale };
  return { ...paymentView(r), withdrawnAmount: amountOf(fromLedger(units, asset.scale), asset) };
}

// For reconciliation with a peer: the packets this node's payments sent it, or it forwarded to it
// (./forward.ts), that got no answer before they expired, booked as not paid (./packets.ts), by expiry in [from, to). The
// peer compares them with what it credited from this node: a packet it credited is a fulfillment
// lost in flight, which Interledger has the receiver bear. The total covers the whole window.
const DAY_MS = 24 * 3600 * 1000;
export async function peerReconciliation(node: Node, peerId: string, query: ReconciliationQuery): Promise<Reconciliation> {
  const peer = await getPeerRecord(node, peerId);
  const to = query.to ? Date.parse(query.to) : Date.now();
  const from = query.from ? Date.parse(query.from) : to - DAY_MS;
  if (from >= to) throw invalidField('from', 'must be before to');
  if (to - from > RECONCILIATION_MAX_DAYS * DAY_MS) throw invalidField('from', `must be at most ${RECONCILIATION_MAX_DAYS} days before to`);
  const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const [page, total] = await Promise.all([
    store.pageUnanswered(node, peer.id, window, query.limit, query.cursor),
    store.unansweredTotal(node, peer.id, window),
  ]);
  const peerAsset = { code: peer.assetCode, scale: peer.assetScale };
  return {
    peerId: peer.id,
    ...window,
    total: { count: total.count, amount: amountOf(fromLedger(total.peerUnits, peer.assetScale), peerAsset) },
    items: page.items.map((k) => ({
      executionCondition: k.id,
      paymentId: k.paymentId ?? null,
      incomingPeerId: k.forwardedFrom ?? null,
      amount: amountOf(fromLedger(BigInt(k.peerUnits), peer.assetScale), peerAsset),
      paymentAmount: amountOf(BigInt(k.source), { code: k.listed.sourceAssetCode, scale: k.listed.sourceAssetScale }),
      sentAt: k.createdAt,
      expiresAt: k.expiresAt,
      bookedAt: k.settledAt,
    })),
    nextCursor: page.nextCursor,
  };
}
