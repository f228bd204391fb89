import { type IlpPrepare, type IlpReply, isFulfill, isIlpReply } from 'ilp-packet';
import { noteLiquidityTaken as noteAssetLiquidityTaken } from '../assets';
import { account, blindThenRead, insufficient, isInsufficient, type Leg, TOO_LARGE, TRANSFER_EXISTS, transfer, transferExists, voidTransfer } from '../ledger';
import { type CreditOutcome, completeIntent, createIntent, creditIntent, findIntent } from '../payment-intents';
import type { IntentRecord } from '../payment-intents/schemas';
import { noteLiquidityTaken as notePeerLiquidityTaken } from '../peers';
import type { PeerRecord } from '../peers/schemas';
import { resolveRate } from '../rates';
import { receiveFor, toLedger } from '../shared/amounts';
import { DomainError } from '../shared/errors';
import type { Node } from '../shared/node';
import { getWalletAddress as findWalletAddress, findWalletRecordByUrl, type WalletRecord } from '../wallet-addresses';
import { reject } from './packets';
import { SPSP_INTENT_LIFETIME_SECS, spspTagOf } from './spsp';
import { closesConnection, receiveMaxReject, streamServer, worthNothingReject } from './stream';

// A packet from a peer to one of this node's incoming payments (payment intents). The STREAM
// receiver (stateless, keyed by STREAM_SECRET) checks the packet and says which intent it pays;
// the amount it sees is the packet's, converted from the peer's asset into the intent's at the
// peer's rate (rounded down). A packet that pays is settled in one transaction before its Fulfill
// leaves: the peer's liquidity is debited, the intent credited (through both assets' liquidity
// accounts when they differ), and the intent's received amount and state move with it. The
// transfer's id comes from the packet's condition, so a packet delivered twice is credited once
// and fulfilled both times. Too little liquidity is T04; an intent that is completed, expired,
// cancelled, unknown, held for approval or on an inactive wallet address declines the packet for good (the sender stops at once). No packet takes an intent past
// its incomingAmount (creditFor): one that would is F99 with a StreamMaxMoney frame, except the
// smallest that reaches it across a conversion, whose rounding the node keeps. A packet worth
// nothing in the intent's asset is F03, never fulfilled: both nodes book every Fulfill, or neither.
// And a packet is credited before its expiry or not at all (beforeExpiry). An SPSP connection
// (./spsp.ts) names the intent it will pay before it exists: its first packet that pays makes it.
const ATTEMPTS = 40;
// The least time to its expiry a packet must have when its credit starts. A credit commits in
// less (measured on a loaded 2-core machine, 8 payments at once with 2 packets each in flight: p99
// 0.8 s, at most 1.2 s); one that does not is fenced off at the expiry all the same (beforeExpiry),
// so the margin spares work that would be lost, and does not keep the books.
const CREDIT_MARGIN_MS = 1_000;

