import { type IlpPrepare, type IlpReply, isIlpReply } from 'ilp-packet';
import { receiveFor, toLedger } from '../amounts';
import { noteLiquidityTaken as noteAssetLiquidityTaken } from '../assets';
import { event, type Outgoing } from '../events';
import { account, type Leg, transferExists, transferItems } from '../ledger';
import { creditFor, intentView } from '../payment-intents';
import type { IntentRecord } from '../payment-intents/schemas';
import { closeOrCredit, findIntent, partition as intentPartition } from '../payment-intents/store';
import { noteLiquidityTaken as notePeerLiquidityTaken } from '../peers';
import type { PeerRecord } from '../peers/schemas';
import { resolveRate } from '../rates';
import { commit } from '../tx';
import { reject } from './packets';
import { receiveMaxReject, streamServer } from './stream';

// A packet from a peer to one of this node's incoming payments (payment intents). The STREAM
// receiver (stateless, keyed by STREAM_SECRET) checks the packet and says which intent it pays;
// the amount it sees is the packet's, converted from the peer's asset into the intent's at the
// peer's rate (rounded down). A packet that pays is settled in one transaction before its Fulfill
// leaves: the peer's liquidity is debited, the intent credited (through both assets' liquidity
// accounts when they differ), and the intent's received amount and state move with it. The
// transfer's id comes from the packet's condition, so a packet delivered twice is credited once
// and fulfilled both times. Too little liquidity is T04; an intent that is completed, expired or
// unknown declines the packet for good (the sender stops at once). No packet takes an intent past
// its incomingAmount (creditFor): one that would is F99 with a StreamMaxMoney frame, except the
// smallest that reaches it across a conversion, whose rounding the node keeps.
const ATTEMPTS = 8;

export async function deliverLocally(peer: PeerRecord, prepare: IlpPrepare): Promise<IlpReply> {
  const server = await streamServer();
  const amount = BigInt(prepare.amount);
  const intentId = amount > 0n ? server.decodePaymentTag(prepare.destination) : undefined;
  let intent = intentId ? await findIntent(intentId) : undefined;
  // Probes, connection closes and packets that are not for a payment of ours: STREAM answers.
  if (!intent) {
    const reply = server.createReply(prepare);
    return isIlpReply(reply) ? reply : reply.finalDecline();
  }
  const paid = toLedger(amount, peer.assetScale);
  let received = amount;
  let oneUnitLess = amount - 1n; // what the packet would bring with one unit less: the rounding's bound
  if (intent.assetId !== peer.assetId) {
    try {
      const { rate } = await resolveRate({ sourceAssetCode: peer.assetCode, destinationAssetCode: intent.assetCode, peerId: peer.id });
      received = receiveFor(amount, rate, peer.assetScale, intent.assetScale);
      oneUnitLess = receiveFor(amount - 1n, rate, peer.assetScale, intent.assetScale);
    } catch (e) {
      return reject('F07', `Cannot convert ${peer.assetCode} to ${intent.assetCode}: ${(e as Error).message}`);
    }
  }
  const money = server.createReply({ ...prepare, amount: received.toString() });
  if (isIlpReply(money)) return money;

  const transferId = `ilp:${peer.id}:${prepare.executionCondition.toString('hex')}`;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const state = intentView(intent).state;
    const before = BigInt(intent.received);
    const incoming = intent.incomingValue === null ? null : BigInt(intent.incomingValue);
    if ((state !== 'pending' && state !== 'processing') || (incoming !== null && before >= incoming)) {
      return (await transferExists(transferId)) ? money.accept() : money.finalDecline(); // a retry of a packet it took
    }
    // Never past incomingAmount: a packet that would take it there is refused as STREAM says, with
    // what the intent takes in all and has received, unless it is a retry of one credited before.
    const credit = creditFor(intent, received, oneUnitLess);
    if (credit === undefined) {
      if (await transferExists(transferId)) return money.accept();
      return receiveMaxReject(prepare, received, incoming!, before);
    }
    // A packet that expired meanwhile is not credited: its sender no longer owes it.
    if (prepare.expiresAt.getTime() <= Date.now()) return reject('R00', `The packet expired at ${prepare.expiresAt.toISOString()}`);

    const total = before + credit;
    const completes = incoming !== null && total >= incoming;
    const now = new Date().toISOString();
    const credited = toLedger(credit, intent.assetScale);
    const transfer = transferItems(transferId, receiveLegs(peer, intent, paid, credited));
    const changes = { state: completes ? 'completed' : 'processing', received: total.toString(), ...(completes && { completedAt: now }) };
    const outgoing: Outgoing[] = completes
      ? [event(intentPartition(intent.id), 'payment_intent.completed', intentView({ ...intent, ...changes } as IntentRecord))]
      : [];
    const failed = await commit([...transfer.items, closeOrCredit(intent, changes, now)], outgoing, 'ilp-receive');
    if (!failed.length) {
      await Promise.all([notePeerLiquidityTaken(peer, paid), intent.assetId !== peer.assetId ? noteAssetLiquidityTaken(intent.assetId, credited) : undefined]);
      return money.accept();
    }
    const reasons = failed.map((i) => transfer.failures[i] ?? 'intent');
    if (reasons.includes('transfer_exists')) return money.accept(); // credited when it came before
    if (reasons.includes(`insufficient:${account.peer(peer.id)}`)) return reject('T04', `Peer ${peer.id} has too little liquidity left for this packet`);
    if (reasons.some((r) => r.startsWith('insufficient:'))) return reject('T04', `Too little ${intent.assetCode} liquidity to deliver this packet`);
    if (reasons.some((r) => r.startsWith('too_large:'))) return reject('F99', 'Crediting this packet would take a balance past 38 digits');
    // Another packet credited the intent first (or it closed): decide again on what it is now.
    const fresh = await findIntent(intent.id);
    if (!fresh) return money.finalDecline();
    intent = fresh;
  }
  return reject('T03', 'The incoming payment is busy; retry the packet');
}

// From the peer's liquidity to the intent; across assets through both assets' liquidity accounts
// (what rounding keeps stays in the peer asset's liquidity).
function receiveLegs(peer: PeerRecord, intent: IntentRecord, paid: bigint, credited: bigint): Leg[] {
  if (intent.assetId === peer.assetId) return [{ debit: account.peer(peer.id), credit: account.intent(intent.id), amount: paid }];
  const legs: Leg[] = [{ debit: account.peer(peer.id), credit: account.liquidity(peer.assetId), amount: paid }];
  if (credited > 0n) legs.push({ debit: account.liquidity(intent.assetId), credit: account.intent(intent.id), amount: credited });
  return legs;
}