export async function deliverLocally(node: Node, peer: PeerRecord, prepare: IlpPrepare): Promise<IlpReply> {
  const server = await streamServer(node);
  const amount = BigInt(prepare.amount);
  const tag = server.decodePaymentTag(prepare.destination);
  const spsp = tag === undefined ? undefined : spspTagOf(tag);
  // Probes, connection closes and packets that are not for a payment of ours: STREAM answers. An
  // SPSP connection's close completes its intent (Rafiki completes a STREAM connection's then).
  const answer = () => {
    const reply = server.createReply(prepare);
    return isIlpReply(reply) ? reply : reply.finalDecline();
  };
  if (amount === 0n) {
    if (spsp && (await closesConnection(node, prepare))) await completeSpspIntent(node, spsp.intentId);
    return answer();
  }
  const found = tag === undefined ? undefined : await findIntent(node, spsp?.intentId ?? tag);
  // An SPSP connection's intent is made by its first packet that pays (below): until then, what
  // it pays into is its wallet address's asset.
  const wallet = found || !spsp ? undefined : await spspWallet(node, spsp.walletAddressId);
  const into = found ?? wallet;
  if (!into) return answer();
  const paid = toLedger(amount, peer.assetScale);
  let received = amount;
  let oneUnitLess = amount - 1n; // what the packet would bring with one unit less: the rounding's bound
  if (into.assetId !== peer.assetId) {
    try {
      const { rate } = await resolveRate(node, { sourceAssetCode: peer.assetCode, destinationAssetCode: into.assetCode, peerId: peer.id });
      received = receiveFor(amount, rate, peer.assetScale, into.assetScale);
      oneUnitLess = receiveFor(amount - 1n, rate, peer.assetScale, into.assetScale);
    } catch (e) {
      return reject(node, 'F07', `Cannot convert ${peer.assetCode} to ${into.assetCode}: ${(e as Error).message}`);
    }
  }
  const money = server.createReply({ ...prepare, amount: received.toString() });
  // The receiver fulfills a fulfillable packet that brings it 0 (STREAM's empty packets); this one
  // brought money from the peer, which nothing here would book.
  if (isIlpReply(money)) return isFulfill(money) ? worthNothingReject(node, prepare) : money;
  // A rate probe's packets cannot be fulfilled, so only money makes an SPSP connection's intent.
  const intent = found ?? (spsp && wallet && (await spspIntent(node, spsp.intentId, wallet.address)));
  if (!intent) return money.finalDecline();

  const transferId = `ilp:${peer.id}:${prepare.executionCondition.toString('hex')}`;
  const credit = blindThenRead(
    (read) =>
      creditIntent(node, intent, {
        amount: received,
        oneUnitLess,
        writes: (credit, fee) =>
          transfer(
            node,
            transferId,
            { kind: 'packet', resource: { type: 'payment_intent', id: intent.id } },
            receiveLegs(peer, intent, paid, toLedger(credit, intent.assetScale), toLedger(fee, intent.assetScale)),
            { read },
          ),
        deadline: new Date(prepare.expiresAt.getTime() - CREDIT_MARGIN_MS),
        attempts: ATTEMPTS,
        name: 'ilp-receive',
        via: 'interledger',
      }),
    (r) => r.kind === 'refused' && r.refusals.some(isInsufficient),
  );
  const result = await beforeExpiry(node, transferId, prepare.expiresAt, credit);
  switch (result.kind) {
    case 'credited': {
      const credited = toLedger(result.credit, intent.assetScale);
      await Promise.all([
        notePeerLiquidityTaken(node, peer, paid),
        intent.assetId !== peer.assetId ? noteAssetLiquidityTaken(node, intent.assetId, credited) : undefined,
      ]);
      return money.accept();
    }
    case 'not_found':
    case 'held': // until the FSP approves it (docs/interledger.md): the sender stops, and pays again once it is
    case 'inactive': // until the FSP makes its wallet address active again: the same
      return money.finalDecline();
    case 'closed': // a retry of a packet it took is still fulfilled
      return (await transferExists(node, transferId)) ? money.accept() : money.finalDecline();
    case 'exceeds':
      // Never past incomingAmount: refused as STREAM says, with what the intent takes in all and
      // has received, unless it is a retry of one credited before.
      if (await transferExists(node, transferId)) return money.accept();
      return receiveMaxReject(node, prepare, received, result.incoming, result.received);
    case 'expired_packet':
      return expired(node, prepare);
    case 'busy':
      return reject(node, 'T03', 'The incoming payment is busy; retry the packet');
    case 'refused': {
      const r = result.refusals;
      // Credited when it came before (and not voided at its expiry: see beforeExpiry).
      if (r.includes(TRANSFER_EXISTS)) return (await transferExists(node, transferId)) ? money.accept() : expired(node, prepare);
      if (r.includes(insufficient(account.peer(peer.id)))) return reject(node, 'T04', `Peer ${peer.id} has too little liquidity left for this packet`);
      if (r.some(isInsufficient)) return reject(node, 'T04', `Too little ${intent.assetCode} liquidity to deliver this packet`);
      if (r.includes(TOO_LARGE)) return reject(node, 'F99', 'Crediting this packet would take a balance past 38 digits');
      throw new Error(`Packet ${transferId}: refused for ${r.join(', ')}`);
    }
  }
}

// The wallet address an SPSP connection pays into, while it is active.
async function spspWallet(node: Node, walletAddressId: string): Promise<WalletRecord | undefined> {
  const wallet = await findWalletAddress(node, walletAddressId).catch(notFound);
  const record = wallet && (await findWalletRecordByUrl(node, wallet.address));
  return record?.status === 'active' ? record : undefined;
}

// The SPSP connection's intent, made with the id its credentials carry (of packets that race to
// make it, one does and the others read it): open, no incomingAmount, for SPSP_INTENT_LIFETIME_SECS.
// Undefined when its wallet address no longer takes one (inactive meanwhile).
const spspIntent = (node: Node, id: string, walletAddress: string) =>
  createIntent(node, { walletAddress, expiresAt: new Date(Date.now() + SPSP_INTENT_LIFETIME_SECS * 1000).toISOString() }, undefined, id).catch(notFound);

const completeSpspIntent = (node: Node, id: string) => completeIntent(node, id).catch(notFound); // none, or closed already
// A domain refusal (not found, inactive, not open) is no answer here: undefined.
const notFound = (e: unknown): undefined => {
  if (e instanceof DomainError) return undefined;
  throw e;
};

const expired = (node: Node, prepare: IlpPrepare) =>
  reject(node, 'R00', `The packet could not be credited before it expired at ${prepare.expiresAt.toISOString()}`);

// A packet is credited before it expires, or never: its sender owes it only if the Fulfill reaches
// it by then (and this node's sender waits ANSWER_GRACE_MS past it for the answer, no longer). So
// a credit starts only with CREDIT_MARGIN_MS to go (checked before each try), and one still under
// way at the expiry is fenced off: the packet's transfer id is voided, so that the credit's own
// transfer can no longer be written. Of the two, the one on record decides the answer.
async function beforeExpiry(node: Node, transferId: string, expiresAt: Date, credit: Promise<CreditOutcome>): Promise<CreditOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<'expired'>((at) => {
    timer = setTimeout(() => at('expired'), Math.min(expiresAt.getTime() - Date.now(), MAX_TIMER_MS));
  });
  const first = await Promise.race([credit, expiry]).finally(() => clearTimeout(timer));
  if (first !== 'expired') return first;
  const settled = credit.catch(() => undefined); // it no longer decides by itself
  if ((await voidTransfer(node, transferId)) === 'voided') return { kind: 'expired_packet' };
  const made = await settled;
  return made?.kind === 'credited' ? made : { kind: 'refused', refusals: [TRANSFER_EXISTS] }; // by another delivery of the packet
}
const MAX_TIMER_MS = 2 ** 31 - 1; // a timer's longest delay

// From the peer's liquidity to the intent, less the receiving fee (`fee` of `credited`), which goes to
// the intent asset's fee account; across assets through both assets' liquidity accounts (what
// rounding keeps stays in the peer asset's liquidity).
function receiveLegs(peer: PeerRecord, intent: IntentRecord, paid: bigint, credited: bigint, fee: bigint): Leg[] {
  const same = intent.assetId === peer.assetId;
  const payer = same ? account.peer(peer.id) : account.liquidity(intent.assetId);
  const legs: Leg[] = [
    { debit: payer, credit: account.intent(intent.id), amount: (same ? paid : credited) - fee },
    { debit: payer, credit: account.fee(intent.assetId), amount: fee },
  ];
  if (!same) legs.push({ debit: account.peer(peer.id), credit: account.liquidity(peer.assetId), amount: paid });
  return legs.filter((l) => l.amount > 0n);
}
